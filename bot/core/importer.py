"""Turn a question bank document into a draft pack: the seed's format, Markdown, CSV/TSV.

- The seed's plain text: level headings (初级 / 中级 / 高级, or English), questions as `Q1：…`,
  answers after `参考答案：`. Such documents often come from web pages that lost their inline
  code formatting, which leaves identifiers on lines of their own; `repair_wraps` joins those
  lines back and restores CJK/Latin spacing.
- Markdown Q&A: questions as headings or bold lines, answers below; levels from level
  headings or tags (`[advanced]`, `难度：高级`).
- CSV/TSV with question, answer and optional level columns (a header row names them); Anki's
  plain-text export is TSV with `#` header lines and HTML in its fields.

Concepts come from `bot.core.suggest`; the pack is marked `draft: true` until a person has
reviewed it (`content check` says so).
"""

from __future__ import annotations

import csv
import html
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.core.content import DEFAULT_FIELD
from bot.core.glossary import Glossary
from bot.core.levels import Level, parse_level
from bot.core.suggest import Analyser, shared_terms, suggest_concepts

_QUESTION_RE = re.compile(r"^\s*(?:#+\s*)?Q(\d+)\s*[：:.、．)]\s*(.*)$", re.IGNORECASE)
_ANSWER_RE = re.compile(
    r"^\s*(?:#+\s*)?(?:参考答案|答案|答|reference answer|answer)\s*[：:]\s*(.*)$", re.IGNORECASE
)
_END_RE = re.compile(r"^\s*(?:#+\s*)?(?:本章小结|小结|总结|参考来源|参考资料|references?)\s*[：:]?")
_BULLET_RE = re.compile(r"^\s*(?:[-*•·]\s+|\d+[.)、]\s+)")
_SENTENCE_END = tuple("。！？；：.!?;:）)」』")
# A list item that lost its line break: "…。 - 通过 …" -> new line.
_INLINE_BULLET_RE = re.compile(r"(?<=[。；！？.;!?])\s*-\s+(?=\S)")
_CJK_RE = re.compile(r"[\u4e00-\u9fff]")
_GENERIC_TITLE_RE = re.compile(
    r"^(?:\d+[.、]\s*)?"
    r"(?:面试题|面试|题库|问答|interview(?: questions?)?|questions?|q\s*&\s*a|faq)$",
    re.IGNORECASE,
)


class ImportError_(ValueError):
    """The document could not be read as questions and answers; the message says where."""


@dataclass
class DraftQuestion:
    number: int
    level: Level | None
    question_lines: list[str] = field(default_factory=list)
    answer_lines: list[str] = field(default_factory=list)
    seen_answer: bool = False
    unknown_level: str = ""  # a level column's value that names no level ("wizard")


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
    import pangu  # only the importer needs it: kept off the bot's start-up

    return "\n".join(pangu.space_text(line).rstrip() for line in text.split("\n"))


def parse_document(text: str) -> list[DraftQuestion]:
    """Split a guide into questions with level, question lines and answer lines."""
    level: Level | None = None
    drafts: list[DraftQuestion] = []
    current: DraftQuestion | None = None
    for raw in text.splitlines():
        line = raw.strip()
        heading = re.sub(r"^#+\s*|[：:]$|题目?$|\s*questions?$", "", line, flags=re.IGNORECASE)
        # The heading's own words are measured, not its marks (`## Intermediate questions`).
        if heading and parse_level(heading) is not None and len(heading) <= 20:
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


_MD_HEADING_RE = re.compile(r"^(#{1,6})\s+(.*?)\s*#*$")
_MD_BOLD_LINE_RE = re.compile(r"^\s*(?:[-*]\s+)?\*\*(.+?)\*\*\s*[:：]?\s*(.*)$")
_MD_QUESTION_PREFIX_RE = re.compile(
    r"^(?:Q\s*\d*|问题?\s*\d*|题目?\s*\d*|\d+)\s*[.:：、)．]\s*|^Q\s*\d+\s+", re.IGNORECASE
)
_MD_NUMBER_RE = re.compile(r"^Q\s*(\d+)\s*[.:：、)．\s]", re.IGNORECASE)
_MD_ANSWER_PREFIX_RE = re.compile(
    r"^\s*(?:\*\*)?(?:A|Answer|答案|参考答案|答)\s*(?:\*\*)?\s*[:：]\s*(?:\*\*)?\s*", re.IGNORECASE
)
_LEVEL_TAG_RE = re.compile(
    r"\s*(?:[\[(（【]\s*(?P<a>[^\])）】]{1,16})\s*[\])）】]|#(?P<b>[\w-]{2,16})"
    r"|(?:level|difficulty|难度|级别)\s*[:：]\s*(?P<c>\S{1,16}))",
    re.IGNORECASE,
)


