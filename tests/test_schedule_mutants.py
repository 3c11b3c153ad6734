"""/daily arguments: the cases the mutation run found untested (values written out by hand)."""

from __future__ import annotations

from datetime import time

from bot.core.schedule import DailyCommand, parse_daily


def test_a_day_period_typed_apart_from_the_hour_still_counts() -> None:
    # `/daily 下午 3点`: "afternoon, 3 o'clock" is 15:00, not 03:00.
    assert parse_daily(["下午", "3点"]) == DailyCommand(enabled=True, at=time(15, 0))


def test_evening_half_past_typed_apart_with_a_zone() -> None:
    assert parse_daily(["晚上", "8点半", "东八区"]) == DailyCommand(
        enabled=True, at=time(20, 30), zone="Etc/GMT-8"
    )
