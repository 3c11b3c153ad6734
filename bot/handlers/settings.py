"""Settings: /level, /timezone, /lang, /forget, /settings (and their buttons), personal in
a private chat; in a group, /settings is the group's screen (admins change it; its packs
button turns the message into the /packs list, with "← Back").

What the bot does not know it asks, with buttons: a zone is suggested, never assumed (from
the Telegram app's language), and a mistyped one answered with the close matches to tap."""

from __future__ import annotations

from datetime import datetime, time
from zoneinfo import ZoneInfo

from telegram import ForceReply, InlineKeyboardMarkup, Message, Update
from telegram.ext import filters

from bot.core.levels import Level, parse_level
from bot.core.schedule import DEFAULT_DAILY_TIME, DailyCommand
from bot.core.timezones import (
    likely_zones,
    resolve_timezone,
    zone_choices,
    zone_label,
    zone_of,
)
from bot.handlers.common import (
    BotContext,
    Turn,
    edit_text,
    expired,
    is_admin,
    send,
)
from bot.i18n import LANGUAGES, Html, Strings, parse_language
from bot.keyboards import (
    ZoneTap,
    forget_keyboard,
    group_settings_keyboard,
    language_keyboard,
    level_keyboard,
    parse_forget,
    parse_group_settings,
    parse_language_tap,
    parse_level_tap,
    parse_settings,
    parse_zone_tap,
    settings_keyboard,
    start_keyboard,
    zone_keyboard,
)
from bot.render import clock_time, day_text, group_packs_line, level_name, unknown_zone
from bot.services import Services
from bot.services.pack_lists import drawing_language, packs_screen
from bot.services.preferences import (
    Preferences,
    ask_forget,
    cancel_forget,
    forget_user,
    preferences,
    set_language,
    set_level,
    set_reminders,
)
from bot.services.rounds import set_group_language, set_round_length
from bot.services.schedules import move_zone, reschedule, set_daily, switch_daily


async def level(update: Update, context: BotContext) -> None:
    turn = context.turn(update)
    if turn is None:
        return
    svc, user, chat, lang = turn
    t = svc.strings
    args = context.args or []
    if not args:
        # Never chosen: say so, and name the level questions are asked at meanwhile.
        key = "level_current" if user.level else "level_default"
        current = level_name(t, lang, user.level or Level.BEGINNER)
        await send(
            context,
            chat.id,
            [t(lang, key, level=current)],
            level_keyboard(t, lang, user.level),
        )
        return
    chosen = parse_level(" ".join(args))
    if chosen is None:
        await send(context, chat.id, [t(lang, "level_bad", word=" ".join(args)[:40])])
        return
    await set_level(svc, user.user_id, chosen)
    await send(context, chat.id, [t(lang, "level_set", level=level_name(t, lang, chosen))])


async def level_button(update: Update, context: BotContext) -> None:
    query = update.callback_query
    svc = context.svc
    user = context.user
    if query is None or user is None or query.message is None:
        return
    lang = context.lang
    chosen = parse_level_tap(query.data)
    if chosen is None:
        await expired(context, query)
        return
    await query.answer()
    await set_level(svc, user.user_id, chosen)
    name = level_name(svc.strings, lang, chosen)
    await send(context, query.message.chat.id, [svc.strings(lang, "level_set", level=name)])


def _local_time(now: datetime, zone: str) -> str:
    return now.astimezone(ZoneInfo(zone)).strftime("%H:%M")


async def timezone(update: Update, context: BotContext) -> None:
    turn = context.turn(update)
    if turn is None:
        return
    svc, user, chat, lang = turn
    t = svc.strings
    wanted = " ".join(context.args or []).strip()
    if not wanted:
        zone_now = zone_of(svc.settings.default_timezone, user=user)
        local = _local_time(svc.practice.clock(), zone_now)
        current = t(lang, "timezone_current", zone=zone_label(zone_now), time=local)
        await send(context, chat.id, [current])
        return
    await set_timezone(context, turn, wanted)