def _level_tag(text: str) -> tuple[str, Level | None]:
    """Strip a level tag (`[advanced]`, `(中级)`, `#beginner`, `难度：高级`) from a line."""
    for m in _LEVEL_TAG_RE.finditer(text):
        word = m.group("a") or m.group("b") or m.group("c")
        level = parse_level(word) if word else None
        if level is not None:
            return (text[: m.start()] + text[m.end() :]).strip(), level
    return text, None


def _is_level_heading(text: str) -> Level | None:
    heading = re.sub(r"[：:]$|题目?$|\s*questions?$|\s*level$", "", text.strip(), flags=re.I)
    heading = heading.strip()  # "Junior        :" is Junior, however padded before its colon
    return parse_level(heading) if heading and len(heading) <= 20 else None


def parse_markdown(text: str) -> tuple[list[DraftQuestion], str | None]:
    """Markdown Q&A: questions as headings or bold lines; return drafts and the title."""
    level: Level | None = None
    drafts: list[DraftQuestion] = []
    current: DraftQuestion | None = None
    title: str | None = None
    for raw in text.splitlines():
        line = raw.rstrip()
        heading = _MD_HEADING_RE.match(line)
        bold = None if heading else _MD_BOLD_LINE_RE.match(line)
        candidate = heading.group(2) if heading else bold.group(1) if bold else None
        if candidate is not None:
            candidate = candidate.replace("**", "").strip()
            if (found := _is_level_heading(candidate)) is not None:
                level, current = found, None
                continue
            if _MD_ANSWER_PREFIX_RE.match(line.strip()) and current is not None:
                current.seen_answer = True
                rest = _MD_ANSWER_PREFIX_RE.sub("", line.strip()).replace("**", "")
                if rest:
                    current.answer_lines.append(rest)
                continue
            untagged = _level_tag(candidate)[0]
            looks_like_question = bool(
                _MD_QUESTION_PREFIX_RE.match(candidate)
                or untagged.endswith(("?", "？"))
                or (heading and len(heading.group(1)) >= 2)
            )
            if heading and len(heading.group(1)) == 1 and not looks_like_question:
                title = title or candidate
                continue
            if _END_RE.match(candidate):
                current = None
                continue
            if looks_like_question or heading:
                question, tagged = _level_tag(_MD_QUESTION_PREFIX_RE.sub("", candidate))
                # The author's number is the question's id (a Q9 filed before Q4 stays q9);
                # an unnumbered question, or chapters numbering from Q1 again, take the next
                # free one.
                numbered = _MD_NUMBER_RE.match(candidate)
                number = int(numbered.group(1)) if numbered else 0
                if number < 1 or any(d.number == number for d in drafts):
                    number = max((d.number for d in drafts), default=0) + 1
                current = DraftQuestion(number, tagged or level)
                current.question_lines.append(question)
                if bold and bold.group(2):  # "**Q?** answer on the same line"
                    current.seen_answer = True
                    current.answer_lines.append(bold.group(2))
                drafts.append(current)
                continue
        if current is None:
            continue
        stripped, tagged = _level_tag(line) if not current.answer_lines else (line, None)
        if tagged is not None and not stripped.strip():
            current.level = tagged
            continue
        if _MD_ANSWER_PREFIX_RE.match(line):
            current.seen_answer = True
            line = _MD_ANSWER_PREFIX_RE.sub("", line)
        elif line.strip():
            current.seen_answer = True
        if line.strip() or current.answer_lines:
            current.answer_lines.append(line.replace("**", "**"))
    return drafts, title


def _strip_html(text: str) -> str:
    text = re.sub(r"<br\s*/?>|</p>|</div>|</li>", "\n", text, flags=re.IGNORECASE)
    text = re.sub(r"<li[^>]*>", "- ", text, flags=re.IGNORECASE)
    return html.unescape(re.sub(r"<[^>]+>", "", text))


