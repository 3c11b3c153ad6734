"""The rules behind /stats' bank progress and weekly trend (bot/core/progress.py)."""

from __future__ import annotations

from datetime import date

import pytest

from bot.core.content import Library
from bot.core.levels import Level
from bot.core.progress import (
    Direction,
    LevelProgress,
    WeekScore,
    bank_progress,
    score_trend,
    weekly_scores,
)

MONDAY = date(2026, 3, 2)


def test_bank_progress_counts_questions_answered_once_per_level(library: Library) -> None:
    bank = library.pool(None, "triton")  # 3 beginner, 4 intermediate, 5 advanced
    answered = {"triton-q1", "triton-q3", "triton-q4", "llm-q1", "gone-q9"}
    assert bank_progress(bank, answered) == [
        LevelProgress(Level.BEGINNER, 2, 3),
        LevelProgress(Level.INTERMEDIATE, 1, 4),
        LevelProgress(Level.ADVANCED, 0, 5),
    ]


def test_a_level_with_no_questions_in_the_bank_is_left_out(library: Library) -> None:
    bank = library.pool(Level.ADVANCED, "triton")
    assert bank_progress(bank, set()) == [LevelProgress(Level.ADVANCED, 0, 5)]


def test_weekly_scores_sum_local_days_into_monday_weeks() -> None:
    per_day = {
        date(2026, 2, 28): (9, 9.0),  # before the first week: left out
        date(2026, 3, 2): (1, 0.5),  # Monday
        date(2026, 3, 8): (2, 1.0),  # Sunday, same week
        date(2026, 3, 9): (1, 0.25),  # the next Monday
        date(2026, 3, 30): (1, 1.0),  # after the last week: left out
    }
    weeks = weekly_scores(per_day, date(2026, 3, 4), 3)  # from a Wednesday: its Monday
    assert [(w.start, w.answers, w.total) for w in weeks] == [
        (MONDAY, 3, 1.5), (date(2026, 3, 9), 1, 0.25), (date(2026, 3, 16), 0, 0.0)
    ]  # fmt: skip
    assert [w.average for w in weeks] == [0.5, 0.25, None]


@pytest.mark.parametrize(
    ("before", "latest", "direction"),
    [(0.50, 0.55, Direction.UP), (0.50, 0.54, Direction.STEADY), (0.50, 0.46, Direction.STEADY),
     (0.50, 0.45, Direction.DOWN), (0.0, 1.0, Direction.UP)],
)  # fmt: skip
def test_a_change_of_five_points_or_more_is_a_trend(
    before: float, latest: float, direction: Direction
) -> None:
    weeks = [WeekScore(MONDAY, 1, before), WeekScore(date(2026, 3, 9), 1, latest)]
    trend = score_trend(weeks)
    assert trend is not None and trend.direction is direction


def test_the_trend_compares_the_last_two_weeks_with_answers() -> None:
    a, gap, b, c, empty = (
        WeekScore(MONDAY, 2, 2.0), WeekScore(date(2026, 3, 9), 0, 0.0),
        WeekScore(date(2026, 3, 16), 1, 0.2), WeekScore(date(2026, 3, 23), 2, 1.2),
        WeekScore(date(2026, 3, 30), 0, 0.0),
    )  # fmt: skip
    trend = score_trend([a, gap, b, c, empty])
    assert trend is not None
    assert (trend.before, trend.latest, trend.direction) == (b, c, Direction.UP)
    assert score_trend([a, gap, empty]) is None  # one week with answers is no trend
    assert score_trend([]) is None


def test_weak_spots_carry_how_often_each_was_missed() -> None:
    from bot.core.review import WeakSpot, weak_spots

    answers = [(["a"], ["b", "c"]), ([], ["b"]), (["c"], ["d"]), ([], ["c", "e"]), ([], ["c"])]
    assert weak_spots(answers) == [WeakSpot("c", 3), WeakSpot("b", 2)]
    topics = {"x1": "t", "x2": "t"}  # two labels of one topic count together
    assert weak_spots([([], ["x2"]), ([], ["x1"])], topics) == [WeakSpot("x2", 2)]