class RepliesToTimezonePrompt(filters.MessageFilter):
    """A message replying to a time-zone prompt (the settings screen's or /start's, in any
    language): what is typed there is a time zone, not an answer to the open question."""

    def __init__(self, strings: Strings) -> None:
        super().__init__(name="RepliesToTimezonePrompt")
        self._prompts = {
            strings(lang, key)
            for lang in LANGUAGES
            for key in ("settings_timezone_prompt", "start_zone_prompt")
        }

    def filter(self, message: Message) -> bool:
        replied = message.reply_to_message
        return (
            replied is not None
            and replied.from_user is not None
            and replied.from_user.is_bot
            and replied.text in self._prompts
        )


async def timezone_reply(update: Update, context: BotContext) -> None:
    """The zone typed in reply to the time-zone prompt, set as `/timezone <zone>` sets it;
    typed at /start, the daily time is offered next, as a tapped zone would."""
    turn = context.turn(update)
    message = update.effective_message
    if turn is None or message is None or not message.text:
        return
    replied = message.reply_to_message
    at_start = replied is not None and replied.text in {
        turn.svc.strings(lang, "start_zone_prompt") for lang in LANGUAGES
    }
    await set_timezone(context, turn, message.text.strip(), "start" if at_start else "set")


async def set_timezone(context: BotContext, turn: Turn, wanted: str, purpose: str = "set") -> None:
    """Set the zone a person typed (after /timezone, or in reply to a prompt); a zone nobody
    knows gets its close matches as buttons (`purpose`: what a tap on one leads to)."""
    svc, user, chat, lang = turn
    t = svc.strings
    zone = resolve_timezone(wanted)
    if zone is None:
        keyboard = zone_keyboard(t, lang, zone_choices(wanted[:60]), purpose)
        await send(context, chat.id, [unknown_zone(t, lang, wanted)], keyboard)
        return
    await move_zone(svc, user, zone)
    if purpose == "start":
        text, keyboard = await _start_zone_set(context, user.user_id, chat.id, lang, zone)
        await send(context, chat.id, [text], keyboard)
        return
    await send(
        context,
        chat.id,
        [
            t(
                lang,
                "timezone_set",
                zone=zone_label(zone),
                time=_local_time(svc.practice.clock(), zone),
            )
        ],
    )


async def language(update: Update, context: BotContext) -> None:
    turn = context.turn(update)
    if turn is None:
        return
    svc, user, chat, lang = turn
    args = context.args or []
    if not args:
        name = svc.strings(lang, "language_name")
        text = svc.strings(lang, "lang_pick", language=name)
        await send(context, chat.id, [text], language_keyboard(lang))
        return
    wanted = parse_language(args[0])
    if wanted is None:
        await send(context, chat.id, [svc.strings(lang, "lang_bad")])
        return
    await set_language(svc, user.user_id, wanted)
    await send(context, chat.id, [svc.strings(wanted, "lang_set")])


async def language_button(update: Update, context: BotContext) -> None:
    """A tap on /lang's buttons: the person's language in private, the group's in a group
    (admins only); the message is redrawn in the language chosen."""
    query = update.callback_query
    turn = context.turn(update)
    if query is None or turn is None:
        return
    svc, user, chat, lang = turn
    wanted = parse_language_tap(query.data)
    if wanted is None:
        await expired(context, query)
        return
    if chat.type == chat.PRIVATE:
        await query.answer()
        await set_language(svc, user.user_id, wanted)
        name = svc.strings(wanted, "language_name")
        text = svc.strings(wanted, "lang_pick", language=name)
    else:
        if not await is_admin(update, context):
            await query.answer(svc.strings(lang, "admins_only"))
            return
        await query.answer()
        await set_group_language(svc, chat.id, chat.type, chat.title or "", wanted)
        name = svc.strings(wanted, f"language_{wanted}")
        text = svc.strings(wanted, "group_lang_current", language=name)
    await edit_text(context, query, text, language_keyboard(wanted))


