"""Pack errors as an author reads them: the file, the question (its id, or #n), the field."""

from __future__ import annotations

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
    assert problem.startswith("demo.yaml: question -: field id: ")
    problems = _problems(HEAD + "questions: []\n")
    assert problems[0].startswith("demo.yaml: question -: field questions: ")
    (problem,) = _problems(HEAD + "questions: oops\n")
    assert problem.startswith("demo.yaml: question -: field questions: ")
    problem = _problems(HEAD + "questions:\n  - just text\n")[0]
    assert problem.startswith("demo.yaml: question #1: field -: ")


def test_several_problems_are_all_listed() -> None:
    text = HEAD + "questions:\n" + GOOD.replace("beginner", "wizard") + "extra: 1\n"
    problems = _problems(text)
    assert problems[0] == (
        "demo.yaml: question demo-q1: field level: unknown level 'wizard'; "
        "use beginner, intermediate or advanced"
    )
    assert problems[-1] == "demo.yaml: question -: field extra: Extra inputs are not permitted"
