"""PostgreSQL behind the one storage interface, chosen by `DATABASE_URL=postgresql://…`.

The storage modules speak aiosqlite's connection interface (`execute`, `execute_fetchall`,
`executemany`, cursors with `rowcount`, `lastrowid` and `fetchone`) in SQLite's SQL. Here
`_Connection` offers the same methods on an asyncpg connection, and `translate` turns each
statement into PostgreSQL's once (cached): `?` into `$n`; INSERT OR IGNORE / OR REPLACE into
ON CONFLICT, UPDATE OR REPLACE into a delete of the rows it would collide with, then the
update; `rowid` into `ctid`; two-argument MAX into GREATEST; `IS NOT ?` / `IS ?` into IS
[NOT] DISTINCT FROM; SQLite's JSON length into PostgreSQL's. An INSERT into a table with an
`id` gets `RETURNING id` for its `lastrowid`. A constraint violation is raised as
sqlite3.IntegrityError, the one the storage modules catch; unlike SQLite, PostgreSQL then
fails the whole transaction, so it is rolled back (the modules that catch one have written
nothing before it).

`PostgresDatabase` replaces `Database`'s transaction and read methods: writes are serialised
by the same lock as on SQLite (one writer per process, the behaviour the stores were written
for), each transaction on a connection of a small pool; reads run on the pool at once and
see committed rows only (READ COMMITTED). A server out of reach is waited for as a locked
SQLite file is, then it is `Unreachable`, which the bot treats as a busy database (a
COMMIT whose answer was lost is asked about once the server answers: it may have landed). The
schema is migrations_pg/ (the same versions as SQLite's migrations), its version kept in a
`schema_version` table. The SQLite file's own operations (its integrity check, backup,
restore) have no counterpart here: the CLI refuses them.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar, cast

import aiosqlite

from bot.core.reminders import ReminderRule
from bot.storage.database import Database, schema_version
from bot.storage.files import BUSY_TIMEOUT_MS, DatabaseFileError

T = TypeVar("T")

# Tables whose rows get their `id` from the database: an INSERT returns it (`lastrowid`).
_ID_TABLES = frozenset({"asked", "answers", "rounds", "outbox", "mock_sessions"})
# INSERT OR REPLACE: SQLite deletes the row that conflicts and inserts the new one (defaults
# for the columns not given, and a new id). Every column is set from EXCLUDED, whose
# defaults (the next id included) are the new row's: the same row as SQLite's.
_REPLACED = {
    "asked": (("chat_id", "question_id"), ("id", "asked_at")),
    "mock_items": (
        ("session_id", "position"),
        ("question_id", "answer_id", "score", "missed", "seconds", "follow_label",
         "follow_score", "follow_seconds"),
    ),
}  # fmt: skip
# UPDATE OR REPLACE t SET chat_id = ? WHERE chat_id = ? (a group moving to its new id): the
# rows already at the new id that the moved ones would collide with go first, as SQLite's
# REPLACE deletes them. Per table: what, besides chat_id, makes a row unique.
_MOVED_KEYS = {
    "open_questions": "",
    "asked": "question_id",
    "daily_sends": "local_day",
    "group_totals": "user_id",
    "followed_packs": "pack_id",
    "pack_offers": "language",
    "rounds": None,  # one open round per chat (a partial unique index)
    "answers": (),  # nothing unique besides its id
    "outbox": (),
}


def _moved(table: str) -> list[str]:
    key = _MOVED_KEYS[table]
    move = f"UPDATE {table} SET chat_id = $1 WHERE chat_id = $2"  # noqa: S608 - fixed names
    if key == ():
        return [move]
    if key is None:
        collide = (
            "DELETE FROM rounds WHERE chat_id = $1 AND closed_at IS NULL AND EXISTS"
            " (SELECT 1 FROM rounds WHERE chat_id = $2 AND closed_at IS NULL)"
        )
    elif key == "":
        collide = (
            f"DELETE FROM {table} WHERE chat_id = $1"  # noqa: S608
            f" AND EXISTS (SELECT 1 FROM {table} WHERE chat_id = $2)"
        )
    else:
        collide = (
            f"DELETE FROM {table} WHERE chat_id = $1"  # noqa: S608
            f" AND {key} IN (SELECT {key} FROM {table} WHERE chat_id = $2)"
        )
    return [collide, move]


def is_postgres(target: object) -> bool:
    """Whether a database target (a path, or DATABASE_URL) names a PostgreSQL server."""
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


def migrations_pg() -> list[tuple[int, str]]:
    """PostgreSQL's migration scripts in order, as (version, sql)."""
    folder = resources.files("bot.storage") / "migrations_pg"
    found = [
        (int(entry.name.split("_", 1)[0]), entry.read_text(encoding="utf-8"))
        for entry in folder.iterdir()
        if entry.name.endswith(".sql")
    ]
    return sorted(found)


