"""Pack loading and validation: the shipped pack, and readable errors for broken ones."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from bot.core.content import Library, PackError, load_library, parse_pack
from bot.core.levels import Level

GOOD = """
id: demo
title: Demo
language: en
questions:
  - id: demo-1
    level: 初级
    question: What is a cache?
    answer: A fast store in front of a slow one.
    concepts:
      - label: fast store
        aliases: [quick storage]
"""


def test_triton_pack_matches_the_seed(library: Library) -> None:
    pack = library.packs["triton"]
    assert [q.id for q in pack.questions] == [f"triton-q{i}" for i in range(1, 13)]
    levels = Counter(q.level for q in pack.questions)
    assert levels == {Level.BEGINNER: 3, Level.INTERMEDIATE: 4, Level.ADVANCED: 5}
    for question in pack.questions:
        assert len(question.concepts) >= 4, question.id
        for concept in question.concepts:
            assert concept.aliases, f"{question.id}: {concept.label} has no aliases"


def test_reference_answers_have_no_broken_wraps(library: Library) -> None:
    for question in library.pack_of:
        text = library.questions[question].answer
        for line in text.splitlines():
            # The seed's artefact: an identifier alone at the start of a line mid-sentence.
            assert not (
                line
                and line[0].isascii()
                and line[0].islower()
                and "_" in line.split()[0]
                and not line.startswith("- ")
            ), (question, line)


def test_chinese_level_words_are_accepted() -> None:
    pack = parse_pack(GOOD, "demo.yaml")
    assert pack.questions[0].level is Level.BEGINNER


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            GOOD.replace("level: 初级", "level: expert-ish"),
            "question demo-1: field level: unknown level",
            id="bad-level",
        ),
        pytest.param(
            GOOD.replace("    answer: A fast store in front of a slow one.\n", ""),
            "question demo-1: field answer: missing (it is required)",
            id="missing-answer",
        ),
        pytest.param(
            GOOD.replace("aliases: [quick storage]", "aliases: ['!!!']"),
            "question demo-1: field concepts[0]: phrase '!!!' has no letters",
            id="unmatchable-alias",
        ),
        pytest.param(
            GOOD.replace("aliases: [quick storage]", "aliases: ['Ｘ']"),
            "question demo-1: field concepts[0]: phrase 'Ｘ' is a single character",
            id="one-character-alias",
        ),
        pytest.param(
            GOOD.replace("aliases: [quick storage]", "aliases: ['(k)']"),
            "question demo-1: field concepts[0]: phrase '(k)' is a single character",
            id="one-letter-in-markup",
        ),
        pytest.param(
            GOOD.replace("weight", "x").replace("aliases: [quick storage]", "weight: -1"),
            "question demo-1: field concepts[0].weight",
            id="negative-weight",
        ),
        pytest.param(
            GOOD.replace("id: demo\n", "id: Demo Pack\n"),
            "demo.yaml: field id: use",
            id="bad-pack-id",
        ),
        pytest.param(
            "id: [unclosed",
            "demo.yaml: did not find expected ',' or ']' (line 2, column 1)",
            id="yaml-syntax",
        ),
        pytest.param("- just\n- a list\n", "a pack must be a YAML mapping", id="not-a-mapping"),
        pytest.param(
            GOOD + "    extra: 1\n",
            "question demo-1: field extra: unknown field (a typo?)",
            id="unknown-field",
        ),
    ],
)
def test_errors_name_file_question_and_field(text: str, expected: str) -> None:
    with pytest.raises(PackError) as info:
        parse_pack(text, "packs/demo.yaml")
    message = str(info.value)
    assert message.startswith("packs/demo.yaml: ")
    assert expected in message


def test_duplicate_question_ids_across_files(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "b.yaml").write_text(GOOD.replace("id: demo\n", "id: other\n"), encoding="utf-8")
    with pytest.raises(PackError, match=r"b\.yaml: question demo-1: field id: also used in"):
        load_library([tmp_path])


def test_unreadable_and_empty_folders(tmp_path: Path) -> None:
    with pytest.raises(PackError, match="no pack files"):
        load_library([tmp_path])
    (tmp_path / "bad.yaml").write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(
        PackError,
        match=r"bad\.yaml: the file is UTF-16, not UTF-8: save it as UTF-8",
    ):
        load_library([tmp_path])
