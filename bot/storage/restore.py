"""`interview-bot restore`: a backup brought in place of the database, reconciled with it.

The backup is copied beside the database first (`bot.sqlite3.restoring`), migrated, and
given what the database it replaces knows (attached read-only, with its wire log): every
message that database shows as sent or possibly sent (bot/core/restore.py) is marked so in
the copy, a prompt delivered after the snapshot included, so none goes out twice; what it
still owed stays owed. Only then are the database and every file beside it (-wal, -shm,
-wire, -clean, -yaml) moved into a dated folder, and the copy renamed into place. Anything
that fails before that leaves the database as it was.

What users did after the snapshot (answers, streaks, settings, new users) is not carried
over: an answer moves a streak, a review card and the leaderboard together, and merging
those is no restore's business. It is counted and said instead, and the replaced database
is kept whole for whoever needs it.
"""

from __future__ import annotations

import asyncio
import contextlib
import glob
import os
import socket
import sqlite3
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from bot.core.restore import newer_fate
from bot.storage.files import DatabaseFileError, describe
from bot.storage.outbox import LeaseHolder, gone, peek_lease
from bot.storage.repository import Storage
from bot.storage.wire import parse, wire_log_path

MARKED = "restore: sent, or may have been, after the backup was taken"
ASSUMED = "restore: no newer database to compare with; may have been sent after the backup"


@dataclass
class Restored:
    """What `restore` did, for its report."""

    aside: Path | None = None  # the folder the replaced files went to (None: there were none)
    compared: bool = False  # a newer database was read and reconciled with
    unreadable: str | None = None  # the newer database could not be read: why
    marked_sent: int = 0  # owed in the backup, sent since
    marked_unknown: int = 0  # owed in the backup, may have arrived since
    put_back: int = 0  # in flight in the backup, surely not delivered since: owed again
    assumed: int = 0  # no newer database: owed messages and due prompts counted as sent
    still_owed: int = 0  # outbox rows the restored database still owes
    answers_lost: int = 0  # answers in the newer database only
    first_lost: datetime | None = None  # the earliest of them
    users_lost: int = 0  # users in the newer database only
    moved: list[str] = field(default_factory=list)  # the names moved aside


def running_holder(database: Path) -> LeaseHolder | None:
    """The bot that serves `database` now, if one may: an unexpired lease, or a holder whose
    process still runs on this host (a stuck bot is still a bot)."""
    holder = peek_lease(str(database))
    if holder is None:
        return None
    if holder.host == socket.gethostname():
        return None if gone(holder) else holder
    return holder if holder.expires_at > datetime.now(UTC) else None


def beside(database: Path) -> list[Path]:
    """Every `<name>-…` file beside the database (-wal, -shm, -wire, -clean, -yaml…)."""
    return sorted(database.parent.glob(glob.escape(database.name) + "-*"))


def siblings(database: Path) -> list[Path]:
    """The database's files: itself and those beside it."""
    return ([database] if database.exists() else []) + beside(database)


def restore(backup: Path, database: Path, *, known_version: int, now: datetime) -> Restored:
    """Bring `backup` in as `database`, reconciled with the database it replaces."""
    staging = database.with_name(database.name + ".restoring")
    try:
        database.parent.mkdir(parents=True, exist_ok=True)  # a new disk: no folder yet
    except OSError as exc:
        raise DatabaseFileError(database, f"cannot create its folder ({exc.strerror})") from None
    for stale in [staging, *siblings(staging)]:
        stale.unlink(missing_ok=True)  # a restore that failed before
    report = Restored()
    try:
        _copy_in(backup, staging, known_version)

        async def migrate() -> None:
            storage = Storage(staging)
            await storage.open(verify=False)  # _copy_in checked the copy
            await storage.close()

        asyncio.run(migrate())
        with contextlib.suppress(FileNotFoundError):
            Path(f"{staging}-clean").unlink()  # its fingerprint changes below
        _reconcile(staging, database, now, report)
        leftovers = [p.name for p in beside(staging)]
        if leftovers:
            raise DatabaseFileError(staging, f"left {', '.join(leftovers)} behind")
        files = siblings(database)
        if files:
            stamp = now.astimezone(UTC).strftime("%Y%m%d-%H%M%S")
            aside = database.parent / f"replaced-{stamp}"
            aside.mkdir(parents=True, exist_ok=False)
            for path in files:
                os.replace(path, aside / path.name)
                report.moved.append(path.name)
            report.aside = aside
        os.replace(staging, database)
    except BaseException:
        if report.aside is not None or report.moved:  # put back what was moved: as it was
            aside = database.parent / f"replaced-{now.astimezone(UTC):%Y%m%d-%H%M%S}"
            for name in report.moved:
                with contextlib.suppress(OSError):
                    os.replace(aside / name, database.parent / name)
        for path in [staging, *siblings(staging)]:
            path.unlink(missing_ok=True)
        raise
    return report


