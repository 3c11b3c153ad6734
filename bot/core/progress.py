"""What /stats tells a learner beyond the streak: how much of the question bank they have
answered, per level, and how their scores move week by week. Pure rules over plain values.

- Bank progress: questions answered at least once, out of the questions that can be asked
  (the user's pack, else every offered pack), per level.
- Weekly scores: the average score of each Monday-to-Sunday week (local days) shown.
- Trend: the latest week with answers against the week with answers before it; a change of
  fewer than `STEADY_POINTS` percentage points is steady.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from enum import StrEnum

from bot.core.content import Question
from bot.core.levels import LEVEL_ORDER, Level

STEADY_POINTS = 5  # a smaller change in the weekly average is no trend


@dataclass(frozen=True, slots=True)
class LevelProgress:
    level: Level
    answered: int  # questions at the level answered at least once
    total: int  # questions at the level in the bank


@dataclass(frozen=True, slots=True)
class WeekScore:
    start: date  # the week's Monday
    answers: int
    total: float  # the sum of the week's scores (0..1 each)

    @property
    def average(self) -> float | None:
        return self.total / self.answers if self.answers else None


class Direction(StrEnum):
    UP = "up"
    DOWN = "down"
    STEADY = "steady"


@dataclass(frozen=True, slots=True)
class Trend:
    before: WeekScore  # the week with answers before `latest`
    latest: WeekScore  # the latest week with answers
    direction: Direction


def percent(fraction: float) -> int:
    """A score as the whole percent people read (0.0947 -> 9)."""
    return round(max(0.0, min(1.0, fraction)) * 100)


def bank_progress(bank: Iterable[Question], answered: set[str]) -> list[LevelProgress]:
    """Per level with questions in `bank`, in level order: how many are in `answered`."""
    totals: dict[Level, int] = {}
    done: dict[Level, int] = {}
    for question in bank:
        totals[question.level] = totals.get(question.level, 0) + 1
        if question.id in answered:
            done[question.level] = done.get(question.level, 0) + 1
    return [LevelProgress(lv, done.get(lv, 0), totals[lv]) for lv in LEVEL_ORDER if lv in totals]


def weekly_scores(
    per_day: Mapping[date, tuple[int, float]], first: date, weeks: int
) -> list[WeekScore]:
    """`weeks` weeks from the Monday of `first`, each with its answers and score sum.

    `per_day`: local day -> (answers, sum of their scores).
    """
    monday = first - timedelta(days=first.weekday())
    counts = [0] * weeks
    sums = [0.0] * weeks
    for day, (count, total) in per_day.items():
        index = (day - monday).days // 7
        if 0 <= index < weeks:
            counts[index] += count
            sums[index] += total
    return [WeekScore(monday + timedelta(weeks=i), counts[i], sums[i]) for i in range(weeks)]


def score_trend(weeks: Iterable[WeekScore]) -> Trend | None:
    """The latest week with answers against the one before it; None with fewer than two."""
    active = [w for w in weeks if w.answers]
    if len(active) < 2:
        return None
    before, latest = active[-2], active[-1]
    change = percent(latest.total / latest.answers) - percent(before.total / before.answers)
    if change >= STEADY_POINTS:
        direction = Direction.UP
    elif change <= -STEADY_POINTS:
        direction = Direction.DOWN
    else:
        direction = Direction.STEADY
    return Trend(before, latest, direction)
