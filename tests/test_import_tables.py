"""CSV/TSV and Anki exports, HTML fields and wrapped lines (bot/core/importer.py), edge by edge.

Each expected draft is read off the small document by eye.
"""

from __future__ import annotations

import pytest

from bot.core.glossary import Glossary
from bot.core.importer import (
    DraftQuestion,
    ImportError_,
    _join,
    _keep_lines,
    _language,
    _tags,
    _title,
    _topic,
    detect_format,
    import_document,
    parse_document,
    parse_markdown,
    parse_table,
    repair_wraps,
)
from bot.core.levels import Level
from bot.core.suggest import Analyser


def _rows(drafts: list[DraftQuestion]) -> list[tuple[str, str]]:
    return [("\n".join(d.question_lines), "\n".join(d.answer_lines)) for d in drafts]


def test_a_leading_x_is_not_taken_for_a_byte_order_mark() -> None:
    assert _rows(parse_table("XLA 是什么？,编译器\n")) == [("XLA 是什么？", "编译器")]
    assert _rows(parse_table("\ufeffquestion,answer\nQ1?,A1\n")) == [("Q1?", "A1")]


def test_a_comment_line_is_not_the_header_that_picks_the_delimiter() -> None:
    # The comment has semicolons, the rows commas.
    assert _rows(parse_table("#deck:a;b;c\nquestion,answer\nQ1?,A1\n")) == [("Q1?", "A1")]


def test_a_first_row_of_short_sentences_naming_columns_is_a_question_not_a_header() -> None:
    # Each cell holds a column's name (题目, 答案) but ends a sentence: a question, kept.
    rows = _rows(parse_table("这道题目是什么？,答案是四十二。\n第二题？,第二个答案\n"))
    assert rows == [("这道题目是什么？", "答案是四十二。"), ("第二题？", "第二个答案")]


def test_a_tab_separator_line_wins_over_commas_in_the_first_row() -> None:
    text = "#separator:tab\nWhat is 1,000 tokens?\nQ2?\tA2\n"
    assert _rows(parse_table(text)) == [("What is 1,000 tokens?", ""), ("Q2?", "A2")]
    # Only the first ten lines are the export's header.
    late = "#deck:x\n" * 10 + "#separator:tab\nQ1?,A1\n"
    assert _rows(parse_table(late)) == [("Q1?", "A1")]


def test_semicolons_are_the_delimiter_only_when_they_outnumber_commas() -> None:
    assert _rows(parse_table("What is a;b?,It is c\n")) == [("What is a;b?", "It is c")]
    assert _rows(parse_table("Q1?;A1, with a comma;x;y\n")) == [("Q1?", "A1, with a comma")]


def test_a_header_naming_only_one_of_question_and_answer_is_an_error() -> None:
    # A header row that names a question column but no answer column (or the reverse) is a
    # header with a column missing: the import stops and says which, it imports no garbage.
    with pytest.raises(ImportError_, match="no answer column"):
        parse_table("question,notes\nQ1?,A1\n")
    with pytest.raises(ImportError_, match="no question column"):
        parse_table("notes,answer\nQ1?,A1\n")


def test_html_fields_in_capitals_are_read_as_html() -> None:
    text = "#html:true\nQ1?\t<UL><LI>one</LI><LI>two</LI></UL>\n"
    assert _rows(parse_table(text)) == [("Q1?", "- one\n- two")]
    # The html marker counts in the first ten lines only.
    late = "#deck:x\n" * 10 + "#html:true\nQ1?\t<b>bold</b>\n"
    assert _rows(parse_table(late)) == [("Q1?", "<b>bold</b>")]


def test_blank_lines_between_paragraphs_are_kept_once() -> None:
    assert repair_wraps(["", "第一段。", "", "", "第二段。"]) == "第一段。\n\n第二段。"


def test_dashes_opening_lines_become_list_items() -> None:
    assert repair_wraps(["要点：", "-第一。", "-第二。"]) == "要点：\n- 第一。\n- 第二。"


def test_a_level_heading_in_any_case_sets_the_level() -> None:
    drafts = parse_document("BEGINNER QUESTIONS\nQ1：什么是缓存？\n参考答案：缓存是副本。\n")
    assert [(d.number, d.level) for d in drafts] == [(1, Level.BEGINNER)]


