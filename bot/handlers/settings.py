"""Personal settings: /level, /timezone, /lang, /forget (and their buttons)."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from telegram import ForceReply, InlineKeyboardMarkup, Message, Update
from telegram.ext import filters

from bot.core.levels import Level, parse_level
from bot.core.schedule import DEFAULT_DAILY_TIME
from bot.core.timezones import (
    resolve_timezone,
    zone_label,
    zone_of,
)
from bot.handlers.common import BotContext, Turn, edit_text, expired, send
from bot.i18n import LANGUAGES, Html, Strings, parse_language
from bot.keyboards import (
    forget_keyboard,
    level_keyboard,
    parse_forget,
    parse_level_tap,
    parse_settings,
    settings_keyboard,
)
from bot.render import clock_time, level_name, unknown_zone
from bot.services import Services
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
from bot.services.schedules import move_zone, switch_daily


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
    """A message replying to the settings screen's time-zone prompt (in any language): what
    is typed there is a time zone, not an answer to the open question."""

    def __init__(self, strings: Strings) -> None:
        super().__init__(name="RepliesToTimezonePrompt")
        self._prompts = {strings(lang, "settings_timezone_prompt") for lang in LANGUAGES}

    def filter(self, message: Message) -> bool:
        replied = message.reply_to_message
        return (
            replied is not None
            and replied.from_user is not None
            and replied.from_user.is_bot
            and replied.text in self._prompts
        )


async def timezone_reply(update: Update, context: BotContext) -> None:
    """The zone typed in reply to the time-zone prompt, set as `/timezone <zone>` sets it."""
    turn = context.turn(update)
    message = update.effective_message
    if turn is not None and message is not None and message.text:
        await set_timezone(context, turn, message.text.strip())


async def set_timezone(context: BotContext, turn: Turn, wanted: str) -> None:
    """Set the zone a person typed (after /timezone, or in reply to the prompt)."""
    svc, user, chat, lang = turn
    t = svc.strings
    zone = resolve_timezone(wanted)
    if zone is None:
        await send(context, chat.id, [unknown_zone(t, lang, wanted)])
        return
    await move_zone(svc, user, zone)
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
        await send(context, chat.id, [svc.strings(lang, "lang_current", language=name)])
        return
    wanted = parse_language(args[0])
    if wanted is None:
        await send(context, chat.id, [svc.strings(lang, "lang_bad")])
        return
    await set_language(svc, user.user_id, wanted)
    await send(context, chat.id, [svc.strings(wanted, "lang_set")])


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
    if what == "tz":  # a zone is typed, not tapped: the reply to this prompt is the zone
        prompt = svc.strings(lang, "settings_timezone_prompt")
        await send(context, chat.id, [prompt], ForceReply(input_field_placeholder="Asia/Shanghai"))
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
