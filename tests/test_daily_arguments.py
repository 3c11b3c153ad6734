"""/daily arguments: the cases the mutation run found untested (values written out by hand)."""

from __future__ import annotations

from datetime import time

from bot.core.schedule import DailyCommand, Days, parse_daily, parse_time


def test_a_day_period_typed_apart_from_the_hour_still_counts() -> None:
    # `/daily 下午 3点`: "afternoon, 3 o'clock" is 15:00, not 03:00.
    assert parse_daily(["下午", "3点"]) == DailyCommand(enabled=True, at=time(15, 0))


def test_evening_half_past_typed_apart_with_a_zone() -> None:
    assert parse_daily(["晚上", "8点半", "东八区"]) == DailyCommand(
        enabled=True, at=time(20, 30), zone="Etc/GMT-8"
    )


def test_an_hour_and_bad_minutes_are_named_without_the_zone() -> None:
    # `/daily 8 75 Europe/Berlin`: the time is what is wrong, and only it is quoted.
    assert parse_daily(["8", "75", "Europe/Berlin"]) == DailyCommand(
        problem="time", bad_value="8 75"
    )


def test_a_24_hour_time_with_am_or_pm_is_a_bad_time_not_a_zone() -> None:
    assert parse_daily(["20:30", "p.m."]) == DailyCommand(problem="time", bad_value="20:30 p.m.")
    assert parse_daily(["20:30", "am"]) == DailyCommand(problem="time", bad_value="20:30 am")
    # The zone after it is not quoted: the time is what is wrong.
    assert parse_daily(["20:30", "pm", "Europe/Berlin"]) == DailyCommand(
        problem="time", bad_value="20:30 pm"
    )


def test_every_weekday_means_weekdays() -> None:
    assert parse_daily(["every", "weekday"]) == DailyCommand(enabled=True, days=Days.WEEKDAYS)


def test_dusk_and_small_hours_in_chinese() -> None:
    assert parse_time("傍晚7点") == time(19, 0)  # "dusk, 7 o'clock"
    assert parse_time("凌晨12点") == time(0, 0)  # "small hours, 12 o'clock": midnight


def test_noon_in_chinese() -> None:
    assert parse_time("中午1点") == time(13, 0)  # "noon, 1 o'clock": just after noon
    assert parse_time("中午2点") == time(14, 0)
    assert parse_time("中午11点") == time(11, 0)  # just before noon, not 23:00