def _placeholders(sql: str) -> str:
    """`?` outside quoted literals becomes `$1`, `$2`, … in order."""
    out: list[str] = []
    n = 0
    quoted = False
    for ch in sql:
        if ch == "'":
            quoted = not quoted
        if ch == "?" and not quoted:
            n += 1
            out.append(f"${n}")
        else:
            out.append(ch)
    return "".join(out)


def _before_returning(sql: str, clause: str) -> str:
    match = re.search(r"\sRETURNING\s", sql, flags=re.IGNORECASE)
    if match is None:
        return sql + clause
    return sql[: match.start()] + clause + sql[match.start() :]


@lru_cache(maxsize=1024)
def translate(sql: str) -> tuple[tuple[str, ...], bool]:
    """SQLite's statement as PostgreSQL's statements (run in order, the last one's result is
    the statement's), and whether it returns the new row's id."""
    text = sql.strip()
    moved = re.fullmatch(r"UPDATE OR REPLACE (\w+) SET chat_id = \? WHERE chat_id = \?", text)
    if moved:
        return tuple(_moved(moved.group(1))), False
    ignore = re.match(r"INSERT\s+OR\s+IGNORE\s+INTO\s", text, flags=re.IGNORECASE)
    replace = re.match(r"INSERT\s+OR\s+REPLACE\s+INTO\s+(\w+)", text, flags=re.IGNORECASE)
    if ignore:
        text = "INSERT INTO " + text[ignore.end() :]
        text = _before_returning(text, " ON CONFLICT DO NOTHING")
    elif replace:
        table = replace.group(1)
        if table not in _REPLACED:
            raise ValueError(f"INSERT OR REPLACE into {table}: its key is not known here")
        key, columns = _REPLACED[table]
        text = "INSERT INTO " + text[text.upper().index("INTO") + 4 :].lstrip()
        sets = ", ".join(f"{c} = EXCLUDED.{c}" for c in columns)
        text = _before_returning(text, f" ON CONFLICT ({', '.join(key)}) DO UPDATE SET {sets}")
    text = re.sub(r"\browid\b", "ctid", text)
    text = re.sub(r"\bMAX\(([^(),]+),([^(),]+)\)", r"GREATEST(\1,\2)", text)
    text = re.sub(r"\bIS\s+NOT\s+\?", "IS DISTINCT FROM ?", text)
    text = re.sub(r"\bIS\s+\?", "IS NOT DISTINCT FROM ?", text)
    text = re.sub(
        r"json_array_length\((\w+),\s*'\$\.(\w+)'\)", r"json_array_length(\1::json -> '\2')", text
    )
    returns_id = False
    insert = re.match(r"INSERT\s+INTO\s+(\w+)", text, flags=re.IGNORECASE)
    if insert and insert.group(1) in _ID_TABLES and not re.search(r"\sRETURNING\s", text):
        text += " RETURNING id"
        returns_id = True
    return (_placeholders(text),), returns_id