def test_a_tags_column_after_the_answer_sets_the_level() -> None:
    drafts = parse_table("question,answer,tags\nQ1?,A1,#advanced\n")
    assert [d.level for d in drafts] == [Level.ADVANCED]
    # Words of the question and the answer are not tags.
    drafts = parse_table("id,question,answer\n1,What is beginner mode?,intermediate\n")
    assert [d.level for d in drafts] == [None]


def test_dashes_opening_latin_lines_become_list_items() -> None:
    assert repair_wraps(["Points:", "-first.", "-second."]) == "Points:\n- first.\n- second."


def test_a_wrapped_line_is_joined_with_a_space_only_between_latin_letters() -> None:
    assert _join("显存 a中", "b") == "显存 a中b"
    assert _join("see", "b中") == "see b中"


def test_answer_lines_keep_their_indentation() -> None:
    assert _keep_lines(["def f():", "    return 1   ", ""]) == "def f():\n    return 1"


def test_a_seed_document_reads_past_notes_summaries_and_multi_line_questions() -> None:
    text = (
        "初级\n本节说明。\nQ1：第一行\n第二行？\n参考答案：a。\n小结：\n"
        "中级\nQ2：B？\n参考答案：b。\n"
    )
    drafts = parse_document(text)
    assert [(d.number, d.level, d.question_lines, d.answer_lines) for d in drafts] == [
        (1, Level.BEGINNER, ["第一行", "第二行？"], ["a。"]),
        (2, Level.INTERMEDIATE, ["B？"], ["b。"]),
    ]


def test_bold_in_a_markdown_answer_is_kept() -> None:
    drafts, _ = parse_markdown("### What is a KV cache?\nIt keeps **keys and values**.\n")
    assert _rows(drafts) == [("What is a KV cache?", "It keeps **keys and values**.")]


def test_the_pack_language_is_chinese_up_to_three_latin_letters_per_chinese_character() -> None:
    assert _language(["缓存" * 5, "a" * 30]) == "zh"
    assert _language(["缓存" * 5, "a" * 31]) == "en"


def test_the_pack_title_without_numbering_marks_or_a_generic_name() -> None:
    assert _title("## 1. Triton 推理服务", None, "zh", "p") == "Triton 推理服务"
    assert _title("#XLA 笔记", None, "zh", "p") == "XLA 笔记"
    assert _title("a" * 100, None, "en", "p") == "a" * 80
    assert _title(None, "Triton", "en", "p") == "Triton interview questions"
    assert _title(None, None, "en", "my-pack") == "my-pack"


# -- the pack's topic and tags -----------------------------------------------------------------


def test_pack_tags_are_slugs_of_the_shared_terms_six_at_most() -> None:
    analyser = Analyser(Glossary())
    analyser.shared = frozenset(
        {"KV cache", "TensorRT-LLM", "显存", "--max-len", "a1", "b2", "c3", "d4", "XLA"}
    )
    # Sorted: a1 b2 c3 d4 kv-cache max-len tensorrt-llm xla (显存 has no slug).
    assert _tags(analyser) == ["a1", "b2", "c3", "d4", "kv-cache", "max-len"]


def test_the_topic_is_the_term_most_questions_are_about() -> None:
    questions = [f"Triton 如何配置 knob{i}？" for i in range(6)]
    answers = [f"用 knob{i}。" for i in range(6)]
    assert _topic(Analyser(Glossary()), questions, answers) == "Triton"


def test_a_topic_needs_a_third_of_the_questions_and_at_least_two() -> None:
    def topic(n: int) -> str | None:
        questions = [f"问题 q{i}？" for i in range(n)]
        questions[0] = questions[1] = "vLLM 怎么部署？"
        return _topic(Analyser(Glossary()), questions, [""] * n)

    assert topic(7) == "vLLM"  # 2 of 7: 7 // 3 = 2
    assert topic(9) is None  # 2 of 9: fewer than 9 // 3 = 3


def test_between_topics_as_common_a_shorter_latin_word_wins() -> None:
    questions = [f"vLLM 和 Triton 用 --tp 吗 {i}？" for i in range(4)]
    assert _topic(Analyser(Glossary()), questions, [""] * 4) == "vLLM"


def test_the_file_name_picks_the_format_before_the_content() -> None:
    text = "just some notes"
    assert detect_format(text) == "seed"
    assert [detect_format(text, n) for n in ("bank.tsv", "bank.CSV", "my.notes.csv")] == [
        "table"
    ] * 3
    assert [detect_format(text, n) for n in ("notes.md", "notes.Markdown")] == ["markdown"] * 2


