"""The database object's foundation: one aiosqlite connection, its lock and its migrations.

Writes are serialised by one lock and run as explicit `BEGIN IMMEDIATE` transactions: two
handlers sharing a connection must never interleave their statements, or one's rollback or
commit would take the other's half-done work with it. Reads take the same lock: WAL isolates
connections, not coroutines, so a read between two statements of another coroutine's open
transaction would see its uncommitted rows (and keep them after a rollback). Under the lock a
read runs between transactions, whole in one step, and sees committed rows only.

Round trips to the database thread cost about as much as a small statement (issue 13), so
the hot paths make few: a hot transaction runs as one step of that thread (`atomic`; an
answer's was eight round trips), and the small reads every update makes (a user's row,
their open question, what they answered) run at once on the event loop's thread (`_near`)
through a second connection that only reads. It isolates as the lock does, committed rows
only, and an indexed lookup takes microseconds, a fifth of a round trip. It never waits: a
busy file, or a cancelled write still queued, sends the read the usual way. (A second
connection with its own thread, tried earlier, cost a tenth of the daily fan-out rate in
`make bench`; this one has no thread. Reads that may scan many rows stay on the thread.)
Migrations are the numbered `.sql` files beside this module, applied by `PRAGMA user_version`.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar, cast

import aiosqlite

from bot.core.reminders import ReminderRule
from bot.storage.files import (
    BUSY_TIMEOUT_MS,
    DatabaseFileError,
    describe,
    identity,
    is_busy,
    is_damage,
    note_closed_cleanly,
    open_database,
)
from bot.storage.space import SpaceWatch
from bot.storage.wire import wire_log_path


def now_iso() -> str:
    return datetime.now(UTC).isoformat()


T = TypeVar("T")


def iso(instant: datetime) -> str:
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


class Database:
    """One SQLite database: one connection, serialised transactions, reads between them.

    `reminders`: the evening reminder's hour and default zone, which the stored reminder
    instants are computed with (bot/storage/reminders.py).
    """

    # Whether several processes may serve this database at once (PostgreSQL's replicas):
    # SQLite's file has one process, its lease holder.
    SHARED = False

    def __init__(self, path: Path | str, reminders: ReminderRule | None = None) -> None:
        self.path = Path(path) if str(path) != ":memory:" else path
        self.reminder_rule = reminders or ReminderRule()
        self._db: aiosqlite.Connection | None = None
        self._reader: sqlite3.Connection | None = None  # `_near`'s, on the loop's thread
        self._write_lock = asyncio.Lock()
        self._maybe_orphan = False  # a cancelled writer may have left statements queued
        # The file opened for writing (and migrated): its close is a clean one.
        self._opened: tuple[int, int] | None = None
        # The first error that showed the file damaged while open (SQLITE_CORRUPT or
        # SQLITE_NOTADB), and who is told of it, once: the run stops (bot/app.py).
        self.damage: sqlite3.DatabaseError | None = None
        self.on_damage: Callable[[sqlite3.DatabaseError], None] = lambda exc: None
        self.space = SpaceWatch(path)  # a full disk said once, not once per failed write

    async def open(self, *, verify: bool = True) -> None:
        """Open, check (see `files.open_database`) and migrate; DatabaseFileError if unusable.

        `verify=False` skips the integrity check (it reads the whole file): for a process
        that has just run it, as `interview-bot run` does before it starts the bot.
        """
        opened = identity(Path(self.path))  # None for a new file (and ":memory:")
        db = await open_database(self.path, known_version=schema_version(), verify=verify)
        db.row_factory = aiosqlite.Row
        self._watch(db)
        self._db = db
        try:
            await self._migrate()
            if self.path != ":memory:":  # a second connection would be another database
                self._reader = _reader(Path(self.path))
        except sqlite3.Error as exc:
            await self.close()
            raise DatabaseFileError(self.path, describe(exc, self.path)) from None
        self._opened = opened or identity(Path(self.path))

    def _watch(self, db: aiosqlite.Connection) -> None:
        """Notice damage in whatever reads or writes through `db`: every statement, fetch
        and transaction of aiosqlite passes through its `_execute`."""
        execute = cast(Callable[..., Awaitable[Any]], db._execute)

        async def watched(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
            try:
                return await execute(fn, *args, **kwargs)
            except sqlite3.DatabaseError as exc:
                self._damaged(exc)
                raise

        db._execute = watched  # type: ignore[method-assign]

    def _damaged(self, exc: sqlite3.DatabaseError) -> None:
        if is_damage(exc) and self.damage is None:
            self.damage = exc
            self.on_damage(exc)

    async def open_readonly(self) -> None:
        """Open for reading only: no migration, no write; DatabaseFileError if unusable."""
        db = await open_database(
            self.path, known_version=schema_version(), readonly=True, verify=False
        )
        db.row_factory = aiosqlite.Row
        self._db = db

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        if self._db is not None:
            await self._db.close()
            self._db = None
        if self._opened is not None:  # the last connection closed: the log is in the file
            opened, self._opened = self._opened, None
            if self.damage is None:  # a damaged file is read whole by the next start
                note_closed_cleanly(Path(self.path), opened)

    @property
    def is_open(self) -> bool:
        return self._db is not None

    @property
    def name(self) -> str:
        """The database as messages to the operator name it."""
        return str(self.path)

    @property
    def wire_log(self) -> Path | None:
        """Where the outbox notes each request as it leaves (bot/storage/wire.py)."""
        return wire_log_path(self.path)

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
            except BaseException as exc:
                self.space.refused(exc)
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
            except sqlite3.Error as exc:
                self.space.refused(exc)
                raise
            self.space.wrote()

    async def atomic(self, body: Callable[[aiosqlite.Connection], Awaitable[T]]) -> T:
        """`body(db)` as one serialised write transaction, in ONE round trip to the database
        thread; rolled back if it raises.

        The same statements as `async with transaction() as db: return await body(db)`, but
        BEGIN, every statement and COMMIT run in the thread as one step: `db` there is the
        sqlite3 connection behind aiosqlite's methods (`execute`, `execute_fetchall`; see
        `_Inline`), whose awaits never suspend. So the body may await only those and
        plain computations (a streak rule, a review schedule): anything else that suspends
        is a RuntimeError, and nothing is written. A round trip costs about as much as the
        statement itself (issue 13: an answer's transaction was eight of them). Cancelled
        while waiting, the transaction still runs whole or not at all, never half.
        """
        async with self._write_lock:
            await self._no_orphan()
            run = cast(Callable[..., Awaitable[T]], self.db._execute)
            return await self._queued(lambda: run(_in_thread, self.db._conn, body))

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
            cursor = await self._queued(lambda: self.db.execute(sql, tuple(params)))
            return cursor.rowcount

    async def _write_one(self, sql: str, params: Iterable[Any] = ()) -> aiosqlite.Row | None:
        """`_write` of one statement with a RETURNING clause: its first row, in the same
        round trip (the statement commits once its rows are read)."""
        async with self._write_lock:
            await self._no_orphan()
            rows = await self._queued(lambda: self.db.execute_fetchall(sql, tuple(params)))
            return next(iter(rows), None)

    async def _queued(self, start: Callable[[], Awaitable[T]]) -> T:
        """`_when_unlocked` for a write that is whole in one step of the database thread.
        Cancelled while waiting, the step may still run after we are gone: until a read
        through that thread has followed it, `_near` must not read past it."""
        try:
            done = await self._when_unlocked(start)
        except asyncio.CancelledError:
            self._maybe_orphan = True
            raise
        except sqlite3.Error as exc:
            self.space.refused(exc)
            raise
        self.space.wrote()
        return done

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

    async def _near(self, sql: str, params: Iterable[Any] = ()) -> list[aiosqlite.Row]:
        """`_all` for a small indexed read (a user's or a chat's own rows), run at once on
        this thread through the read connection: committed rows only, no round trip to the
        database thread. Busy (the WAL being reset), no read connection, or a cancelled
        write that may not have run yet (this read must not overtake it): as `_all`."""
        reader = self._reader
        if reader is not None and not self._maybe_orphan:
            try:
                return reader.execute(sql, tuple(params)).fetchall()
            except sqlite3.OperationalError as exc:
                if not is_busy(exc):
                    raise
            except sqlite3.DatabaseError as exc:
                self._damaged(exc)
                raise
        return await self._all(sql, params)

    async def ping(self) -> bool:
        """The database answers a query (for health checks)."""
        row = await self._one("SELECT 1")
        return row is not None and row[0] == 1


def _reader(path: Path) -> sqlite3.Connection:
    """The read connection of `Database._near`: reads only, never waits for a lock."""
    target = str(path)
    reader = sqlite3.connect(target, isolation_level=None, uri=target.startswith("file:"))
    reader.row_factory = sqlite3.Row  # what aiosqlite.Row is
    reader.execute("PRAGMA query_only=ON")
    reader.execute("PRAGMA busy_timeout=0")
    return reader


class _InlineCursor:
    """What the storage reads of a cursor aiosqlite returns, for `_Inline`."""

    __slots__ = ("_cursor",)

    def __init__(self, cursor: sqlite3.Cursor) -> None:
        self._cursor = cursor

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    @property
    def lastrowid(self) -> int | None:
        return self._cursor.lastrowid

    async def fetchone(self) -> Any:
        return self._cursor.fetchone()

    async def fetchall(self) -> list[Any]:
        return self._cursor.fetchall()


class _Inline:
    """aiosqlite's connection methods the storage helpers use, run at once on the sqlite3
    connection: inside the database thread (`Database.atomic`) nothing needs to wait."""

    __slots__ = ("_conn",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    @property
    def in_transaction(self) -> bool:
        return self._conn.in_transaction

    async def execute(self, sql: str, parameters: Iterable[Any] = ()) -> _InlineCursor:
        return _InlineCursor(self._conn.execute(sql, tuple(parameters)))

    async def execute_fetchall(self, sql: str, parameters: Iterable[Any] = ()) -> list[Any]:
        return self._conn.execute(sql, tuple(parameters)).fetchall()


def _in_thread(conn: sqlite3.Connection, body: Callable[[aiosqlite.Connection], Awaitable[T]]) -> T:
    """`Database.atomic`'s step in the database thread: BEGIN IMMEDIATE, the body, COMMIT."""
    conn.execute("BEGIN IMMEDIATE")  # busy: raised before anything ran (the caller waits)
    try:
        step = cast(Coroutine[Any, Any, T], body(cast(aiosqlite.Connection, _Inline(conn))))
        try:
            step.send(None)
        except StopIteration as done:
            result = cast(T, done.value)
        else:
            step.close()
            raise RuntimeError("an atomic transaction's body awaited something that waits")
        conn.execute("COMMIT")
    except BaseException:
        # SQLite itself rolls back on some errors (SQLITE_FULL, SQLITE_IOERR).
        if conn.in_transaction:
            with contextlib.suppress(sqlite3.OperationalError):
                conn.execute("ROLLBACK")
        raise
    return result
