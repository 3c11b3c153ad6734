"""Daily schedules: due times across zones, DST, weekdays, grace, and /daily arguments."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.core.schedule import (
    DailySchedule,
    Days,
    Due,
    due_state,
    next_occurrence,
    parse_daily,
    parse_time,
    resume_after,
)

BERLIN = "Europe/Berlin"


def occurrences(schedule: DailySchedule, start: datetime, n: int) -> list[datetime]:
    out, after = [], start
    for _ in range(n):
        occ = next_occurrence(schedule, after)
        out.append(occ.at)
        after = occ.at
    return out


def test_due_time_is_local_in_each_zone() -> None:
    after = datetime(2026, 3, 2, 0, 0, tzinfo=UTC)
    shanghai = next_occurrence(DailySchedule(time(8, 30), Days.EVERY_DAY, "Asia/Shanghai"), after)
    assert shanghai.at == datetime(2026, 3, 2, 0, 30, tzinfo=UTC)  # 08:30 +08:00
    assert shanghai.day == date(2026, 3, 2)
    new_york = next_occurrence(
        DailySchedule(time(8, 30), Days.EVERY_DAY, "America/New_York"), after
    )
    assert new_york.at == datetime(2026, 3, 2, 13, 30, tzinfo=UTC)
    assert new_york.day == date(2026, 3, 2)


@pytest.mark.parametrize(
    ("start", "expected_utc_hours"),
    [
        pytest.param(datetime(2026, 3, 27, 12, tzinfo=UTC), [7, 6, 6], id="spring-forward"),
        pytest.param(datetime(2026, 10, 23, 12, tzinfo=UTC), [6, 7, 7], id="fall-back"),
    ],
)
def test_berlin_0830_stays_0830_across_dst(start: datetime, expected_utc_hours: list[int]) -> None:
    schedule = DailySchedule(time(8, 30), Days.EVERY_DAY, BERLIN)
    got = occurrences(schedule, start, 3)
    assert [g.hour for g in got] == expected_utc_hours
    assert all(g.astimezone(ZoneInfo(BERLIN)).time() == time(8, 30) for g in got)
    days = [g.astimezone(ZoneInfo(BERLIN)).date() for g in got]
    assert days == [days[0] + timedelta(i) for i in range(3)]  # once per day, no gaps


def test_time_in_the_dst_gap_fires_once_just_after_it() -> None:
    schedule = DailySchedule(time(2, 30), Days.EVERY_DAY, BERLIN)
    got = occurrences(schedule, datetime(2026, 3, 28, 12, tzinfo=UTC), 2)
    local = [g.astimezone(ZoneInfo(BERLIN)) for g in got]
    assert local[0].date() == date(2026, 3, 29) and local[0].time() == time(3, 30)
    assert local[1].date() == date(2026, 3, 30) and local[1].time() == time(2, 30)


def test_time_in_the_dst_overlap_fires_once() -> None:
    schedule = DailySchedule(time(2, 30), Days.EVERY_DAY, BERLIN)
    got = occurrences(schedule, datetime(2026, 10, 24, 12, tzinfo=UTC), 2)
    assert got[0] == datetime(2026, 10, 25, 0, 30, tzinfo=UTC)  # the first 02:30 (CEST)
    assert got[1].astimezone(ZoneInfo(BERLIN)).date() == date(2026, 10, 26)


def test_weekdays_skip_the_weekend() -> None:
    schedule = DailySchedule(time(9, 0), Days.WEEKDAYS, "UTC")
    friday_after = datetime(2026, 3, 6, 10, tzinfo=UTC)
    assert next_occurrence(schedule, friday_after).day == date(2026, 3, 9)  # Monday


def test_grace_period() -> None:
    at = datetime(2026, 3, 2, 9, tzinfo=UTC)
    grace = timedelta(minutes=120)
    assert due_state(at, at - timedelta(seconds=1), grace) is Due.WAIT
    assert due_state(at, at, grace) is Due.SEND
    assert due_state(at, at + timedelta(minutes=119), grace) is Due.SEND
    assert due_state(at, at + timedelta(minutes=121), grace) is Due.SKIP
    # After three days down, the next slot looked at is the newest one within grace.
    now = at + timedelta(days=3, minutes=30)
    schedule = DailySchedule(time(9, 0), Days.EVERY_DAY, "UTC")
    following = next_occurrence(schedule, resume_after(at, now, grace))
    assert following.at == datetime(2026, 3, 5, 9, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("08:30", time(8, 30)), ("8:30", time(8, 30)), ("8.30", time(8, 30)), ("8pm", time(20, 0)),
     ("12am", time(0, 0)), ("8:05 PM", time(20, 5)), ("20点", time(20, 0)), ("8点半", time(8, 30)),
     ("下午3点", time(15, 0)), ("23:59", time(23, 59)), ("24:00", None), ("8:61", None),
     ("13pm", None), ("noon", None), ("", None), ("8 点半", time(8, 30))],
)  # fmt: skip
def test_parse_time(text: str, expected: time | None) -> None:
    assert parse_time(text) == expected


@pytest.mark.parametrize(
    ("text", "at", "days"),
    [
        ("每天 8 点", time(8, 0), Days.EVERY_DAY),
        ("每天8点", time(8, 0), Days.EVERY_DAY),
        ("工作日8点半", time(8, 30), Days.WEEKDAYS),
        ("周一到周五 9 点", time(9, 0), Days.WEEKDAYS),
        ("每天 晚上 8 点", time(20, 0), Days.EVERY_DAY),
        ("8 点 半", time(8, 30), None),
        ("每天 8 点 30 分", time(8, 30), Days.EVERY_DAY),
        ("8点30 分", time(8, 30), None),
    ],
)
def test_chinese_times_are_read_however_they_are_spaced(
    text: str, at: time, days: Days | None
) -> None:
    command = parse_daily(text.split())
    assert (command.problem, command.at, command.days, command.zone) == (None, at, days, None)


def test_parse_daily_commands() -> None:
    assert parse_daily([]).show
    assert parse_daily(["off"]).enabled is False
    assert parse_daily(["ON"]).enabled is True
    assert parse_daily(["weekdays"]).days is Days.WEEKDAYS
    assert parse_daily(["every", "day"]).days is Days.EVERY_DAY
    both = parse_daily(["08:30", "asia/shanghai"])
    assert (both.at, both.zone, both.enabled) == (time(8, 30), "Asia/Shanghai", True)
    with_days = parse_daily(["7:15", "am", "Europe/Berlin", "weekdays"])
    assert (with_days.at, with_days.zone, with_days.days) == (
        time(7, 15),
        "Europe/Berlin",
        Days.WEEKDAYS,
    )
    assert parse_daily(["25:00"]).problem == "time"
    assert (parse_daily(["每天", "25", "点"]).problem, parse_daily(["每天25点"]).problem) == (
        "time",
        "time",
    )
    assert parse_daily(["08:30", "Mars/Base"]).problem == "zone"
    assert parse_daily(["sometimes"]).problem == "words"