def _count(status: str) -> int:
    """The row count of a command status ("UPDATE 3", "INSERT 0 1", "DELETE 0")."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else -1


def _integrity(exc: Exception) -> sqlite3.IntegrityError:
    return sqlite3.IntegrityError(str(exc))


class _Cursor:
    """What the storage reads of an aiosqlite cursor: rows, their count, the new row's id."""

    __slots__ = ("_rows", "lastrowid", "rowcount")

    def __init__(self, rows: list[Any], rowcount: int, lastrowid: int | None) -> None:
        self._rows = rows
        self.rowcount = rowcount
        self.lastrowid = lastrowid

    async def fetchone(self) -> Any:
        return self._rows.pop(0) if self._rows else None

    async def fetchall(self) -> list[Any]:
        rows, self._rows = self._rows, []
        return rows

    async def __aenter__(self) -> _Cursor:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None


class _Pending:
    """`db.execute(...)`: awaited, or entered (`async with db.execute(...) as cur`), as
    aiosqlite's result is."""

    __slots__ = ("_run",)

    def __init__(self, run: Awaitable[_Cursor]) -> None:
        self._run = run

    def __await__(self) -> Any:
        return self._run.__await__()

    async def __aenter__(self) -> _Cursor:
        return await self._run

    async def __aexit__(self, *exc: object) -> None:
        return None


class _Connection:
    """aiosqlite's connection methods the storage modules use, on one asyncpg connection."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn
        self.failed = False  # a statement failed: PostgreSQL has aborted the transaction
        self.in_transaction = True

    async def _run(self, sql: str, params: Iterable[Any]) -> _Cursor:
        import asyncpg

        statements, returns_id = translate(sql)
        args = tuple(params)
        text = statements[-1]
        try:
            for before in statements[:-1]:
                await self._conn.execute(before, *args)
            if returns_id or re.search(r"\sRETURNING\s", text) or _reads(text):
                rows = list(await self._conn.fetch(text, *args))
                lastrowid = int(rows[0][0]) if returns_id and rows else None
                return _Cursor([] if returns_id else rows, len(rows), lastrowid)
            return _Cursor([], _count(await self._conn.execute(text, *args)), None)
        except asyncpg.IntegrityConstraintViolationError as exc:
            self.failed = True
            raise _integrity(exc) from exc
        except Exception as exc:
            self.failed = True
            if not isinstance(exc, Unreachable) and (gone(exc) or _broken(self._conn, exc)):
                raise Unreachable(exc) from exc
            raise

    def execute(self, sql: str, parameters: Iterable[Any] = ()) -> _Pending:
        return _Pending(self._run(sql, parameters))

    async def execute_fetchall(self, sql: str, parameters: Iterable[Any] = ()) -> list[Any]:
        return await (await self._run(sql, parameters)).fetchall()

    async def executemany(self, sql: str, parameters: Iterable[Sequence[Any]]) -> None:
        for params in parameters:
            await self._run(sql, params)


class Unreachable(sqlite3.OperationalError):
    """PostgreSQL out of reach past the busy timeout, or lost in the middle of a write (not
    written). To the rest of the bot it is a database locked past its busy timeout
    (`is_busy`): the user is told nothing was saved, the outbox tries the write again."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(f"PostgreSQL cannot be reached: {cause}")
        self.sqlite_errorcode = sqlite3.SQLITE_BUSY


def gone(exc: BaseException) -> bool:
    """Whether an error says the server is out of reach (not that a statement is wrong)."""
    import asyncpg

    if isinstance(exc, Unreachable | OSError | asyncpg.PostgresConnectionError):
        return True
    if isinstance(exc, asyncpg.AdminShutdownError | asyncpg.CannotConnectNowError):
        return True
    if isinstance(exc, asyncpg.exceptions.CrashShutdownError):
        return True
    return isinstance(exc, asyncpg.InterfaceError) and "closed" in str(exc)


def _broken(conn: Any, exc: BaseException) -> bool:
    """Whether the connection cannot be used again: closed, or its protocol out of step
    with the server. A restart's fast shutdown that ends the session between two steps of a
    statement (its Parse waiting on a lock, then its Bind) gives asyncpg's
    InternalClientError ("another operation is in progress"), not a connection error."""
    import asyncpg

    return bool(conn.is_closed()) or isinstance(exc, asyncpg.InternalClientError)