_QUESTION_COLUMNS = ("question", "questions", "front", "q", "问题", "题目")
_ANSWER_COLUMNS = ("answer", "answers", "back", "a", "答案", "参考答案")
_LEVEL_COLUMNS = ("level", "difficulty", "难度", "级别", "tags")
_ALL_COLUMNS = _QUESTION_COLUMNS + _ANSWER_COLUMNS + _LEVEL_COLUMNS
# Anki's header lines: `#tags column:3`; deck, note type and guid columns are not fields.
_ANKI_COLUMN_RE = re.compile(r"^#(tags|deck|notetype|guid) column:(\d+)\s*$", re.IGNORECASE)


def _column_name(cell: str) -> str:
    return re.sub(r"\s+", " ", cell.strip().strip("\ufeff")).casefold()


def _loose_name(cell: str) -> str | None:
    """The column a short header cell names in more words ("Question text", "Model
    answer", "标准答案"), or None. Not a sentence: no punctuation, at most three words."""
    name = _column_name(cell)
    if len(name) > 24 or re.search(r"[?？.。,，:：!！]", name):
        return None
    words = re.split(r"[\s_-]+", name)
    if len(words) > 3:
        return None
    for column in _ALL_COLUMNS:
        if column.isascii() and len(column) >= 3 and column in words:
            return column
        if not column.isascii() and column in name:
            return column
    return None


def _names_question_and_answer(names: list[str]) -> bool:
    return any(n in _QUESTION_COLUMNS for n in names) and any(n in _ANSWER_COLUMNS for n in names)


def _misspelt(name: str) -> str | None:
    """The column name a header cell was probably meant to be (`Qestion` for question)."""
    import difflib

    if len(name) < 3 or len(name) > 20:
        return None
    close = difflib.get_close_matches(name, [n for n in _ALL_COLUMNS if len(n) >= 3], 1, 0.75)
    return close[0] if close else None


def _header_error(cells: list[str]) -> str:
    found = ", ".join(f"'{c.strip()}'" for c in cells if c.strip()) or "none"
    missing = [
        what
        for what, names in (("question", _QUESTION_COLUMNS), ("answer", _ANSWER_COLUMNS))
        if not any(_column_name(c) in names for c in cells)
    ]
    hints = [
        f"'{c.strip()}' looks like '{guess}'"
        for c in cells
        if _column_name(c) not in _ALL_COLUMNS and (guess := _misspelt(_column_name(c)))
    ]
    return (
        f"the header row names the columns {found} but no {' and no '.join(missing)} column"
        + (f" ({'; '.join(hints)})" if hints else "")
        + ". It needs a question column (question, q, front, 问题 or 题目) and an answer"
        " column (answer, a, back, 答案 or 参考答案); a level column (level, difficulty,"
        " 难度 or tags) is optional. Rename the columns, or leave the header row out and put"
        " question, answer and level in that order"
    )


