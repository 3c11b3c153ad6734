"""Choosing the next question: no repeats while unseen questions remain."""

from __future__ import annotations

import random
from collections.abc import Sequence

from bot.core.content import Question


def pick_question(
    pool: Sequence[Question], recent: Sequence[str], rng: random.Random | None = None
) -> Question | None:
    """Pick a question from `pool` not in `recent` (newest first); else the least recent one."""
    if not pool:
        return None
    rng = rng or random.Random()
    seen = set(recent)
    fresh = [q for q in pool if q.id not in seen]
    if fresh:
        return rng.choice(fresh)
    # Everything was asked: the one asked longest ago comes back first.
    rank = {qid: i for i, qid in enumerate(recent)}
    return max(pool, key=lambda q: rank.get(q.id, -1))
