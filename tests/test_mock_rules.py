"""The rules of a mock interview (bot/core/mock.py): what /mock's words ask for, the order
questions come in, which concept a follow-up is on."""

from __future__ import annotations

import itertools
import random

import pytest

from bot.core.content import Concept, Question
from bot.core.levels import Level
from bot.core.mock import (
    MockArgs,
    duration,
    follow_up_of,
    follow_up_question,
    parse_mock_args,
    plan_mock,
    topics_of,
)
from bot.core.scoring import score_answer

PACKS = {"triton": "triton", "llm_inference": "llm_inference"}


@pytest.mark.parametrize(
    ("words", "wanted"),
    [
        ([], MockArgs()),
        (["5"], MockArgs(count=5)),
        (["advanced"], MockArgs(level=Level.ADVANCED)),
        (["高级", "8"], MockArgs(count=8, level=Level.ADVANCED)),
        (["８题", "初级"], MockArgs(count=8, level=Level.BEGINNER)),  # full-width, with 题
        (["Triton"], MockArgs(pack="triton")),
        (["5", "3min"], MockArgs(count=5, limit_seconds=180)),
        (["3分钟", "2"], MockArgs(count=2, limit_seconds=180)),
        (["３ｍｉｎ"], MockArgs(limit_seconds=180)),  # typed on a full-width keyboard
        (["stop"], MockArgs(stop=True)),
        (["结束"], MockArgs(stop=True)),
        (["0"], MockArgs(problem="mock_bad_count", word="0")),
        (["11"], MockArgs(problem="mock_bad_count", word="11")),
        (["5", "6"], MockArgs(problem="mock_bad_count", word="6")),
        (["61min"], MockArgs(problem="mock_bad_limit", word="61min")),
        (["easy", "hard"], MockArgs(problem="mock_bad_args", word="hard")),
        (["stop", "5"], MockArgs(problem="mock_bad_args", word="stop")),
        (["redis"], MockArgs(problem="pack_draft", word="redis")),
        (["soon"], MockArgs(problem="mock_bad_word", word="soon")),
    ],
    # ASCII ids: mutmut names a test by its id, and pytest in the same process finds no
    # test by an id it had escaped (a CJK word's \u...), which stopped mutmut's runs.
    ids=lambda v: (
        "".join(c if c.isascii() else f"U+{ord(c):X}" for c in " ".join(v))
        if isinstance(v, list)
        else ""
    ),
)
def test_mock_words_in_any_order(words: list[str], wanted: MockArgs) -> None:
    assert parse_mock_args(words, PACKS, drafts=("redis",)) == wanted


def _question(qid: str, *topics: str, weight: float = 1.0) -> Question:
    concepts = [Concept(label=f"{qid} {t}", topic=t, weight=weight) for t in topics]
    concepts.append(Concept(label=f"{qid} own idea", weight=2.0))
    return Question(
        id=qid, level=Level.BEGINNER, question=f"{qid}?", answer="a", concepts=tuple(concepts)
    )


@pytest.mark.parametrize("seed", range(20))
def test_never_two_questions_on_one_topic_in_a_row_when_others_are_left(seed: int) -> None:
    # Three on batching, three on something else: alternating is always possible.
    pool = [_question(f"b{i}", "batching") for i in range(3)]
    pool += [_question(f"o{i}", f"other{i}") for i in range(3)]
    planned = plan_mock(pool, 6, lambda q: 1.0, random.Random(seed))
    assert len({q.id for q in planned}) == 6
    for before, after in itertools.pairwise(planned):
        assert not topics_of(before) & topics_of(after), [q.id for q in planned]


@pytest.mark.parametrize("seed", range(20))
def test_the_packs_take_turns_when_the_questions_drawn_allow_it(seed: int) -> None:
    # Six questions on six topics, three from each of two packs: alternating is possible.
    pool = [_question(f"{pack}{i}", f"topic{pack}{i}") for pack in "ab" for i in range(3)]
    pack_of = {q.id: q.id[0] for q in pool}
    planned = plan_mock(pool, 6, lambda q: 1.0, random.Random(seed), pack_of)
    packs = [pack_of[q.id] for q in planned]
    assert all(x != y for x, y in itertools.pairwise(packs)), packs


def test_a_follow_up_on_a_concept_the_pack_no_longer_has_is_none(q) -> None:  # type: ignore[no-untyped-def]
    assert follow_up_question(q("triton-q3"), "a concept since removed") is None


def test_weak_questions_are_drawn_far_more_often() -> None:
    pool = [_question(f"q{i}", f"t{i}") for i in range(10)]
    weak = {"q0", "q1"}
    drawn = 0
    rng = random.Random(7)
    for _ in range(400):
        planned = plan_mock(pool, 2, lambda q: 5.0 if q.id in weak else 1.0, rng)
        drawn += sum(q.id in weak for q in planned)
    # Drawn at random, two of ten would be weak 20% of the time; weighted 5:1, over 50%.
    assert drawn / 800 > 0.5


def test_the_follow_up_is_on_the_heaviest_concept_missed(q) -> None:  # type: ignore[no-untyped-def]
    question = q("triton-q3")
    said = "preferred_batch_size 是期望凑成的批大小"
    result = score_answer(question, said)
    follow = follow_up_of(question, result)
    assert follow is not None
    missed = [c for c in question.concepts if c.label not in result.covered_labels]
    assert follow.concept.weight == max(c.weight for c in missed)
    assert follow.mentioned == "preferred_batch_size（期望的 batch 大小）"


def test_no_follow_up_when_nothing_heavy_was_missed() -> None:
    light = Question(
        id="x1",
        level=Level.BEGINNER,
        question="What is a cache?",
        answer="a",
        concepts=(Concept(label="fast storage", weight=1.0), Concept(label="copy", weight=1.0)),
    )
    assert follow_up_of(light, score_answer(light, "I do not know this one at all")) is None


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [
        (0, "0:00"),
        (42, "0:42"),
        (725, "12:05"),
        (3599, "59:59"),
        (3600, "1:00:00"),
        (72000, "20:00:00"),
    ],
)
def test_an_answers_time_reads_as_a_clock_hours_and_all(seconds: int, shown: str) -> None:
    assert duration(seconds) == shown
