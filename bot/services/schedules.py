"""The daily question: saving a chat's schedule (a /daily, a zone change, a settings tap) so
its next occurrence moves with it, reading it back for the scheduler, and drafting the day's
prompt (a private question, or a group's round) that the scheduler records in the outbox,
or, when it waited for the question the user was on, that the close of that question does.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, time, timedelta

from bot.core.content import Question
from bot.core.mock import is_stale
from bot.core.models import ChatRecord, UserProfile
from bot.core.outbox import Draft, Kind
from bot.core.practice import NoPacks
from bot.core.schedule import DailyCommand, DailySchedule, Days, daily_waits, next_occurrence
from bot.core.streaks import local_day
from bot.core.timezones import zone_of
from bot.i18n import user_language
from bot.keyboards import how_it_went_keyboard, packs_keyboard, question_keyboard
from bot.render import asked_messages, day_text, no_packs_message, plan_countdown
from bot.services import Services, interview
from bot.services.rounds import close_round, draft_round


def schedule_of(chat: ChatRecord, default_zone: str) -> DailySchedule:
    return DailySchedule(chat.daily_time, chat.daily_days, zone_of(default_zone, chat))


async def save_schedule(
    svc: Services,
    record: ChatRecord,
    *,
    enabled: bool,
    at: time,
    days: Days,
    zone: str | None,
) -> None:
    """Save the chat's daily question; its next occurrence moves with the time and zone
    (`zone` None: none of its own, so `zone_of` picks the default)."""
    saved = replace(record, daily_time=at, daily_days=days, timezone=zone)
    schedule = schedule_of(saved, svc.settings.default_timezone)
    next_due = next_occurrence(schedule, svc.practice.clock()) if enabled else None
    await svc.storage.set_schedule(
        record.chat_id, enabled=enabled, at=at, days=days, zone=zone, next_due=next_due
    )


async def move_zone(svc: Services, user: UserProfile, zone: str) -> None:
    """The user's time zone changes, and the daily question of their private chat moves with
    it (08:30 stays 08:30 local), in one transaction."""
    record = await svc.storage.get_chat(user.user_id)
    next_due = None
    if record is not None and record.daily_enabled:
        moved = schedule_of(replace(record, timezone=zone), svc.settings.default_timezone)
        next_due = next_occurrence(moved, svc.practice.clock())
    await svc.storage.move_zone(user.user_id, zone, next_due)


async def set_daily(svc: Services, record: ChatRecord, command: DailyCommand) -> ChatRecord:
    """Apply a /daily change (or its start button) and return the chat as saved: what the
    command leaves out stays as it was, the zone too (a group keeps having none until an
    admin names one, so its members are told their times are UTC). A private chat's zone is
    its user's: a zone named there is the user's new zone."""
    zone = command.zone or record.timezone
    at = command.at or record.daily_time
    days = command.days or record.daily_days
    enabled = record.daily_enabled if command.enabled is None else command.enabled
    await save_schedule(svc, record, enabled=enabled, at=at, days=days, zone=zone)
    updated = await svc.storage.get_chat(record.chat_id)
    assert updated is not None
    return updated


async def switch_daily(svc: Services, chat_id: int, kind: str, title: str, enabled: bool) -> None:
    """The settings screen's daily question on or off: same time, days and zone (a chat
    never registered is registered first)."""
    record = await svc.chats.find(chat_id) or await svc.chats.register(chat_id, kind, title)
    await reschedule(svc, record, zone=record.timezone, enabled=enabled)


async def reschedule(
    svc: Services, record: ChatRecord, *, zone: str | None, enabled: bool | None = None
) -> None:
    """Save the chat's schedule in `zone` (on or off with `enabled`), same time and days."""
    enabled = record.daily_enabled if enabled is None else enabled
    at, days = record.daily_time, record.daily_days
    await save_schedule(svc, record, enabled=enabled, at=at, days=days, zone=zone)


@dataclass(frozen=True, slots=True)
class Waits:
    """The day's prompt waits: the user is on another question (opened moments ago)."""

    question_id: str