async def zone_button(update: Update, context: BotContext) -> None:
    """A tapped zone (a suggestion, /start's question, a settings screen's picker), or "type
    a city": set it for whom the screen is about, and redraw the screen it was on."""
    query = update.callback_query
    turn = context.turn(update)
    if query is None or turn is None:
        return
    svc, user, chat, lang = turn
    tap = parse_zone_tap(query.data)
    private = chat.type == chat.PRIVATE
    # A group's buttons in a group, a person's in private; "set" (a suggestion) in either.
    if tap is None or (tap.purpose != "set" and (tap.purpose == "grp") == private):
        await expired(context, query)
        return
    if not private:
        await _group_zone_tapped(update, context, tap)
        return
    await query.answer()
    if tap.zone is None:  # typed instead: the reply to this prompt is the zone
        key = "start_zone_prompt" if tap.purpose == "start" else "settings_timezone_prompt"
        code = update.effective_user.language_code if update.effective_user else None
        placeholder = likely_zones(code)
        await send(
            context,
            chat.id,
            [svc.strings(lang, key)],
            ForceReply(input_field_placeholder=placeholder[0]),
        )
        return
    await move_zone(svc, user, tap.zone)
    if tap.purpose == "start":
        text, keyboard = await _start_zone_set(context, user.user_id, chat.id, lang, tap.zone)
        welcome = svc.strings(lang, "welcome", name=user.first_name or "👋")
        await edit_text(context, query, Html(f"{welcome}\n\n{text}"), keyboard)
    elif tap.purpose == "scr":
        shown = await preferences(svc, user.user_id, chat.id)
        await edit_text(context, query, *_settings_view(svc, shown, lang))
    else:
        local = _local_time(svc.practice.clock(), tap.zone)
        text = svc.strings(lang, "timezone_set", zone=zone_label(tap.zone), time=local)
        await edit_text(context, query, text)


async def _start_zone_set(
    context: BotContext, user_id: int, chat_id: int, lang: str, zone: str
) -> tuple[Html, InlineKeyboardMarkup]:
    """/start after the zone is known: say it, and offer the daily time (local to it)."""
    svc = context.svc
    user = await svc.chats.user(user_id)
    record = await svc.chats.find(chat_id)
    daily_time = clock_time(record.daily_time if record is not None else DEFAULT_DAILY_TIME)
    local = _local_time(svc.practice.clock(), zone)
    text = svc.strings(lang, "start_zone_set", zone=zone_label(zone), time=local)
    level = user.level if user is not None else None
    return text, start_keyboard(svc.strings, lang, level, daily_time, context.bot.username)


async def _group_zone_tapped(update: Update, context: BotContext, tap: ZoneTap) -> None:
    query = update.callback_query
    chat = update.effective_chat
    assert query is not None
    assert chat is not None
    svc, lang = context.svc, context.lang
    if tap.zone is None:  # a group's picker offers no typing: /timezone <city> does that
        await expired(context, query)
        return
    if not await is_admin(update, context):
        await query.answer(svc.strings(lang, "admins_only"))
        return
    await query.answer()
    record = await svc.chats.record(chat.id, chat.type, chat.title or "")
    await reschedule(svc, record, zone=tap.zone)
    if tap.purpose == "grp":
        await edit_text(context, query, *await _group_view(svc, chat.id, lang, admin=True))
        return
    local = _local_time(svc.practice.clock(), tap.zone)
    text = svc.strings(lang, "group_timezone_set", zone=zone_label(tap.zone), time=local)
    await edit_text(context, query, text)


_FORGOTTEN_KEY = "forgotten"  # user id -> the /forget token that deleted their data
_FORGOTTEN_KEPT = 256


async def forget(update: Update, context: BotContext) -> None:
    turn = context.turn(update)
    if turn is None:
        return
    svc, user, chat, lang = turn
    token = await ask_forget(svc, user.user_id)
    keyboard = forget_keyboard(svc.strings, lang, token)
    await send(context, chat.id, [svc.strings(lang, "forget_confirm")], keyboard)


async def forget_button(update: Update, context: BotContext) -> None:
    query = update.callback_query
    svc = context.svc
    if query is None or query.message is None or update.effective_user is None:
        return
    lang = context.lang
    # forget:yes:<token> / forget:no:<token> (a button from before tokens has none)
    tap = parse_forget(query.data)
    if tap is None:
        await expired(context, query)
        return
    await query.answer()
    token = tap.token
    user_id = update.effective_user.id
    if not tap.confirmed:
        await cancel_forget(svc, user_id, token)
        await edit_text(context, query, svc.strings(lang, "forget_cancelled"))
    elif token and await forget_user(svc, user_id, token):
        # A quick second tap of the same button reaches us after the deletion: it must not
        # say "nothing was deleted". The user's row is gone, so the used token is kept here,
        # for the last few users only (a tap comes seconds later, not after a restart).
        done = context.bot_data.setdefault(_FORGOTTEN_KEY, {})
        done[user_id] = token
        while len(done) > _FORGOTTEN_KEPT:
            del done[next(iter(done))]
        await edit_text(context, query, svc.strings(lang, "forget_done"))
    elif token and context.bot_data.get(_FORGOTTEN_KEY, {}).get(user_id) == token:
        await edit_text(context, query, svc.strings(lang, "forget_done"))
    else:  # cancelled, replaced by a newer /forget, or from before tokens
        await edit_text(context, query, svc.strings(lang, "forget_expired"))