def _copy_in(backup: Path, staging: Path, known_version: int) -> None:
    """Copy the backup to `staging` with SQLite's backup API, and check the copy. The backup
    is opened immutable (no -wal or -shm made beside it, nothing written), unless it has a
    write-ahead log of its own (a live file copied by hand): then that is read too."""
    wal = Path(f"{backup}-wal")
    has_wal = wal.is_file() and wal.stat().st_size > 0
    source = None
    try:
        source = sqlite3.connect(_uri(backup, "ro" if has_wal else "ro&immutable=1"), uri=True)
        version = source.execute("PRAGMA user_version").fetchone()[0]
        if version > known_version:
            raise DatabaseFileError(
                backup,
                f"was written by a newer version of the bot (schema version {version}; this"
                f" version knows up to {known_version}): upgrade the bot first",
            )
        copy = sqlite3.connect(staging)
        try:
            source.backup(copy)
            problems = [str(r[0]) for r in copy.execute("PRAGMA quick_check(5)")]
        finally:
            copy.close()
        if problems != ["ok"]:
            raise DatabaseFileError(backup, f"is damaged ({'; '.join(problems)[:300]})")
    except sqlite3.Error as exc:
        raise DatabaseFileError(backup, describe(exc)) from None
    finally:
        if source is not None:
            source.close()


def _uri(path: Path, mode: str) -> str:
    return f"{path.resolve().as_uri()}?mode={mode}"


def _reconcile(staging: Path, database: Path, now: datetime, report: Restored) -> None:
    """Mark in `staging` what the newer `database` shows as delivered; or, without one it
    can read, count what the backup owed as possibly sent."""
    db = sqlite3.connect(_uri(staging, "rw"), uri=True, isolation_level=None)
    try:
        db.execute("BEGIN IMMEDIATE")
        # The backup's lease is the bot it was taken from: no bot runs on the restored file.
        db.execute("DELETE FROM instance_lease")
        if database.is_file():
            try:
                _compare(db, database, now, report)
                report.compared = True
            except sqlite3.Error as exc:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                report.unreadable = describe(exc)
                with contextlib.suppress(sqlite3.Error):
                    db.execute("DETACH DATABASE newer")
                db.execute("BEGIN IMMEDIATE")
                db.execute("DELETE FROM instance_lease")
                _assume_sent(db, now, report)
        else:
            _assume_sent(db, now, report)
        report.still_owed = db.execute(
            "SELECT COUNT(*) FROM outbox WHERE status IN ('pending', 'claimed', 'sending')"
        ).fetchone()[0]
        db.execute("COMMIT")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except sqlite3.Error as exc:
        raise DatabaseFileError(staging, describe(exc)) from None
    finally:
        db.close()


