"""SQL of chats: creating and reading them, group settings, a group becoming a supergroup."""

from __future__ import annotations

from datetime import date, datetime, time
from typing import Any

import aiosqlite

from bot.core.levels import Level
from bot.core.models import (
    ChatKind,
    ChatRecord,
)
from bot.core.schedule import Days, Occurrence
from bot.storage.database import Database, iso, now_iso

# Tables whose rows follow a group to its new id when it becomes a supergroup.
MIGRATING_TABLES = (
    "open_questions", "asked", "answers", "daily_sends", "rounds", "group_totals", "outbox",
    "followed_packs", "pack_offers",
)  # fmt: skip


# A chat as the rest of the bot reads it. A group's zone is its own (chats.timezone); a private
# chat's is its user's (users.timezone, the clock of their streak and reminders too), stored
# once, there, and read through this join (chats.timezone stays NULL for private chats).
CHAT_SELECT = (
    "SELECT chats.*,"
    " CASE chats.kind WHEN 'private' THEN users.timezone ELSE chats.timezone END AS zone"
    " FROM chats LEFT JOIN users ON chats.kind = 'private' AND users.user_id = chats.chat_id"
)


def chat_from_row(row: aiosqlite.Row) -> ChatRecord:
    """A row of `CHAT_SELECT` as a record."""
    return ChatRecord(
        chat_id=row["chat_id"],
        kind=ChatKind(row["kind"]),
        title=row["title"],
        timezone=row["zone"],
        level=Level(row["level"]) if row["level"] else None,
        active=bool(row["active"]),
        daily_enabled=bool(row["daily_enabled"]),
        daily_time=time.fromisoformat(row["daily_time"]),
        daily_days=Days(row["daily_days"]),
        next_due_at=datetime.fromisoformat(row["next_due_at"]) if row["next_due_at"] else None,
        next_due_day=date.fromisoformat(row["next_due_day"]) if row["next_due_day"] else None,
        round_minutes=row["round_minutes"],
        language=row["language"],
    )


def next_due_update(chat_id: int, next_due: Occurrence) -> tuple[str, tuple[object, ...]]:
    """The one statement that moves a chat on to its next occurrence (SQL and parameters)."""
    return (
        "UPDATE chats SET next_due_at = ?, next_due_day = ? WHERE chat_id = ?",
        (iso(next_due.at), next_due.day.isoformat(), chat_id),
    )


class ChatsStore(Database):
    async def ensure_chat(
        self, chat_id: int, kind: str, title: str = "", language: str | None = None
    ) -> None:
        """Create or refresh a chat (reachable again); its language is set once, if unknown."""
        await self._write(
            "INSERT INTO chats (chat_id, kind, title, language, created_at)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (chat_id) DO UPDATE SET"
            " kind = excluded.kind, title = excluded.title, active = 1,"
            " language = COALESCE(chats.language, excluded.language)",
            (chat_id, kind, title[:128], language, now_iso()),
        )

    async def get_chat(self, chat_id: int) -> ChatRecord | None:
        row = await self._one(CHAT_SELECT + " WHERE chats.chat_id = ?", (chat_id,))
        return chat_from_row(row) if row else None

    async def migrate_chat(self, old_id: int, new_id: int) -> None:
        """A group became a supergroup: move its settings, schedule and history to the new id."""
        async with self.transaction() as db:
            exists = await (
                await db.execute("SELECT 1 FROM chats WHERE chat_id = ?", (new_id,))
            ).fetchone()
            if exists:
                await db.execute("DELETE FROM chats WHERE chat_id = ?", (new_id,))
            await db.execute(
                "UPDATE chats SET chat_id = ?, kind = 'supergroup' WHERE chat_id = ?",
                (new_id, old_id),
            )
            for table in MIGRATING_TABLES:
                # Table names come from the fixed tuple above, never from input.
                await db.execute(
                    f"UPDATE OR REPLACE {table} SET chat_id = ? WHERE chat_id = ?",  # noqa: S608
                    (new_id, old_id),
                )

    async def set_chat_settings(self, chat_id: int, **fields: Any) -> None:
        """Change group settings (level, round_minutes, timezone, language)."""
        unknown = set(fields) - {"level", "round_minutes", "timezone", "language"}
        if unknown:
            raise ValueError(f"not chat settings: {sorted(unknown)}")
        assignments = ", ".join(f"{name} = ?" for name in fields)
        values = [v.value if isinstance(v, Level) else v for v in fields.values()]
        await self._write(
            f"UPDATE chats SET {assignments} WHERE chat_id = ?",  # noqa: S608 - whitelisted
            (*values, chat_id),
        )
