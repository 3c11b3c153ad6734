"""Scoring rules a learner meets, each with values worked out by hand from the rule.

- Typos: a Latin word of 5-8 letters may be one edit off, from 9 letters on two; shorter
  words and numbers must match; a phrase may spend one edit per 8 letters in all, and only
  phrases made of Latin words are typo-tolerant (bot/core/scoring.py, FUZZY_*).
- Identifiers run together (`kvcache`) name the same thing as their words.
- An alias that is in the question text never counts; the others of that concept still do.
- Relevance: the share of the reference's topic words (not the question's; no stop words,
  single letters or numbers; Chinese bigrams without filler characters) that the answer
  uses, worth at most 15% of what coverage left open.
- The JSON `interview-bot score` prints.
"""

from __future__ import annotations

import pytest

from bot.core.content import Concept, Question
from bot.core.scoring import ConceptHit, ScoreResult, Status, score_answer


def _question(*concepts: Concept, question: str = "How does the server stay fast?") -> Question:
    return Question(
        id="t-q1", level="beginner", question=question, answer="Reference.", concepts=concepts
    )


def _covered(question: Question, answer: str) -> list[str]:
    return [h.label for h in score_answer(question, answer).covered]


TYPOS = _question(
    Concept(label="pipeline stage"),  # 8 + 5 letters: one edit in all
    Concept(label="request scheduler"),  # 7 + 9 letters: two edits in all
    Concept(label="continuous batching"),  # 10 + 8 letters: two edits in all
    Concept(label="tensor parallelism"),  # 6 + 11 letters: two edits in all
    Concept(label="batch queue"),  # 5 + 5 letters: one edit
    Concept(label="max batch size limit"),  # 3 + 5 + 4 + 5 letters: two edits
    Concept(label="maximum queue delay microseconds"),  # 29 letters: three edits
    Concept(label="timeout 30000 ms"),  # numbers are not letters
    Concept(label="preferred 批大小"),  # not all Latin: exact only
)


@pytest.mark.parametrize(
    ("answer", "covered"),
    [
        pytest.param(
            "It splits work by pipeline stgae here.", ["pipeline stage"], id="5-letters-1"
        ),
        pytest.param("It uses a request schdulr here.", ["request scheduler"], id="9-letters-2"),
        pytest.param("It runs continuous btching here.", ["continuous batching"], id="8-letters-1"),
        pytest.param("It runs continuous btchng here.", [], id="8-letters-not-2"),
        pytest.param("It uses tensr parallelism here.", ["tensor parallelism"], id="first-word"),
        pytest.param("It uses rensor parallelism here.", ["tensor parallelism"], id="first-letter"),
        pytest.param("It uses tensor parallelsim here.", ["tensor parallelism"], id="swap"),
        pytest.param("It uses rensr parallelsim here.", [], id="three-edits-over-two"),
        pytest.param("It fills the bacth queue here.", ["batch queue"], id="short-phrase"),
        pytest.param("It fills the bacth qeueu here.", [], id="two-edits-over-one"),
        pytest.param("It sets the max batch sise limit.", [], id="4-letters-exact"),
        pytest.param("It sets the max batch size limt.", ["max batch size limit"], id="limt"),
        pytest.param("It sets the max bacth sise limit.", [], id="4-letters-exact-with-a-typo"),
        pytest.param("It runs contnuous bätching here.", [], id="non-ascii-is-not-a-typo"),
        pytest.param(
            "It sets maximum xxxxx delay microseconds.", [], id="a-whole-word-is-not-a-typo"
        ),
        pytest.param(
            "It sets maximum queue dlay microsecnds.",
            ["maximum queue delay microseconds"],
            id="two-edits-of-three",
        ),
        pytest.param("It sets timeout 30001 ms.", [], id="numbers-exact"),
        pytest.param("It sets timeout 30000 ms.", ["timeout 30000 ms"], id="numbers-equal"),
        pytest.param("It sets prefered 批大小 to 4.", [], id="mixed-scripts-exact"),
        pytest.param("It sets preferred 批大小 to 4.", ["preferred 批大小"], id="mixed-equal"),
    ],
)
def test_typo_tolerance(answer: str, covered: list[str]) -> None:
    assert _covered(TYPOS, answer) == covered


