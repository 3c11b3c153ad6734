"""The interview date's pure rules (bot/core/interview.py): reading `/interview`, in the user's
local today, and the plan: how many questions a day, which one next, which weak ones return."""

from __future__ import annotations

from datetime import date

import pytest

from bot.core.interview import (
    Card,
    InterviewCommand,
    Problem,
    next_in_plan,
    parse_interview,
    plan_day,
    practice_days,
)
from bot.core.schedule import Days

TODAY = date(2026, 12, 7)  # a Monday


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("2026-12-20", InterviewCommand(day=date(2026, 12, 20))),
        ("2026/12/20", InterviewCommand(day=date(2026, 12, 20))),
        ("2026年12月20日", InterviewCommand(day=date(2026, 12, 20))),
        ("12月20日", InterviewCommand(day=date(2026, 12, 20))),
        ("12月20号", InterviewCommand(day=date(2026, 12, 20))),
        ("12 月 20 日", InterviewCommand(day=date(2026, 12, 20))),
        ("12/20", InterviewCommand(day=date(2026, 12, 20))),
        ("1/5", InterviewCommand(day=date(2027, 1, 5))),  # gone this year: next year's
        ("12/8", InterviewCommand(day=date(2026, 12, 8))),  # tomorrow
        ("Dec 20", InterviewCommand(day=date(2026, 12, 20))),
        ("December 20th", InterviewCommand(day=date(2026, 12, 20))),
        ("20 Dec 2026", InterviewCommand(day=date(2026, 12, 20))),
        ("jan 5", InterviewCommand(day=date(2027, 1, 5))),
        ("Smarch 5", InterviewCommand(problem=Problem.NONSENSE, bad_value="Smarch 5")),
        ("off", InterviewCommand(off=True)),
        ("关闭", InterviewCommand(off=True)),
        ("取消", InterviewCommand(off=True)),
        ("", InterviewCommand()),
        ("12/7", InterviewCommand(day=TODAY, problem=Problem.TODAY, bad_value="12/7")),
        (
            "2026-12-01",
            InterviewCommand(day=date(2026, 12, 1), problem=Problem.PAST, bad_value="2026-12-01"),
        ),
        (
            "2028-01-01",
            InterviewCommand(day=date(2028, 1, 1), problem=Problem.TOO_FAR, bad_value="2028-01-01"),
        ),
        (
            "2/29",
            InterviewCommand(day=date(2028, 2, 29), problem=Problem.TOO_FAR, bad_value="2/29"),
        ),
        ("13/40", InterviewCommand(problem=Problem.NONSENSE, bad_value="13/40")),
        ("next friday", InterviewCommand(problem=Problem.NONSENSE, bad_value="next friday")),
    ],
)
def test_what_interview_reads_in_the_users_today(words: str, expected: InterviewCommand) -> None:
    assert parse_interview(words.split(), TODAY) == expected


def test_the_days_with_a_daily_question_before_the_interview() -> None:
    # Mon 7 Dec to Sun 20 Dec: 13 days before the date; 10 of them weekdays (7-11, 14-18).
    assert practice_days(TODAY, date(2026, 12, 20), Days.EVERY_DAY) == 13
    assert practice_days(TODAY, date(2026, 12, 20), Days.WEEKDAYS) == 10
    assert practice_days(TODAY, TODAY, Days.EVERY_DAY) == 0


BANK = [f"q{n}" for n in range(1, 25)]
WEAK_AND_FORGOTTEN = Card(weak=True, due=date(2026, 12, 8), recall_on_the_day=0.55)
WEAK_BUT_KEPT = Card(weak=True, due=date(2026, 12, 8), recall_on_the_day=0.95)
STRONG = Card(weak=False, due=date(2026, 12, 30), recall_on_the_day=0.7)


def test_the_quota_spreads_what_is_owed_over_the_days_left() -> None:
    ten_days = date(2026, 12, 17)
    assert plan_day(TODAY, ten_days, Days.EVERY_DAY, BANK, {}).quota == 3  # 24 over 10
    cards = {"q1": WEAK_AND_FORGOTTEN, "q2": WEAK_BUT_KEPT, "q3": STRONG}
    day = plan_day(TODAY, ten_days, Days.EVERY_DAY, BANK, cards)
    # 21 unseen and one weak one FSRS expects forgotten by the day: 22 over 10.
    assert (day.total, day.seen, day.owed, day.quota, day.days_left) == (24, 3, 22, 3, 10)
    everything = {q: STRONG for q in BANK}
    assert plan_day(TODAY, ten_days, Days.EVERY_DAY, BANK, everything).quota == 1  # the daily
    # On weekdays only: Mon 14 to Wed 16 Dec, 24 over 3; a Saturday has no daily question.
    assert plan_day(date(2026, 12, 14), ten_days, Days.WEEKDAYS, BANK, {}).quota == 8
    assert plan_day(date(2026, 12, 12), ten_days, Days.WEEKDAYS, BANK, {}).quota == 0


def test_the_next_question_weak_and_due_first_then_unseen_in_order() -> None:
    ten_days = date(2026, 12, 17)
    cards = {"q1": STRONG, "q5": WEAK_AND_FORGOTTEN}
    on_the_8th = date(2026, 12, 8)
    assert next_in_plan(TODAY, ten_days, Days.EVERY_DAY, BANK, cards, set()) == "q2"
    assert next_in_plan(on_the_8th, ten_days, Days.EVERY_DAY, BANK, cards, set()) == "q5"
    # Answered today already: not again today, the next unseen one instead.
    assert next_in_plan(on_the_8th, ten_days, Days.EVERY_DAY, BANK, cards, {"q5"}) == "q2"
    # Nothing unseen left: a weak one not due yet is brought forward toward the date.
    seen = {q: STRONG for q in BANK} | {"q5": WEAK_AND_FORGOTTEN}
    assert next_in_plan(TODAY, ten_days, Days.EVERY_DAY, BANK, seen, set()) == "q5"
    assert next_in_plan(TODAY, ten_days, Days.EVERY_DAY, BANK, seen, {"q5"}) is None


def test_a_weak_one_due_after_the_date_comes_back_on_the_last_day_before() -> None:
    interview = date(2026, 12, 10)
    late = {"q2": Card(weak=True, due=date(2026, 12, 20), recall_on_the_day=0.5)}
    bank = ["q1", "q2"]
    assert next_in_plan(date(2026, 12, 8), interview, Days.EVERY_DAY, bank, late, set()) == "q1"
    last = date(2026, 12, 9)
    assert next_in_plan(last, interview, Days.EVERY_DAY, bank, late, set()) == "q2"