# -- /settings: one screen with buttons ------------------------------------------------------


def _settings_view(
    svc: Services, shown: Preferences, lang: str
) -> tuple[Html, InlineKeyboardMarkup]:
    t = svc.strings
    user, chat = shown.user, shown.chat
    zone = zone_of(svc.settings.default_timezone, user=user)
    daily_on = chat is not None and chat.daily_enabled
    daily_time = clock_time(chat.daily_time if chat is not None else DEFAULT_DAILY_TIME)
    text = t(
        lang,
        "settings_title",
        level=level_name(t, lang, user.level or Level.BEGINNER),
        language=t(lang, "language_name"),
        zone=zone_label(zone),
        time=_local_time(svc.practice.clock(), zone),
        daily=t(
            lang,
            "settings_daily_on" if daily_on else "settings_daily_off",
            time=daily_time,
            days=t(lang, f"days_{chat.daily_days.value}") if chat is not None else "",
        ),
        reminders=t(lang, "settings_on" if user.reminders else "settings_off"),
        interview=_interview_line(t, lang, shown),
    )
    keyboard = settings_keyboard(
        t,
        lang,
        level=user.level or Level.BEGINNER,
        daily_on=daily_on,
        daily_time=daily_time,
        reminders=user.reminders,
        zone=zone_label(zone),
    )
    return text, keyboard


def _interview_line(t: Strings, lang: str, shown: Preferences) -> Html:
    if shown.interview is None:
        return t(lang, "settings_interview_none")
    day, days = shown.interview
    return t(lang, "settings_interview", date=day_text(day, lang), days=days)


async def settings_command(update: Update, context: BotContext) -> None:
    """/settings: level, language, time zone, daily question and reminders on one screen."""
    turn = context.turn(update)
    if turn is None:
        return
    svc, user, chat, lang = turn
    text, keyboard = _settings_view(svc, await preferences(svc, user.user_id, chat.id), lang)
    await send(context, chat.id, [text], keyboard)


async def settings_button(update: Update, context: BotContext) -> None:
    """A tap on the settings screen: change the setting, redraw the screen in place."""
    query = update.callback_query
    turn = context.turn(update)
    if query is None or turn is None:
        return
    svc, user, chat, lang = turn
    tap = parse_settings(query.data)
    if tap is None:
        await expired(context, query)
        return
    what, value = tap
    await query.answer()
    if what == "tz":  # the screen becomes a zone picker, in place; a tap redraws it
        shown = await preferences(svc, user.user_id, chat.id)
        current = zone_of(svc.settings.default_timezone, user=shown.user)
        code = update.effective_user.language_code if update.effective_user else None
        zones = tuple(dict.fromkeys((*likely_zones(code), current)))[:5]
        text = svc.strings(lang, "zone_pick", zone=zone_label(current))
        keyboard = zone_keyboard(svc.strings, lang, zones, "scr", typing=True, back="set:show")
        await edit_text(context, query, text, keyboard)
        return
    if what == "level" and (chosen := parse_level(value)) is not None:
        await set_level(svc, user.user_id, chosen)
    elif what == "lang":
        await set_language(svc, user.user_id, value)
        lang = value
    elif what == "rem":
        await set_reminders(svc, user.user_id, value == "on")
    elif what == "daily":
        await switch_daily(svc, chat.id, chat.type, chat.first_name or "", value == "on")
    text, keyboard = _settings_view(svc, await preferences(svc, user.user_id, chat.id), lang)
    await edit_text(context, query, text, keyboard)


# -- a group's /settings: one screen, admins change it ---------------------------------------