def test_a_typo_is_quoted_as_typed() -> None:
    answer = "It uses a request schdulr here."
    (hit,) = score_answer(TYPOS, answer).covered
    assert (hit.text, hit.start, hit.end) == ("request schdulr", 10, 25)


def test_identifiers_run_together_and_aliases_the_question_uses() -> None:
    question = _question(
        Concept(label="KV cache", aliases=("kv-cache", "key value cache")),
        question="Why does the KV cache grow with the sequence?",
    )
    # The label is in the question: it never counts, even run together or pasted back.
    assert _covered(question, "Why does the KV cache grow with the sequence?") == []
    assert _covered(question, "The kvcache keeps past tokens.") == []
    # The aliases after those in the question still count.
    assert _covered(question, "The key value cache keeps past tokens.") == ["KV cache"]
    other = _question(Concept(label="KV cache"))
    assert _covered(other, "The kvcache keeps past tokens.") == ["KV cache"]


def test_relevance_is_the_share_of_the_references_topic_words() -> None:
    question = Question(
        id="t-q2",
        level="beginner",
        question="What does Triton do?",
        # Topic words: batch request cach kv model keep top devic 显存 关键 (10); not triton
        # (in the question), k (one letter), 2 (a number), on/and (stop words), 它的 的显
        # 存是 是关 (bigrams with filler characters).
        answer=(
            "Triton batches requests, caches kv models and keeps top k on 2 devices，"
            "它的显存是关键。"
        ),
        concepts=(Concept(label="dynamic batching"),),
    )
    result = score_answer(question, "It caches kv models on the devices, 显存 too.")
    assert result.covered == [] and result.coverage == 0
    assert result.relevance == pytest.approx(5 / 10)  # cach kv model devic 显存
    assert result.score == pytest.approx(0.15 * 0.5)


def test_summary_is_the_json_of_interview_bot_score() -> None:
    def hit(label: str, status: Status, credit: float, phrase: str, start: int) -> ConceptHit:
        return ConceptHit(
            label, 1.0, phrase, start, start + len(phrase), phrase, status, "", credit
        )

    full = hit("max_batch_size", Status.COVERED, 1.0, "max_batch_size", 3)
    listed = hit("preserve_ordering", Status.LISTED, 0.3, "ordering", 20)
    wrong = hit("ensemble", Status.NEGATED, 0.0, "ensemble", 40)
    result = ScoreResult(
        question_id="triton-q3",
        score=0.123456,
        coverage=0.654321,
        relevance=0.5,
        covered=[full, listed],
        missed=[Concept(label="queue delay"), Concept(label="ensemble")],
        contradicted=[wrong],
    )
    assert result.summary() == {
        "question_id": "triton-q3",
        "score": 0.1235,
        "coverage": 0.6543,
        "covered": ["max_batch_size"],
        "partly": ["preserve_ordering"],
        "contradicted": {"ensemble": "negated"},
        "missed": ["queue delay", "ensemble"],
        "matches": [
            {
                "concept": "max_batch_size",
                "status": "covered",
                "credit": 1.0,
                "phrase": "max_batch_size",
                "start": 3,
                "end": 17,
                "quote": "",
            },
            {
                "concept": "preserve_ordering",
                "status": "listed",
                "credit": 0.3,
                "phrase": "ordering",
                "start": 20,
                "end": 28,
                "quote": "",
            },
            {
                "concept": "ensemble",
                "status": "negated",
                "credit": 0.0,
                "phrase": "ensemble",
                "start": 40,
                "end": 48,
                "quote": "",
            },
        ],
    }
    assert result.covered_labels == ["max_batch_size"]
    assert result.missed_labels == ["queue delay", "ensemble", "preserve_ordering"]


def test_a_typo_remembered_for_one_question_is_not_reused_for_another() -> None:
    # Typo lookups are memoised per question: a word that is no typo of anything in one
    # question may still be a typo in the next one.
    answer = "It uses a request schedlr now."
    assert _covered(_question(Concept(label="batch queue")), answer) == []
    assert _covered(_question(Concept(label="request scheduler")), answer) == ["request scheduler"]
