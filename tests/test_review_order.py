"""A better self-rating never brings a question back sooner, nor on the same day."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from fsrs import Rating

from bot.core.review import review

AT = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _history(ratings: list[Rating]) -> tuple[str | None, datetime]:
    card, at = None, AT
    for rating in ratings:
        state = review(card, rating, at)
        card, at = state.card, state.due
    return card, at


@pytest.mark.parametrize(
    "history",
    [[], [Rating.Again], [Rating.Hard], [Rating.Good], [Rating.Easy], [Rating.Good] * 3,
     [Rating.Good, Rating.Again, Rating.Hard]],
    ids=lambda h: "-".join(r.name for r in h) or "new",
)  # fmt: skip
def test_each_better_rating_comes_back_on_a_later_day(history: list[Rating]) -> None:
    card, at = _history(history)
    days = [(review(card, r, at).due - at) / timedelta(days=1) for r in Rating]
    assert days == sorted(days) and len(set(days)) == len(days), days
    assert days[0] >= 1  # never the same day


def test_a_new_card_no_tomorrow_partly_in_two_days() -> None:
    assert review(None, Rating.Again, AT).due == AT + timedelta(days=1)
    assert review(None, Rating.Hard, AT).due == AT + timedelta(days=2)


def test_order_holds_for_a_card_reviewed_off_schedule() -> None:
    # "No", then "partly" two days later, then a review the next day: FSRS alone gives
    # "partly" and "I knew it" the same day here.
    first = review(None, Rating.Again, AT)
    second_at = AT + timedelta(days=2)
    second = review(first.card, Rating.Hard, second_at)
    third_at = second_at + timedelta(days=1)
    days = [(review(second.card, r, third_at).due - third_at).days for r in Rating]
    assert days == sorted(days) and len(set(days)) == 4, days
