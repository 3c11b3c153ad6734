"""Streaks by local day: midnight, time zone changes, DST, freezes."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from bot.core.streaks import StreakState, at_risk, local_day, record_answer, visible_streak

D = date(2026, 3, 1)


def run(days: list[date], state: StreakState | None = None) -> StreakState:
    state = state or StreakState()
    for day in days:
        state = record_answer(state, day)
    return state


def test_consecutive_days_grow_the_streak() -> None:
    s = run([D, D + timedelta(1), D + timedelta(2)])
    assert (s.current, s.best) == (3, 3)


def test_several_answers_on_one_day_count_once() -> None:
    assert run([D, D, D]).current == 1


def test_a_missed_day_without_freeze_resets() -> None:
    s = run([D, D + timedelta(1), D + timedelta(3)])
    assert (s.current, s.best) == (1, 2)


def test_seven_days_earn_a_freeze_that_covers_one_missed_day() -> None:
    week = [D + timedelta(i) for i in range(7)]
    s = run(week)
    assert s.freezes == 1
    s = record_answer(s, D + timedelta(8))  # day 7 missed
    assert (s.current, s.freezes) == (8, 0)


def test_at_most_two_freezes_are_held() -> None:
    s = run([D + timedelta(i) for i in range(28)])
    assert s.freezes == 2
    s = record_answer(s, D + timedelta(28 + 2))  # two missed days, both frozen
    assert (s.current, s.freezes) == (29, 0)


def test_more_missed_days_than_freezes_reset() -> None:
    s = run([D + timedelta(i) for i in range(7)])
    s = record_answer(s, D + timedelta(9))  # two missed, one freeze
    assert (s.current, s.best) == (1, 7)


def test_midnight_is_local() -> None:
    shanghai = ZoneInfo("Asia/Shanghai")
    before = datetime(2026, 3, 1, 15, 59, tzinfo=UTC)  # 23:59 in Shanghai
    after = datetime(2026, 3, 1, 16, 1, tzinfo=UTC)  # 00:01 next day in Shanghai
    s = run([local_day(before, shanghai), local_day(after, shanghai)])
    assert s.current == 2
    # The same two instants are one day in UTC.
    assert run([local_day(before, UTC), local_day(after, UTC)]).current == 1


def test_moving_west_never_breaks_or_double_counts() -> None:
    tokyo, la = ZoneInfo("Asia/Tokyo"), ZoneInfo("America/Los_Angeles")
    first = datetime(2026, 3, 2, 1, 0, tzinfo=UTC)  # 10:00 Mar 2 in Tokyo
    s = record_answer(StreakState(), local_day(first, tokyo))
    later = first + timedelta(hours=3)  # 20:00 Mar 1 in Los Angeles: an earlier date
    s2 = record_answer(s, local_day(later, la))
    assert s2 == s
    next_day = first + timedelta(hours=30)  # Mar 2 in Los Angeles
    assert record_answer(s2, local_day(next_day, la)).current == 1  # same day as Tokyo's Mar 2


def test_dst_days_are_still_one_day() -> None:
    berlin = ZoneInfo("Europe/Berlin")
    # 2026-03-29: clocks go 02:00 -> 03:00. Answer at 23:30 local on each side.
    days = [
        local_day(datetime(2026, 3, 28, 22, 30, tzinfo=UTC), berlin),  # 23:30 CET Mar 28
        local_day(datetime(2026, 3, 29, 21, 30, tzinfo=UTC), berlin),  # 23:30 CEST Mar 29
        local_day(datetime(2026, 3, 30, 21, 30, tzinfo=UTC), berlin),
    ]
    assert days == [date(2026, 3, 28), date(2026, 3, 29), date(2026, 3, 30)]
    assert run(days).current == 3


def test_visible_streak_and_risk() -> None:
    s = run([D, D + timedelta(1)])
    assert visible_streak(s, D + timedelta(1)).current == 2
    assert not at_risk(s, D + timedelta(1))
    assert at_risk(s, D + timedelta(2))
    assert visible_streak(s, D + timedelta(3)).current == 0
    frozen = run([D + timedelta(i) for i in range(7)])
    assert visible_streak(frozen, D + timedelta(8)).current == 7  # a freeze would cover it
