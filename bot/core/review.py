"""Spaced repetition (FSRS) and the learning signals built on answers.

Every rule about *when a question comes back* lives here:
- `RATING_THRESHOLDS`: answer coverage -> FSRS rating. The one documented place:
    coverage >= 0.85 -> Easy, >= 0.60 -> Good, >= 0.30 -> Hard, below -> Again;
    hints cap it: one hint -> at most Good, two or more -> at most Hard.
- the user can overrule the rating with one tap ("I knew it" -> Good, "partly" -> Hard,
  "no" -> Again); the review is then redone from the state before that answer.
- FSRS runs without same-day learning steps: a question practised today comes back on a
  later day, never minutes later.
- a better rating never brings a question back sooner than a worse one, and on a different
  day: FSRS gives a new card one day for both "no" and "partly", so "partly" gets one more.
Also here: weak spots (concepts missed across questions) and the level-up suggestion.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from fsrs import Card, Rating, Scheduler

from bot.core.levels import LEVEL_ORDER, Level

RATING_THRESHOLDS: tuple[tuple[float, Rating], ...] = (
    (0.85, Rating.Easy),
    (0.60, Rating.Good),
    (0.30, Rating.Hard),
)
HINT_CAPS: tuple[tuple[int, Rating], ...] = ((2, Rating.Hard), (1, Rating.Good))
OVERRIDES: dict[str, Rating] = {"good": Rating.Good, "hard": Rating.Hard, "again": Rating.Again}

LEVEL_UP_ANSWERS = 5  # recent answers at the current level that are looked at
LEVEL_UP_AVERAGE = 0.80  # their average coverage that earns the suggestion
WEAK_MIN_MISSES = 2
WEAK_WINDOW = 50  # the latest answers weak spots are looked for in

_SCHEDULER = Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)


def rating_for(coverage: float, hints: int = 0) -> Rating:
    """The FSRS rating an answer earns (see the module docstring for the table)."""
    rating = next((r for floor, r in RATING_THRESHOLDS if coverage >= floor), Rating.Again)
    for min_hints, cap in HINT_CAPS:
        if hints >= min_hints:
            return min(rating, cap)
    return rating


@dataclass(frozen=True, slots=True)
class ReviewState:
    card: str  # FSRS card as JSON
    due: datetime


def review(previous: str | None, rating: Rating, at: datetime) -> ReviewState:
    """Apply one review at `at` to a card (None: first time seen); return the new state."""
    updated = _review_card(previous, rating, at)
    if rating > Rating.Again:
        worse = review(previous, Rating(rating - 1), at)
        if updated.due <= worse.due:
            updated.due = worse.due + timedelta(days=1)
    return ReviewState(json.dumps(updated.to_dict()), updated.due)


def _review_card(previous: str | None, rating: Rating, at: datetime) -> Card:
    # An explicit card_id: without one, fsrs.Card() sleeps 1 ms (blocking the event loop)
    # to keep its clock-based ids unique. Ours are never used; the row key is enough.
    card = Card.from_dict(json.loads(previous)) if previous else Card(card_id=1, due=at)
    updated, _log = _SCHEDULER.review_card(card, rating, review_datetime=at)
    return updated


def recall_at(card: str, at: datetime) -> float:
    """FSRS's predicted chance of recalling a card (JSON, as stored) at `at`: the interview
    plan asks it of the interview day (bot/core/interview.py)."""
    return float(_SCHEDULER.get_card_retrievability(Card.from_dict(json.loads(card)), at))


def is_weak(rating: int) -> bool:
    """A question whose last answer was rated below Good (Again or Hard)."""
    return rating < Rating.Good


@dataclass(frozen=True, slots=True)
class WeakSpot:
    """A concept (or topic) missed more often than covered in the latest answers."""

    label: str  # the label of its most recent miss
    missed: int  # in the latest answers, counted by topic


def weak_spots(
    answers: Iterable[tuple[Sequence[str], Sequence[str]]],
    topic_of: Mapping[str, str] | None = None,
    limit: int = 3,
) -> list[WeakSpot]:
    """Concepts missed at least twice and more often than covered, most missed first.

    `answers` are (covered labels, missed labels) pairs, newest first. Concepts that share a
    topic (`topic_of`: label -> topic) count together across questions; each weak spot is
    shown by the label of its most recent miss.
    """
    topic_of = topic_of or {}
    missed: Counter[str] = Counter()
    covered: Counter[str] = Counter()
    shown: dict[str, str] = {}
    for got, lost in answers:
        covered.update(topic_of.get(label, label) for label in got)
        for label in lost:
            key = topic_of.get(label, label)
            missed[key] += 1
            shown.setdefault(key, label)
    weak = [
        WeakSpot(shown[key], n)
        for key, n in missed.most_common()
        if n >= WEAK_MIN_MISSES and n > covered[key]
    ]
    return weak[:limit]


def weak_concepts(
    answers: Iterable[tuple[Sequence[str], Sequence[str]]],
    topic_of: Mapping[str, str] | None = None,
    limit: int = 3,
) -> list[str]:
    """The labels of `weak_spots`, most missed first."""
    return [spot.label for spot in weak_spots(answers, topic_of, limit)]


def level_up(current: Level, recent_scores: Sequence[float]) -> Level | None:
    """The next level when the last answers at `current` average high; never forced."""
    if current is LEVEL_ORDER[-1] or len(recent_scores) < LEVEL_UP_ANSWERS:
        return None
    window = recent_scores[:LEVEL_UP_ANSWERS]
    if sum(window) / len(window) < LEVEL_UP_AVERAGE:
        return None
    return LEVEL_ORDER[LEVEL_ORDER.index(current) + 1]
