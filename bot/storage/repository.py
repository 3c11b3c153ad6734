"""The repository: every SQL statement of the bot, over one aiosqlite connection.

Writes are serialised by one lock and run as explicit `BEGIN IMMEDIATE` transactions: two
handlers sharing a connection must never interleave their statements, or one's rollback or
commit would take the other's half-done work with it. Reads take the same lock: WAL isolates
connections, not coroutines, so a read between two statements of another coroutine's open
transaction would see its uncommitted rows (and keep them after a rollback). Under the lock a
read runs between transactions, whole in one step, and sees committed rows only. (A second,
read-only connection would isolate too, but its thread cost a tenth of the daily fan-out
rate in `make bench`; on one connection the statements run one at a time anyway.)
Migrations are the numbered `.sql` files beside this module, applied by `PRAGMA user_version`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

import aiosqlite

from bot.core.levels import Level
from bot.core.models import (
    AnswerRecord,
    ChatKind,
    ChatRecord,
    LeaderboardRow,
    LevelStats,
    OpenQuestion,
    RoundAnswer,
    RoundRecord,
    UserProfile,
    UserStats,
)
from bot.core.outbox import Draft, Status
from bot.core.reminders import ReminderRule, first_reminder
from bot.core.retention import Cutoffs
from bot.core.review import ReviewState
from bot.core.schedule import Days, Occurrence
from bot.core.streaks import StreakState
from bot.storage.files import BUSY_TIMEOUT_MS, DatabaseFileError, describe, is_busy, open_database
from bot.storage.outbox import OutboxStore, fail_open_rows, insert_draft
from bot.storage.reminders import ReminderStore, reset_reminder, withdraw_reminders

# Tables whose rows follow a group to its new id when it becomes a supergroup.
MIGRATING_TABLES = (
    "open_questions", "asked", "answers", "daily_sends", "rounds", "group_totals", "outbox",
)  # fmt: skip

_USER_FIELDS = {"first_name", "language", "timezone", "level", "pack", "reminders", "active"}


def _chat(row: aiosqlite.Row) -> ChatRecord:
    return ChatRecord(
        chat_id=row["chat_id"],
        kind=ChatKind(row["kind"]),
        title=row["title"],
        timezone=row["timezone"],
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


def _round(row: aiosqlite.Row) -> RoundRecord:
    return RoundRecord(
        round_id=row["id"],
        chat_id=row["chat_id"],
        question_id=row["question_id"],
        message_id=row["message_id"],
        opened_by=row["opened_by"],
        opened_at=datetime.fromisoformat(row["opened_at"]),
        closes_at=datetime.fromisoformat(row["closes_at"]),
        closed_at=datetime.fromisoformat(row["closed_at"]) if row["closed_at"] else None,
        daily=bool(row["daily"]),
    )


class RecordedAnswer(NamedTuple):
    streak: StreakState  # after this answer
    answer_id: int
    review: ReviewState | None  # the card as scheduled by this answer


@dataclass(frozen=True, slots=True)
class ReviewUpdate:
    """How an answer moves its question's review card (FSRS), given the card stored before."""

    schedule: Callable[[str | None], ReviewState]
    rating: int


async def _save_review(
    db: aiosqlite.Connection,
    user_id: int,
    question_id: str,
    state: ReviewState,
    previous_card: str | None,
    answer_id: int,
    reviewed_at: datetime,
    rating: int,
) -> None:
    await db.execute(
        "INSERT INTO reviews (user_id, question_id, card, due_at, previous_card,"
        " last_answer_id, reviewed_at, rating) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (user_id, question_id) DO UPDATE SET card = excluded.card,"
        " due_at = excluded.due_at, previous_card = excluded.previous_card,"
        " last_answer_id = excluded.last_answer_id, reviewed_at = excluded.reviewed_at,"
        " rating = excluded.rating",
        (
            user_id, question_id, state.card, _iso(state.due), previous_card, answer_id,
            _iso(reviewed_at), rating,
        ),
    )  # fmt: skip


def _now() -> str:
    return datetime.now(UTC).isoformat()


T = TypeVar("T")


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


def schema_version() -> int:
    """The newest schema this code knows: a database beyond it is from a newer version."""
    return max(version for version, _ in migrations())


