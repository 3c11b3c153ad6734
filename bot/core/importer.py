"""Turn an interview-guide document (the seed's plain-text format) into a draft pack.

The format: level headings (初级 / 中级 / 高级, or English), questions as `Q1：…`, answers
after `参考答案：`. Such documents often come from web pages that lost their inline code
formatting, which leaves identifiers on lines of their own; `repair_wraps` joins those lines
back and restores CJK/Latin spacing. Concepts are only suggested here, for a person to review.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pangu
import rjieba

from bot.core.levels import Level, parse_level

_QUESTION_RE = re.compile(r"^\s*(?:#+\s*)?Q(\d+)\s*[：:.、．)]\s*(.*)$", re.IGNORECASE)
_ANSWER_RE = re.compile(
    r"^\s*(?:#+\s*)?(?:参考答案|答案|答|reference answer|answer)\s*[：:]\s*(.*)$", re.IGNORECASE
)
_END_RE = re.compile(r"^\s*(?:#+\s*)?(?:本章小结|小结|总结|参考来源|参考资料|references?)\s*[：:]?")
_BULLET_RE = re.compile(r"^\s*(?:[-*•·]\s+|\d+[.)、]\s+)")
_SENTENCE_END = tuple("。！？；：.!?;:）)」』")
# A list item that lost its line break: "…。 - 通过 …" -> new line.
_INLINE_BULLET_RE = re.compile(r"(?<=[。；！？.;!?])\s*-\s+(?=\S)")
_IDENTIFIER_RE = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[_.][A-Za-z0-9]+)+(?:/[A-Za-z0-9_.]+)*")
_ENGLISH_TERM_RE = re.compile(r"\b[A-Z][A-Za-z0-9-]*(?:\s+[A-Z][A-Za-z0-9-]*)+")
_SPECIAL_WORD_RE = re.compile(
    r"\b(?:[A-Z]{2,}[A-Za-z0-9]*|[a-z]+[A-Z][A-Za-z0-9]*|[A-Z][a-z]+[A-Z]\w*)\b"
)
_CJK_RE = re.compile(r"[\u4e00-\u9fff]")
_NOUN_TAGS = {"n", "nz", "vn", "nt", "nl", "ng", "an"}
_CHINESE_STOP = {
    "问题",
    "方式",
    "时候",
    "作用",
    "场景",
    "能力",
    "情况",
    "方法",
    "东西",
    "部分",
    "内部",
}
MAX_SUGGESTED = 10


class ImportError_(ValueError):
    """The document could not be read as questions and answers; the message says where."""


@dataclass
class DraftQuestion:
    number: int
    level: Level | None
    question_lines: list[str] = field(default_factory=list)
    answer_lines: list[str] = field(default_factory=list)
    seen_answer: bool = False


def _join(left: str, right: str) -> str:
    """Join a wrapped line to the previous one; a space only between two Latin pieces."""
    if not left:
        return right
    if left[-1].isascii() and right[:1].isascii() and not left.endswith(" "):
        return f"{left} {right}"
    return left + right


def repair_wraps(lines: Sequence[str]) -> str:
    """Join lines broken mid-sentence, split run-in list items, restore CJK/Latin spacing."""
    out: list[str] = []
    for raw in lines:
        line = raw.strip()
        if not line:
            if out and out[-1] != "":
                out.append("")
            continue
        if out and out[-1] and not _BULLET_RE.match(line) and not out[-1].endswith(_SENTENCE_END):
            out[-1] = _join(out[-1], line)
        else:
            out.append(line)
    text = "\n".join(out).strip()
    text = _INLINE_BULLET_RE.sub("\n- ", text)
    text = re.sub(r"^-(?=\S)", "- ", text, flags=re.MULTILINE)
    return "\n".join(pangu.space_text(line).rstrip() for line in text.split("\n"))


def parse_document(text: str) -> list[DraftQuestion]:
    """Split a guide into questions with level, question lines and answer lines."""
    level: Level | None = None
    drafts: list[DraftQuestion] = []
    current: DraftQuestion | None = None
    for raw in text.splitlines():
        line = raw.strip()
        heading = re.sub(r"^#+\s*|[：:]$|题$|\s*questions?$", "", line, flags=re.IGNORECASE)
        if heading and parse_level(heading) is not None and len(line) <= 20:
            level = parse_level(heading)
            current = None
            continue
        if _END_RE.match(line):
            current = None
            continue
        if m := _QUESTION_RE.match(line):
            current = DraftQuestion(int(m.group(1)), level)
            if m.group(2):
                current.question_lines.append(m.group(2))
            drafts.append(current)
            continue
        if current is None:
            continue
        if not current.seen_answer and (m := _ANSWER_RE.match(line)):
            current.seen_answer = True
            if m.group(1):
                current.answer_lines.append(m.group(1))
            continue
        (current.answer_lines if current.seen_answer else current.question_lines).append(line)
    return drafts


def suggest_concepts(question: str, answer: str) -> list[dict[str, Any]]:
    """Suggest concepts from an answer: identifiers, English terms, Chinese key nouns."""
    asked = question.casefold()
    found: list[str] = []

    def add(term: str) -> None:
        term = term.strip(" -/.,")
        key = term.casefold()
        if len(term) < 2 or key in asked or any(key == f.casefold() for f in found):
            return
        if any(key in f.casefold() for f in found):
            return
        found.append(term)

    for m in _IDENTIFIER_RE.finditer(answer):
        add(m.group())
    for m in _ENGLISH_TERM_RE.finditer(answer):
        add(m.group())
    for m in _SPECIAL_WORD_RE.finditer(answer):
        add(m.group())
    counts: dict[str, int] = {}
    order: list[str] = []
    for word, tag in rjieba.tag(answer):
        if (
            tag in _NOUN_TAGS
            and len(word) >= 2
            and _CJK_RE.search(word)
            and word not in _CHINESE_STOP
        ):
            if word not in counts:
                order.append(word)
            counts[word] = counts.get(word, 0) + 1
    for word in sorted(order, key=lambda w: (-counts[w], order.index(w)))[:6]:
        add(word)
    concepts = [{"label": term, "aliases": [], "weight": 1.0} for term in found[:MAX_SUGGESTED]]
    if not concepts:
        concepts = [{"label": answer[:20].strip() or "TODO", "aliases": [], "weight": 1.0}]
    return concepts


def import_document(
    text: str, pack_id: str, *, title: str | None = None, language: str = "zh"
) -> tuple[dict[str, Any], list[str]]:
    """Build a pack mapping from a guide; return it with warnings for the reviewer."""
    drafts = parse_document(text)
    if not drafts:
        raise ImportError_(
            "no questions found: expected lines like 'Q1：…' followed by '参考答案：'"
        )
    warnings: list[str] = []
    questions: list[dict[str, Any]] = []
    numbers: set[int] = set()
    for d in drafts:
        name = f"Q{d.number}"
        if d.number in numbers:
            raise ImportError_(f"{name} appears twice; question numbers must be unique")
        numbers.add(d.number)
        question = repair_wraps(d.question_lines)
        answer = repair_wraps(d.answer_lines)
        if not question:
            raise ImportError_(f"{name} has no question text")
        if not d.seen_answer or not answer:
            raise ImportError_(f"{name} has no reference answer (a line starting '参考答案：')")
        level = d.level
        if level is None:
            warnings.append(f"{name}: no level heading before it; set to intermediate")
            level = Level.INTERMEDIATE
        questions.append(
            {
                "id": f"{pack_id}-q{d.number}",
                "level": level.value,
                "question": question,
                "answer": answer,
                "concepts": suggest_concepts(question, answer),
            }
        )
    first_line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    pack = {
        "id": pack_id,
        "title": title or re.sub(r"^\d+[.、]\s*", "", first_line)[:80] or pack_id,
        "language": language,
        "tags": [],
        "questions": questions,
    }
    return pack, warnings
