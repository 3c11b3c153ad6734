"""Markdown and CSV/TSV question banks read the way their authors wrote them.

Each document below is small enough to read the expected drafts off by eye: which lines are
questions, which are answers, which level each question gets, and what is left out (titles,
summaries, level headings, tags).
"""

from __future__ import annotations

from bot.core.importer import DraftQuestion, parse_markdown, parse_table
from bot.core.levels import Level


def _shape(drafts: list[DraftQuestion]) -> list[tuple[int, Level | None, str, str, bool]]:
    return [
        (
            d.number,
            d.level,
            "\n".join(d.question_lines).strip(),
            "\n".join(d.answer_lines).strip(),
            d.seen_answer,
        )
        for d in drafts
    ]


MARKDOWN = """\
# Triton notes

## Beginner

### What does dynamic batching do?
It groups requests into one batch.
    max_batch_size: 8

**Q2: Which backends exist? [advanced]**
A: Python, ONNX and TensorRT.

**Why use ensembles?** To chain models without round trips.

### **What is a KV cache?**
**Answer:** It keeps **keys and values** of past tokens.
Later line.

## 中级题

### 模型怎么热更新
（高级）
用 explicit 模式加载。

## 小结
Not a question.
"""


def test_markdown_questions_answers_levels_and_title() -> None:
    drafts, title = parse_markdown(MARKDOWN)
    assert title == "Triton notes"
    assert _shape(drafts) == [
        (
            1,
            Level.BEGINNER,
            "What does dynamic batching do?",
            "It groups requests into one batch.\n    max_batch_size: 8",
            True,
        ),
        (2, Level.ADVANCED, "Which backends exist?", "Python, ONNX and TensorRT.", True),
        (3, Level.BEGINNER, "Why use ensembles?", "To chain models without round trips.", True),
        (
            4,
            Level.BEGINNER,
            "What is a KV cache?",
            "It keeps keys and values of past tokens.\nLater line.",
            True,
        ),
        (5, Level.ADVANCED, "模型怎么热更新", "用 explicit 模式加载。", True),
    ]


def test_markdown_without_a_title_or_levels() -> None:
    drafts, title = parse_markdown("**Q: What is Triton?**\n\n**A**: An inference server.\n")
    assert title is None
    assert _shape(drafts) == [(1, None, "What is Triton?", "An inference server.", True)]
    drafts, title = parse_markdown("# 问答\n\n# 什么是 Triton？\n推理服务。\n")
    assert title == "问答"
    assert _shape(drafts) == [(1, None, "什么是 Triton？", "推理服务。", True)]


def test_markdown_question_without_an_answer_is_kept_unanswered() -> None:
    drafts, _ = parse_markdown("## What is Triton?\n\n## What is vLLM?\nA server.\n")
    assert _shape(drafts) == [
        (1, None, "What is Triton?", "", False),
        (2, None, "What is vLLM?", "A server.", True),
    ]


def test_markdown_level_tags_inside_an_answer_stay_text() -> None:
    # A tag alone on the first line after a question sets its level; once the answer has
    # begun, "(advanced)" is part of what the author wrote.
    drafts, _ = parse_markdown("## Why batch?\nThroughput.\n(advanced)\n#beginner\n")
    assert _shape(drafts) == [(1, None, "Why batch?", "Throughput.\n(advanced)\n#beginner", True)]
    drafts, _ = parse_markdown("## Why batch?\n难度：高级\nThroughput.\n")
    assert _shape(drafts) == [(1, Level.ADVANCED, "Why batch?", "Throughput.", True)]


CSV = """\
\ufeffQuestion,Answer,Difficulty
What is Triton?,An inference server.,beginner
"Why batch, at all?","Throughput:<br>more requests per GPU pass.",hard
What is KV cache? [intermediate],Keys and values of past tokens.,
"""


def test_csv_with_a_header_in_any_order() -> None:
    assert _shape(parse_table(CSV)) == [
        (1, Level.BEGINNER, "What is Triton?", "An inference server.", True),
        (2, Level.ADVANCED, "Why batch, at all?", "Throughput:\nmore requests per GPU pass.", True),
        (3, Level.INTERMEDIATE, "What is KV cache?", "Keys and values of past tokens.", True),
    ]
    reordered = "答案;难度;问题\n推理服务;初级;什么是 Triton\n"
    assert _shape(parse_table(reordered)) == [
        (1, Level.BEGINNER, "什么是 Triton", "推理服务", True)
    ]


def test_anki_export_without_a_header() -> None:
    # Anki: '#' lines carry settings, fields are HTML, tags come last.
    text = (
        "#separator:tab\n#html:true\n"
        "What is &lt;b&gt;?\t<div>One</div><div>Two &amp; three</div>\tlearn advanced\n"
        "Second?\t<ul><li>a</li><li>b</li></ul>\t\n"
        "\t\t\n"
    )
    assert _shape(parse_table(text)) == [
        (1, Level.ADVANCED, "What is <b>?", "One\nTwo & three", True),
        (2, None, "Second?", "- a\n- b", True),
    ]


def test_tsv_and_a_row_without_an_answer() -> None:
    text = "Q one?\tA one.\nQ two?\t\n"
    assert _shape(parse_table(text)) == [
        (1, None, "Q one?", "A one.", True),
        (2, None, "Q two?", "", False),
    ]
    assert parse_table("") == []
    assert parse_table("#separator:comma\n\n , \n") == []


def test_level_headings_with_a_suffix() -> None:
    text = (
        "## Beginner Questions\n### What is Triton?\nA server.\n"
        "## ADVANCED LEVEL\n### Why?\nSpeed.\n"
    )
    drafts, _ = parse_markdown(text)
    assert _shape(drafts) == [
        (1, Level.BEGINNER, "What is Triton?", "A server.", True),
        (2, Level.ADVANCED, "Why?", "Speed.", True),
    ]
