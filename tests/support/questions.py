"""Questions written inside a test, and what the scorer made of each of their concepts."""

from __future__ import annotations

from bot.core.content import Concept, Question
from bot.core.scoring import Status, score_answer


def question_of(
    *concepts: Concept,
    question: str = "How does the server stay fast?",
    answer: str = "Reference.",
) -> Question:
    """A one-question bank of these concepts (ids and level fixed)."""
    return Question(
        id="t-q1", level="beginner", question=question, answer=answer, concepts=concepts
    )


def statuses(question: Question, answer: str) -> dict[str, tuple[Status, float]]:
    """Concept label -> (status, credit) for every concept the answer covered or contradicted."""
    result = score_answer(question, answer)
    return {
        h.label: (h.status, round(h.credit, 4)) for h in (*result.covered, *result.contradicted)
    }
