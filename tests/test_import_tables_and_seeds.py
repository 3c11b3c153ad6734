"""`content import` of tables and seed documents: what each row becomes, and what a refused
header row is told (bot/core/importer.py).

Written for survivors of the mutation run: Anki's header lines and skipped columns, a byte
order mark, header rows only nearly right, the level a row gets and the warning about it,
and the seed format's own level headings and line joining. Each expected value is read off
the small document by eye.
"""

from __future__ import annotations

import pytest

from bot.core.glossary import Glossary
from bot.core.importer import (
    DraftQuestion,
    ImportError_,
    import_document,
    parse_document,
    parse_table,
    repair_wraps,
)
from bot.core.levels import Level

REFUSED_ADVICE = (
    ". It needs a question column (question, q, front, 问题 or 题目) and an answer column"
    " (answer, a, back, 答案 or 参考答案); a level column (level, difficulty, 难度 or tags)"
    " is optional. Rename the columns, or leave the header row out and put question, answer"
    " and level in that order"
)


def _rows(drafts: list[DraftQuestion]) -> list[tuple[str, str]]:
    return [("\n".join(d.question_lines), "\n".join(d.answer_lines)) for d in drafts]


def _refusal(text: str) -> str:
    with pytest.raises(ImportError_) as info:
        parse_table(text)
    return str(info.value)


def _warnings(text: str, name: str) -> list[str]:
    return import_document(text, "bank", glossary=Glossary(), source_name=name)[1]


# -- Anki's plain-text export --------------------------------------------------------------


def test_an_anki_export_saved_with_a_byte_order_mark_keeps_its_tab_separator() -> None:
    # Notepad adds a BOM in front of `#separator:tab`: the line is still the export's header,
    # so the rows are split at tabs, not at the comma inside the question.
    text = "\ufeff#separator:tab\n#html:true\nWhat is 1,000 tokens in words?\tAbout 750\n"
    assert _rows(parse_table(text)) == [("What is 1,000 tokens in words?", "About 750")]


def test_guid_note_type_and_deck_columns_are_not_the_question_or_the_answer() -> None:
    text = (
        "#separator:tab\n#html:true\n#guid column:1\n#notetype column:2\n#deck column:3\n"
        "#tags column:6\n"
        "b2Xk9pQ\tBasic\tDatabases\tWhat is a covering index?\tAn index with <b>every"
        " column</b> the query reads.\tdb advanced\n"
    )
    (draft,) = parse_table(text)
    assert _rows([draft]) == [
        ("What is a covering index?", "An index with every column the query reads.")
    ]
    assert draft.level is Level.ADVANCED


def test_a_tags_column_in_front_of_the_fields_gives_the_level_and_is_no_field() -> None:
    text = "#separator:tab\n#tags column:1\nadvanced\tWhat is MVCC?\tRows kept in versions.\n"
    (draft,) = parse_table(text)
    assert _rows([draft]) == [("What is MVCC?", "Rows kept in versions.")]
    assert draft.level is Level.ADVANCED


def test_a_tags_column_line_counts_only_in_the_exports_first_twenty_lines() -> None:
    rows = "advanced\tWhat is MVCC?\tRows kept in versions.\n"
    # On line 20 it is part of the export's header.
    early = "#separator:tab\n" + "#deck:Databases\n" * 18 + "#tags column:1\n" + rows
    (draft,) = parse_table(early)
    assert (_rows([draft]), draft.level) == (
        [("What is MVCC?", "Rows kept in versions.")],
        Level.ADVANCED,
    )
    # On line 21 it is not: the columns are question, answer, level in that order.
    late = "#separator:tab\n" + "#deck:Databases\n" * 19 + "#tags column:1\n" + rows
    assert _rows(parse_table(late)) == [("advanced", "What is MVCC?")]


def test_a_tag_names_a_level_only_as_a_whole_word() -> None:
    # `#hard` is the tag hard; `XHARD` (a tag of the author's own) names no level.
    assert [d.level for d in parse_table("What is MVCC?\tRows in versions.\t#hard\n")] == [
        Level.ADVANCED
    ]
    assert [d.level for d in parse_table("What is MVCC?\tRows in versions.\tXHARD\n")] == [None]


def test_an_export_of_only_skipped_columns_is_refused_not_a_crash() -> None:
    with pytest.raises(ImportError_):
        import_document("#separator:tab\n#deck column:1\nDatabases\n", "bank")


# -- tables without a header row -----------------------------------------------------------


def test_a_table_of_questions_only_is_refused_for_its_missing_answers() -> None:
    text = "What is a B-tree?\nWhat is MVCC?\n"
    assert _rows(parse_table(text)) == [("What is a B-tree?", ""), ("What is MVCC?", "")]
    with pytest.raises(ImportError_, match=r"^Q1 has no reference answer$"):
        import_document(text, "bank", source_name="bank.csv")


def test_a_first_row_whose_answer_is_ax_is_a_question_not_a_header() -> None:
    # `AX` is an x86 register, not the answer column `a`.
    text = "Which 16-bit register is the accumulator?,AX\nWhich one counts loops?,CX\n"
    assert _rows(parse_table(text)) == [
        ("Which 16-bit register is the accumulator?", "AX"),
        ("Which one counts loops?", "CX"),
    ]


