"""/daily (the chat's daily question schedule), its start button, /reminders, and a group's
/timezone (the zone its schedule and round deadlines are read in)."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from telegram import Chat, Update

from bot.core.models import ChatRecord, UserProfile
from bot.core.schedule import DailyCommand, parse_daily, parse_switch
from bot.core.timezones import (
    resolve_timezone,
    zone_choices,
    zone_label,
    zone_of,
)
from bot.handlers.common import (
    BotContext,
    edit_text,
    expired,
    is_admin,
    refuse_non_admin,
    send,
)
from bot.i18n import Html
from bot.keyboards import (
    daily_zone_keyboard,
    parse_daily_tap,
    parse_daily_zone_tap,
    zone_keyboard,
)
from bot.render import clock_time, unknown_zone
from bot.services import Services
from bot.services.preferences import set_reminders
from bot.services.schedules import reschedule, set_daily

_ZH_WEEKDAYS = "一二三四五六日"


def _next_text(at: datetime, zone: str, lang: str) -> str:
    """The next prompt's local date and time, written the way the user's language does."""
    local = at.astimezone(ZoneInfo(zone))
    if lang == "zh":
        return f"{local.month}月{local.day}日（周{_ZH_WEEKDAYS[local.weekday()]}）{local:%H:%M}"
    return local.strftime("%a %d %b %H:%M")


async def _chat_record(svc: Services, chat: Chat) -> ChatRecord:
    return await svc.chats.record(chat.id, chat.type, chat.title or chat.first_name or "")


async def daily(update: Update, context: BotContext) -> None:
    svc = context.svc
    chat = update.effective_chat
    if chat is None:
        return
    user = context.user
    lang = context.lang
    t = svc.strings
    command = parse_daily(list(context.args or []))
    if command.problem is not None:
        # A zone nobody knows: the zones it may mean, each a button setting the rest.
        keyboard = None
        if command.problem in ("zone", "ambiguous_zone"):
            rest = parse_daily([a for a in context.args or [] if a != command.bad_value])
            if rest.at is not None:
                choices = zone_choices(command.bad_value[:60])
                keyboard = daily_zone_keyboard(choices, rest.at, rest.days)
        if command.problem == "ambiguous_zone":
            await send(context, chat.id, [unknown_zone(t, lang, command.bad_value)], keyboard)
            return
        key = {"time": "daily_bad_time", "zone": "daily_bad_zone"}.get(
            command.problem, "daily_bad_words"
        )
        text = f"{t(lang, key, value=command.bad_value[:40])}\n{t(lang, 'daily_examples')}"
        await send(context, chat.id, [Html(text)], keyboard)
        return
    if not command.show and not await is_admin(update, context):
        await refuse_non_admin(update, context, lang)
        return
    record = await _chat_record(svc, chat)
    if command.show:
        await send(
            context,
            chat.id,
            [Html(f"{_status(svc, record, user, lang)}\n{t(lang, 'daily_examples')}")],
        )
        return
    updated = await set_daily(svc, record, command)
    if command.zone is not None and user is not None:
        # A zone named in a private chat became the user's: read it back, or the reply
        # would still say the time is in the default zone.
        user = await svc.chats.user(user.user_id) or user
    await send(context, chat.id, [_confirmation(svc, updated, user, lang)])


def _confirmation(svc: Services, record: ChatRecord, user: UserProfile | None, lang: str) -> Html:
    return _describe(svc, record, user, lang, on="daily_set", off="daily_off")


def _status(svc: Services, record: ChatRecord, user: UserProfile | None, lang: str) -> Html:
    return _describe(svc, record, user, lang, on="daily_status_on", off="daily_status_off")


def _describe(
    svc: Services, record: ChatRecord, user: UserProfile | None, lang: str, *, on: str, off: str
) -> Html:
    if not record.daily_enabled or record.next_due_at is None:
        return svc.strings(lang, off)
    zone = zone_of(svc.settings.default_timezone, record, user)
    text = svc.strings(
        lang,
        on,
        time=clock_time(record.daily_time),
        days=svc.strings(lang, f"days_{record.daily_days.value}"),
        zone=zone_label(zone),
        next=_next_text(record.next_due_at, zone, lang),
    )
    if record.kind == "private" and not (user and user.timezone):
        # Still on the bot's default zone: say so, or 08:30 may arrive at the wrong hour.
        text = Html(f"{text}\n{svc.strings(lang, 'daily_zone_hint', zone=zone_label(zone))}")
    elif record.kind != "private" and not record.timezone:
        text = Html(f"{text}\n{svc.strings(lang, 'group_zone_hint', zone=zone_label(zone))}")
    return text


async def group_timezone(update: Update, context: BotContext) -> None:
    """A group's /timezone: anyone sees it, admins set it; the daily round keeps its hour."""
    turn = context.turn(update)
    if turn is None:
        return
    svc, _, chat, lang = turn
    t = svc.strings
    record = await _chat_record(svc, chat)
    now = svc.practice.clock()
    wanted = " ".join(context.args or []).strip()
    if not wanted:
        zone = zone_of(svc.settings.default_timezone, record)
        key = "group_timezone_current" if record.timezone else "group_timezone_unset"
        local = clock_time(now.astimezone(ZoneInfo(zone)).time())
        await send(context, chat.id, [t(lang, key, zone=zone_label(zone), time=local)])
        return
    chosen = resolve_timezone(wanted)
    if chosen is None:  # the close matches as buttons (a tap is an admin's, as this is)
        keyboard = zone_keyboard(t, lang, zone_choices(wanted[:60]), "set")
        await send(context, chat.id, [unknown_zone(t, lang, wanted)], keyboard)
        return
    if not await is_admin(update, context):
        await refuse_non_admin(update, context, lang)
        return
    await reschedule(svc, record, zone=chosen)
    local = clock_time(now.astimezone(ZoneInfo(chosen)).time())
    text = t(lang, "group_timezone_set", zone=zone_label(chosen), time=local)
    await send(context, chat.id, [text])


