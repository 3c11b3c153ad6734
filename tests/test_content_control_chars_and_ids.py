"""Pack errors an author is shown by `content check`: where a stray control character is, and
the lines a repeated question id is written on (bot/core/content.py).

Written for survivors of the mutation run. Lines and columns count from 1 and are counted by
hand in the small packs below.
"""

from __future__ import annotations

from tests.test_content_error_texts import HEAD, QUESTION, _problems


def _bell(line: int, column: int) -> str:
    return f"demo.yaml: a character YAML does not allow, U+0007 (line {line}, column {column}):"


# -- a control character pasted into a pack ---------------------------------------------------


def test_a_control_character_on_the_very_first_character_is_placed() -> None:
    assert _problems("\a" + HEAD + QUESTION) == [_bell(1, 1) + " delete it"]


def test_a_control_character_below_the_first_lines_is_counted_from_its_own_line() -> None:
    # `    question: What` is 18 characters on line 7: the BEL is the 19th.
    text = HEAD + QUESTION.replace("What?", "What\a?")
    assert _problems(text) == [_bell(7, 19) + " delete it"]


def test_the_first_of_two_control_characters_is_the_one_named() -> None:
    # `title: Demo` is 11 characters on line 2; the second BEL is on line 7.
    text = HEAD.replace("Demo", "Demo\a") + QUESTION.replace("What?", "What\a?")
    assert _problems(text) == [_bell(2, 12) + " delete it"]


def test_a_pack_opening_with_a_blank_line_counts_that_line() -> None:
    text = "\ntitle: Demo\a\nid: demo\nlanguage: en\n" + QUESTION
    assert _problems(text) == [_bell(2, 12) + " delete it"]


# -- a question id written twice --------------------------------------------------------------


def test_a_repeated_id_names_only_the_lines_of_the_ids_not_a_text_that_reads_the_same() -> None:
    # A glossary pack whose ids are its terms: the card for `latency` pasted twice. Its
    # question is the word `latency` too (lines 7 and 13), but only the ids are named.
    card = (
        "  - id: latency\n"
        "    level: beginner\n"
        "    question: latency\n"
        "    answer: The time one request takes.\n"
        "    concepts:\n"
        "      - label: time of one request\n"
    )
    assert _problems(HEAD + "questions:\n" + card + card) == [
        "demo.yaml: question latency: field id: appears twice (lines 5 and 11)"
    ]