async def _group_view(
    svc: Services, chat_id: int, lang: str, *, admin: bool
) -> tuple[Html, InlineKeyboardMarkup | None]:
    """A group's language, zone, daily round, round length, packs and level (when it has
    one; /level sets it); buttons for admins only."""
    t = svc.strings
    record = await svc.chats.find(chat_id)
    zone = zone_of(svc.settings.default_timezone, record)
    daily_on = record is not None and record.daily_enabled
    daily_time = clock_time(record.daily_time if record is not None else DEFAULT_DAILY_TIME)
    minutes = (record.round_minutes if record else None) or svc.settings.round_minutes
    days = t(lang, f"days_{record.daily_days.value}") if record is not None else ""
    draw_lang = (record.language if record else None) or lang
    packs = group_packs_line(
        t,
        lang,
        await svc.packs.followed(chat_id),
        drawn_in=draw_lang,
        any_in_language=svc.packs.any_in(draw_lang),
    )
    title = t(
        lang,
        "group_settings_title",
        language=t(lang, f"language_{lang}"),
        zone=zone_label(zone),
        time=_local_time(svc.practice.clock(), zone),
        daily=t(
            lang,
            "settings_daily_on" if daily_on else "settings_daily_off",
            time=daily_time,
            days=days,
        ),
        minutes=minutes,
        packs=packs,
    )
    lines = [title]
    if record is not None and record.level is not None:
        lines.append(t(lang, "group_settings_level", level=level_name(t, lang, record.level)))
    lines.append(t(lang, "group_settings_admin_note" if admin else "group_settings_member_note"))
    text = Html("\n".join(lines))
    if not admin:
        return text, None
    keyboard = group_settings_keyboard(
        t, lang, daily_on=daily_on, daily_time=daily_time, minutes=minutes, zone=zone_label(zone)
    )
    return text, keyboard


async def group_settings_command(update: Update, context: BotContext) -> None:
    """/settings in a group: the group's settings on one screen; buttons for admins, a
    read-only screen (and who may change it) for everyone else."""
    turn = context.turn(update)
    if turn is None:
        return
    svc, _, chat, lang = turn
    await svc.chats.register(chat.id, chat.type, chat.title or "", lang)
    admin = await is_admin(update, context)
    text, keyboard = await _group_view(svc, chat.id, lang, admin=admin)
    await send(context, chat.id, [text], keyboard)


async def group_settings_button(update: Update, context: BotContext) -> None:
    """A tap on a group's settings screen: an admin's change, the screen redrawn in place
    (in the group's new language after a language tap); anyone else gets a short note."""
    query = update.callback_query
    turn = context.turn(update)
    if query is None or turn is None:
        return
    svc, user, chat, lang = turn
    tap = parse_group_settings(query.data)
    if tap is None or chat.type == chat.PRIVATE:
        await expired(context, query)
        return
    if not await is_admin(update, context):
        await query.answer(svc.strings(lang, "admins_only"))
        return
    await query.answer()
    what, value = tap
    title = chat.title or ""
    if what == "tz":
        record = await svc.chats.find(chat.id)
        current = zone_of(svc.settings.default_timezone, record)
        code = update.effective_user.language_code if update.effective_user else None
        zones = tuple(dict.fromkeys((*likely_zones(code), current)))[:5]
        text = svc.strings(lang, "group_zone_pick", zone=zone_label(current))
        keyboard = zone_keyboard(svc.strings, lang, zones, "grp", back="grp:show")
        await edit_text(context, query, text, keyboard)
        return
    if what == "packs":  # the /packs list on this message: it fits, and Back returns here
        draw_lang = await drawing_language(svc, chat.id, chat.type, lang)
        shown = await packs_screen(
            svc, chat.id, user.user_id, lang, draw_lang, False, in_settings=True
        )
        await edit_text(context, query, *shown)
        return
    if what == "lang":
        await set_group_language(svc, chat.id, chat.type, title, value)
        lang = value
    elif what == "daily":
        await switch_daily(svc, chat.id, chat.type, title, value == "on")
    elif what == "at":  # a time tapped: the daily round at that time (on, if it was off)
        record = await svc.chats.record(chat.id, chat.type, title)
        at = time(int(value[:2]), int(value[2:]))
        await set_daily(svc, record, DailyCommand(enabled=True, at=at))
    elif what == "len":
        await set_round_length(svc, chat.id, chat.type, title, int(value))
    await edit_text(context, query, *await _group_view(svc, chat.id, lang, admin=True))