async def daily_button(update: Update, context: BotContext) -> None:
    """The /start button: turn the daily question on at the time its label showed.

    `daily:on:HH:MM` carries that time; the older `daily:on` means the chat's stored time.
    """
    query = update.callback_query
    chat = update.effective_chat
    svc = context.svc
    if query is None or chat is None:
        return
    tap = parse_daily_tap(query.data)
    if tap is None:  # only the data the bot makes turns the daily question on
        await expired(context, query)
        return
    await query.answer()
    user = context.user
    lang = context.lang
    if not await is_admin(update, context):
        await refuse_non_admin(update, context, lang)
        return
    record = await _chat_record(svc, chat)
    updated = await set_daily(svc, record, DailyCommand(enabled=True, at=tap.at))
    await send(context, chat.id, [_confirmation(svc, updated, user, lang)])


async def daily_zone_button(update: Update, context: BotContext) -> None:
    """A zone tapped under `/daily 08:30 Shanghia`: the daily question at that time in that
    zone, as `/daily 08:30 Asia/Shanghai` would set it (in a group, an admin's tap only)."""
    query = update.callback_query
    chat = update.effective_chat
    svc = context.svc
    if query is None or chat is None:
        return
    tap = parse_daily_zone_tap(query.data)
    if tap is None:
        await expired(context, query)
        return
    lang = context.lang
    if not await is_admin(update, context):
        await query.answer(svc.strings(lang, "admins_only"))
        return
    await query.answer()
    record = await _chat_record(svc, chat)
    command = DailyCommand(enabled=True, at=tap.at, zone=tap.zone, days=tap.days)
    updated = await set_daily(svc, record, command)
    user = context.user
    if user is not None:  # a private chat's zone became the user's: read it back
        user = await svc.chats.user(user.user_id) or user
    await edit_text(context, query, _confirmation(svc, updated, user, lang))


async def reminders(update: Update, context: BotContext) -> None:
    turn = context.turn(update)
    if turn is None:
        return
    svc, user, chat, lang = turn
    word = " ".join(context.args or []).strip()
    switch = parse_switch(word)
    enabled = user.reminders if switch is None else switch
    if enabled != user.reminders:
        await set_reminders(svc, user.user_id, enabled)
    status = svc.strings(lang, "reminders_on" if enabled else "reminders_off")
    if word and switch is None:  # not on or off: say so, then how things stand
        status = Html(f"{svc.strings(lang, 'reminders_bad', word=word[:40])}\n{status}")
    await send(context, chat.id, [status])
