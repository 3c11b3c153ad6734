"""Authoring checks: the warnings `content check` gives a pack's author."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main
from bot.core.authoring import duplicate_warnings, level_warnings, pack_warnings
from bot.core.content import Concept, Library, Pack, Question
from bot.core.levels import Level


def _pack(*concepts: Concept, answer: str = "", draft: bool = False) -> Pack:
    question = Question(
        id="p-q1",
        level=Level.BEGINNER,
        question="Which Triton batching knobs matter?",
        answer=answer or "preferred_batch_size sets the batch it aims for; preserve ordering too.",
        concepts=concepts,
    )
    return Pack(id="p", title="P", language="en", questions=(question,), draft=draft)


def test_alias_in_the_question_text() -> None:
    (warning,) = pack_warnings(
        _pack(Concept(label="preferred size", aliases=("preferred_batch_size", "batching knobs")))
    )
    assert "'batching knobs' is in the question text" in warning


def test_one_word_alias_inside_an_identifier_of_another_concept() -> None:
    warnings = pack_warnings(
        _pack(
            Concept(label="target batch", aliases=("preferred_batch_size",)),
            Concept(label="ordering", aliases=("preserve ordering", "preferred")),
        )
    )
    assert warnings == [
        "p-q1: concept 'ordering': one-word alias 'preferred' also matches inside "
        "'preferred_batch_size'"
    ]


def test_alias_shared_by_two_concepts() -> None:
    warnings = pack_warnings(
        _pack(
            Concept(label="target batch", aliases=("preferred_batch_size", "aims")),
            Concept(label="ordering", aliases=("preserve ordering", "aims")),
        )
    )
    assert any("'aims' belongs to 2 concepts" in w for w in warnings), warnings


def test_alias_inside_its_own_subjects_identifier() -> None:
    warnings = pack_warnings(
        _pack(
            Concept(
                label="preferred_batch_size is the batch it aims for",
                subject=("preferred_batch_size",),
                aliases=("batch size", "aims for"),
            ),
            answer="preferred_batch_size: the batch size it aims for.",
        )
    )
    assert warnings == [
        "p-q1: concept 'preferred_batch_size is the batch it aims for': alias 'batch size' is "
        "part of its subject 'preferred_batch_size', so naming the subject states the claim"
    ]


def test_a_key_term_two_claims_share_is_no_shared_alias() -> None:
    # Each claim needs both of its terms: the shared one earns neither alone.
    warnings = pack_warnings(
        _pack(
            Concept(label="target batch", terms=(("preferred_batch_size",), ("queue",))),
            Concept(label="ordering", terms=(("preserve ordering",), ("queue",))),
            answer="preferred_batch_size is taken from the queue; preserve ordering keeps it.",
        )
    )
    assert warnings == []


def test_concept_the_reference_does_not_state() -> None:
    # The reference still scores 90% or more (the missed concept weighs a tenth): the concept
    # is named alone.
    warnings = pack_warnings(
        _pack(
            Concept(label="target batch", aliases=("preferred_batch_size",), weight=9),
            Concept(label="queue delay", aliases=("max_queue_delay",)),
        )
    )
    assert warnings == [
        "p-q1: concept 'queue delay': the reference answer does not state it "
        "(the reference should score 100%)"
    ]


def test_a_concept_only_its_whole_label_can_state() -> None:
    label = "preferred_batch_size sets the batch it aims for"
    warnings = pack_warnings(_pack(Concept(label=label), answer=f"{label}."))
    assert warnings == [
        f"p-q1: concept {label!r} has no alias and no key term: only its whole label, "
        "word for word, states it"
    ]
    # A short label is a name an answer says as it is: no warning.
    assert pack_warnings(_pack(Concept(label="preferred_batch_size"))) == []


def test_a_plain_word_that_names_nothing_is_no_key_term() -> None:
    warnings = pack_warnings(
        _pack(Concept(label="target batch", aliases=("preferred_batch_size", "usually")))
    )
    assert warnings == [
        "p-q1: concept 'target batch': 'usually' names nothing in particular, so any "
        "on-topic sentence states the claim"
    ]
    # Said of a subject, the same word says something of it: no warning.
    bound = Concept(
        label="preferred_batch_size usually",
        subject=("preferred_batch_size",),
        aliases=("usually",),
    )
    assert not any("names nothing" in w for w in pack_warnings(_pack(bound)))


def test_draft_pack() -> None:
    warnings = pack_warnings(
        _pack(Concept(label="target batch", aliases=("preferred_batch_size",)), draft=True)
    )
    assert warnings == [
        "pack p is a draft (draft: true): review its concepts, then remove that line"
    ]


def test_the_shipped_packs_have_no_warnings(library: Library) -> None:
    for pack in library.packs.values():
        assert pack_warnings(pack) == [], pack.id
        assert level_warnings(pack) == [], pack.id
    # No question of theirs asks what another one asks.
    assert duplicate_warnings([(p.id, p) for p in library.packs.values()]) == []


def test_content_check_prints_warnings_and_strict_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(
        "id: p\ntitle: P\nlanguage: en\ndraft: true\nquestions:\n"
        "  - id: p-q1\n    level: beginner\n    question: What is TTFT?\n"
        "    answer: Time to first token.\n"
        "    concepts:\n      - label: first token\n        aliases: [time to first token]\n",
        encoding="utf-8",
    )
    assert main(["content", "check", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"warning: {path}: pack p is a draft" in out
    assert main(["content", "check", "--strict", str(path)]) == 1