def test_a_byte_order_mark_further_down_does_not_hide_the_question_column() -> None:
    # An Anki header line put on top of a spreadsheet's CSV, which starts with its BOM.
    text = "#html:true\n\ufeffQuestion,Answer\nWhat is a B-tree?,<i>A balanced tree</i>\n"
    assert _rows(parse_table(text)) == [("What is a B-tree?", "A balanced tree")]


# -- header rows that are nearly right -----------------------------------------------------


def test_two_misspelt_column_names_make_a_header_row_and_it_is_refused() -> None:
    # No cell is a column name exactly; two near ones are a header all the same.
    assert _refusal("Qestion,Answr\nWhat is a B-tree?,A balanced tree\n") == (
        "the header row names the columns 'Qestion', 'Answr' but no question and no answer"
        " column ('Qestion' looks like 'question'; 'Answr' looks like 'answer')" + REFUSED_ADVICE
    )


def test_the_whole_refusal_of_a_header_row_without_an_answer_column() -> None:
    assert _refusal("question,notes\nWhat is a B-tree?,A balanced tree\n") == (
        "the header row names the columns 'question', 'notes' but no answer column" + REFUSED_ADVICE
    )


def test_a_three_letter_misspelling_gets_its_column_named() -> None:
    assert _refusal("front,bak\nWhat is a B-tree?,A balanced tree\n").startswith(
        "the header row names the columns 'front', 'bak' but no answer column"
        " ('bak' looks like 'back'). It needs"
    )


def test_a_header_cell_with_two_spaces_inside_still_names_its_column() -> None:
    # `Answer  key` (two spaces) names the answer column within a longer name: a header.
    assert _rows(parse_table("Question,Answer  key\nWhat is a B-tree?,A balanced tree\n")) == [
        ("What is a B-tree?", "A balanced tree")
    ]


def test_a_cell_only_loosely_like_a_column_name_gets_no_guess() -> None:
    # `Solution` is a third unlike `question`: it is not offered as a misspelling of it.
    assert _refusal("Question,Solution\nWhat is a B-tree?,A balanced tree\n") == (
        "the header row names the columns 'Question', 'Solution' but no answer column"
        + REFUSED_ADVICE
    )


# -- the level a row gets, and the warning about it ------------------------------------------


def test_a_table_without_a_level_column_warns_that_no_level_was_given() -> None:
    assert _warnings("What is a B-tree?,A balanced tree of sorted keys.\n", "bank.csv") == [
        "Q1: no level given; set to intermediate"
    ]


def test_an_unknown_level_in_the_first_column_is_named() -> None:
    text = "Level,Question,Answer\nwizard,What is a B-tree?,A balanced tree.\n"
    assert _warnings(text, "bank.csv") == [
        "Q1: unknown level 'wizard'; set to intermediate (use beginner, intermediate or advanced)"
    ]


def test_a_level_that_is_understood_is_not_an_unknown_level() -> None:
    (draft,) = parse_table("question,answer,level\nWhat is a B-tree?,A balanced tree.,hard\n")
    assert (draft.level, draft.unknown_level) == (Level.ADVANCED, "")


# -- the seed format -------------------------------------------------------------------------


def test_seed_questions_before_any_level_heading_warn_that_no_level_was_given() -> None:
    text = "Q1：什么是 B-tree？\n参考答案：一种平衡的多路搜索树。\n"
    assert _warnings(text, "bank.txt") == ["Q1: no level given; set to intermediate"]


def test_a_level_heading_padded_before_its_colon_counts_up_to_twenty_characters() -> None:
    def levels(heading: str) -> list[Level | None]:
        text = f"Q1：问题一？\n参考答案：答一。\n{heading}\nQ2：问题二？\n参考答案：答二。\n"
        return [d.level for d in parse_document(text)]

    assert levels("Advanced" + " " * 12 + "：") == [None, Level.ADVANCED]  # 20 before the colon
    assert levels("Advanced" + " " * 13 + "：") == [None, None]  # 21: a line of Q1's answer


def test_a_line_opening_with_a_hash_sign_keeps_it_against_the_chinese() -> None:
    # `#号` is the character's name: no space is put between them, line by line.
    assert repair_wraps(["注释有两种写法。", "#号开头的是单行注释。"]) == (
        "注释有两种写法。\n#号开头的是单行注释。"
    )


def test_a_line_spaced_at_its_end_by_pangu_has_no_trailing_space() -> None:
    assert repair_wraps(["兼容版本约束写作~="]) == "兼容版本约束写作 ~="


def test_a_topic_spelled_with_a_sharp_s_does_not_stop_the_import() -> None:
    # `Straße` folds to `strasse`, which is not found again in the text by a case-blind
    # search: the pack is still written, with both questions.
    text = (
        "question,answer\nHow long is the road?,The Straße is ten metres long.\n"
        "How wide is the road?,The Straße is four metres wide.\n"
    )
    pack, _ = import_document(text, "bank", source_name="bank.csv")
    assert [q["question"] for q in pack["questions"]] == [
        "How long is the road?",
        "How wide is the road?",
    ]
