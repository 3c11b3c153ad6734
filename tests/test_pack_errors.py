"""Pack errors as an author reads them: the file, the question (its id, or #n), the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core.content import PackError, parse_pack

HEAD = "id: demo\ntitle: Demo\nlanguage: en\n"
GOOD = (
    "  - id: demo-q1\n    level: beginner\n    question: What?\n    answer: This.\n"
    "    concepts:\n      - label: this\n"
)


def _problems(text: str) -> list[str]:
    with pytest.raises(PackError) as info:
        parse_pack(text, "demo.yaml")
    assert str(info.value) == "\n".join(info.value.problems)
    return info.value.problems


def test_errors_name_the_question_by_id_or_by_position() -> None:
    second_without_id = "  - level: beginner\n    question: Q?\n    answer: A.\n"
    problems = _problems(HEAD + "questions:\n" + GOOD + second_without_id)
    assert problems[0].startswith("demo.yaml: question #2: field id: ")
    assert any(p.startswith("demo.yaml: question #2: field concepts: ") for p in problems)
    third_bad_level = GOOD.replace("demo-q1", "demo-q3").replace("beginner", "wizard")
    problems = _problems(HEAD + "questions:\n" + GOOD + GOOD.replace("q1", "q2") + third_bad_level)
    assert problems[0].startswith("demo.yaml: question demo-q3: field level: ")
    assert len(problems) == 1


def test_errors_inside_a_concept_give_the_dotted_path() -> None:
    bad_weight = GOOD + "        weight: 0\n"
    problem = _problems(HEAD + "questions:\n" + bad_weight)[0]
    assert problem.startswith("demo.yaml: question demo-q1: field concepts[0].weight: ")


def test_errors_outside_the_questions() -> None:
    (problem,) = _problems("title: Demo\nlanguage: en\nquestions:\n" + GOOD)
    assert problem.startswith("demo.yaml: field id: ")
    problems = _problems(HEAD + "questions: []\n")
    assert problems[0].startswith("demo.yaml: field questions: ")
    (problem,) = _problems(HEAD + "questions: oops\n")
    assert problem.startswith("demo.yaml: field questions: ")
    problem = _problems(HEAD + "questions:\n  - just text\n")[0]
    assert problem.startswith("demo.yaml: question #1: ")


def test_several_problems_are_all_listed() -> None:
    text = HEAD + "questions:\n" + GOOD.replace("beginner", "wizard") + "extra: 1\n"
    problems = _problems(text)
    assert problems[0] == (
        "demo.yaml: question demo-q1: field level: unknown level 'wizard'; "
        "use beginner, intermediate or advanced"
    )
    assert problems[-1] == "demo.yaml: field extra: unknown field (a typo?)"


# -- broken pack files, as `content check` and `run` report them ------------------------------

PACK = (
    HEAD.replace("language: en", "language: zh")
    + "questions:\n"
    + GOOD.replace("What?", "什么是索引？")
)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        pytest.param(
            PACK.encode("gbk"),
            "the file is not UTF-8 (it looks like GBK/GB18030, Chinese Windows' encoding):"
            " save it as UTF-8",
            id="gbk",
        ),
        pytest.param(
            PACK.encode("utf-16"), "the file is UTF-16, not UTF-8: save it as UTF-8", id="utf-16"
        ),
        pytest.param(b"", "the file is empty", id="empty"),
        pytest.param(b"# only a comment\n", "the file is empty (no pack in it)", id="comments"),
        pytest.param(
            bytes(range(256)) * 4, "the file is binary, not text: save it as UTF-8", id="binary"
        ),
        pytest.param(
            b"id: demo\ntitle: [Demo\nlanguage: en\n",
            "did not find expected ',' or ']' (line 3, column 9)",
            id="yaml-syntax",
        ),
        pytest.param(
            b"- id: demo\n- title: Demo\n",
            "a pack must be a YAML mapping (id:, title:, language:, questions:), not a list",
            id="a-list",
        ),
    ],
)
def test_a_broken_pack_file_is_one_line_for_check_and_run(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    data: bytes,
    message: str,
) -> None:
    from bot.cli import main

    packs = tmp_path / "packs"
    packs.mkdir()
    pack = packs / "demo.yaml"
    pack.write_bytes(data)
    monkeypatch.setenv("DATABASE_PATH", str(tmp_path / "bot.sqlite3"))
    monkeypatch.setenv("CONTENT_DIR", str(packs))
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "123:abc")
    monkeypatch.chdir(tmp_path)
    line = f"{pack}: {message}"
    assert main(["content", "check", str(pack)]) == 1
    assert capsys.readouterr().err == line + "\n"
    with pytest.raises(SystemExit) as info:
        main(["run"])
    assert info.value.code == f"Content error:\n{line}"


def test_a_schema_error_names_each_broken_field_once_in_plain_words() -> None:
    # One question with three mistakes: three lines, not also "concepts: should have at
    # least 1 item" and "questions: should have at least 1 item" for the broken ones.
    text = (
        HEAD
        + "questions:\n  - id: demo-q1\n    level: wizard\n    question: What?\n"
        + "    answer: This.\n    concepts:\n      - label: ''\n        weight: -1\n"
        + "    hint: nope\n"
    )
    assert _problems(text) == [
        "demo.yaml: question demo-q1: field level: unknown level 'wizard'; "
        "use beginner, intermediate or advanced",
        "demo.yaml: question demo-q1: field concepts[0].label: must not be empty",
        "demo.yaml: question demo-q1: field concepts[0].weight: must be greater than 0 (got -1)",
        "demo.yaml: question demo-q1: field hint: unknown field (a typo?)",
    ]
    (problem,) = _problems(HEAD.replace("id: demo", "id: My Pack") + "questions:\n" + GOOD)
    assert problem == (
        "demo.yaml: field id: use lower-case letters, digits, - and _"
        " (at most 48 characters) (got 'My Pack')"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            HEAD + "questions:\n" + GOOD.replace("answer: This.", "answer: 2024-02-30"),
            "demo.yaml: day is out of range for month: the value is read as a date or a number;"
            " put it in quotes to keep it as text (line 8, column 13)",
        ),
        (
            "id: demo\ntitle: !!int abc\nlanguage: en\n",
            "demo.yaml: invalid literal for int() with base 10: 'abc': the value is read as a"
            " date or a number; put it in quotes to keep it as text (line 2, column 8)",
        ),
    ],
)
def test_a_value_yaml_cannot_read_as_its_type_names_its_line(text: str, expected: str) -> None:
    # Well-formed YAML whose value is not a date or a number it looks like: an error with
    # its place, not a traceback (PyYAML raises a bare ValueError for these).
    assert _problems(text) == [expected]
