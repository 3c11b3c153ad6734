"""`content import` of Markdown Q&A: where a level heading ends, what a summary heading does,
and answer lines kept as written (bot/core/importer.py, parse_markdown); and the spelling of
the topic in a pack's title.

Written for survivors of the mutation run. Each expected value is read off the small
document by eye.
"""

from __future__ import annotations

from bot.core.importer import DraftQuestion, import_document, parse_markdown
from bot.core.levels import Level


def _rows(drafts: list[DraftQuestion]) -> list[tuple[str, str]]:
    return [("\n".join(d.question_lines), "\n".join(d.answer_lines)) for d in drafts]


def test_a_summary_heading_ends_its_chapter_not_the_document() -> None:
    # Each chapter closes with 本章小结; the summary is no answer, and the next chapter's
    # questions are still questions.
    text = (
        "# Networking notes\n"
        "## What is TCP?\n"
        "A reliable byte stream.\n"
        "## 本章小结\n"
        "TCP is reliable.\n"
        "# Chapter 2\n"
        "## What is UDP?\n"
        "Datagrams, no delivery guarantee.\n"
    )
    drafts, title = parse_markdown(text)
    assert _rows(drafts) == [
        ("What is TCP?", "A reliable byte stream."),
        ("What is UDP?", "Datagrams, no delivery guarantee."),
    ]
    assert title == "Networking notes"


def test_an_answer_line_keeps_its_double_asterisks_as_written() -> None:
    # Python's power operator in an answer: the line is the answer, character for character.
    text = "## What is 3 to the power 3 in Python?\nWith XX = 3, `XX**XX` is 27.\n"
    drafts, _ = parse_markdown(text)
    assert _rows(drafts) == [
        ("What is 3 to the power 3 in Python?", "With XX = 3, `XX**XX` is 27.")
    ]


def test_a_level_heading_of_twenty_characters_is_still_a_level_heading() -> None:
    # "Junior" and 14 spaces before the colon: 20 characters once the colon is dropped, the
    # longest a level heading may be. The question under it is a beginner's.
    text = "## Junior" + " " * 14 + ":\n## What is DNS?\nNames to addresses.\n"
    drafts, _ = parse_markdown(text)
    assert _rows(drafts) == [("What is DNS?", "Names to addresses.")]
    assert drafts[0].level is Level.BEGINNER


def test_the_title_spells_the_topic_as_the_pack_writes_it() -> None:
    # Both rows are about x86, written in lower case; the first answer opens with "86%".
    text = (
        "question,answer\n"
        "What do most servers run?,86% of them run x86.\n"
        "Which one has variable-length instructions?,x86 has variable-length instructions.\n"
    )
    pack, _ = import_document(text, "bank", source_name="bank.csv")
    assert pack["title"] == "x86 interview questions"


def test_a_level_heading_padded_before_its_colon_is_still_a_level_heading() -> None:
    # Aligned by hand in an editor: "## Junior               :" heads the beginner chapter;
    # it is no question of its own, and the question under it keeps that level.
    drafts, _ = parse_markdown("## Junior" + " " * 15 + ":\n## What is DNS?\nNames to addresses.\n")
    assert [(d.question_lines, d.level) for d in drafts] == [(["What is DNS?"], Level.BEGINNER)]


def test_a_markdown_question_keeps_the_number_its_author_gave_it() -> None:
    # A bank grown later files its new Q9 under Beginner, before Q4: the pack's ids follow the
    # author's numbers (as in the seed's `Q1：` format), so graded answers keyed algo-q4 still
    # meet the quicksort question, not the one that happens to be fourth.
    text = (
        "## Beginner\n"
        "**Q1: What is a heap?**\nA tree with the heap property.\n"
        "**Q9: What is a stable sort?**\nEqual keys keep their order.\n"
        "## Intermediate\n"
        "**Q4: How does quicksort work?**\nPartition around a pivot.\n"
        "**What is BFS?**\nLevel by level with a queue.\n"
    )
    pack, _ = import_document(text, "algo")
    assert [(q["id"], q["level"]) for q in pack["questions"]] == [
        ("algo-q1", "beginner"),
        ("algo-q9", "beginner"),
        ("algo-q4", "intermediate"),
        ("algo-q10", "intermediate"),  # unnumbered: one past the highest number so far
    ]
    # Chapters that number from Q1 again still import, each question once.
    pack, _ = import_document(
        "# Part 1\n## Q1: What is DNS?\nNames.\n# Part 2\n## Q1: What is TCP?\nA stream.\n", "net"
    )
    assert [q["id"] for q in pack["questions"]] == ["net-q1", "net-q2"]