def parse_table(text: str, delimiter: str | None = None) -> list[DraftQuestion]:
    """CSV/TSV rows of question, answer and an optional level (or tags) column.

    A first row that names a column (or nearly: `Qestion`) is a header and must name the
    question and the answer column; without a header the columns are question, answer,
    level (Anki's plain-text export: front, back, tags). Raises ImportError_ otherwise.
    """
    lines = text.lstrip("\ufeff").splitlines()
    html_fields = any(ln.lower().startswith("#html:true") for ln in lines[:10])
    anki = {
        m.group(1).lower(): int(m.group(2)) - 1
        for ln in lines[:20]
        if (m := _ANKI_COLUMN_RE.match(ln.strip()))
    }
    if delimiter is None:
        header = next((ln for ln in lines if ln and not ln.startswith("#")), "")
        marked = next((ln for ln in lines[:10] if ln.lower().startswith("#separator:")), "")
        delimiter = (
            "\t"
            if "tab" in marked.lower() or "\t" in header
            else ";"
            if header.count(";") > header.count(",")
            else ","
        )
    body = "\n".join(ln for ln in lines if not ln.startswith("#"))
    rows = [
        r for r in csv.reader(io.StringIO(body), delimiter=delimiter) if any(c.strip() for c in r)
    ]
    if not rows:
        return []
    names = [_column_name(c) for c in rows[0]]
    if not _names_question_and_answer(names):
        # "Question Text,Model Answer" names its columns too: read as the names in them.
        loose = [_loose_name(c) or n for c, n in zip(rows[0], names, strict=True)]
        if _names_question_and_answer(loose):
            names = loose
    skipped = {anki[k] for k in ("deck", "notetype", "guid") if k in anki}
    fields = [i for i in range(max(map(len, rows))) if i not in skipped and i != anki.get("tags")]
    # A note with one field has no answer column (-1 is no column): never the question's.
    columns = {
        "q": fields[0] if fields else -1,
        "a": fields[1] if len(fields) > 1 else -1,
        "level": anki.get("tags", -1),
    }
    # A header names a column, or misspells two (one near-name may be a row's own word).
    near = [n for n in names if parse_level(n) is None and _misspelt(n)]
    if any(n in _ALL_COLUMNS for n in names) or len(near) >= 2:
        if not (
            any(n in _QUESTION_COLUMNS for n in names) and any(n in _ANSWER_COLUMNS for n in names)
        ):
            raise ImportError_(_header_error(rows[0]))
        columns = {
            "q": next(i for i, n in enumerate(names) if n in _QUESTION_COLUMNS),
            "a": next(i for i, n in enumerate(names) if n in _ANSWER_COLUMNS),
            "level": next((i for i, n in enumerate(names) if n in _LEVEL_COLUMNS), -1),
        }
        rows = rows[1:]
    drafts = []
    for number, row in enumerate(rows, 1):

        def cell(i: int, row: list[str] = row) -> str:
            value = row[i].strip() if 0 <= i < len(row) else ""
            return _strip_html(value) if html_fields or "<br" in value else value

        level = None
        for i in range(len(row)):
            if i in skipped or i in (columns["q"], columns["a"]):
                continue
            if i == columns["level"] or i >= 2:
                for word in re.split(r"[\s,;]+", cell(i)):
                    level = level or parse_level(word.strip("#"))
        question, tagged = _level_tag(cell(columns["q"]))
        draft = DraftQuestion(number, tagged or level)
        if draft.level is None and columns["level"] >= 0:
            draft.unknown_level = cell(columns["level"])
        draft.question_lines = question.splitlines()
        draft.answer_lines = cell(columns["a"]).splitlines()
        draft.seen_answer = bool(draft.answer_lines)
        drafts.append(draft)
    return drafts


def detect_format(text: str, name: str = "") -> str:
    """'table', 'markdown' or 'seed', from the file name and then the content."""
    suffix = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if suffix in ("csv", "tsv"):
        return "table"
    if suffix in ("md", "markdown"):
        return "markdown"
    head = text.lstrip("\ufeff")[:4000]
    if re.search(r"^#(?:separator|html|tags column|notetype|deck):", head, re.MULTILINE):
        return "table"
    if any(_QUESTION_RE.match(ln) for ln in head.splitlines()) and any(
        _ANSWER_RE.match(ln) for ln in head.splitlines()
    ):
        return "seed"
    if re.search(r"^#{1,6}\s|^\s*\*\*.+\*\*", head, re.MULTILINE):
        return "markdown"
    first = next((ln for ln in head.splitlines() if ln.strip()), "")
    if "\t" in first:
        return "table"
    return "seed"


def _keep_lines(lines: list[str]) -> str:
    return "\n".join(ln.rstrip() for ln in lines).strip()


def _language(texts: list[str]) -> str:
    joined = "".join(texts)
    cjk = len(_CJK_RE.findall(joined))
    latin = len(re.findall(r"[A-Za-z]", joined))
    return "zh" if cjk * 3 >= latin else "en"


def _title(raw: str | None, topic: str | None, language: str, pack_id: str) -> str:
    title = re.sub(r"^\d+[.、]\s*", "", (raw or "").strip().lstrip("#").strip())[:80]
    if title and not _GENERIC_TITLE_RE.match(title):
        return title
    if topic:
        return f"{topic} 面试题" if language == "zh" else f"{topic} interview questions"
    return title or pack_id