def _compare(db: sqlite3.Connection, database: Path, now: datetime, report: Restored) -> None:
    wire = wire_log_path(database)
    written: set[tuple[int, int]] | None = None
    if wire is not None and wire.is_file():
        with contextlib.suppress(OSError):
            written = parse(wire.read_bytes())  # damaged: None, every request may have left
    db.execute("ATTACH DATABASE ? AS newer", (_uri(database, "ro"),))
    # What the newer database says of each message it recorded sent or in flight.
    db.execute("CREATE TEMP TABLE fates (key TEXT PRIMARY KEY, fate TEXT NOT NULL)")
    rows = db.execute(
        "SELECT id, dedup_key, status, attempts FROM newer.outbox"
        " WHERE status IN ('sent', 'unknown', 'sending')"
    )
    db.executemany(
        "INSERT INTO temp.fates VALUES (?, ?)",
        ((key, newer_fate(status, row_id, attempts, written).value)
         for row_id, key, status, attempts in rows.fetchall()),
    )  # fmt: skip
    # Ids the newer database gave out are not given again: a round's ranking is keyed by the
    # round's id, and a new round with an old id would find its key taken.
    for name in ("outbox", "rounds"):
        db.execute(
            "INSERT OR IGNORE INTO main.sqlite_sequence (name, seq) SELECT name, 0"
            " FROM newer.sqlite_sequence WHERE name = ?",
            (name,),
        )
        db.execute(
            "UPDATE main.sqlite_sequence SET seq = MAX(seq, (SELECT seq FROM"
            " newer.sqlite_sequence WHERE name = ?)) WHERE name = ?"
            " AND EXISTS (SELECT 1 FROM newer.sqlite_sequence WHERE name = ?)",
            (name, name, name),
        )
    # Delivered (or maybe) after the snapshot and unknown to the backup: recorded as open
    # first, so the marking below settles them as it settles the backup's own rows. A round's
    # id is kept only if the backup has that very round.
    db.execute(
        "INSERT INTO main.outbox (kind, dedup_key, chat_id, payload, parts_sent, status,"
        " attempts, created_at, deadline, local_day, question_id, round_id)"
        " SELECT o.kind, o.dedup_key, o.chat_id, o.payload, o.parts_sent, 'pending',"
        " o.attempts, o.created_at, o.deadline, o.local_day, o.question_id,"
        " CASE WHEN EXISTS (SELECT 1 FROM main.rounds r WHERE r.id = o.round_id"
        " AND r.chat_id = o.chat_id) THEN o.round_id END"
        " FROM newer.outbox o JOIN temp.fates f ON f.key = o.dedup_key"
        " WHERE f.fate != 'owed' AND o.dedup_key NOT IN (SELECT dedup_key FROM main.outbox)"
    )
    # The day's prompt of a chat the backup had not served yet: its daily_sends row, so the
    # scheduler finds the day served (claim_daily) and moves on.
    db.execute(
        "INSERT INTO main.daily_sends (chat_id, local_day, status, attempts, question_id,"
        " claimed_at, sent_at) SELECT chat_id, local_day, status, attempts, question_id,"
        " claimed_at, sent_at FROM newer.daily_sends WHERE status IN ('sent', 'unknown')"
        " ON CONFLICT (chat_id, local_day) DO UPDATE SET status = excluded.status,"
        " sent_at = excluded.sent_at, question_id = excluded.question_id"
        " WHERE daily_sends.status IN ('claimed', 'waiting', 'queued')"
    )
    # Owed in the backup, delivered or maybe since: its outcome (the triggers settle the
    # day's prompt and the round as the sender would have).
    for fate in ("sent", "unknown"):
        marked = db.execute(
            "UPDATE main.outbox SET status = ?, owner = NULL,"
            " parts_sent = MAX(parts_sent, (SELECT o.parts_sent FROM newer.outbox o"
            " WHERE o.dedup_key = outbox.dedup_key)),"
            " message_id = (SELECT o.message_id FROM newer.outbox o"
            " WHERE o.dedup_key = outbox.dedup_key),"
            " finished_at = COALESCE((SELECT o.finished_at FROM newer.outbox o"
            " WHERE o.dedup_key = outbox.dedup_key), ?), last_error = ?"
            " WHERE status IN ('pending', 'claimed', 'sending') AND dedup_key IN"
            " (SELECT key FROM temp.fates WHERE fate = ?)",
            (fate, now.astimezone(UTC).isoformat(), MARKED, fate),
        ).rowcount
        if fate == "sent":
            report.marked_sent = marked
        else:
            report.marked_unknown = marked
    # In flight in the backup, and the newer database knows it did not arrive (queued again,
    # refused, expired): owed, with the parts Telegram took since.
    report.put_back = db.execute(
        "SELECT COUNT(*) FROM main.outbox WHERE status = 'sending' AND dedup_key IN"
        " (SELECT dedup_key FROM newer.outbox)"
    ).fetchone()[0]
    db.execute(
        "UPDATE main.outbox SET status = 'pending', owner = NULL,"
        " parts_sent = MAX(parts_sent, (SELECT o.parts_sent FROM newer.outbox o"
        " WHERE o.dedup_key = outbox.dedup_key))"
        " WHERE status IN ('pending', 'claimed', 'sending')"
        " AND dedup_key IN (SELECT dedup_key FROM newer.outbox)"
    )
    # Updates the newer database handled: not handled again from the backup's inbox.
    with contextlib.suppress(sqlite3.OperationalError):  # a newer database before the inbox
        db.execute(
            "UPDATE main.processed_updates SET state = 'done', body = NULL"
            " WHERE state != 'done' AND update_id IN"
            " (SELECT update_id FROM newer.processed_updates WHERE state = 'done')"
        )
    # What the backup does not have: said, not merged.
    last = db.execute("SELECT COALESCE(MAX(id), 0) FROM main.answers").fetchone()[0]
    count, first = db.execute(
        "SELECT COUNT(*), MIN(answered_at) FROM newer.answers WHERE id > ?", (last,)
    ).fetchone()
    report.answers_lost = count
    report.first_lost = datetime.fromisoformat(first) if first else None
    report.users_lost = db.execute(
        "SELECT COUNT(*) FROM newer.users WHERE user_id NOT IN (SELECT user_id FROM main.users)"
    ).fetchone()[0]
    db.execute("COMMIT")
    with contextlib.suppress(sqlite3.Error):
        db.execute("DETACH DATABASE newer")
    db.execute("BEGIN IMMEDIATE")


def _assume_sent(db: sqlite3.Connection, now: datetime, report: Restored) -> None:
    """No newer database: the bot that ran after the snapshot may have sent anything the
    backup owed whose time had come. Counted as possibly sent ('unknown'), never resent."""
    stamp = now.astimezone(UTC).isoformat()
    rows = db.execute(
        "UPDATE outbox SET status = 'unknown', owner = NULL, finished_at = ?,"
        " last_error = ? WHERE status IN ('pending', 'claimed', 'sending')",
        (stamp, ASSUMED),
    ).rowcount
    # Prompts due by now that the backup had not recorded: the day counted as served.
    due = db.execute(
        "INSERT INTO daily_sends (chat_id, local_day, status, attempts, claimed_at, sent_at)"
        " SELECT chat_id, next_due_day, 'unknown', 0, ?, ? FROM chats"
        " WHERE daily_enabled = 1 AND active = 1 AND next_due_day IS NOT NULL"
        " AND next_due_at <= ?"
        " ON CONFLICT (chat_id, local_day) DO UPDATE SET status = 'unknown'"
        " WHERE daily_sends.status IN ('claimed', 'waiting', 'queued')",
        (stamp, stamp, stamp),
    ).rowcount
    report.assumed = rows + due
