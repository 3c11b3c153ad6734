"""Scoring rules for the mutants of `_compile` and `score_answer` (issue 12) that no test
told apart, each written from the rule with its expected values worked out by hand.

Questions are built inside their test (`question_of`), so each is compiled afresh (the
scorer caches compiled questions), except where a rule shows on a real question of the bank.
"""

from __future__ import annotations

import pytest

from bot.core import scoring
from bot.core.content import Concept, Library
from bot.core.scoring import compiled, score_answer
from tests.support.questions import question_of

# -- a subject named with a typo ------------------------------------------------------------


def test_a_subject_and_one_word_of_a_claim_say_nothing_even_with_a_typo_in_the_subject(
    library: Library,
) -> None:
    # llm-q11 (tensor vs pipeline parallelism): 延迟 is a word of "TP 能降低单请求延迟" and
    # of the reference. Naming the subject and that word states nothing and says nothing:
    # no credit and no relevance share. A typo in the subject's name is still its name.
    question = library.questions["llm-q11"]
    for answer in ("Tensor parallelism 延迟.", "Tnsor parallelism 延迟."):
        result = score_answer(question, answer)
        assert (result.score, result.relevance, result.covered) == (0.0, 0.0, []), answer


# -- the order of the feedback ---------------------------------------------------------------


def test_fully_stated_concepts_come_before_partly_stated_ones() -> None:
    # The feedback lists `covered` in order: the concepts stated in full first, then those
    # earning part of their weight, whatever the order of the question's concepts.
    question = question_of(
        Concept(label="max_num_seqs bounds preemption", terms=(("max_num_seqs",), ("preemption",))),
        Concept(label="a fast cache serves reads", aliases=("fast cache",)),
    )
    answer = "max_num_seqs limits how many sequences run. A fast cache serves the reads."
    result = score_answer(question, answer)
    assert [(h.label, h.credit) for h in result.covered] == [
        ("a fast cache serves reads", 1.0),
        ("max_num_seqs bounds preemption", 0.5),
    ]
    assert result.score == 0.75  # (1 + 0.5) of 2


# -- what the reference says nearer another subject ------------------------------------------

VARY = "A shared cache keeps one copy per Vary value, so a larger Vary list lowers the hit ratio."


def test_the_reference_pasted_back_earns_full_marks_with_a_term_nearer_another_subject() -> None:
    # The claim of the first subject (index 0: "shared cache") is the reference's own
    # sentence, and one of its terms (hit ratio) stands nearer the other subject (Vary list).
    # The reference says it that way, so that term is not read by the nearest subject: the
    # reference, and its first sentence alone, state the claim in full.
    question = question_of(
        Concept(label=VARY, subject=("shared cache",), terms=(("one copy",), ("hit ratio",))),
        Concept(
            label="the Vary list names the headers",
            subject=("Vary list",),
            aliases=("names the headers",),
        ),
        answer=f"{VARY} The Vary list names the headers.",
    )
    whole = score_answer(question, question.answer)
    assert whole.score == 1.0
    assert [(h.label, h.credit) for h in whole.covered] == [
        (VARY, 1.0),
        ("the Vary list names the headers", 1.0),
    ]
    first = score_answer(question, VARY)
    assert [(h.label, h.credit) for h in first.covered] == [(VARY, 1.0)]


# -- the bound on compiled questions -----------------------------------------------------------


def test_the_compiled_questions_bound_empties_the_cache_and_the_typo_count(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The bound of 10,000 made 3 (test_memory_bounds checks the real one, outside mutation
    # runs): the 4th question compiled finds 3 kept and starts again from none, and the typo
    # memos went with their questions, so their count starts again from 0.
    scoring.COMPILED.clear()
    monkeypatch.setattr(compiled, "COMPILED_MAX", 3)
    monkeypatch.setattr(compiled, "_typo_memo_size", 0)
    question = question_of(
        Concept(label="request scheduler"), answer="A request scheduler batches requests."
    )
    kept, memo = [], []
    for _ in range(5):
        # A new question object each time (a bank loaded again); "schedular" is looked up
        # as a possible typo once per question (it is one: of "scheduler").
        score_answer(question.model_copy(), "the request schedular")
        kept.append(len(scoring.COMPILED))
        memo.append(scoring.typo_memo_size())
    assert kept == [1, 2, 3, 1, 2]
    assert memo == [1, 2, 3, 1, 2]
