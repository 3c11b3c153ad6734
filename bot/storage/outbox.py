"""SQL of the outbox (messages owed to chats) and of the instance lease.

A row is written in the same transaction as the state change that owes it (a closed round
owes its ranking), so a crash can lose neither. Claims carry their owner: only a process
with a row in instance_lease claims rows, and every later write checks the owner. On SQLite
that is the one lease holder ('bot'). On PostgreSQL every webhook replica has a row of its
own as well ('replica:<owner>', renewed with the lease): all of them claim, with `FOR UPDATE
SKIP LOCKED` (two never wait for, nor take, the same rows), and a chat's later row only
once its earlier ones are settled or this replica's (a ranking before the next question,
whichever replica sends them). A replica whose row expired (killed, stalled past its lease)
is recovered by the others (`recover_outbox`): its claims go back to the queue, what it had
out is 'unknown' (its wire log is on its own machine), and its row is deleted, so that if
it was only stalled it finds itself fenced out and exits.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
from collections.abc import Collection
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiosqlite

from bot.core.outbox import Draft, Kind, Row, Status
from bot.core.schedule import Occurrence
from bot.storage.chats import next_due_update
from bot.storage.database import iso


@dataclass(frozen=True, slots=True)
class LeaseHolder:
    owner: str
    pid: int
    host: str
    since: datetime
    expires_at: datetime
    heartbeat_at: datetime  # its last renewal: a running bot refreshes it every third of a lease


def _holder(r: aiosqlite.Row | sqlite3.Row) -> LeaseHolder:
    return LeaseHolder(
        r["owner"],
        r["pid"],
        r["host"],
        datetime.fromisoformat(r["since"]),
        datetime.fromisoformat(r["expires_at"]),
        datetime.fromisoformat(r["heartbeat_at"]),
    )


def peek_lease(path: str) -> LeaseHolder | None:
    """Who holds the database at `path`, read with a plain read-only connection (no
    migration, no thread, nothing written); None when no row, or no readable lease table."""
    try:
        db = sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro", uri=True)
    except (sqlite3.Error, OSError):
        return None
    try:
        db.row_factory = sqlite3.Row
        r = db.execute("SELECT * FROM instance_lease WHERE name = 'bot'").fetchone()
        return None if r is None else _holder(r)
    except (sqlite3.Error, ValueError):  # no such table, not a database, a bad date
        return None
    finally:
        db.close()


def release_lease_file(path: Path | str, owner: str) -> None:
    """Give back `owner`'s lease with a plain connection, for a process that took it but
    never opened its storage (stopped while Telegram had not answered yet). A file that is
    gone is not created again; anything unreadable is left as it is."""
    if str(path) == ":memory:":
        return
    try:
        db = sqlite3.connect(Path(path).resolve().as_uri() + "?mode=rw", uri=True, timeout=5)
    except (sqlite3.Error, OSError):
        return
    try:
        with db:
            db.execute("DELETE FROM instance_lease WHERE name = 'bot' AND owner = ?", (owner,))
    except sqlite3.Error:
        pass
    finally:
        db.close()


# The owner of an outbox row has no live row in instance_lease: a process gone (on SQLite,
# every process but the lease holder; on PostgreSQL, a replica whose own row expired).
_NOT_LIVE = "owner NOT IN (SELECT l.owner FROM instance_lease l WHERE l.expires_at > ?)"


def replica_name(owner: str) -> str:
    """A webhook replica's own row in instance_lease (PostgreSQL)."""
    return f"replica:{owner}"


def _row(r: aiosqlite.Row) -> Row:
    payload = json.loads(r["payload"])
    return Row(
        id=r["id"],
        kind=Kind(r["kind"]),
        chat_id=r["chat_id"],
        messages=tuple(payload["messages"]),
        keyboard=payload.get("keyboard"),
        reply_to=payload.get("reply_to"),
        parts_sent=r["parts_sent"],
        deadline=datetime.fromisoformat(r["deadline"]),
        attempts=r["attempts"],
        local_day=r["local_day"],
        question_id=r["question_id"],
        round_id=r["round_id"],
    )


