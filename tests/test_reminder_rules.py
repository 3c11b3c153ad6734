"""The evening reminder's rule at its edges (bot/core/reminders.py, pure, no clock).

Each expected instant is worked out by hand from the zone's offset in early March 2026:
UTC+8 in Shanghai, UTC-5 in New York (summer time starts there on 8 March), UTC+5:30 in
Kolkata. Monday 2 March is the last answer's day unless a test says otherwise.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime

from bot.core.reminders import ReminderRule, claim, end_of_day, first_reminder, next_reminder
from bot.core.streaks import StreakState

RULE = ReminderRule(hour=20, default_zone="UTC")
MON, TUE, WED = date(2026, 3, 2), date(2026, 3, 3), date(2026, 3, 4)
ONE_DAY = StreakState(current=1, best=1, last_day=MON)
TWO_FREEZES = StreakState(current=14, best=14, last_day=MON, freezes=2)


def utc(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 3, day, hour, minute, tzinfo=UTC)


def test_the_default_rule_reminds_at_eight_in_the_evening_utc() -> None:
    assert first_reminder(ONE_DAY, None, ReminderRule()) == utc(3, 20)


def test_the_reminder_hour_is_local_in_a_half_hour_zone() -> None:
    rule = ReminderRule(hour=7, default_zone="Asia/Kolkata")
    assert first_reminder(ONE_DAY, None, rule) == datetime(2026, 3, 3, 1, 30, tzinfo=UTC)


def test_a_one_day_streak_is_reminded_and_no_streak_is_not() -> None:
    assert first_reminder(ONE_DAY, None, RULE) == utc(3, 20)
    assert first_reminder(ONE_DAY, "Asia/Kolkata", RULE) == datetime(2026, 3, 3, 14, 30, tzinfo=UTC)
    # A streak already lost (0) still has its last day: nothing to remind.
    assert first_reminder(StreakState(current=0, best=5, last_day=MON), None, RULE) is None
    assert first_reminder(StreakState(current=3, best=3, last_day=None), None, RULE) is None
    assert next_reminder(StreakState(), None, RULE, utc(3, 9)) is None


def test_the_next_reminder_is_strictly_after_the_instant_given() -> None:
    # Asked at the very instant of Tuesday's reminder: Wednesday's comes next, not Tuesday's.
    assert next_reminder(TWO_FREEZES, None, RULE, utc(3, 20)) == utc(4, 20)
    assert next_reminder(TWO_FREEZES, None, RULE, utc(3, 19, 59)) == utc(3, 20)
    # Asked the evening of the last answer: the next evening.
    assert next_reminder(TWO_FREEZES, None, RULE, utc(2, 21)) == utc(3, 20)


def test_the_next_reminder_is_on_the_users_clock() -> None:
    # 20:00 in New York is 01:00 UTC the next day.
    assert next_reminder(TWO_FREEZES, "America/New_York", RULE, utc(4, 1)) == utc(5, 1)
    assert next_reminder(TWO_FREEZES, "Asia/Shanghai", RULE, utc(3, 12)) == utc(4, 12)


def test_a_claim_at_the_exact_instant_sends() -> None:
    due = claim(ONE_DAY, None, RULE, utc(3, 20), utc(3, 20))
    assert due.send is True and due.day == TUE and due.next_at is None


def test_a_claim_before_the_hour_moves_the_instant_to_the_hour_without_sending() -> None:
    # Computed with an earlier hour (the operator moved it from 18:00 to 20:00).
    due = claim(ONE_DAY, None, RULE, utc(3, 18), utc(3, 18, 1))
    assert due.send is False and due.day == TUE and due.next_at == utc(3, 20)


def test_a_claim_from_yesterday_is_not_sent_after_midnight() -> None:
    due = claim(TWO_FREEZES, None, RULE, utc(3, 20), utc(4, 0, 30))
    assert due.send is False and due.day == WED and due.next_at == utc(4, 20)


def test_a_claim_on_a_day_the_streak_is_not_at_risk_is_not_sent() -> None:
    answered_tuesday = StreakState(current=2, best=2, last_day=TUE)
    due = claim(answered_tuesday, None, RULE, utc(3, 20), utc(3, 20, 1))
    assert due.send is False and due.day == TUE and due.next_at == utc(4, 20)


def test_a_claim_west_of_utc_reads_the_users_day() -> None:
    # 20:00 Tuesday in New York is 01:00 Wednesday UTC: it is Tuesday's reminder.
    due = claim(TWO_FREEZES, "America/New_York", RULE, utc(4, 1), utc(4, 1, 1))
    assert due.send is True and due.day == TUE and due.next_at == utc(5, 1)


def test_a_claim_east_of_utc_reads_the_users_day() -> None:
    # 20:00 Tuesday in Shanghai is 12:00 Tuesday UTC.
    due = claim(TWO_FREEZES, "Asia/Shanghai", RULE, utc(3, 12), utc(3, 12, 1))
    assert due.send is True and due.day == TUE and due.next_at == utc(4, 12)


def test_a_day_ends_at_the_users_midnight() -> None:
    assert end_of_day(TUE, None, RULE) == utc(4, 0)
    assert end_of_day(TUE, "Asia/Shanghai", RULE) == utc(3, 16)
    assert end_of_day(TUE, "America/New_York", RULE) == utc(4, 5)


@contextmanager
def _machine_zone(zone: str) -> Iterator[None]:
    before = os.environ.get("TZ")
    os.environ["TZ"] = zone
    time.tzset()
    try:
        yield
    finally:
        if before is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = before
        time.tzset()


def test_the_next_reminder_day_is_the_users_even_across_the_date_line() -> None:
    # The machine at UTC+14, the user at UTC-12, reminders at 23:00: at 22:30 on Tuesday
    # (the user's clock; already Thursday on the machine's), Tuesday's reminder is still due.
    rule = ReminderRule(hour=23)
    after = datetime(2026, 3, 4, 10, 30, tzinfo=UTC)
    with _machine_zone("Pacific/Kiritimati"):
        assert next_reminder(TWO_FREEZES, "Etc/GMT+12", rule, after) == utc(4, 11)
