"""Group round answers through the practice steps: what is kept and what feedback is given.

Written for survivors of the mutation run; expected values written out by hand.
"""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from bot.core.content import Library, Pack
from bot.core.levels import Level
from bot.core.scoring import ScoreResult
from bot.core.streaks import StreakState
from bot.services.practice import Practice
from bot.storage import Storage
from tests.conftest import FakeClock

ADA = 501
GROUP = -4242
# Two parameters only named in a list: credited in part (as in test_learning's export test).
PARTLY_ANSWER = (
    "max_batch_size 限制单次最大批。其他参数：preserve_ordering, max_queue_delay_microseconds"
)


async def _round(practice: Practice) -> int:
    await practice.storage.ensure_chat(GROUP, "group", "g")
    now = practice.clock()
    round_id = await practice.storage.open_round(
        GROUP, "triton-q3", ADA, now, now + timedelta(minutes=10), daily=False
    )
    assert round_id is not None
    return round_id


async def test_a_round_answer_keeps_the_partly_credited_concepts_in_the_history(
    practice: Practice,
) -> None:
    ada = await practice.storage.ensure_user(ADA, "Ada", "en")
    round_id = await _round(practice)
    question = practice.library.questions["triton-q3"]
    scored = await practice.answer_round(
        round_id, question, ada, first_name="Ada", message_id=7, text=PARTLY_ANSWER
    )
    assert scored is not None
    assert await practice.storage.close_round(round_id, practice.clock(), question.level)
    (kept,) = await practice.history(ADA)
    assert set(kept.partly) == {
        "max_queue_delay_microseconds（最大排队等待）",
        "preserve_ordering（保证返回顺序）",
    }
    assert kept.covered == ["max_batch_size（单次最大 batch）"]


async def test_round_feedback_is_drafted_with_the_members_counted_streak(
    practice: Practice,
) -> None:
    ada = await practice.storage.ensure_user(ADA, "Ada", "en")
    round_id = await _round(practice)
    seen: list[tuple[float, StreakState, datetime]] = []

    def feedback(result: ScoreResult, streak: StreakState, at: datetime) -> None:
        seen.append((result.score, streak, at))

    scored = await practice.answer_round(
        round_id,
        practice.library.questions["triton-q3"],
        ada,
        first_name="Ada",
        message_id=7,
        text=PARTLY_ANSWER,
        feedback=feedback,
    )
    assert scored is not None
    result, streak = scored
    assert streak == StreakState(current=1, best=1, last_day=date(2026, 3, 2), freezes=0)
    assert seen == [(result.score, streak, datetime(2026, 3, 2, 9, 0, tzinfo=UTC))]


def _pack(pack_id: str, level: str, count: int) -> Pack:
    return Pack.model_validate(
        {
            "id": pack_id,
            "title": pack_id.title(),
            "language": "en",
            "questions": [
                {
                    "id": f"{pack_id}-{level}-{n}",
                    "level": level,
                    "question": f"What is cache {n}?",
                    "answer": "A store of recent results.",
                    "concepts": [{"label": "store"}],
                }
                for n in range(count)
            ],
        }
    )


async def test_a_saved_pack_without_the_level_asked_falls_back_to_that_level_elsewhere(
    tmp_path: Path,
) -> None:
    # Ada saved the beginner-only pack and asks for an advanced question: it comes from the
    # other pack, at the level asked, again and again (never a beginner one of her pack).
    library = Library([_pack("basics", "beginner", 5), _pack("deep", "advanced", 1)])
    storage = Storage(tmp_path / "p.sqlite3")
    await storage.open()
    try:
        clock = FakeClock(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
        practice = Practice(storage, library, clock=clock, rng=random.Random(5))
        await storage.ensure_user(ADA, "Ada", "en")
        await storage.update_user(ADA, pack="basics")
        ada = await storage.ensure_user(ADA, "Ada", "en")
        for _ in range(3):
            asked = await practice.ask(ADA, ada, Level.ADVANCED, None)
            assert asked is not None
            assert asked.question.id == "deep-advanced-0"
    finally:
        await storage.close()
