"""The repository: every SQL statement of the bot, over one aiosqlite connection.

Writes are serialised by one lock and run as explicit `BEGIN IMMEDIATE` transactions: two
handlers sharing a connection must never interleave their statements, or one's rollback or
commit would take the other's half-done work with it. Reads need no lock (WAL).
Migrations are the numbered `.sql` files beside this module, applied by `PRAGMA user_version`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from datetime import UTC, date, datetime
from importlib import resources
from pathlib import Path
from typing import Any

import aiosqlite

from bot.core.levels import Level
from bot.core.models import AnswerRecord, LevelStats, OpenQuestion, UserProfile, UserStats
from bot.core.streaks import StreakState

_USER_FIELDS = {"first_name", "language", "timezone", "level", "pack", "reminders", "active"}


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _iso(instant: datetime) -> str:
    return instant.astimezone(UTC).isoformat()


def migrations() -> list[tuple[int, str]]:
    """The migration scripts in order, as (version, sql)."""
    folder = resources.files("bot.storage") / "migrations"
    found = []
    for entry in folder.iterdir():
        name = entry.name
        if name.endswith(".sql"):
            found.append((int(name.split("_", 1)[0]), entry.read_text(encoding="utf-8")))
    return sorted(found)


class Storage:
    """Async access to the bot's SQLite database."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path) if str(path) != ":memory:" else path
        self._db: aiosqlite.Connection | None = None
        self._write_lock = asyncio.Lock()

    # -- lifecycle ---------------------------------------------------------------------------

    async def open(self) -> None:
        if isinstance(self.path, Path):
            self.path.parent.mkdir(parents=True, exist_ok=True)
        db = await aiosqlite.connect(str(self.path), isolation_level=None)
        db.row_factory = aiosqlite.Row
        await db.execute("PRAGMA journal_mode=WAL")
        await db.execute("PRAGMA busy_timeout=5000")
        await db.execute("PRAGMA foreign_keys=ON")
        await db.execute("PRAGMA synchronous=NORMAL")
        self._db = db
        await self._migrate()

    async def close(self) -> None:
        if self._db is not None:
            await self._db.close()
            self._db = None

    @property
    def db(self) -> aiosqlite.Connection:
        if self._db is None:
            raise RuntimeError("storage is not open")
        return self._db

    async def _migrate(self) -> None:
        async with self.db.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        current = int(row[0]) if row else 0
        for version, sql in migrations():
            if version <= current:
                continue
            async with self._write_lock:
                # executescript commits on its own; the version bump is part of the script.
                await self.db.executescript(
                    f"BEGIN;\n{sql}\nPRAGMA user_version = {int(version)};\nCOMMIT;"
                )

    async def schema_version(self) -> int:
        async with self.db.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """One serialised write transaction; rolled back if the body raises."""
        async with self._write_lock:
            await self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                await self.db.execute("ROLLBACK")
                raise
            await self.db.execute("COMMIT")

    async def _one(self, sql: str, params: Iterable[Any] = ()) -> aiosqlite.Row | None:
        async with self.db.execute(sql, tuple(params)) as cur:
            return await cur.fetchone()

    async def _all(self, sql: str, params: Iterable[Any] = ()) -> list[aiosqlite.Row]:
        async with self.db.execute(sql, tuple(params)) as cur:
            return list(await cur.fetchall())

    # -- users -------------------------------------------------------------------------------

    @staticmethod
    def _user(row: aiosqlite.Row) -> UserProfile:
        last = row["streak_last_day"]
        return UserProfile(
            user_id=row["user_id"],
            first_name=row["first_name"],
            language=row["language"],
            timezone=row["timezone"],
            level=Level(row["level"]) if row["level"] else None,
            pack=row["pack"],
            reminders=bool(row["reminders"]),
            active=bool(row["active"]),
            streak=StreakState(
                current=row["streak_current"],
                best=row["streak_best"],
                last_day=date.fromisoformat(last) if last else None,
                freezes=row["streak_freezes"],
            ),
        )

    async def get_user(self, user_id: int) -> UserProfile | None:
        row = await self._one("SELECT * FROM users WHERE user_id = ?", (user_id,))
        return self._user(row) if row else None

    async def ensure_user(
        self, user_id: int, first_name: str = "", language: str | None = None
    ) -> UserProfile:
        """Return the user, creating them on first contact; a returning user is active again."""
        async with self.transaction() as db:
            await db.execute(
                "INSERT INTO users (user_id, first_name, language, created_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET first_name = excluded.first_name, active = 1",
                (user_id, first_name[:64], language, _now()),
            )
        user = await self.get_user(user_id)
        assert user is not None
        return user

    async def update_user(self, user_id: int, **fields: Any) -> None:
        """Change settings columns (level, language, timezone, pack, reminders, active)."""
        unknown = set(fields) - _USER_FIELDS
        if unknown:
            raise ValueError(f"not user settings: {sorted(unknown)}")
        if not fields:
            return
        # Column names come from the fixed whitelist above, never from input.
        assignments = ", ".join(f"{name} = ?" for name in fields)
        values = [v.value if isinstance(v, Level) else v for v in fields.values()]
        async with self.transaction() as db:
            await db.execute(
                f"UPDATE users SET {assignments} WHERE user_id = ?",  # noqa: S608
                (*values, user_id),
            )

    async def forget_user(self, user_id: int) -> None:
        """Delete everything stored about a user (answers and open questions cascade)."""
        async with self.transaction() as db:
            await db.execute("DELETE FROM asked WHERE chat_id = ?", (user_id,))
            await db.execute("DELETE FROM chats WHERE chat_id = ?", (user_id,))
            await db.execute("DELETE FROM users WHERE user_id = ?", (user_id,))

    async def mark_inactive(self, chat_id: int) -> None:
        """The user blocked the bot, or the bot left the chat: stop sending there."""
        async with self.transaction() as db:
            await db.execute("UPDATE users SET active = 0 WHERE user_id = ?", (chat_id,))
            await db.execute("UPDATE chats SET active = 0 WHERE chat_id = ?", (chat_id,))

    # -- chats -------------------------------------------------------------------------------

    async def ensure_chat(self, chat_id: int, kind: str, title: str = "") -> None:
        async with self.transaction() as db:
            await db.execute(
                "INSERT INTO chats (chat_id, kind, title, created_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (chat_id) DO UPDATE SET kind = excluded.kind,"
                " title = excluded.title, active = 1",
                (chat_id, kind, title[:128], _now()),
            )

    async def set_chat_timezone(self, chat_id: int, zone: str) -> None:
        async with self.transaction() as db:
            await db.execute("UPDATE chats SET timezone = ? WHERE chat_id = ?", (zone, chat_id))

    # -- questions ---------------------------------------------------------------------------

    async def open_question(
        self, chat_id: int, user_id: int, question_id: str, now: datetime
    ) -> None:
        """Make `question_id` the chat's open question and log it as asked."""
        async with self.transaction() as db:
            await db.execute(
                "INSERT INTO open_questions (chat_id, user_id, question_id, asked_at, hints)"
                " VALUES (?, ?, ?, ?, 0) ON CONFLICT (chat_id) DO UPDATE SET"
                " user_id = excluded.user_id, question_id = excluded.question_id,"
                " asked_at = excluded.asked_at, hints = 0",
                (chat_id, user_id, question_id, _iso(now)),
            )
            await db.execute(
                "INSERT INTO asked (chat_id, question_id, asked_at) VALUES (?, ?, ?)",
                (chat_id, question_id, _iso(now)),
            )

    async def get_open_question(self, chat_id: int) -> OpenQuestion | None:
        row = await self._one("SELECT * FROM open_questions WHERE chat_id = ?", (chat_id,))
        if row is None:
            return None
        return OpenQuestion(
            chat_id=row["chat_id"],
            user_id=row["user_id"],
            question_id=row["question_id"],
            asked_at=datetime.fromisoformat(row["asked_at"]),
            hints=row["hints"],
        )

    async def add_hint(self, chat_id: int, question_id: str) -> int | None:
        """Count one more hint on the open question; None if it is no longer open."""
        async with (
            self.transaction() as db,
            db.execute(
                "UPDATE open_questions SET hints = hints + 1 WHERE chat_id = ? AND question_id = ?"
                " RETURNING hints",
                (chat_id, question_id),
            ) as cur,
        ):
            row = await cur.fetchone()
        return int(row[0]) if row else None

    async def close_question(self, chat_id: int, question_id: str | None = None) -> bool:
        """Close the open question (only if it is still `question_id`, when given)."""
        async with self.transaction() as db:
            if question_id is None:
                cur = await db.execute("DELETE FROM open_questions WHERE chat_id = ?", (chat_id,))
            else:
                cur = await db.execute(
                    "DELETE FROM open_questions WHERE chat_id = ? AND question_id = ?",
                    (chat_id, question_id),
                )
            return cur.rowcount > 0

    async def recent_questions(self, chat_id: int, limit: int = 200) -> list[str]:
        """Question ids asked in a chat, newest first, each once."""
        rows = await self._all(
            "SELECT question_id, MAX(id) AS last FROM asked WHERE chat_id = ?"
            " GROUP BY question_id ORDER BY last DESC LIMIT ?",
            (chat_id, limit),
        )
        return [r["question_id"] for r in rows]

    # -- answers and streaks -----------------------------------------------------------------

    async def record_answer(
        self,
        record: AnswerRecord,
        update_streak: Callable[[StreakState], StreakState],
        *,
        close_open: bool = True,
    ) -> StreakState | None:
        """Store an answer and move the streak, atomically; None if the question closed meanwhile.

        With `close_open`, the answer only counts if `record.question_id` is still the chat's
        open question, and closes it: a double-sent answer is scored once.
        """
        async with self.transaction() as db:
            if close_open:
                cur = await db.execute(
                    "DELETE FROM open_questions WHERE chat_id = ? AND question_id = ?",
                    (record.chat_id, record.question_id),
                )
                if cur.rowcount == 0:
                    return None
            await db.execute(
                "INSERT INTO answers (user_id, chat_id, question_id, level, answer, score,"
                " covered, missed, hints, answered_at, local_day)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    record.user_id,
                    record.chat_id,
                    record.question_id,
                    record.level.value,
                    record.answer,
                    record.score,
                    json.dumps(record.covered, ensure_ascii=False),
                    json.dumps(record.missed, ensure_ascii=False),
                    record.hints,
                    _iso(record.answered_at),
                    record.local_day,
                ),
            )
            async with db.execute(
                "SELECT streak_current, streak_best, streak_last_day, streak_freezes"
                " FROM users WHERE user_id = ?",
                (record.user_id,),
            ) as cur:
                row = await cur.fetchone()
            if row is None:
                raise LookupError(f"user {record.user_id} does not exist")
            old = StreakState(
                current=row[0],
                best=row[1],
                last_day=date.fromisoformat(row[2]) if row[2] else None,
                freezes=row[3],
            )
            new = update_streak(old)
            await db.execute(
                "UPDATE users SET streak_current = ?, streak_best = ?, streak_last_day = ?,"
                " streak_freezes = ? WHERE user_id = ?",
                (
                    new.current,
                    new.best,
                    new.last_day.isoformat() if new.last_day else None,
                    new.freezes,
                    record.user_id,
                ),
            )
        return new

    async def user_stats(self, user_id: int) -> UserStats:
        rows = await self._all(
            "SELECT level, COUNT(*) AS n, AVG(score) AS avg FROM answers WHERE user_id = ?"
            " GROUP BY level",
            (user_id,),
        )
        by_level = {r["level"]: LevelStats(Level(r["level"]), r["n"], r["avg"]) for r in rows}
        total = await self._one(
            "SELECT COUNT(*), COUNT(DISTINCT question_id) FROM answers WHERE user_id = ?",
            (user_id,),
        )
        return UserStats(
            answers=int(total[0]) if total else 0,
            questions=int(total[1]) if total else 0,
            by_level=[by_level[lv.value] for lv in Level if lv.value in by_level],
        )

    async def answers_for(self, user_id: int) -> list[dict[str, Any]]:
        """A user's answers, oldest first, as plain dicts (for export)."""
        rows = await self._all(
            "SELECT * FROM answers WHERE user_id = ? ORDER BY answered_at, id", (user_id,)
        )
        return [dict(r) for r in rows]