class Storage(OutboxStore, ReminderStore):
    """Async access to the bot's SQLite database.

    `reminders`: the evening reminder's hour and default zone, which the stored reminder
    instants are computed with (bot/storage/reminders.py).
    """

    def __init__(self, path: Path | str, reminders: ReminderRule | None = None) -> None:
        self.path = Path(path) if str(path) != ":memory:" else path
        self.reminder_rule = reminders or ReminderRule()
        self._db: aiosqlite.Connection | None = None
        self._write_lock = asyncio.Lock()
        self._maybe_orphan = False  # a cancelled writer may have left statements queued

    # -- lifecycle ---------------------------------------------------------------------------

    async def open(self, *, verify: bool = True) -> None:
        """Open, check (see `files.open_database`) and migrate; DatabaseFileError if unusable.

        `verify=False` skips the integrity check (it reads the whole file): for a process
        that has just run it, as `interview-bot run` does before it starts the bot.
        """
        db = await open_database(self.path, known_version=schema_version(), verify=verify)
        db.row_factory = aiosqlite.Row
        self._db = db
        try:
            await self._migrate()
        except sqlite3.Error as exc:
            await self.close()
            raise DatabaseFileError(self.path, describe(exc)) from None

    async def open_readonly(self) -> None:
        """Open for reading only: no migration, no write; DatabaseFileError if unusable."""
        db = await open_database(
            self.path, known_version=schema_version(), readonly=True, verify=False
        )
        db.row_factory = aiosqlite.Row
        self._db = db

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

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """One serialised write transaction; rolled back if the body raises."""
        async with self._write_lock:
            await self._no_orphan()
            try:
                await self._when_unlocked(lambda: self.db.execute("BEGIN IMMEDIATE"))
            except asyncio.CancelledError:
                self._maybe_orphan = True  # the BEGIN may still run after we are gone
                raise
            try:
                yield self.db
            except BaseException:
                # SQLite itself rolls back on some errors (SQLITE_FULL, SQLITE_IOERR): a second
                # ROLLBACK would fail and hide the error that matters.
                if self.db.in_transaction:
                    self._maybe_orphan = True  # until the ROLLBACK below has run
                    with contextlib.suppress(sqlite3.OperationalError):
                        await self.db.execute("ROLLBACK")
                    self._maybe_orphan = False
                raise
            try:
                await self.db.execute("COMMIT")
            except asyncio.CancelledError:
                self._maybe_orphan = True
                raise

    async def _no_orphan(self) -> None:
        """Roll back a transaction left open by a task cancelled mid-way (we hold the lock)."""
        if self._maybe_orphan:
            await self.db.execute("SELECT 1")  # what that task queued has run by now
            self._maybe_orphan = False
        if self.db.in_transaction:
            with contextlib.suppress(sqlite3.OperationalError):  # rolled back meanwhile
                await self.db.execute("ROLLBACK")

    async def _write(self, sql: str, params: Iterable[Any] = ()) -> int:
        """One statement, atomic on its own; serialised with the transactions. Returns rowcount.

        Cheaper than `transaction()` (one round trip to the database thread instead of three),
        for the many writes that are a single statement.
        """
        async with self._write_lock:
            await self._no_orphan()
            cursor = await self._when_unlocked(lambda: self.db.execute(sql, tuple(params)))
            return cursor.rowcount

    async def _when_unlocked(self, start: Callable[[], Awaitable[T]]) -> T:
        """Run what takes the write lock, waiting up to the busy timeout while another
        process holds it.

        SQLite's own busy timeout does not wait when this connection has a read statement
        open (another task iterating a cursor; reads are not serialised with writes): it
        fails at once with "database is locked". Waiting here a moment lets that read finish.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + BUSY_TIMEOUT_MS / 1000
        pause = 0.005
        while True:
            try:
                return await start()
            except sqlite3.OperationalError as exc:
                if not is_busy(exc) or loop.time() >= deadline:
                    raise
            await asyncio.sleep(pause)
            pause = min(pause * 2, 0.1)

    async def _one(self, sql: str, params: Iterable[Any] = ()) -> aiosqlite.Row | None:
        rows = await self._all(sql, params)
        return rows[0] if rows else None

    async def _all(self, sql: str, params: Iterable[Any] = ()) -> list[aiosqlite.Row]:
        """Run a read between transactions, whole in one step.

        With the write lock free no transaction is open or queued, and the read is queued on
        the connection's thread at once, ahead of any that starts later; otherwise it waits
        for the lock. Never call it inside `transaction()` (the lock is not reentrant): a
        transaction reads through its own `db`.
        """
        if not self._write_lock.locked() and not self._maybe_orphan:
            return list(await self.db.execute_fetchall(sql, tuple(params)))
        async with self._write_lock:
            await self._no_orphan()
            return list(await self.db.execute_fetchall(sql, tuple(params)))

    async def ping(self) -> bool:
        """The database answers a query (for health checks)."""
        row = await self._one("SELECT 1")
        return row is not None and row[0] == 1

    # -- incoming updates --------------------------------------------------------------------

    async def claim_update(self, update_id: int, now: datetime) -> bool:
        """Record that an update is being handled; False if it was handled before."""
        inserted = await self._write(
            "INSERT OR IGNORE INTO processed_updates (update_id, seen_at) VALUES (?, ?)",
            (update_id, _iso(now)),
        )
        return inserted == 1

    async def forget_updates_before(self, before: datetime) -> int:
        """Drop the record of updates seen before `before`; return how many."""
        return await self._write("DELETE FROM processed_updates WHERE seen_at < ?", (_iso(before),))

    # -- users -------------------------------------------------------------------------------

    @staticmethod
    def _user(row: aiosqlite.Row) -> UserProfile:
        last = row["streak_last_day"]
        return UserProfile(
            user_id=row["user_id"],
            first_name=row["first_name"],
            language=row["language"],
            telegram_language=row["telegram_language"],
            timezone=row["timezone"],
            level=Level(row["level"]) if row["level"] else None,
            pack=row["pack"],
            reminders=bool(row["reminders"]),
            active=bool(row["active"]),
            started=bool(row["started"]),
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
        self,
        user_id: int,
        first_name: str = "",
        telegram_language: str | None = None,
        *,
        private: bool = True,
    ) -> UserProfile:
        """Return the user, creating them on first contact.

        `telegram_language`: the interface language the user's client reports, kept current
        (the language chosen with /lang is a separate setting and is never overwritten).

        `private`: the contact is in a private chat, so the user can be messaged there (and a
        returning user who had blocked the bot is active again). Group members are stored
        too, for their streaks and the leaderboard, but are not messaged until they start.
        """
        await self._write(
            "INSERT INTO users"
            " (user_id, first_name, telegram_language, created_at, started, active)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET"
            " first_name = excluded.first_name,"
            " telegram_language = COALESCE(excluded.telegram_language, users.telegram_language),"
            " started = MAX(users.started, excluded.started),"
            " active = CASE WHEN excluded.started = 1 THEN 1 ELSE users.active END",
            (user_id, first_name[:64], telegram_language, _now(), int(private), int(private)),
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
        sql = f"UPDATE users SET {assignments} WHERE user_id = ?"  # noqa: S608
        if not {"timezone", "reminders"} & fields.keys():
            await self._write(sql, (*values, user_id))
            return
        async with self.transaction() as db:  # the reminder instant moves with the zone
            await db.execute(sql, (*values, user_id))
            await reset_reminder(db, user_id, self.reminder_rule)
            if "reminders" in fields and not fields["reminders"]:
                await withdraw_reminders(db, user_id, "reminders turned off")

    async def forget_user(self, user_id: int) -> None:
        """Delete everything stored about a user, private chat and group answers included.

        Answers, open questions and review cards go with the user row (foreign keys).
        """
        async with self.transaction() as db:
            for sql in (
                "DELETE FROM asked WHERE chat_id = ?",
                "DELETE FROM daily_sends WHERE chat_id = ?",
                "DELETE FROM outbox WHERE chat_id = ?",
                "DELETE FROM reminders_sent WHERE user_id = ?",
                "DELETE FROM round_answers WHERE user_id = ?",
                "DELETE FROM group_totals WHERE user_id = ?",
                "DELETE FROM chats WHERE chat_id = ?",
                "DELETE FROM users WHERE user_id = ?",
            ):
                await db.execute(sql, (user_id,))

    async def mark_unreachable(self, chat_id: int) -> None:
        """The one rule for a chat that cannot be reached (blocked, kicked, deleted).

        Nothing more is sent there and what waits for it is dropped; its settings, the daily
        question included, are kept, so when the user comes back (unblocks, /start, adds the
        bot again) everything resumes as it was, whichever path noticed the block.
        """
        async with self.transaction() as db:
            await db.execute("UPDATE users SET active = 0 WHERE user_id = ?", (chat_id,))
            await db.execute("UPDATE chats SET active = 0 WHERE chat_id = ?", (chat_id,))
            await fail_open_rows(db, chat_id, "unreachable")

    # -- chats -------------------------------------------------------------------------------

    async def ensure_chat(
        self, chat_id: int, kind: str, title: str = "", language: str | None = None
    ) -> None:
        """Create or refresh a chat (reachable again); its language is set once, if unknown."""
        await self._write(
            "INSERT INTO chats (chat_id, kind, title, language, created_at)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (chat_id) DO UPDATE SET"
            " kind = excluded.kind, title = excluded.title, active = 1,"
            " language = COALESCE(chats.language, excluded.language)",
            (chat_id, kind, title[:128], language, _now()),
        )

    async def get_chat(self, chat_id: int) -> ChatRecord | None:
        row = await self._one("SELECT * FROM chats WHERE chat_id = ?", (chat_id,))
        return _chat(row) if row else None

    async def set_schedule(
        self,
        chat_id: int,
        *,
        enabled: bool,
        at: time,
        days: Days,
        zone: str,
        next_due: Occurrence | None,
    ) -> None:
        await self._write(
            "UPDATE chats SET daily_enabled = ?, daily_time = ?, daily_days = ?, timezone = ?,"
            " next_due_at = ?, next_due_day = ? WHERE chat_id = ?",
            (
                int(enabled),
                at.strftime("%H:%M"),
                days.value,
                zone,
                _iso(next_due.at) if next_due else None,
                next_due.day.isoformat() if next_due else None,
                chat_id,
            ),
        )

    async def due_chats(
        self, now: datetime, limit: int = 500, after: tuple[str, int] | None = None
    ) -> list[ChatRecord]:
        """Subscribed, reachable chats due at `now`, oldest first, one page at a time.

        `after` is the (next_due_at, chat_id) of the previous page's last chat: keyset
        paging, so chats left due on purpose (to retry next tick) never hide the others.
        """
        last_at, last_id = after or ("", 0)
        rows = await self._all(
            "SELECT * FROM chats WHERE daily_enabled = 1 AND active = 1 AND next_due_at <= ?"
            " AND (next_due_at, chat_id) > (?, ?) ORDER BY next_due_at, chat_id LIMIT ?",
            (_iso(now), last_at, last_id, limit),
        )
        return [_chat(r) for r in rows]

    async def claim_daily(self, chat_id: int, local_day: str, now: datetime) -> bool:
        """Claim the chat's prompt for `local_day`; False if it was sent, failed or may be out.

        A claim left by a crash before its request started (status still 'claimed') is taken
        again. One whose request was under way ('sending') is not: it may have arrived, and a
        chat gets at most one prompt a day.
        """
        claimed = await self._write(
            "INSERT INTO daily_sends (chat_id, local_day, status, attempts, claimed_at)"
            " VALUES (?, ?, 'claimed', 1, ?) ON CONFLICT (chat_id, local_day) DO UPDATE"
            " SET attempts = attempts + 1, claimed_at = excluded.claimed_at"
            " WHERE status = 'claimed'",
            (chat_id, local_day, _iso(now)),
        )
        return claimed > 0

    async def finish_daily(
        self,
        chat_id: int,
        local_day: str,
        status: Status,
        now: datetime,
        next_due: Occurrence,
        question_id: str | None = None,
    ) -> None:
        """Record the outcome for `local_day` and move the chat on to its next occurrence."""
        async with self.transaction() as db:
            await db.execute(
                "UPDATE daily_sends SET status = ?, sent_at = ?, question_id = ?"
                " WHERE chat_id = ? AND local_day = ?",
                (status.value, _iso(now), question_id, chat_id, local_day),
            )
            await db.execute(
                "UPDATE chats SET next_due_at = ?, next_due_day = ? WHERE chat_id = ?",
                (_iso(next_due.at), next_due.day.isoformat(), chat_id),
            )

    async def advance_daily(self, chat_id: int, next_due: Occurrence) -> None:
        await self._write(
            "UPDATE chats SET next_due_at = ?, next_due_day = ? WHERE chat_id = ?",
            (_iso(next_due.at), next_due.day.isoformat(), chat_id),
        )

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

    async def claim_reminder(self, user_id: int, local_day: str, now: datetime) -> bool:
        """Mark the day's reminder as taken (the scheduler does it with its message, by
        `claim_reminders`, in one transaction)."""
        claimed = await self._write(
            "INSERT OR IGNORE INTO reminders_sent (user_id, local_day, sent_at) VALUES (?, ?, ?)",
            (user_id, local_day, _iso(now)),
        )
        return claimed > 0

    # -- retention ---------------------------------------------------------------------------

    async def prune(
        self, cut: Cutoffs, *, rounds_closed_after: datetime | None = None, batch: int = 5000
    ) -> dict[str, int]:
        """Delete bookkeeping rows older than the cutoffs; rows deleted per table.

        Deletes go in batches, each its own short write, so handlers are never held up for
        long. `rounds_closed_after`: skip rounds whose answers an earlier pass already pruned.
        """
        day = cut.before_day.isoformat()
        closed_before = _iso(cut.rounds_closed_before)
        closed_after = _iso(rounds_closed_after) if rounds_closed_after else ""
        statements = {
            "daily_sends": (
                "DELETE FROM daily_sends WHERE rowid IN"
                " (SELECT rowid FROM daily_sends WHERE local_day < ? LIMIT ?)",
                (day,),
            ),
            "reminders_sent": (
                "DELETE FROM reminders_sent WHERE rowid IN"
                " (SELECT rowid FROM reminders_sent WHERE local_day < ? LIMIT ?)",
                (day,),
            ),
            "round_answers": (
                "DELETE FROM round_answers WHERE rowid IN"
                " (SELECT ra.rowid FROM rounds r JOIN round_answers ra ON ra.round_id = r.id"
                " WHERE r.closed_at < ? AND r.closed_at >= ? LIMIT ?)",
                (closed_before, closed_after),
            ),
            # Rows dropped for an unreachable chat have no finished_at: their creation counts.
            "outbox": (
                "DELETE FROM outbox WHERE id IN (SELECT id FROM outbox"
                " WHERE status IN ('sent', 'failed', 'unknown', 'expired')"
                " AND COALESCE(finished_at, created_at) < ? LIMIT ?)",
                (_iso(cut.outbox_finished_before),),
            ),
        }
        deleted: dict[str, int] = {}
        for table, (sql, params) in statements.items():
            deleted[table] = 0
            while True:
                count = await self._write(sql, (*params, batch))
                deleted[table] += count
                if count < batch:
                    break
                await asyncio.sleep(0)  # let waiting handlers take the lock between batches
        return deleted

    # -- group rounds ------------------------------------------------------------------------

    async def set_chat_settings(self, chat_id: int, **fields: Any) -> None:
        """Change group settings (level, round_minutes, timezone)."""
        unknown = set(fields) - {"level", "round_minutes", "timezone"}
        if unknown:
            raise ValueError(f"not chat settings: {sorted(unknown)}")
        assignments = ", ".join(f"{name} = ?" for name in fields)
        values = [v.value if isinstance(v, Level) else v for v in fields.values()]
        await self._write(
            f"UPDATE chats SET {assignments} WHERE chat_id = ?",  # noqa: S608 - whitelisted
            (*values, chat_id),
        )

    async def open_round(
        self,
        chat_id: int,
        question_id: str,
        opened_by: int | None,
        now: datetime,
        closes: datetime,
        *,
        daily: bool,
    ) -> int | None:
        """Open a round; None if the group already has one open."""
        async with self.transaction() as db:
            try:
                cur = await db.execute(
                    "INSERT INTO rounds (chat_id, question_id, opened_by, opened_at,"
                    " closes_at, daily) VALUES (?, ?, ?, ?, ?, ?)",
                    (chat_id, question_id, opened_by, _iso(now), _iso(closes), int(daily)),
                )
            except sqlite3.IntegrityError:
                return None
            await db.execute(
                "INSERT OR REPLACE INTO asked (chat_id, question_id, asked_at) VALUES (?, ?, ?)",
                (chat_id, question_id, _iso(now)),
            )
            return cur.lastrowid

    async def set_round_message(self, round_id: int, message_id: int) -> None:
        await self._write("UPDATE rounds SET message_id = ? WHERE id = ?", (message_id, round_id))

    async def cancel_round(self, round_id: int) -> None:
        """The question could not be posted: the round never happened."""
        async with self.transaction() as db:
            await db.execute("DELETE FROM rounds WHERE id = ?", (round_id,))

    async def open_round_of(self, chat_id: int) -> RoundRecord | None:
        row = await self._one(
            "SELECT * FROM rounds WHERE chat_id = ? AND closed_at IS NULL", (chat_id,)
        )
        return _round(row) if row else None

    async def round_by_message(self, chat_id: int, message_id: int) -> RoundRecord | None:
        row = await self._one(
            "SELECT * FROM rounds WHERE chat_id = ? AND message_id = ?", (chat_id, message_id)
        )
        return _round(row) if row else None

    async def record_round_answer(
        self,
        round_id: int,
        *,
        user_id: int,
        first_name: str,
        message_id: int,
        answer: str,
        score: float,
        covered: list[str],
        missed: list[str],
        now: datetime,
        local_day: str,
        update_streak: Callable[[StreakState], StreakState],
        feedback: Callable[[StreakState], Draft | None] | None = None,
    ) -> StreakState | None:
        """Keep the member's latest answer while the round is open; None if nothing was stored.

        A later message, or an edit of the current one, replaces the answer; an edit of an
        older message does not (None: the round closed, or the edit was of a replaced answer).
        The member's personal streak counts the day. `feedback` drafts the member's private
        feedback, recorded with the answer (so a crash cannot keep one without the other).
        """
        async with self.transaction() as db:
            async with db.execute("SELECT closed_at FROM rounds WHERE id = ?", (round_id,)) as cur:
                row = await cur.fetchone()
            if row is None or row[0] is not None:
                return None
            cursor = await db.execute(
                "INSERT INTO round_answers (round_id, user_id, first_name, message_id, answer,"
                " score, covered, missed, answered_at, local_day)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (round_id, user_id) DO UPDATE SET"
                " first_name = excluded.first_name, message_id = excluded.message_id,"
                " answer = excluded.answer, score = excluded.score, covered = excluded.covered,"
                " missed = excluded.missed, answered_at = excluded.answered_at"
                " WHERE excluded.message_id >= round_answers.message_id",
                (
                    round_id,
                    user_id,
                    first_name[:64],
                    message_id,
                    answer,
                    score,
                    json.dumps(covered, ensure_ascii=False),
                    json.dumps(missed, ensure_ascii=False),
                    _iso(now),
                    local_day,
                ),
            )
            if cursor.rowcount == 0:  # an edit of an answer a later message replaced
                return None
            streak = await self._move_streak(db, user_id, update_streak)
            draft = feedback(streak) if feedback is not None else None
            if draft is not None:
                await insert_draft(db, draft, now)
            return streak

    async def _move_streak(
        self,
        db: aiosqlite.Connection,
        user_id: int,
        update_streak: Callable[[StreakState], StreakState],
    ) -> StreakState:
        async with db.execute(
            "SELECT streak_current, streak_best, streak_last_day, streak_freezes,"
            " timezone, reminders FROM users WHERE user_id = ?",
            (user_id,),
        ) as cur:
            row = await cur.fetchone()
        if row is None:
            raise LookupError(f"user {user_id} does not exist")
        old = StreakState(
            current=row[0],
            best=row[1],
            last_day=date.fromisoformat(row[2]) if row[2] else None,
            freezes=row[3],
        )
        new = update_streak(old)
        # An answer: the next reminder moves to the evening after it (bot/storage/reminders.py),
        # and one recorded but not yet sent is withdrawn.
        remind_at = first_reminder(new, row[4], self.reminder_rule) if row[5] else None
        await db.execute(
            "UPDATE users SET streak_current = ?, streak_best = ?, streak_last_day = ?,"
            " streak_freezes = ?, remind_at = ? WHERE user_id = ?",
            (
                new.current,
                new.best,
                new.last_day.isoformat() if new.last_day else None,
                new.freezes,
                _iso(remind_at) if remind_at else None,
                user_id,
            ),
        )
        await withdraw_reminders(db, user_id, "answered before it was sent")
        return new

    async def close_round(
        self,
        round_id: int,
        now: datetime,
        level: Level,
        announce: Callable[[list[RoundAnswer]], Draft | None] | None = None,
    ) -> list[RoundAnswer] | None:
        """Close the round (once: None if someone else closed it) and return its answers.

        Each member's final answer also goes into the answer history. `announce` drafts the
        ranking, recorded in the same transaction: a closed round always owes its results.
        """
        async with self.transaction() as db:
            cur = await db.execute(
                "UPDATE rounds SET closed_at = ? WHERE id = ? AND closed_at IS NULL",
                (_iso(now), round_id),
            )
            if cur.rowcount == 0:
                return None
            async with db.execute(
                "SELECT ra.*, r.chat_id, r.question_id FROM round_answers ra"
                " JOIN rounds r ON r.id = ra.round_id WHERE ra.round_id = ?",
                (round_id,),
            ) as cur:
                rows = list(await cur.fetchall())
            for r in rows:
                await db.execute(
                    "INSERT INTO answers (user_id, chat_id, question_id, level, answer, score,"
                    " covered, missed, hints, answered_at, local_day)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)",
                    (
                        r["user_id"],
                        r["chat_id"],
                        r["question_id"],
                        level.value,
                        r["answer"],
                        r["score"],
                        r["covered"],
                        r["missed"],
                        r["answered_at"],
                        r["local_day"],
                    ),
                )
            # The all-time leaderboard's running totals move in the same transaction.
            await db.execute(
                "INSERT INTO group_totals (chat_id, user_id, first_name, total, answers)"
                " SELECT r.chat_id, ra.user_id, ra.first_name, ra.score, 1"
                " FROM round_answers ra JOIN rounds r ON r.id = ra.round_id"
                " WHERE ra.round_id = ?"
                " ON CONFLICT (chat_id, user_id) DO UPDATE SET"
                " first_name = excluded.first_name, total = total + excluded.total,"
                " answers = answers + 1",
                (round_id,),
            )
            answers = [
                RoundAnswer(
                    user_id=r["user_id"],
                    first_name=r["first_name"],
                    score=r["score"],
                    covered=json.loads(r["covered"]),
                    missed=json.loads(r["missed"]),
                    answered_at=datetime.fromisoformat(r["answered_at"]),
                )
                for r in rows
            ]
            draft = announce(answers) if announce is not None else None
            if draft is not None:
                await insert_draft(db, draft, now)
        return answers

    async def due_rounds(self, now: datetime) -> list[RoundRecord]:
        rows = await self._all(
            "SELECT * FROM rounds WHERE closed_at IS NULL AND closes_at <= ? ORDER BY closes_at",
            (_iso(now),),
        )
        return [_round(r) for r in rows]

    async def leaderboard(
        self, chat_id: int, since: datetime | None, limit: int = 10
    ) -> list[LeaderboardRow]:
        """Members by points (score x 100 per closed round), then answers; `since` = this week.

        All time (`since` None) reads the running totals; a week reads that week's rounds.
        """
        if since is None:
            rows = await self._all(
                "SELECT g.user_id, g.first_name AS name, g.total, g.answers AS n,"
                " u.streak_current, u.streak_last_day, u.streak_freezes"
                " FROM group_totals g LEFT JOIN users u ON u.user_id = g.user_id"
                " WHERE g.chat_id = ? ORDER BY g.total DESC, g.answers DESC, g.user_id LIMIT ?",
                (chat_id, limit),
            )
        else:
            rows = await self._all(
                "SELECT ra.user_id, MAX(ra.first_name) AS name, SUM(ra.score) AS total,"
                " COUNT(*) AS n, u.streak_current, u.streak_last_day, u.streak_freezes"
                " FROM rounds r JOIN round_answers ra ON ra.round_id = r.id"
                " LEFT JOIN users u ON u.user_id = ra.user_id"
                " WHERE r.chat_id = ? AND r.closed_at >= ?"
                " GROUP BY ra.user_id ORDER BY total DESC, n DESC, ra.user_id LIMIT ?",
                (chat_id, _iso(since), limit),
            )
        return [
            LeaderboardRow(
                user_id=r["user_id"],
                first_name=r["name"],
                total_score=r["total"],
                answers=r["n"],
                streak=StreakState(
                    current=r["streak_current"] or 0,
                    last_day=date.fromisoformat(r["streak_last_day"])
                    if r["streak_last_day"]
                    else None,
                    freezes=r["streak_freezes"] or 0,
                ),
            )
            for r in rows
        ]

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
                "INSERT OR REPLACE INTO asked (chat_id, question_id, asked_at) VALUES (?, ?, ?)",
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
        review: ReviewUpdate | None = None,
    ) -> RecordedAnswer | None:
        """Store an answer, move the streak and the review card in one transaction; None if the
        question closed meanwhile.

        The answer only counts if `record.question_id` is still the chat's open question, and
        closes it: a double-sent answer is scored once. `review` schedules
        the question's card from the one stored before, reviewed at `record.answered_at`.
        """
        async with self.transaction() as db:
            cur = await db.execute(
                "DELETE FROM open_questions WHERE chat_id = ? AND question_id = ?",
                (record.chat_id, record.question_id),
            )
            if cur.rowcount == 0:
                return None
            cur = await db.execute(
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
            answer_id = cur.lastrowid
            assert answer_id is not None
            new = await self._move_streak(db, record.user_id, update_streak)
            state = None
            if review is not None:
                async with db.execute(
                    "SELECT card FROM reviews WHERE user_id = ? AND question_id = ?",
                    (record.user_id, record.question_id),
                ) as cur:
                    row = await cur.fetchone()
                before = row[0] if row else None
                state = review.schedule(before)
                await _save_review(
                    db, record.user_id, record.question_id, state, before, answer_id,
                    record.answered_at, review.rating,
                )  # fmt: skip
        return RecordedAnswer(new, answer_id, state)

    async def add_answers(self, records: Iterable[AnswerRecord]) -> None:
        """Store past answers in one transaction (imports, benchmarks): no streak, no review."""
        async with self.transaction() as db:
            await db.executemany(
                "INSERT INTO answers (user_id, chat_id, question_id, level, answer, score,"
                " covered, missed, hints, answered_at, local_day)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        r.user_id,
                        r.chat_id,
                        r.question_id,
                        r.level.value,
                        r.answer,
                        r.score,
                        json.dumps(r.covered, ensure_ascii=False),
                        json.dumps(r.missed, ensure_ascii=False),
                        r.hints,
                        _iso(r.answered_at),
                        r.local_day,
                    )
                    for r in records
                ],
            )

    # -- spaced repetition and progress -------------------------------------------------------

    async def get_review(self, user_id: int, question_id: str) -> dict[str, Any] | None:
        row = await self._one(
            "SELECT * FROM reviews WHERE user_id = ? AND question_id = ?", (user_id, question_id)
        )
        return dict(row) if row else None

    async def save_review(
        self,
        user_id: int,
        question_id: str,
        *,
        card: str,
        due: datetime,
        previous_card: str | None,
        answer_id: int,
        reviewed_at: datetime,
        rating: int,
    ) -> None:
        async with self.transaction() as db:
            await _save_review(
                db, user_id, question_id, ReviewState(card, due), previous_card, answer_id,
                reviewed_at, rating,
            )  # fmt: skip

    async def due_reviews(self, user_id: int, now: datetime) -> list[str]:
        """Question ids whose review is due, most overdue first."""
        rows = await self._all(
            "SELECT question_id FROM reviews WHERE user_id = ? AND due_at <= ? ORDER BY due_at",
            (user_id, _iso(now)),
        )
        return [r[0] for r in rows]

    async def answered_questions(self, user_id: int) -> set[str]:
        rows = await self._all(
            "SELECT DISTINCT question_id FROM answers WHERE user_id = ?", (user_id,)
        )
        return {r[0] for r in rows}

    async def recent_answers(self, user_id: int, limit: int = 50) -> list[dict[str, Any]]:
        """Newest first: level, score, covered and missed labels."""
        rows = await self._all(
            "SELECT level, score, covered, missed FROM answers WHERE user_id = ?"
            " ORDER BY answered_at DESC, id DESC LIMIT ?",
            (user_id, limit),
        )
        return [
            {
                "level": Level(r["level"]),
                "score": r["score"],
                "covered": json.loads(r["covered"]),
                "missed": json.loads(r["missed"]),
            }
            for r in rows
        ]

    async def answers_per_day(self, user_id: int, since_day: str) -> dict[str, int]:
        rows = await self._all(
            "SELECT local_day, COUNT(*) FROM answers WHERE user_id = ? AND local_day >= ?"
            " GROUP BY local_day",
            (user_id, since_day),
        )
        return {r[0]: r[1] for r in rows}

    async def user_stats(self, user_id: int) -> UserStats:
        """Answers, distinct questions and per-level averages: one pass over an index.

        Grouped by level and question, so the rows returned are bounded by the question bank,
        not by how many answers the user has written.
        """
        rows = await self._all(
            "SELECT level, question_id, COUNT(*) AS n, SUM(score) AS total FROM answers"
            " WHERE user_id = ? GROUP BY level, question_id",
            (user_id,),
        )
        counts: dict[str, int] = {}
        sums: dict[str, float] = {}
        for r in rows:
            counts[r["level"]] = counts.get(r["level"], 0) + r["n"]
            sums[r["level"]] = sums.get(r["level"], 0.0) + r["total"]
        return UserStats(
            answers=sum(counts.values()),
            questions=len({r["question_id"] for r in rows}),
            by_level=[
                LevelStats(lv, counts[lv.value], sums[lv.value] / counts[lv.value])
                for lv in Level
                if lv.value in counts
            ],
        )

    async def answer(self, answer_id: int) -> dict[str, Any] | None:
        row = await self._one("SELECT * FROM answers WHERE id = ?", (answer_id,))
        return dict(row) if row else None

    async def answers_for(self, user_id: int) -> list[dict[str, Any]]:
        """A user's answers, oldest first, as plain dicts (for export)."""
        rows = await self._all(
            "SELECT * FROM answers WHERE user_id = ? ORDER BY answered_at, id", (user_id,)
        )
        return [dict(r) for r in rows]
