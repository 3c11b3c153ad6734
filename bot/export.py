"""A user's answer history as CSV, in two shapes.

`learner_csv` is what /export sends a person: one row per answer with the question's text,
its pack and level, the answer, the score in %, the concepts, and the date in their time
zone, under headers in their language. `answers_csv` is the operator's `interview-bot
export`: ids, UTC instants and raw scores for tools (`read_answers_csv` reads it back).

Both are opened in spreadsheets (the caller adds a UTF-8 BOM so Chinese reads right), so a
cell that a spreadsheet would run as a formula (`=1+1`, `+`, `-`, `@`, tab, carriage return)
is written with a leading apostrophe; the text after it is the user's, untouched.
"""

from __future__ import annotations

import csv
import html
import io
from collections.abc import Iterable
from zoneinfo import ZoneInfo

from bot.core.content import Library
from bot.core.models import StoredAnswer
from bot.core.timezones import zone_label
from bot.i18n import Strings

COLUMNS = [
    "answered_at", "local_day", "question_id", "level", "score", "covered", "partly",
    "missed", "hints", "chat_id", "answer",
]  # fmt: skip

# What spreadsheets read as the start of a formula (OWASP's CSV injection list). A leading
# apostrophe is escaped the same way, so reading strips exactly one and loses nothing.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "'")


def cell(text: str) -> str:
    """Text as a spreadsheet shows it and never runs: a formula-looking start is prefixed."""
    return "'" + text if text.startswith(_FORMULA_START) else text


def uncell(text: str) -> str:
    """What `cell` was given (one leading apostrophe dropped)."""
    return text.removeprefix("'")


def _partly_apart(row: StoredAnswer) -> list[str]:
    return [m for m in row.missed if m not in row.partly]


def answers_csv(rows: Iterable[StoredAnswer]) -> str:
    """Answers from storage -> CSV text; concept lists are joined with ' | '.

    `covered`: stated in full; `partly`: credited in part (named without explaining, partly
    stated); `missed`: not credited at all. (Answers stored before partly credit was kept
    show their partly credited concepts as missed.)
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow(
            [
                row.answered_at.isoformat(),
                row.local_day,
                row.question_id,
                row.level.value,
                f"{row.score:.4f}",
                cell(" | ".join(row.covered)),
                cell(" | ".join(row.partly)),
                cell(" | ".join(_partly_apart(row))),
                row.hints,
                row.chat_id,
                cell(row.answer),
            ]
        )
    return out.getvalue()


def read_answers_csv(text: str) -> list[dict[str, str]]:
    """Parse what `answers_csv` wrote (for tools and the round-trip test)."""
    rows = list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))
    text_columns = ("covered", "partly", "missed", "answer")
    return [{k: uncell(v) if k in text_columns else v for k, v in r.items()} for r in rows]


def learner_csv(
    rows: Iterable[StoredAnswer],
    *,
    library: Library,
    strings: Strings,
    lang: str,
    zone: ZoneInfo,
) -> str:
    """A person's answers as they read them: headers in `lang`, the question's text (its id
    when the question is no longer in the bank), pack and level, the score in %, and the
    local date and time in `zone`."""

    def text(key: str, **values: object) -> str:
        return html.unescape(strings(lang, key, **values))

    separator = text("weak_separator")  # labels may hold the list separator (、)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")  # Excel's own line ends
    writer.writerow(text("export_headers", zone=zone_label(zone.key)).split("|"))
    for row in rows:
        question = library.questions.get(row.question_id)
        pack = library.packs.get(library.pack_of.get(row.question_id, ""))
        writer.writerow(
            [
                row.answered_at.astimezone(zone).strftime("%Y-%m-%d %H:%M"),
                cell(pack.title if pack else ""),
                text(f"level_{row.level.value}"),
                cell(question.question if question else row.question_id),
                cell(row.answer),
                f"{round(max(0.0, min(1.0, row.score)) * 100)}%",
                cell(separator.join(row.covered)),
                cell(separator.join(row.partly)),
                cell(separator.join(_partly_apart(row))),
                row.hints,
                row.question_id,
            ]
        )
    return out.getvalue()
