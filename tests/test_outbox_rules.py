"""The outbox's retry schedule and the retention cutoffs, with bounds worked out by hand.

A retry that waits too long leaves a daily question late; one that does not back off hammers
a recovering API; a cutoff a day too early deletes the row that stops a second prompt.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from bot.core.outbox import backoff
from bot.core.retention import cutoffs


class _Bounds:
    """Stands in for random.Random: returns the interval `uniform` was asked to draw from."""

    def uniform(self, a: float, b: float) -> tuple[float, float]:
        return (a, b)


@pytest.mark.parametrize(
    ("attempt", "base", "cap", "interval"),
    [
        pytest.param(1, 1.0, 60.0, (0.5, 1.0), id="first-retry-waits-up-to-base"),
        pytest.param(2, 1.0, 60.0, (0.5, 2.0), id="second-doubles"),
        pytest.param(3, 1.0, 60.0, (0.5, 4.0), id="third-doubles-again"),
        pytest.param(7, 1.0, 60.0, (0.5, 60.0), id="capped"),
        pytest.param(40, 0.05, 0.4, (0.025, 0.4), id="capped-small-scale"),
        pytest.param(0, 1.0, 60.0, (0.5, 1.0), id="attempt-zero-is-the-first"),
        pytest.param(1, 4.0, 2.0, (1.0, 2.0), id="cap-below-base"),
    ],
)
def test_backoff_draws_from_half_the_floor_to_the_ceiling(
    attempt: int, base: float, cap: float, interval: tuple[float, float]
) -> None:
    assert backoff(attempt, base, cap, _Bounds()) == interval  # type: ignore[arg-type]


@pytest.fixture
def _machine_in_shanghai(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The machine's own zone is not UTC: the cutoffs must not depend on it."""
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.usefixtures("_machine_in_shanghai")
def test_cutoffs_are_three_days_and_nine_days_back_in_utc() -> None:
    # 05:00 in Shanghai on 10 March is 21:00 UTC on 9 March: days count from UTC's date.
    now = datetime(2026, 3, 10, 5, 0, tzinfo=timezone(timedelta(hours=8)))
    found = cutoffs(now)
    assert found.before_day == date(2026, 3, 6)
    assert found.rounds_closed_before == datetime(2026, 2, 28, 21, 0, tzinfo=UTC)
    assert found.rounds_closed_before.utcoffset() == timedelta(0)