async def insert_draft(db: aiosqlite.Connection, draft: Draft, now: datetime) -> bool:
    """Record `draft` inside the caller's transaction; False if its key was recorded before."""
    payload = {"messages": list(draft.messages)}
    if draft.keyboard is not None:
        payload["keyboard"] = draft.keyboard  # type: ignore[assignment]
    if draft.reply_to is not None:
        payload["reply_to"] = draft.reply_to  # type: ignore[assignment]
    cur = await db.execute(
        "INSERT INTO outbox (kind, dedup_key, chat_id, payload, created_at, deadline,"
        " local_day, question_id, round_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (dedup_key) DO NOTHING",
        (
            draft.kind.value,
            draft.dedup_key,
            draft.chat_id,
            json.dumps(payload, ensure_ascii=False),
            iso(now),
            iso(draft.deadline),
            draft.local_day,
            draft.question_id,
            draft.round_id,
        ),
    )
    return cur.rowcount > 0


@dataclass(frozen=True, slots=True)
class Recovered:
    """What settling another run's (or this run's) rows did."""

    requeued: int  # claimed, never sent: queued again
    unsent: int  # marked 'sending', but the request was never written: queued again
    unknown: list[Row]  # the request was written: it may have arrived, not sent again


async def _settle_sending(
    db: aiosqlite.Connection,
    owner: str,
    mine: bool,
    now: datetime,
    written: Collection[tuple[int, int]] | None,
    reason: str,
    written_by: str | None = None,
) -> Recovered:
    """Rows marked 'sending' (`owner`'s if `mine`, else everyone else's): 'unknown' if their
    request was written (or nothing says it was not: no log, or a log of another run than
    theirs, `written_by`), else back in the queue. They are at most the sender's
    concurrency: one statement each."""
    async with db.execute(
        "SELECT id, attempts, owner FROM outbox WHERE status = 'sending' AND owner = ?"
        if mine
        else "SELECT id, attempts, owner FROM outbox"  # noqa: S608 - fixed text
        f" WHERE status = 'sending' AND owner IS NOT ? AND {_NOT_LIVE}",
        (owner,) if mine else (owner, iso(now)),
    ) as cur:
        sending = [(r[0], r[1], r[2]) for r in await cur.fetchall()]
    unknown: list[Row] = []
    unsent = 0
    for row_id, attempt, sender in sending:
        elsewhere = written_by is not None and sender != written_by
        if written is None or elsewhere or (row_id, attempt) in written:
            async with db.execute(
                "UPDATE outbox SET status = 'unknown', finished_at = ?, last_error = ?"
                " WHERE id = ? RETURNING *",
                (iso(now), reason, row_id),
            ) as cur:
                unknown += [_row(r) for r in await cur.fetchall()]
        else:
            await db.execute(
                "UPDATE outbox SET status = 'pending', owner = NULL WHERE id = ?", (row_id,)
            )
            unsent += 1
    return Recovered(0, unsent, sorted(unknown, key=lambda r: r.id))


async def fail_open_rows(db: aiosqlite.Connection, chat_id: int, reason: str) -> None:
    """The chat cannot be reached: what waits for it is dropped (inside the caller's write)."""
    await db.execute(
        "UPDATE outbox SET status = 'failed', last_error = ?, owner = NULL"
        " WHERE chat_id = ? AND status IN ('pending', 'claimed')",
        (reason, chat_id),
    )