async def draft_daily_prompt(
    svc: Services, chat: ChatRecord, day: str, due_at: datetime, deadline_at: datetime
) -> Draft | Waits | None:
    """The day's prompt for a chat: a question (private) or a new round (group).

    A private chat whose user is on a question (`daily_waits`) gets nothing now: the prompt
    waits for that question to be answered or skipped (`ask_waiting_daily`). A
    question left open longer is closed by the daily one, which names it.
    """
    chat_id = chat.chat_id
    key = f"daily:{chat_id}:{day}"
    if chat.kind != "private":
        still_open = await svc.storage.open_round_of(chat_id)
        if still_open is not None:  # the daily round's time has come: results first
            await close_round(svc, still_open, chat.language or "en")
        drafted = await draft_round(svc, chat_id, level=None, daily=True)
        if isinstance(drafted, NoPacks):
            lang = chat.language or "en"
            return await _no_packs_once(svc, chat_id, lang, drafted, key, day, due_at, deadline_at)
        if drafted is None:
            return None
        round_id, question_id, text = drafted
        return Draft(
            Kind.ROUND, key, chat_id, (text,), deadline_at,
            local_day=day, question_id=question_id, round_id=round_id,
        )  # fmt: skip
    user = await svc.storage.get_user(chat_id)
    if user is None:
        return None
    lang = user_language(user)
    mock = await svc.storage.running_mock(chat_id)
    if mock is not None and not is_stale(mock.step_at, svc.practice.clock()):
        # A mock interview is on: the daily question waits for its report, never takes
        # one of its answers (bot/handlers/private.py asks it once the report is sent).
        return Waits(mock.question_id)
    await _ask_how_it_went(svc, chat_id, user, lang)
    state = await svc.storage.get_open_question(chat_id)
    asked = None
    if state is not None and daily_waits(state.asked_at, svc.practice.clock()):
        if not (state.asked_at >= due_at and await svc.storage.daily_attempts(chat_id, day) > 1):
            return Waits(state.question_id)
        # Opened by this very prompt before it was recorded (the process stopped between):
        # the same question is sent, nothing replaced.
        asked = await svc.practice.asked_again(chat_id)
    seen = state.question_id if state is not None else None
    header = [svc.strings(lang, "daily_header")]
    if asked is None and (planned := await interview.daily_choice(svc, user)):
        # An interview date: the countdown, over the plan's question (if one is left to ask).
        header.append(plan_countdown(svc.strings, lang, planned.status.days_left, planned.quota))
        if planned.question is not None:
            asked = await svc.practice.ask_question(chat_id, user, planned.question, replacing=seen)
    if asked is None:
        drawn = await svc.practice.ask(chat_id, user, None, None, lang, replacing=seen)
        if isinstance(drawn, NoPacks):
            return await _no_packs_once(svc, chat_id, lang, drawn, key, day, due_at, deadline_at)
        asked = drawn
    if asked is None:
        # Nothing to ask, or a question opened a moment ago (a /quiz): that one stays.
        state = await svc.storage.get_open_question(chat_id)
        return None if state is None or state.question_id == seen else Waits(state.question_id)
    q = asked.question
    # As /quiz asks it (the same notes: the bank's language, a level used up), with a header.
    messages = asked_messages(svc.strings, lang, asked, header)
    keyboard = question_keyboard(svc.strings, lang, q.id).to_dict()
    return Draft(
        Kind.DAILY, key, chat_id, tuple(messages), deadline_at,
        keyboard=keyboard, local_day=day, question_id=q.id,
    )  # fmt: skip


async def ask_waiting_daily(
    svc: Services, chat_id: int, user: UserProfile, lang: str, bot_username: str | None = None
) -> bool:
    """The day's daily question, if it waited for the question just closed (answered,
    skipped or revealed): opened and recorded in the outbox, once (True). One that waited
    since an earlier day lapses."""
    practice = svc.practice
    waiting = await svc.storage.waiting_daily(chat_id)  # a read: most answers stop here
    if waiting is None:
        return False
    now = practice.clock()
    day = local_day(now, practice.zone(user)).isoformat()
    if waiting != day:
        await svc.storage.lapse_waiting_daily(chat_id)
        return False
    header = [svc.strings(lang, "daily_header")]
    planned = await interview.daily_choice(svc, user)
    chosen: tuple[Question, bool] | NoPacks | None = None
    if planned is not None:  # an interview date: the countdown, over the plan's question
        days_left = planned.status.days_left
        header.append(plan_countdown(svc.strings, lang, days_left, planned.quota))
        chosen = (planned.question, False) if planned.question is not None else None
    if chosen is None:
        chosen = await practice.choose(chat_id, user, None, None, lang)
    if chosen is None or isinstance(chosen, NoPacks):  # none to ask: the wait lapses
        await svc.storage.lapse_waiting_daily(chat_id)
        return False
    question, exhausted = chosen
    asked = await practice.level_done_note(user, practice.asked(question, exhausted=exhausted))
    # As the scheduler drafts it (draft_daily_prompt), sent by the outbox: exactly once.
    messages = asked_messages(svc.strings, lang, asked, header)
    keyboard = question_keyboard(svc.strings, lang, question.id, bot_username).to_dict()
    deadline = now + timedelta(minutes=svc.settings.daily_grace_minutes)
    draft = Draft(
        Kind.DAILY, f"daily:{chat_id}:{day}", chat_id, tuple(messages), deadline,
        keyboard=keyboard, local_day=day, question_id=question.id,
    )  # fmt: skip
    if not await svc.storage.queue_waiting_daily(user.user_id, draft, now):
        return False
    svc.notify_outbox()
    return True


async def _ask_how_it_went(svc: Services, chat_id: int, user: UserProfile, lang: str) -> None:
    """The first daily prompt after the interview date asks, once, how it went (one tap);
    recorded before the prompt, so it arrives first. The daily question is the usual one."""
    day = await interview.over(svc, user)
    if day is None:
        return
    text = svc.strings(lang, "how_it_went", date=day_text(day, lang))
    keyboard = how_it_went_keyboard(svc.strings, lang, day).to_dict()
    minutes = svc.settings.outbox_deadline_minutes
    draft = interview.how_it_went_draft(chat_id, day, text, keyboard, svc.practice.clock(), minutes)
    if await interview.ask_how_it_went(svc, user, draft):
        svc.notify_outbox()


async def _no_packs_once(
    svc: Services,
    chat_id: int,
    lang: str,
    drawn: NoPacks,
    key: str,
    day: str,
    due_at: datetime,
    deadline: datetime,
) -> Draft | None:
    """No pack followed and none in the user's language: the first day, the daily question
    says so and offers the packs there are (to follow with a tap); after that, nothing. A
    claim made since the prompt fell due is this same prompt, drafted again after a stop."""
    now = svc.practice.clock()
    if not await svc.storage.claim_pack_offer(chat_id, lang, now, since=due_at):
        return None
    others = svc.packs.others(drawn.others)
    text = no_packs_message(svc.strings, lang, others)
    buttons = [(p.id, p.title, False) for p in others]
    keyboard = packs_keyboard(svc.strings, lang, buttons).to_dict()
    return Draft(Kind.DAILY, key, chat_id, (text,), deadline, keyboard=keyboard, local_day=day)
