"""The interview date (/interview) and the plan toward it: setting and clearing the date,
the plan's state for /interview, /settings and /stats, the plan's question for the daily
prompt and for the one after each answer, and the one "how did it go?" after the date.

The rules (the quota, which question next, what comes back) are bot/core/interview.py's;
this reads what they need from storage, in the user's time zone.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from bot.core.content import Question
from bot.core.interview import (
    Card,
    InterviewPlan,
    PlanDay,
    next_in_plan,
    plan_day,
)
from bot.core.levels import LEVEL_ORDER
from bot.core.models import UserProfile
from bot.core.outbox import Draft, Kind
from bot.core.practice import Asked
from bot.core.review import is_weak, recall_at
from bot.core.schedule import Days
from bot.core.streaks import local_day
from bot.i18n import user_language
from bot.services import Services


@dataclass(frozen=True, slots=True)
class PlanStatus:
    """The plan as /interview, /settings and /stats show it."""

    day: date  # the interview
    today: date  # the user's local today
    plan: PlanDay | None  # None: the date has come (no plan any more)
    done_today: int  # questions answered today
    daily_on: bool = True  # the plan rides on the daily question: off, it waits

    @property
    def days_left(self) -> int:
        return (self.day - self.today).days


@dataclass(frozen=True, slots=True)
class Planned:
    """The plan's next question, opened: the `n`th of `quota` today."""

    asked: Asked
    status: PlanStatus
    n: int
    quota: int


@dataclass(frozen=True, slots=True)
class DayDone:
    """The answer just given completed the day's plan."""

    status: PlanStatus
    quota: int


@dataclass(frozen=True, slots=True)
class MockOn:
    """A mock interview runs: the plan's question waits for its report."""


def _today(svc: Services, user: UserProfile) -> date:
    return local_day(svc.practice.clock(), svc.practice.zone(user))


async def _bank(svc: Services, chat_id: int, user: UserProfile) -> list[Question]:
    """The followed packs' questions (every level), beginner first, in the packs' order."""
    drawn = await svc.practice.draw_from(chat_id, user_language(user))
    pool = svc.library.pool(packs=drawn.packs) if drawn.packs else []
    return sorted(pool, key=lambda q: LEVEL_ORDER.index(q.level))


async def _cards(svc: Services, user: UserProfile, interview: date) -> dict[str, Card]:
    """The user's answered questions as the plan reads them, FSRS asked of the interview
    day's start in the user's zone."""
    zone = svc.practice.zone(user)
    horizon = datetime.combine(interview, time(0), tzinfo=zone).astimezone(UTC)
    return {
        question_id: Card(
            weak=is_weak(rating),
            due=due.astimezone(zone).date(),
            recall_on_the_day=recall_at(card, horizon),
        )
        for question_id, card, due, rating in await svc.storage.review_cards(user.user_id)
    }


@dataclass(frozen=True, slots=True)
class _Reading:
    """The plan as it stands, with what it was computed from: its next question is chosen
    from the same reads."""

    status: PlanStatus
    bank: list[str]
    cards: dict[str, Card]
    days: Days
    answered: set[str]  # today


async def _read(svc: Services, user: UserProfile) -> _Reading | None:
    stored = await svc.storage.interview_plan(user.user_id)
    if stored is None:
        return None
    today = _today(svc, user)
    if stored.day < today:
        return None
    return await _reading(svc, user, stored, today)


async def _reading(
    svc: Services, user: UserProfile, stored: InterviewPlan, today: date
) -> _Reading:
    chat_id = user.user_id  # the plan is the private chat's
    done = await svc.storage.answered_on(user.user_id, today.isoformat())
    if stored.day <= today:
        return _Reading(
            PlanStatus(stored.day, today, None, len(done)), [], {}, Days.EVERY_DAY, done
        )
    bank = [q.id for q in await _bank(svc, chat_id, user)]
    cards = await _cards(svc, user, stored.day)
    record = await svc.storage.get_chat(chat_id)
    days = record.daily_days if record is not None else Days.EVERY_DAY
    plan = plan_day(today, stored.day, days, bank, cards)
    daily_on = record is not None and record.daily_enabled
    current = PlanStatus(stored.day, today, plan, len(done), daily_on)
    return _Reading(current, bank, cards, days, done)


async def status(svc: Services, user: UserProfile) -> PlanStatus | None:
    """The user's interview date and the plan as it stands today; None without a date, or
    once the date is past (the plan is over)."""
    reading = await _read(svc, user)
    return reading.status if reading is not None else None


async def set_date(svc: Services, user: UserProfile, day: date) -> PlanStatus:
    """Set (or move) the user's interview date; the plan as it stands today."""
    await svc.storage.set_interview(user.user_id, day, svc.practice.clock())
    return (await _reading(svc, user, InterviewPlan(day), _today(svc, user))).status


