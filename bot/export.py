"""A user's answer history as CSV: the same format for /export and `interview-bot export`."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable

from bot.core.models import StoredAnswer

COLUMNS = [
    "answered_at", "local_day", "question_id", "level", "score", "covered", "partly",
    "missed", "hints", "chat_id", "answer",
]  # fmt: skip


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
                " | ".join(row.covered),
                " | ".join(row.partly),
                " | ".join(m for m in row.missed if m not in row.partly),
                row.hints,
                row.chat_id,
                row.answer,
            ]
        )
    return out.getvalue()


def read_answers_csv(text: str) -> list[dict[str, str]]:
    """Parse what `answers_csv` wrote (for tools and the round-trip test)."""
    return list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))