class OutboxStore:
    """The outbox and lease half of `Storage` (mixed into it)."""

    if TYPE_CHECKING:

        def transaction(self) -> AbstractAsyncContextManager[aiosqlite.Connection]: ...

        async def _write(self, sql: str, params: Any = ()) -> int: ...

        async def _one(self, sql: str, params: Any = ()) -> aiosqlite.Row | None: ...

        async def _all(self, sql: str, params: Any = ()) -> list[aiosqlite.Row]: ...

        SHARED: bool

    # -- recording -----------------------------------------------------------------------------

    async def enqueue(self, draft: Draft, now: datetime) -> bool:
        """Record one message; False if the same key was recorded before."""
        async with self.transaction() as db:
            return await insert_draft(db, draft, now)

    async def enqueue_daily(
        self,
        chat_id: int,
        local_day: str,
        next_due: Occurrence,
        draft: Draft,
        now: datetime,
    ) -> None:
        """Record the day's prompt and move the chat on to its next occurrence, atomically."""
        async with self.transaction() as db:
            await insert_draft(db, draft, now)
            await db.execute(
                "UPDATE daily_sends SET status = 'queued', question_id = ?"
                " WHERE chat_id = ? AND local_day = ?",
                (draft.question_id, chat_id, local_day),
            )
            await db.execute(*next_due_update(chat_id, next_due))

    async def shift_owed(self, step: timedelta, now: datetime) -> tuple[int, int]:
        """The wall clock stepped by `step`: move what was owed at `now` (the old timeline)
        with it, so its lateness stays the time that really passed. Open messages' deadlines
        and the due instants of chats already due move; a chat's local day does not. The
        counts moved: (messages, chats)."""
        async with self.transaction() as db:
            owed = list(
                await db.execute_fetchall(
                    "SELECT id, deadline FROM outbox"
                    " WHERE status IN ('pending', 'claimed', 'sending')"
                )
            )
            await db.executemany(
                "UPDATE outbox SET deadline = ? WHERE id = ?",
                [(iso(datetime.fromisoformat(r[1]) + step), r[0]) for r in owed],
            )
            due = list(
                await db.execute_fetchall(
                    "SELECT chat_id, next_due_at FROM chats"
                    " WHERE daily_enabled = 1 AND next_due_at <= ?",
                    (iso(now),),
                )
            )
            await db.executemany(
                "UPDATE chats SET next_due_at = ? WHERE chat_id = ?",
                [(iso(datetime.fromisoformat(r[1]) + step), r[0]) for r in due],
            )
        return len(owed), len(due)

    # -- delivering ----------------------------------------------------------------------------

    async def recover_outbox(
        self,
        owner: str,
        now: datetime,
        written: Collection[tuple[int, int]] | None,
        written_by: str | None = None,
    ) -> Recovered:
        """Take over after another process: its claims go back to the queue. Its rows marked
        'sending' whose request was written (`written`: (row id, attempt) pairs from the wire
        log, bot/storage/wire.py) may have arrived and become 'unknown'; the others never
        left and are queued again. `written` None (no wire log): all of them are 'unknown'.
        `written_by`: the run whose log `written` is; another owner's rows (a replica that
        ran elsewhere) are all 'unknown' then. The rows of a live replica (its own row in
        instance_lease not expired) are left to it; the rows of expired replicas go."""
        async with self.transaction() as db:
            out = await _settle_sending(
                db, owner, False, now, written, "the process stopped while its request was out",
                written_by,
            )  # fmt: skip
            requeued = await db.execute(
                "UPDATE outbox SET status = 'pending', owner = NULL"  # noqa: S608 - fixed text
                f" WHERE status = 'claimed' AND owner IS NOT ? AND {_NOT_LIVE}",
                (owner, iso(now)),
            )
            await db.execute(
                "DELETE FROM instance_lease WHERE name != 'bot' AND expires_at <= ?", (iso(now),)
            )
            return Recovered(requeued.rowcount, out.unsent, out.unknown)

    async def claim_outbox(self, owner: str, limit: int) -> list[Row]:
        """Claim up to `limit` waiting rows, oldest first, for `owner`, if it holds the lease
        (or, a replica, its own row). Shared by replicas: rows another one is claiming are
        skipped, not waited for, and a chat's row waits while an earlier one of the chat is
        owed and not `owner`'s (this process sends a chat's rows in order itself)."""
        in_order = (
            " AND NOT EXISTS (SELECT 1 FROM outbox e WHERE e.chat_id = outbox.chat_id"
            " AND e.id < outbox.id AND e.status IN ('pending', 'claimed', 'sending')"
            " AND e.owner IS NOT ?)"
            if self.SHARED
            else ""
        )
        skip_locked = " FOR UPDATE SKIP LOCKED" if self.SHARED else ""
        async with (
            self.transaction() as db,
            db.execute(
                "UPDATE outbox SET status = 'claimed', owner = ? WHERE id IN"  # noqa: S608
                f" (SELECT id FROM outbox WHERE status = 'pending'{in_order}"
                f" ORDER BY id LIMIT ?{skip_locked})"
                # By its key: the lease's row or this replica's own (no scan of the table).
                " AND EXISTS (SELECT 1 FROM instance_lease WHERE name IN ('bot', ?)"
                " AND owner = ?)"
                " RETURNING *",
                (owner, owner, limit, replica_name(owner), owner)
                if self.SHARED
                else (owner, limit, replica_name(owner), owner),
            ) as cur,
        ):
            rows = [_row(r) for r in await cur.fetchall()]
        return sorted(rows, key=lambda r: r.id)

    async def outbox_on_wire(self, row_id: int, owner: str) -> int | None:
        """The row's request is leaving the process now: its attempt number (counted from 1),
        or None if it must not leave: the row was withdrawn meanwhile (a reminder whose user
        answered, a chat found unreachable), or it is not `owner`'s any more (another
        process took the database over)."""
        async with (
            self.transaction() as db,
            db.execute(
                "UPDATE outbox SET status = 'sending', attempts = attempts + 1"
                " WHERE id = ? AND owner = ? AND status = 'claimed' RETURNING attempts",
                (row_id, owner),
            ) as cur,
        ):
            row = await cur.fetchone()
        return None if row is None else int(row[0])

    async def outbox_progress(self, row_id: int, owner: str, parts_sent: int) -> None:
        """Telegram took the first `parts_sent` messages of a row that has more."""
        await self._write(
            "UPDATE outbox SET parts_sent = ?, status = 'claimed' WHERE id = ? AND owner = ?",
            (parts_sent, row_id, owner),
        )

    async def outbox_retry(self, row_id: int, owner: str, error: str) -> None:
        """Surely not delivered (refused, 5xx, 429): held again for a later attempt."""
        await self._write(
            "UPDATE outbox SET status = 'claimed', last_error = ? WHERE id = ? AND owner = ?",
            (error[:500], row_id, owner),
        )

    async def outbox_moved(self, row_id: int, owner: str, chat_id: int) -> None:
        await self._write(
            "UPDATE outbox SET chat_id = ?, status = 'claimed' WHERE id = ? AND owner = ?",
            (chat_id, row_id, owner),
        )

    async def finish_outbox(
        self,
        row_id: int,
        owner: str,
        status: Status,
        now: datetime,
        *,
        message_id: int | None = None,
        error: str | None = None,
    ) -> None:
        """Record a row's outcome; the migration's triggers settle its daily prompt or round."""
        await self._write(
            "UPDATE outbox SET status = ?, finished_at = ?, last_error = ?, message_id = ?,"
            " parts_sent = CASE WHEN ? = 'sent'"
            " THEN json_array_length(payload, '$.messages') ELSE parts_sent END"
            " WHERE id = ? AND owner = ?",
            (status.value, iso(now), error and error[:500], message_id, status.value, row_id,
             owner),
        )  # fmt: skip

    async def release_outbox(
        self, owner: str, now: datetime, written: Collection[tuple[int, int]]
    ) -> Recovered:
        """On stop: claims go back to the queue; rows marked 'sending' whose request was
        written (`written`, as for `recover_outbox`) become 'unknown', the others go back."""
        async with self.transaction() as db:
            out = await _settle_sending(
                db, owner, True, now, written, "stopped while its request was out"
            )
            back = await db.execute(
                "UPDATE outbox SET status = 'pending', owner = NULL"
                " WHERE status = 'claimed' AND owner = ?",
                (owner,),
            )
            return Recovered(back.rowcount, out.unsent, out.unknown)

    async def outbox_open_count(self) -> int:
        row = await self._one(
            "SELECT COUNT(*) FROM outbox WHERE status IN ('pending', 'claimed', 'sending')"
        )
        return int(row[0]) if row else 0

    async def outbox_statuses(self) -> dict[str, int]:
        rows = await self._all("SELECT status, COUNT(*) FROM outbox GROUP BY status")
        return {r[0]: r[1] for r in rows}

    # -- the instance lease --------------------------------------------------------------------

    async def take_lease(
        self, owner: str, pid: int, host: str, now: datetime, ttl: timedelta
    ) -> LeaseHolder | None:
        """Hold the database for `owner` (or renew it); the other live holder if there is one.

        A lease past its expiry, or one left by a process that is not running any more on
        this host (`serves` says which holder is live), is taken over.
        """
        async with self.transaction() as db:
            async with db.execute("SELECT * FROM instance_lease WHERE name = 'bot'") as cur:
                r = await cur.fetchone()
            if r is not None and r["owner"] != owner:
                holder = _holder(r)
                if serves(holder, now, pid, host):
                    return holder
            since = r["since"] if r is not None and r["owner"] == owner else iso(now)
            await db.execute(
                "INSERT INTO instance_lease (name, owner, pid, host, since, heartbeat_at,"
                " expires_at) VALUES ('bot', ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET"
                " owner = excluded.owner, pid = excluded.pid, host = excluded.host,"
                " since = excluded.since, heartbeat_at = excluded.heartbeat_at,"
                " expires_at = excluded.expires_at",
                (owner, pid, host, since, iso(now), iso(now + ttl)),
            )
        return None

    async def renew_lease(
        self, owner: str, now: datetime, ttl: timedelta, name: str = "bot"
    ) -> bool:
        """Extend the lease (or `name`, a replica's own row); False if another process has
        taken it (or the row is gone)."""
        changed = await self._write(
            "UPDATE instance_lease SET heartbeat_at = ?, expires_at = ?"
            " WHERE name = ? AND owner = ?",
            (iso(now), iso(now + ttl), name, owner),
        )
        return changed > 0

    async def join_replicas(
        self, owner: str, pid: int, host: str, now: datetime, ttl: timedelta
    ) -> None:
        """A webhook replica's own row (PostgreSQL): it claims outbox rows while it is live."""
        await self._write(
            "INSERT INTO instance_lease (name, owner, pid, host, since, heartbeat_at,"
            " expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (replica_name(owner), owner, pid, host, iso(now), iso(now), iso(now + ttl)),
        )

    async def live_replicas(self, now: datetime) -> int:
        """How many webhook replicas have a row that has not run out (PostgreSQL)."""
        row = await self._one(
            "SELECT COUNT(*) FROM instance_lease WHERE name != 'bot' AND expires_at > ?",
            (iso(now),),
        )
        return int(row[0]) if row else 0

    async def holds(self, owner: str) -> bool:
        """Whether `owner` still has its lease, or its own row as a replica."""
        return await self._one("SELECT 1 FROM instance_lease WHERE owner = ?", (owner,)) is not None

    async def lease_holder(self) -> LeaseHolder | None:
        """Who holds the database now, if anyone."""
        r = await self._one("SELECT * FROM instance_lease WHERE name = 'bot'")
        return None if r is None else _holder(r)

    async def release_lease(self, owner: str) -> None:
        """Give back the lease and a replica's own row."""
        await self._write("DELETE FROM instance_lease WHERE owner = ?", (owner,))


def serves(holder: LeaseHolder, now: datetime, pid: int, host: str) -> bool:
    """Whether the holder, seen by process `pid` on `host` at `now`, still serves the
    database: its lease has not expired and it is not a process gone from this host."""
    return holder.expires_at > now and not _stale(holder, pid, host)


def gone(holder: LeaseHolder) -> bool:
    """Whether the holder is a process gone from this host (seen from another process)."""
    return holder.host == socket.gethostname() and _stale(holder, -1, holder.host)


def _stale(holder: LeaseHolder, pid: int, host: str) -> bool:
    """On this host, a holder whose process is gone (or is this very pid, reused) is stale."""
    if holder.host != host:
        return False
    if holder.pid == pid:
        return True
    try:
        os.kill(holder.pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False
