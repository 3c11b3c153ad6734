"""The scorer's caches stay bounded however many answers and questions go through it.

Two caches live for the whole process: the typo memo (answer words to the phrase words they
may be typos of, shared by every question) and the compiled form of each question. Both are
filled here well past their bounds; the sizes are read after every step. The bounds are
written out (scoring.py's `_TYPO_MEMO_MAX` and `_COMPILED_MAX`): they are what keeps a
long-running bot's memory flat (issue 13), so a change to them should be a visible one.
"""

from __future__ import annotations

import random

from bot.core import scoring
from bot.core.content import Concept, Question
from bot.core.scoring import score_answer

TYPO_MEMO_BOUND = 20_000
COMPILED_BOUND = 10_000
CONSONANTS = "bcdfghjklmnpqrstvwxz"  # words no phrase below is near, so each is looked up


def _question() -> Question:
    return Question(
        id="bound-q1",
        level="beginner",
        question="How does the server stay fast?",
        answer="A request scheduler batches requests.",
        concepts=(Concept(label="request scheduler"),),
    )


def test_the_typo_memo_stays_within_its_bound() -> None:
    rng = random.Random(13)
    question = _question()
    seen_words: set[str] = set()
    sizes: list[int] = []
    # 25,000 distinct seven-letter words (long enough to be looked up as possible typos),
    # 250 an answer: past the bound by a quarter.
    while len(seen_words) < 25_000:
        seen_words.add("".join(rng.choice(CONSONANTS) for _ in range(7)))
    words = sorted(seen_words)
    rng.shuffle(words)
    for start in range(0, len(words), 250):
        score_answer(question, " ".join(words[start : start + 250]))
        sizes.append(scoring.typo_memo_size())
    assert max(sizes) <= TYPO_MEMO_BOUND
    assert min(sizes) > 0  # it memoises all along (bounded is not "turned off")


def test_the_compiled_questions_stay_within_their_bound() -> None:
    sizes: list[int] = []
    question = _question()
    # Distinct question objects (copies: building each through validation would take most
    # of the time), as a bank reloaded many times would give: 500 more than the bound. Each
    # is scored, and so compiled, once.
    for _ in range(COMPILED_BOUND + 500):
        score_answer(question.model_copy(), "the request scheduler")
        sizes.append(len(scoring.COMPILED))
    assert max(sizes) <= COMPILED_BOUND
    assert min(sizes) > 0