def test_an_anki_export_with_a_byte_order_mark_is_a_table() -> None:
    assert detect_format("\ufeff#separator:tab\nQ1?\tA1\n") == "table"


def test_the_content_picks_the_format_when_the_name_does_not() -> None:
    # An Anki marker on any of the first lines; a Markdown heading or bold line on any line.
    assert detect_format("#columns:Front,Back\n#deck:Default\nQ1?,A1\n") == "table"
    assert detect_format("Some intro\n## What is a KV cache?\nIt keeps keys.\n") == "markdown"
    assert detect_format("Some intro\n**What is a KV cache?**\nIt keeps keys.\n") == "markdown"
    # The seed's format needs both a question line and an answer line.
    assert detect_format("Q1：什么是缓存？\n## 说明\n") == "markdown"
    assert detect_format("Q1?\tA1\nQ2?\tA2\n") == "table"
    assert detect_format("  \n\n") == "seed"


def test_an_empty_document_says_what_each_format_expects() -> None:
    with pytest.raises(ImportError_, match=r"expected rows of question, answer and level \(CSV"):
        import_document("", "x", source_name="bank.csv")
    with pytest.raises(ImportError_, match="expected questions as headings or bold lines"):
        import_document("", "x", source_name="notes.md")
    with pytest.raises(ImportError_, match="no questions found"):
        import_document("  \n\n", "x")


def test_a_tsv_file_is_split_at_tabs_only() -> None:
    # Its first row has a comma and no tab: a question without an answer, not two cells.
    with pytest.raises(ImportError_, match="Q1 has no reference answer"):
        import_document("What is 1,000 tokens?\nQ2?\tA2\n", "x", source_name="bank.TSV")


def test_the_first_line_of_a_seed_document_is_the_packs_title() -> None:
    text = "KV cache 笔记\n初级\nQ1：什么是 KV cache？\n参考答案：缓存 keys 和 values。\n"
    pack, _ = import_document(text, "x", glossary=Glossary())
    assert pack["title"] == "KV cache 笔记"


def test_a_seed_document_without_questions_says_what_it_expects() -> None:
    with pytest.raises(ImportError_, match="expected lines like 'Q1：…' followed by '参考答案：'"):
        import_document("just some notes\n", "x")


def test_a_question_without_text_or_with_an_empty_answer_is_refused() -> None:
    with pytest.raises(ImportError_, match="Q1 has no question text"):
        import_document("初级\nQ1：\n参考答案：缓存是副本。\n", "x", glossary=Glossary())
    with pytest.raises(ImportError_, match="Q1 has no reference answer"):
        import_document("初级\nQ1：什么是缓存？\n参考答案：\n", "x", glossary=Glossary())


def test_a_level_no_one_knows_is_named_in_the_warning() -> None:
    text = "question\tanswer\tlevel\nWhat?\tThis.\twizard\nWhy?\tThat.\t\n"
    pack, warnings = import_document(text, "my-pack", source_name="b.tsv")
    assert warnings == [
        "Q1: unknown level 'wizard'; set to intermediate (use beginner, intermediate or advanced)",
        "Q2: no level given; set to intermediate",
    ]
    assert [q["level"] for q in pack["questions"]] == ["intermediate", "intermediate"]


def test_a_question_without_a_level_is_intermediate_with_a_warning() -> None:
    pack, warnings = import_document("question,answer\nQ1?,A1\n", "my-pack", source_name="b.csv")
    assert warnings == ["Q1: no level given; set to intermediate"]
    assert [q["level"] for q in pack["questions"]] == ["intermediate"]
    # No title in a table, no topic: the pack's id.
    assert pack["title"] == "my-pack"


def test_a_level_heading_with_questions_after_it_is_a_level() -> None:
    # `## Intermediate questions` (25 characters with its marks) is a level heading, not a
    # question without an answer: the limit counts the heading's own words.
    raw, _ = import_document(
        "## Beginner questions\n\n**Q1: What is a cache?**\n\nA copy of data kept close.\n\n"
        "## Intermediate questions\n\n**Q2: What is TTL?**\n\nA lifetime for a key.\n",
        "x",
    )
    assert [(q["level"], q["question"]) for q in raw["questions"]] == [
        ("beginner", "What is a cache?"),
        ("intermediate", "What is TTL?"),
    ]