def _terminate(conn: Any) -> None:
    with contextlib.suppress(Exception):  # closed already: the pool has let go of it
        conn.terminate()


async def _release(pool: Any, conn: Any) -> None:
    with contextlib.suppress(Exception):  # a lost connection is dropped by the pool
        await pool.release(conn)


def _reads(text: str) -> bool:
    return bool(re.match(r"\s*(SELECT|WITH|VALUES)\b", text, flags=re.IGNORECASE))


def _number(text: str) -> int | float:
    """NUMERIC (what PostgreSQL's SUM of integers and AVG give) as SQLite gives it: an int
    when whole, else a float."""
    try:
        return int(text)
    except ValueError:
        return float(text)


async def _setup(conn: Any) -> None:
    await conn.set_type_codec(
        "numeric", encoder=str, decoder=_number, schema="pg_catalog", format="text"
    )


class PostgresDatabase(Database):
    """A PostgreSQL database: a small pool, serialised write transactions, reads beside them.

    `path` stays ":memory:" (no file: no file identity for the lease, no file checks);
    `url` is DATABASE_URL, never logged (it may hold a password). `files`: the folder of
    this process's own files, the wire log's (`postgresql-wire` there); None: none kept.
    """

    SHARED = True  # replicas: each claims its own outbox rows (bot/storage/outbox.py)

    def __init__(
        self, url: str, reminders: ReminderRule | None = None, files: Path | None = None
    ) -> None:
        super().__init__(":memory:", reminders)
        self.url = url
        self.files = files
        self._pool: Any = None

    @property
    def name(self) -> str:
        return "PostgreSQL (DATABASE_URL)"  # not the URL: it may carry a password

    @property
    def wire_log(self) -> Path | None:
        return None if self.files is None else self.files / "postgresql-wire"

    @property
    def is_open(self) -> bool:
        return self._pool is not None

    async def open(self, *, verify: bool = True) -> None:
        """Connect and migrate (`verify`: SQLite's file check, nothing to do here)."""
        if self.files is not None:  # the wire log's folder, as SQLite creates the file's
            self.files.mkdir(parents=True, exist_ok=True)
        await self._connect()
        try:
            await self._migrate()
        except BaseException:
            await self.close()
            raise

    async def open_readonly(self) -> None:
        """Connect only: nothing migrated, nothing written (`interview-bot health`)."""
        await self._connect()

    async def _connect(self) -> None:
        import asyncpg

        try:
            self._pool = await asyncpg.create_pool(
                self.url, min_size=1, max_size=4, init=_setup, command_timeout=60
            )
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            raise DatabaseFileError(
                "DATABASE_URL", f"names a PostgreSQL server that cannot be used: {exc}"
            ) from None

    async def close(self) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await pool.close()

    @property
    def db(self) -> aiosqlite.Connection:
        raise RuntimeError("a PostgreSQL database has no SQLite connection")

    async def _migrate(self) -> None:
        known = schema_version()
        async with self._pool.acquire() as conn, conn.transaction():
            # One process migrates at a time; the others wait and find it done.
            await conn.execute("SELECT pg_advisory_xact_lock(7232017)")
            await conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)"
            )
            current = int(
                await conn.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_version")
            )
            if current > known:
                raise DatabaseFileError(
                    "DATABASE_URL",
                    f"the database is at schema {current}, newer than this version of the"
                    f" bot knows ({known}): run the newer version",
                )
            for version, sql in migrations_pg():
                if version <= current:
                    continue
                await conn.execute(sql)
                await conn.execute("DELETE FROM schema_version")
                await conn.execute("INSERT INTO schema_version (version) VALUES ($1)", version)

    async def _until_reached(self, attempt: Callable[[], Awaitable[T]]) -> T:
        """`attempt`, again while the server cannot be reached (a restart, a failover, the
        network), up to the busy timeout; then Unreachable. Only what has written nothing
        yet is attempted again: a connection and its BEGIN, or a read."""
        if self._pool is None:
            raise RuntimeError("storage is not open")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + BUSY_TIMEOUT_MS / 1000
        pause = 0.05
        while True:
            try:
                return await attempt()
            except Exception as exc:
                if not gone(exc):
                    raise
                if loop.time() >= deadline:
                    raise Unreachable(exc) from exc
            await asyncio.sleep(pause)
            pause = min(pause * 2, 1.0)

    async def _begin(self) -> tuple[Any, Any]:
        conn = await self._pool.acquire()
        try:
            tx = conn.transaction()
            await tx.start()
        except BaseException:
            await _release(self._pool, conn)
            raise
        return conn, tx

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """One serialised write transaction; rolled back if the body raises (or a
        statement of it failed: PostgreSQL has aborted it). The server out of reach: its
        start waits for it as a locked SQLite file is waited for (`_until_reached`); lost
        once the transaction has begun, nothing of it is written, and it is Unreachable.
        Lost at its COMMIT, the server is asked whether the COMMIT landed (`_landed`): if
        so, the transaction succeeded, as it did."""
        async with self._write_lock:
            conn, tx = await self._until_reached(self._begin)
            db = _Connection(conn)
            try:
                try:
                    yield cast(aiosqlite.Connection, db)
                except BaseException as exc:
                    if isinstance(exc, Unreachable):
                        # Closed, or out of step: ended here, so the server rolls back
                        # whatever of the transaction it had (never returned to the pool).
                        _terminate(conn)
                    else:
                        with contextlib.suppress(Exception):  # a lost connection rolled it back
                            await tx.rollback()
                    raise
                committing, xid = False, None
                try:
                    if db.failed:
                        await tx.rollback()
                    else:
                        # Its id (None: it wrote nothing), to ask about a COMMIT whose
                        # answer is lost: one round trip more per write.
                        xid = await conn.fetchval("SELECT txid_current_if_assigned()")
                        committing = True
                        await tx.commit()
                except Exception as exc:
                    if not (gone(exc) or _broken(conn, exc)):
                        raise
                    _terminate(conn)
                    # Lost before the COMMIT went: nothing written. Lost at it: written if
                    # the server says it landed (or if there was nothing to write).
                    if not committing or (xid is not None and not await self._landed(xid)):
                        raise Unreachable(exc) from exc
            finally:
                await _release(self._pool, conn)

    async def _landed(self, xid: int) -> bool:
        """Whether transaction `xid`, whose COMMIT's answer was lost, was committed: asked
        on another connection, waiting for the server as a read does (then Unreachable).
        Still in progress, its backend has not yet seen its client gone: asked again."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + BUSY_TIMEOUT_MS / 1000

        async def status() -> str | None:
            async with self._pool.acquire() as other:
                found: str | None = await other.fetchval("SELECT txid_status($1)", xid)
                return found

        while (found := await self._until_reached(status)) == "in progress":
            if loop.time() >= deadline:
                return False
            await asyncio.sleep(0.05)
        return found == "committed"

    async def atomic(self, body: Callable[[aiosqlite.Connection], Awaitable[T]]) -> T:
        async with self.transaction() as db:
            return await body(db)

    async def _write(self, sql: str, params: Iterable[Any] = ()) -> int:
        async with self.transaction() as db:
            cursor = await db.execute(sql, tuple(params))
            return cursor.rowcount

    async def _write_one(self, sql: str, params: Iterable[Any] = ()) -> Any:
        async with self.transaction() as db:
            rows = await db.execute_fetchall(sql, tuple(params))
            return next(iter(rows), None)

    async def _all(self, sql: str, params: Iterable[Any] = ()) -> list[Any]:
        async def read() -> list[Any]:
            async with self._pool.acquire() as conn:
                return await _Connection(conn).execute_fetchall(sql, params)

        return await self._until_reached(read)

    async def _near(self, sql: str, params: Iterable[Any] = ()) -> list[Any]:
        return await self._all(sql, params)
