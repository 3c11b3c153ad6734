"""The JSON of `interview-bot score` (ScoreResult.summary): how credits are rounded."""

from __future__ import annotations

from bot.core.content import Concept
from bot.core.scoring import ConceptHit, ScoreResult, Status


def test_a_partial_credit_is_shown_to_three_decimals() -> None:
    # Two of three key terms: 2/3 credit, shown as 0.667 (not 0.6667).
    hit = ConceptHit("queue delay", 1.0, "queue", 0, 5, "queue", Status.LISTED, "", 2 / 3)
    result = ScoreResult(
        question_id="t-q1",
        score=0.5,
        coverage=0.5,
        relevance=0.0,
        covered=[hit],
        missed=[Concept(label="ensemble")],
        contradicted=[],
    )
    (match,) = result.summary()["matches"]  # type: ignore[misc]
    assert match["credit"] == 0.667
    assert result.summary()["partly"] == ["queue delay"]
