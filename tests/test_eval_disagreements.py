"""Which disagreements `content eval` shows first, for the surviving mutants of `evaluation.py`.

The scores are given by hand (the scorer is replaced by a table): what is under test is the
order of the "worst disagreements", the biggest gap between a better answer's score and a
worse answer's first.
"""

from __future__ import annotations

import pytest

from bot.core import evaluation
from bot.core.content import Concept, Question
from bot.core.evaluation import Graded, agreement, report
from bot.core.levels import Level

SCORES = {
    "small gap better": 0.2,
    "small gap worse": 0.3,
    "big gap better": 0.0,
    "big gap worse": 0.4,
}


class _Result:
    def __init__(self, score: float) -> None:
        self.score = score


def _question(qid: str) -> Question:
    return Question(
        id=qid,
        level=Level.BEGINNER,
        question="What?",
        answer="This.",
        concepts=(Concept(label="this"),),
    )


def test_the_biggest_gap_is_the_worst_disagreement(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(evaluation, "score_answer", lambda _q, answer: _Result(SCORES[answer]))
    questions = {"t-q1": _question("t-q1"), "t-q2": _question("t-q2")}
    graded = [
        # t-q1: the better answer scores 0.1 below the worse one (0.2 < 0.3, sum 0.5);
        Graded("t-q1", 3, "small gap better"),
        Graded("t-q1", 1, "small gap worse"),
        # t-q2: 0.4 below (0.0 < 0.4, sum 0.4): the worse of the two disagreements.
        Graded("t-q2", 3, "big gap better"),
        Graded("t-q2", 1, "big gap worse"),
    ]
    result = agreement(questions, graded)
    assert [(b.item.answer, w.item.answer) for b, w in result.worst] == [
        ("big gap better", "big gap worse"),
        ("small gap better", "small gap worse"),
    ]
    (shown,) = agreement(questions, graded, worst=1).worst
    assert (shown[0].item.question_id, shown[0].score, shown[1].score) == ("t-q2", 0.0, 0.4)
    text = report(agreement(questions, graded, worst=1))
    assert text.endswith(
        "worst disagreements (better answer scored lower):\n"
        "  t-q2: grade 3 scored 0.00 < grade 1 scored 0.40\n"
        "    better: big gap better\n"
        "    worse:  big gap worse"
    )
