"""Pack errors and library loading as a bank author reads them from `content check` / `run`.

Each message is written out by hand: the file, the question, the field and the advice an
author would act on. Written for the surviving mutants of `bot/core/content.py`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core.content import Library, PackError, load_library, parse_pack

HEAD = "id: demo\ntitle: Demo\nlanguage: en\n"
QUESTION = (
    "questions:\n"
    "  - id: demo-q1\n"
    "    level: beginner\n"
    "    question: What?\n"
    "    answer: This.\n"
    "    concepts:\n"
    "      - label: this\n"
)


def _problems(text: str) -> list[str]:
    with pytest.raises(PackError) as info:
        parse_pack(text, "demo.yaml")
    return info.value.problems


# -- the wording of each kind of schema error ---------------------------------------------------


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        pytest.param(
            HEAD + "questions: []\n",
            "demo.yaml: field questions: needs at least 1, has none",
            id="no-questions",
        ),
        pytest.param(
            HEAD
            + QUESTION.replace("      - label: this\n", "").replace("concepts:", "concepts: []"),
            "demo.yaml: question demo-q1: field concepts: needs at least 1, has none",
            id="no-concepts",
        ),
        pytest.param(
            HEAD.replace("title: Demo", "title: " + "T" * 121) + QUESTION,
            "demo.yaml: field title: too long: at most 120 characters",
            id="title-too-long",
        ),
        pytest.param(
            HEAD + QUESTION + "        weight: 11\n",
            "demo.yaml: question demo-q1: field concepts[0].weight: "
            "must be less than or equal to 10 (got 11)",
            id="weight-above-10",
        ),
        pytest.param(
            HEAD + QUESTION + "".join(f"      - label: c{i}\n" for i in range(59)),
            "demo.yaml: question demo-q1: field concepts: too many: at most 40 (has 60)",
            id="too-many-concepts",
        ),
        pytest.param(
            HEAD.replace("title: Demo", "title: 123") + QUESTION,
            "demo.yaml: field title: must be text (got 123)",
            id="title-a-number",
        ),
        pytest.param(
            HEAD + QUESTION + "        weight: heavy\n",
            "demo.yaml: question demo-q1: field concepts[0].weight: "
            "must be a number such as 1 or 0.5 (got 'heavy')",
            id="weight-a-word",
        ),
        pytest.param(
            # A list is not quoted back: "(got [1])" would read as YAML the author did not write.
            HEAD + QUESTION + "        weight: [1]\n",
            "demo.yaml: question demo-q1: field concepts[0].weight: "
            "must be a number such as 1 or 0.5",
            id="weight-a-list",
        ),
        pytest.param(
            HEAD + "draft: maybe\n" + QUESTION,
            "demo.yaml: field draft: must be true or false (got 'maybe')",
            id="draft-maybe",
        ),
        pytest.param(
            HEAD + "draft: [yes]\n" + QUESTION,
            "demo.yaml: field draft: must be true or false",
            id="draft-a-list",
        ),
        pytest.param(
            HEAD + QUESTION + "        aliases: quick\n",
            "demo.yaml: question demo-q1: field concepts[0].aliases: "
            "must be a list ([a, b] or lines starting with -) (got 'quick')",
            id="aliases-a-word",
        ),
        pytest.param(
            HEAD + "tags: {a: 1}\n" + QUESTION,
            "demo.yaml: field tags: must be a list ([a, b] or lines starting with -)",
            id="tags-a-mapping",
        ),
        pytest.param(
            HEAD + QUESTION.replace("      - label: this\n", "      - just text\n"),
            "demo.yaml: question demo-q1: field concepts[0]: "
            "must be a mapping (name: value lines) (got 'just text')",
            id="concept-a-line-of-text",
        ),
    ],
)
def test_each_kind_of_schema_error_reads_as_advice(text: str, problem: str) -> None:
    assert _problems(text) == [problem]


def test_a_bad_language_code_is_not_given_the_id_advice() -> None:
    # The id rule (lower-case letters, digits, - and _) is not the language rule (`en`,
    # `zh-Hans`): telling an author to write `english` would not fix it.
    (problem,) = _problems(HEAD.replace("language: en", "language: English") + QUESTION)
    assert problem.startswith("demo.yaml: field language: ")
    assert "lower-case letters" not in problem


# -- a library of several files -------------------------------------------------------------


def _pack(pack_id: str, question_id: str, level: str = "beginner") -> str:
    return (
        f"id: {pack_id}\ntitle: Demo\nlanguage: en\nquestions:\n"
        f"  - id: {question_id}\n    level: {level}\n    question: What?\n"
        "    answer: This.\n    concepts:\n      - label: this\n"
    )


def _load_problems(*paths: Path) -> list[str]:
    with pytest.raises(PackError) as info:
        load_library(paths)
    return info.value.problems


def test_every_file_is_checked_past_a_broken_one_and_a_repeated_pack_id(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(_pack("demo", "demo-q1"), encoding="utf-8")
    (tmp_path / "b.yaml").write_text(_pack("second", "second-q1", "wizard"), encoding="utf-8")
    (tmp_path / "c.yaml").write_text(_pack("demo", "third-q1"), encoding="utf-8")
    (tmp_path / "d.yaml").write_text(_pack("fourth", "fourth-q1", "guru"), encoding="utf-8")
    level_advice = "use beginner, intermediate or advanced"
    assert _load_problems(tmp_path) == [
        f"{tmp_path / 'b.yaml'}: question second-q1: field level: unknown level 'wizard'; "
        + level_advice,
        f"{tmp_path / 'c.yaml'}: field id: pack id 'demo' also in {tmp_path / 'a.yaml'}",
        f"{tmp_path / 'd.yaml'}: question fourth-q1: field level: unknown level 'guru'; "
        + level_advice,
    ]


def test_a_question_id_in_two_files_names_both_and_their_lines(tmp_path: Path) -> None:
    first = tmp_path / "a.yaml"
    second = tmp_path / "b.yaml"
    first.write_text(_pack("demo", "shared-q1"), encoding="utf-8")  # `- id:` on line 5
    # Two more lines above the questions: the id is on line 7 here.
    second.write_text(
        _pack("other", "shared-q1").replace("language: en\n", "language: en\ntags: []\n# x\n"),
        encoding="utf-8",
    )
    assert _load_problems(tmp_path) == [
        f"{second}: question shared-q1: field id: also used in {first}, line 5 (here, line 7)"
    ]


def test_folders_without_packs_are_all_named(tmp_path: Path) -> None:
    empty, other = tmp_path / "empty", tmp_path / "other"
    empty.mkdir()
    other.mkdir()
    (other / "notes.txt").write_text("not a pack", encoding="utf-8")
    assert _load_problems(empty, other) == [f"{empty}, {other}: no pack files (*.yaml) found"]


def test_a_yml_pack_in_a_folder_is_loaded(tmp_path: Path) -> None:
    (tmp_path / "short.yml").write_text(_pack("short", "short-q1"), encoding="utf-8")
    (tmp_path / "long.yaml").write_text(_pack("long", "long-q1"), encoding="utf-8")
    library = load_library([tmp_path])
    assert list(library.packs) == ["long", "short"]  # sorted by file name
    assert library.offered_question("short-q1") is not None


def test_concept_topics_are_looked_up_by_label_the_first_topic_kept(tmp_path: Path) -> None:
    text = (
        "id: demo\ntitle: Demo\nlanguage: en\nquestions:\n"
        "  - id: demo-q1\n    level: beginner\n    question: What?\n    answer: Logs.\n"
        "    concepts:\n"
        "      - label: logs\n        topic: observability\n"
        "      - label: metrics\n"
        "  - id: demo-q2\n    level: beginner\n    question: Why?\n    answer: Logs.\n"
        "    concepts:\n"
        "      - label: logs\n        topic: debugging\n"
    )
    library = Library([parse_pack(text, "demo.yaml")])
    assert library.topic_of == {"logs": "observability"}


# -- files that are not a pack at all ---------------------------------------------------------


def test_a_pack_file_of_plain_words(tmp_path: Path) -> None:
    path = tmp_path / "notes.yaml"
    path.write_text("just some notes about batching\n", encoding="utf-8")
    assert _load_problems(path) == [
        f"{path}: a pack must be a YAML mapping (id:, title:, language:, questions:),"
        " not plain text"
    ]


@pytest.mark.parametrize(
    ("title", "column"),
    [("Demo\a", 12), ("面试题 Demo\a", 16)],
    ids=["after-ascii", "after-chinese"],
)
def test_a_control_character_is_named_with_its_line_and_column(
    tmp_path: Path, title: str, column: int
) -> None:
    # PyYAML refuses a BEL (copied from a terminal) before parsing, with an offset only (in
    # bytes with libyaml): the author is told the character and where it is all the same.
    path = tmp_path / "demo.yaml"
    path.write_text(HEAD.replace("Demo", title) + QUESTION, encoding="utf-8")
    assert _load_problems(path) == [
        f"{path}: a character YAML does not allow, U+0007 (line 2, column {column}): delete it"
    ]


def test_a_regional_language_tag_counts_as_its_base_language() -> None:
    # A Chinese user's questions come first from Chinese packs, `zh-Hans` as well as `zh`.
    hans = parse_pack(_pack("hans", "hans-q1").replace("language: en", "language: zh-Hans"), "h")
    brazil = parse_pack(_pack("br", "br-q1").replace("language: en", "language: pt-BR"), "b")
    library = Library([hans, brazil])
    assert (library.language_of("hans-q1"), library.language_of("br-q1")) == ("zh", "pt")


def test_a_repeated_question_id_is_named_when_its_files_cannot_be_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The lines are found by reading both files again; a file deleted or locked in between
    # (an editor saving) still gives the two file names, without lines and without a crash.
    import bot.core.content as content
    from bot.core.textfile import UnreadableFile

    first = tmp_path / "a.yaml"
    second = tmp_path / "b.yaml"
    first.write_text(_pack("demo", "shared-q1"), encoding="utf-8")
    second.write_text(_pack("other", "shared-q1"), encoding="utf-8")
    reads: list[Path] = []
    real_read = content.read_text

    def read_once(path: Path) -> tuple[str, str]:
        if path in reads:
            raise UnreadableFile("no such file")
        reads.append(path)
        return real_read(path)

    monkeypatch.setattr(content, "read_text", read_once)
    assert _load_problems(tmp_path) == [
        f"{second}: question shared-q1: field id: also used in {first}"
    ]


# -- a question id repeated in one file -----------------------------------------------------


def test_a_repeated_id_names_every_line_it_is_written_on() -> None:
    again = QUESTION[len("questions:\n") :]  # each question is 6 lines: `- id:` on 5, 11, 17
    assert _problems(HEAD + QUESTION + again) == [
        "demo.yaml: question demo-q1: field id: appears twice (lines 5 and 11)"
    ]
    assert _problems(HEAD + QUESTION + again * 2) == [
        "demo.yaml: question demo-q1: field id: appears 3 times (lines 5, 11 and 17)"
    ]


def test_an_id_copied_by_a_yaml_merge_key_is_named_without_lines() -> None:
    # The second question is the first one merged in (`<<: *first`) with another text: its id
    # is written once, so there is no second line to name.
    text = (
        HEAD
        + QUESTION.replace("  - id: demo-q1", "  - &first\n    id: demo-q1")
        + "  - <<: *first\n    question: And why?\n"
    )
    assert _problems(text) == ["demo.yaml: question demo-q1: field id: appears twice"]
