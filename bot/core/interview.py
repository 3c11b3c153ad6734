"""The interview date and the plan toward it: pure rules, no I/O.

- `parse_interview`: what `/interview` names (2026-12-20, 12月20日, 12/20, Dec 20, off,
  nothing), read against the user's local today; a past date, today, nonsense or more than
  a year ahead is a problem to explain, never a plan.
- `plan_day`: until that day the daily question becomes a plan. Every question of the
  followed packs is seen once, and the weak ones come back: a question whose last answer was
  rated below Good (core/review.py) and whose FSRS recall on the interview day would be
  below `PLAN_RETENTION` (the date is FSRS's horizon). It comes back on the day FSRS has it
  due, or on the last day before the interview when that is later. The questions still
  owed are spread evenly over the days left with a daily question (at least one a day: the
  daily question itself).
- `next_in_plan`: which question comes next, one at a time: weak ones due first (most
  overdue), then unseen ones (beginner first, in the packs' order), then weak ones not due
  yet (brought forward toward the date); never one answered today.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from enum import StrEnum

from bot.core.schedule import OFF_WORDS, Days

MAX_AHEAD = timedelta(days=366)  # a year ahead, a leap day included
PLAN_RETENTION = 0.9  # FSRS's default desired retention, asked of the interview day


class Problem(StrEnum):
    NONSENSE = "nonsense"  # not a date
    PAST = "past"
    TODAY = "today"
    TOO_FAR = "too_far"  # more than a year ahead


@dataclass(frozen=True, slots=True)
class InterviewCommand:
    """What `/interview` asked for: show the plan, turn it off, a date, or a problem."""

    day: date | None = None
    off: bool = False
    problem: Problem | None = None
    bad_value: str = ""

    @property
    def show(self) -> bool:
        return self.day is None and not self.off and self.problem is None


_ISO = re.compile(r"^(\d{4})[-/.年](\d{1,2})[-/.月](\d{1,2})[日号]?$")
_MONTH_DAY = re.compile(r"^(\d{1,2})[-/.月](\d{1,2})[日号]?$")
OFF = OFF_WORDS | {"none", "clear", "cancel", "取消", "清除"}
# Dec 20, December 20th, 20 Dec, 20 December 2026 (English month names, first three letters).
_NAMED = re.compile(
    r"^(?:(?P<m1>[a-z]{3,9}) (?P<d1>\d{1,2})(?:st|nd|rd|th)?"
    r"|(?P<d2>\d{1,2})(?:st|nd|rd|th)? (?P<m2>[a-z]{3,9}))(?: (?P<y>\d{4}))?$"
)
_MONTHS = {
    name: n
    for n, name in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1
    )
}


def parse_interview(args: Sequence[str], today: date) -> InterviewCommand:
    """Read `/interview` arguments against the user's local `today`.

    A date without a year is the next one to come (12/20 in December is this year's, 1/5
    next year's); with a year it is taken as written.
    """
    text = " ".join(args).strip()
    if not text:
        return InterviewCommand()
    if text.lower() in OFF:
        return InterviewCommand(off=True)
    day = _read_date(text, today)
    if day is None:
        return InterviewCommand(problem=Problem.NONSENSE, bad_value=text)
    if day < today:
        return InterviewCommand(day=day, problem=Problem.PAST, bad_value=text)
    if day == today:
        return InterviewCommand(day=day, problem=Problem.TODAY, bad_value=text)
    if day - today > MAX_AHEAD:
        return InterviewCommand(day=day, problem=Problem.TOO_FAR, bad_value=text)
    return InterviewCommand(day=day)


def _read_date(text: str, today: date) -> date | None:
    compact = re.sub(r"\s+", "", text)  # "12月 20日" and "12 / 20" read as one
    if m := _ISO.match(compact):
        return _date(int(m[1]), int(m[2]), int(m[3]))
    if m := _MONTH_DAY.match(compact):
        return _coming(int(m[1]), int(m[2]), today)
    words = re.sub(r"[,.]", " ", text.lower()).split()
    if m := _NAMED.match(" ".join(words)):
        month = _MONTHS.get((m["m1"] or m["m2"])[:3])
        day_, year = int(m["d1"] or m["d2"]), m["y"]
        if month is None:
            return None
        return _date(int(year), month, day_) if year else _coming(month, day_, today)
    return None


def _coming(month: int, day: int, today: date) -> date | None:
    """The next `month`/`day` to come: this year's, else a later year's (2/29 waits for a
    leap year)."""
    coming = (_date(today.year + n, month, day) for n in range(5))
    return next((d for d in coming if d is not None and d >= today), None)


def _date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def days_left(today: date, interview: date) -> int:
    """Days to go: 1 the day before the interview, 0 on the day."""
    return (interview - today).days


def practice_days(today: date, interview: date, days: Days) -> int:
    """The days from `today` to the day before the interview that have a daily question."""
    return sum(days.includes(today + timedelta(n)) for n in range(max(0, (interview - today).days)))


@dataclass(frozen=True, slots=True)
class Card:
    """What the plan needs of a question answered before (its review card)."""

    weak: bool  # last rated below Good
    due: date  # the local day FSRS has it due
    recall_on_the_day: float  # FSRS's predicted recall on the interview day


def comes_back(card: Card) -> bool:
    """A weak question FSRS expects to be forgotten by the interview: it is reviewed before."""
    return card.weak and card.recall_on_the_day < PLAN_RETENTION


@dataclass(frozen=True, slots=True)
class PlanDay:
    """The plan as it stands on one local day."""

    days_left: int
    total: int  # questions in the followed packs
    seen: int  # of those, answered at least once
    owed: int  # unseen plus weak ones to review before the date
    quota: int  # questions today (0: no daily question today, or no day left)


def plan_day(
    today: date,
    interview: date,
    days: Days,
    bank: Sequence[str],
    cards: Mapping[str, Card],
) -> PlanDay:
    """Today's plan: how many questions it takes today to see every question of `bank` once
    and review the weak ones again before `interview` (`cards`: the questions answered)."""
    unseen = sum(1 for q in bank if q not in cards)
    weak = sum(1 for q in bank if q in cards and comes_back(cards[q]))
    left = practice_days(today, interview, days)
    owed = unseen + weak
    # No daily question today (a weekend on weekdays only): nothing asked today.
    quota = 0 if left == 0 or not days.includes(today) else max(1, math.ceil(owed / left))
    seen = len(bank) - unseen
    return PlanDay(days_left(today, interview), len(bank), seen, owed, quota)


def next_in_plan(
    today: date,
    interview: date,
    days: Days,
    bank: Sequence[str],
    cards: Mapping[str, Card],
    answered_today: set[str],
) -> str | None:
    """The next question of the plan today (see the module docstring for the order)."""
    last_day = _last_practice_day(today, interview, days)
    back = [
        (cards[q].due, n, q)
        for n, q in enumerate(bank)
        if q in cards and q not in answered_today and comes_back(cards[q])
    ]
    due = sorted(b for b in back if last_day is not None and min(b[0], last_day) <= today)
    if due:
        return due[0][2]
    unseen = next((q for q in bank if q not in cards and q not in answered_today), None)
    if unseen is not None:
        return unseen
    return min(back)[2] if back else None


def _last_practice_day(today: date, interview: date, days: Days) -> date | None:
    day = interview - timedelta(days=1)
    while day >= today:
        if days.includes(day):
            return day
        day -= timedelta(days=1)
    return None


OUTCOMES = ("good", "okay", "bad")  # how it went: the one tap after the date


@dataclass(frozen=True, slots=True)
class InterviewPlan:
    """A user's interview date as stored, with the day's fixed quota and the after-question."""

    day: date
    quota_day: date | None = None
    quota: int | None = None
    asked: bool = False  # "how did it go?" was recorded (once, after the date)
    outcome: str | None = None