def _tagger() -> Any:
    import rjieba  # only the importer needs it: kept off the bot's start-up

    return rjieba.tag


def import_document(
    text: str,
    pack_id: str,
    *,
    title: str | None = None,
    language: str | None = None,
    glossary: Glossary | None = None,
    source_name: str = "",
) -> tuple[dict[str, Any], list[str]]:
    """Build a draft pack mapping from a document; return it with warnings for the reviewer."""
    kind = detect_format(text, source_name)
    doc_title: str | None = None
    if kind == "table":
        drafts = parse_table(text, "\t" if source_name.lower().endswith(".tsv") else None)
        expected = "rows of question, answer and level (CSV or TSV)"
    elif kind == "markdown":
        drafts, doc_title = parse_markdown(text)
        expected = "questions as headings or bold lines with answers below"
    else:
        drafts = parse_document(text)
        doc_title = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
        expected = "lines like 'Q1：…' followed by '参考答案：'"
    if not drafts:
        raise ImportError_(f"no questions found: expected {expected}")
    warnings: list[str] = []
    numbers: set[int] = set()
    rows: list[tuple[str, str, Level, int]] = []
    for d in drafts:
        name = f"Q{d.number}"
        if d.number in numbers:
            raise ImportError_(f"{name} appears twice; question numbers must be unique")
        numbers.add(d.number)
        # Only the seed's text lost its line structure; other formats keep theirs.
        join = repair_wraps if kind == "seed" else _keep_lines
        question = join(d.question_lines)
        answer = join(d.answer_lines)
        if not question:
            raise ImportError_(f"{name} has no question text")
        if not d.seen_answer or not answer:
            raise ImportError_(f"{name} has no reference answer")
        level = d.level
        if level is None and d.unknown_level:
            warnings.append(
                f"{name}: unknown level {d.unknown_level!r}; set to intermediate"
                " (use beginner, intermediate or advanced)"
            )
        elif level is None:
            warnings.append(f"{name}: no level given; set to intermediate")
        level = level or Level.INTERMEDIATE
        rows.append((question, answer, level, d.number))
    lang = language or _language([q + a for q, a, _, _ in rows])
    analyser = Analyser(
        glossary or Glossary(), _tagger() if lang == "zh" or _CJK_RE.search(text) else None
    )
    analyser.shared = shared_terms(analyser, [a for _, a, _, _ in rows])
    questions = []
    for question, answer, level, number in rows:
        questions.append(
            {
                "id": f"{pack_id}-q{number}",
                "level": level.value,
                "question": question,
                "answer": answer,
                "concepts": suggest_concepts(question, answer, analyser),
            }
        )
    topic = _topic(analyser, [q for q, _, _, _ in rows], [a for _, a, _, _ in rows])
    pack = {
        "id": pack_id,
        "title": title or _title(doc_title, topic, lang, pack_id),
        "language": lang,
        "field": DEFAULT_FIELD,  # for the reviewer to set: docs/packs.md lists the fields
        "draft": True,
        "tags": _tags(analyser),
        "questions": questions,
    }
    return pack, warnings


def _topic(analyser: Analyser, questions: list[str], answers: list[str]) -> str | None:
    """The term most questions are about (`Triton`): the pack's subject, for a title."""
    texts = [f"{q}\n{a}".casefold() for q, a in zip(questions, answers, strict=True)]
    terms = {t.casefold(): t for text in texts for t in analyser.terms(text)}
    spelled = {t.casefold(): t for q in questions for t in analyser.terms(q)} | terms
    if not spelled:
        return None
    reach = {t: sum(t in text for text in texts) for t in spelled}
    best = max(reach, key=lambda t: (reach[t], bool(re.match(r"[a-z]", t)), -len(t)))
    if reach[best] < max(2, len(questions) // 3):
        return None
    return _original_case(best, "\n".join(questions + answers)) or spelled[best]


def _original_case(term: str, text: str) -> str | None:
    m = re.search(re.escape(term), text, re.IGNORECASE)
    return m.group() if m else None


def _tags(analyser: Analyser) -> list[str]:
    tags = sorted(
        {re.sub(r"[^a-z0-9]+", "-", t.casefold()).strip("-") for t in analyser.shared} - {""}
    )
    return [t for t in tags if re.match(r"^[a-z0-9]", t)][:6]