async def clear_date(svc: Services, user: UserProfile) -> bool:
    """No interview date any more (False: there was none): the daily question as before."""
    return await svc.storage.clear_interview(user.user_id)


async def the_date(svc: Services, user: UserProfile) -> date | None:
    """The user's interview date, past or to come; None if none is set."""
    stored = await svc.storage.interview_plan(user.user_id)
    return stored.day if stored is not None else None


async def _quota(svc: Services, user: UserProfile, status_: PlanStatus) -> int:
    """Today's quota, fixed the first time it is read today (answers do not shrink it)."""
    assert status_.plan is not None
    return await svc.storage.fix_quota(user.user_id, status_.today, status_.plan.quota)


def _next(svc: Services, reading: _Reading) -> Question | None:
    current = reading.status
    chosen = next_in_plan(
        current.today, current.day, reading.days, reading.bank, reading.cards, reading.answered
    )
    return svc.library.question(chosen) if chosen is not None else None


@dataclass(frozen=True, slots=True)
class DailyChoice:
    """The daily prompt's question while a plan runs (not opened yet), and the countdown."""

    question: Question | None  # None: every question seen, none to review: the usual one
    status: PlanStatus
    quota: int


async def daily_choice(svc: Services, user: UserProfile) -> DailyChoice | None:
    """The question the daily prompt asks while a plan runs (nothing written but the day's
    quota), with its countdown; None without a plan today."""
    reading = await _read(svc, user)
    if reading is None or reading.status.plan is None or reading.status.plan.quota == 0:
        return None
    current = reading.status
    quota = await _quota(svc, user, current)
    return DailyChoice(_next(svc, reading), current, quota)


async def after_answer(svc: Services, chat_id: int, user: UserProfile) -> Planned | DayDone | None:
    """After an answer in the private chat: the plan's next question today, opened (if the
    day's quota is not reached and nothing else is open), or the note that the day is done
    (the answer that reached it); None without a plan today (or with the daily question
    off: the plan waits for it)."""
    reading = await _read(svc, user)
    if reading is None or reading.status.plan is None or reading.status.plan.quota == 0:
        return None
    current = reading.status
    if not current.daily_on:
        return None
    quota = await _quota(svc, user, current)
    if current.done_today >= quota:
        return DayDone(current, quota) if current.done_today == quota else None
    question = _next(svc, reading)
    if question is None:
        return None
    asked = await svc.practice.ask_question(chat_id, user, question, replacing=None)
    if asked is None:
        if await svc.practice.open_question_id(chat_id) != question.id:
            return None  # another question is open: that one is the one to answer
        # Opened by this same answer handled before (a crash before it was sent): again.
        asked = svc.practice.asked(question)
    return Planned(asked, current, current.done_today + 1, quota)


async def start_now(
    svc: Services, chat_id: int, user: UserProfile
) -> Planned | DayDone | MockOn | None:
    """ "Start today's plan" (under /interview's reply): the plan's question now, if none is
    open; the day's plan done already, a mock interview on, or no plan today: nothing
    opened."""
    if await svc.mock.current(chat_id) is not None:
        # On a follow-up nothing is open: a question opened now would take its answer.
        return MockOn()
    reading = await _read(svc, user)
    if reading is None or reading.status.plan is None or reading.status.plan.quota == 0:
        return None
    current = reading.status
    quota = await _quota(svc, user, current)
    if current.done_today >= quota:
        return DayDone(current, quota)
    question = _next(svc, reading)
    if question is None:
        return None
    asked = await svc.practice.ask_question(chat_id, user, question, replacing=None)
    return None if asked is None else Planned(asked, current, current.done_today + 1, quota)


async def ask_how_it_went(svc: Services, user: UserProfile, draft: Draft) -> bool:
    """Record "how did it go?" once, after the date (False: asked before, or no date)."""
    return await svc.storage.ask_how_it_went(user.user_id, draft, svc.practice.clock())


async def over(svc: Services, user: UserProfile) -> date | None:
    """The date of an interview that is past and not yet asked about; else None."""
    stored = await svc.storage.interview_plan(user.user_id)
    if stored is None or stored.asked or stored.day >= _today(svc, user):
        return None
    return stored.day


def how_it_went_draft(
    chat_id: int, day: date, text: str, keyboard: dict[str, object], now: datetime, minutes: float
) -> Draft:
    """The after-date question as an outbox row (sent once: its key names the date), worth
    sending for `minutes`."""
    key = f"interview:{chat_id}:{day.isoformat()}"
    deadline = now + timedelta(minutes=minutes)
    return Draft(Kind.INTERVIEW, key, chat_id, (text,), deadline, keyboard)


async def record_how_it_went(svc: Services, user: UserProfile, day: date, outcome: str) -> bool:
    """The one tap after the date; False if that date is no longer the user's."""
    return await svc.storage.record_how_it_went(user.user_id, day, outcome)
