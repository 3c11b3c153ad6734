"""The figures `content eval` computes, on inputs whose answers are worked out by hand.

Scores used are the two a pack guarantees: its own reference answer scores 100% (content
check warns otherwise) and an answer with none of its words scores 0.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bot.core.content import Question
from bot.core.evaluation import Graded, GradedError, agreement, parse_graded, ranks, spearman

QuestionGetter = Callable[[str], Question]
OFF_TOPIC = "I like pizza."


def test_ranks_average_ties() -> None:
    assert ranks([10, 20, 20, 5]) == [2.0, 3.5, 3.5, 1.0]
    assert ranks([1, 2, 2]) == [1.0, 2.5, 2.5]
    assert ranks([7, 7, 7]) == [2.0, 2.0, 2.0]
    assert ranks([]) == []


def test_spearman() -> None:
    # ranks 1 2 3 against 1 3 2: deviations (-1, 0, 1) and (-1, 1, 0): 1 / sqrt(2 * 2)
    assert spearman([1, 2, 3], [1, 3, 2]) == pytest.approx(0.5)
    assert spearman([1, 2, 3], [30, 20, 10]) == pytest.approx(-1.0)
    assert spearman([1, 1, 1], [1, 2, 3]) == 0.0  # a constant says nothing
    assert spearman([1, 2, 3], [5, 5, 5]) == 0.0


def test_parse_graded_reads_answers_and_names_problems() -> None:
    assert parse_graded({"t-q1": [{"grade": 2, "answer": "a"}]}) == [Graded("t-q1", 2.0, "a", "")]
    assert parse_graded({"t-q1": [{"grade": 1.5, "answer": 3, "kind": "negated"}]}) == [
        Graded("t-q1", 1.5, "3", "negated")
    ]
    cases = [
        ({}, "graded answers: expected a mapping of question ids to lists of answers"),
        ([1], "graded answers: expected a mapping of question ids to lists of answers"),
        ({"t-q1": "x"}, "graded answers: t-q1: expected a list of answers"),
        ({"t-q1": [{"grade": 1}]}, "graded answers: t-q1 answer 1: needs 'grade' and 'answer'"),
        (
            {"t-q1": [{"grade": True, "answer": "a"}]},
            "graded answers: t-q1 answer 1: grade must be a number, not True",
        ),
        (
            {"t-q1": [{"grade": 1, "answer": "a"}, {"grade": "3", "answer": "b"}]},
            "graded answers: t-q1 answer 2: grade must be a number, not '3'",
        ),
    ]
    for data, message in cases:
        with pytest.raises(GradedError) as info:
            parse_graded(data)
        assert str(info.value) == message


def test_agreement_counts_pairs_of_one_question(q: QuestionGetter) -> None:
    question = q("triton-q3")
    reference = question.answer
    graded = [
        Graded("triton-q3", 3, OFF_TOPIC, "term-list"),  # scores 0
        Graded("triton-q3", 1, reference),  # scores 1
        Graded("triton-q3", 2, reference, "short-correct"),  # scores 1
    ]
    result = agreement({"triton-q3": question}, graded)
    # Pairs: 3 vs 1 and 3 vs 2 are ordered against the grades; 2 vs 1 tie (half).
    assert (result.count, result.pairs) == (3, 3)
    assert result.pairwise == pytest.approx(0.5 / 3)
    assert list(result.mean_by_grade.items()) == [(3.0, 0.0), (2.0, 1.0), (1.0, 1.0)]
    assert result.mean_by_kind == {"short-correct": 1.0, "term-list": 0.0}
    assert [(b.item.grade, w.item.grade) for b, w in result.worst] == [(3, 1), (3, 2)]


def test_agreement_keeps_the_five_worst_and_needs_known_questions(q: QuestionGetter) -> None:
    question = q("triton-q3")
    graded = [Graded("triton-q3", 3, OFF_TOPIC)] * 3 + [Graded("triton-q3", 1, question.answer)] * 2
    result = agreement({"triton-q3": question}, graded)
    assert result.pairs == 6 and result.pairwise == 0.0
    assert len(result.worst) == 5
    assert len(agreement({"triton-q3": question}, graded, worst=1).worst) == 1
    single = agreement({"triton-q3": question}, graded[:1])
    assert (single.pairs, single.pairwise, single.worst) == (0, 1.0, [])
    with pytest.raises(GradedError) as info:
        agreement({"triton-q3": question}, [Graded("b-q", 1, "x"), Graded("a-q", 1, "x")])
    assert str(info.value) == "no question with id a-q, b-q in the pack"
