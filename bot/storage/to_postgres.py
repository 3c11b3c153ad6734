"""`interview-bot migrate-db`: a SQLite database copied whole into an empty PostgreSQL one.

The target gets the schema the PostgreSQL backend makes (migrations_pg/, its version in
`schema_version`), then every table's rows in dependency order (a table after those its
foreign keys name), in batches through PostgreSQL's COPY, with their ids; each identity
sequence is set past the highest id the SQLite file ever gave (its `sqlite_sequence`), so
the bot never gives an id twice. Every table's count is compared with the source's before
the commit. All of it is ONE transaction on the target: a failure anywhere leaves it as it
was. The source is only read (a read-only connection); a source from an older version is
migrated in a temporary copy first, never in place.

What is not copied: the running bot's lease (`instance_lease`: the bot that made it is
stopped; a backup carries none either), and SQLite's own bookkeeping tables.
"""

from __future__ import annotations

import contextlib
import sqlite3
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bot.storage.database import schema_version
from bot.storage.files import DatabaseFileError, backup_database
from bot.storage.postgres import migrations_pg

BATCH = 5_000  # rows per COPY: a few MB of memory at most, whatever the table's size
NOT_COPIED = frozenset({"instance_lease"})
_LOCK = 7232017  # the backend's migration lock: a bot starting meanwhile waits for the copy


class TargetNotEmpty(Exception):
    """The PostgreSQL database already holds data (or tables of something else)."""


class CopyFailed(Exception):
    """The copy stopped part way; nothing of it was written to the target."""


@dataclass
class Copied:
    """Rows per table, in the order copied (each count checked against the source)."""

    tables: list[tuple[str, int]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    @property
    def rows(self) -> int:
        return sum(n for _, n in self.tables)


def shown(url: str) -> str:
    """The URL as output may show it: its password replaced by ***."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return parts._replace(netloc=netloc).geturl()


def redact(text: str, url: str) -> str:
    """`text` with the URL and its password taken out (an error may quote either)."""
    password = urlsplit(url).password
    text = text.replace(url, shown(url))
    return text.replace(password, "***") if password else text


@contextlib.contextmanager
def left_as_found(path: Path) -> Iterator[None]:
    """Around reading a SQLite file: the empty -wal and -shm files a read-only connection
    leaves beside it (it may not delete them as a writer does) are removed again, so the
    folder is left as it was found."""
    siblings = [path.with_name(path.name + end) for end in ("-wal", "-shm")]
    there = {p for p in siblings if p.exists()}
    try:
        yield
    finally:
        wal = siblings[0]
        if wal not in there and wal.exists() and wal.stat().st_size == 0:
            for made in siblings:
                if made not in there:
                    made.unlink(missing_ok=True)


def _read_only(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)


def _source_version(path: Path) -> int:
    try:
        db = _read_only(path)
        try:
            return int(db.execute("PRAGMA user_version").fetchone()[0])
        finally:
            db.close()
    except sqlite3.Error as exc:
        raise DatabaseFileError(path, f"cannot be read as a SQLite database ({exc})") from None


def _tables(db: sqlite3.Connection) -> list[str]:
    """The bot's tables in dependency order: each after the tables its foreign keys name."""
    names = [
        r[0]
        for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            " ORDER BY name"
        )
    ]
    needs = {t: {r[2] for r in db.execute(f"PRAGMA foreign_key_list({t})")} - {t} for t in names}
    ordered: list[str] = []
    while len(ordered) < len(names):
        ready = [t for t in names if t not in ordered and needs[t] <= set(ordered)]
        if not ready:
            raise CopyFailed(
                f"the foreign keys of {sorted(set(names) - set(ordered))} form a cycle"
            )
        ordered += ready
    return ordered


async def _check_empty(conn: Any) -> bool:
    """Whether the target has the bot's (empty) schema already; TargetNotEmpty if it holds
    anything. No tables at all: False (the schema is to be made)."""
    tables = [
        r["table_name"]
        for r in await conn.fetch(
            "SELECT table_name FROM information_schema.tables"
            " WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
            " ORDER BY table_name"
        )
    ]
    if not tables:
        return False
    full = []
    for table in tables:
        if await conn.fetchval(f'SELECT EXISTS (SELECT 1 FROM "{table}")'):  # noqa: S608
            full.append(table)
    if "schema_version" not in full:  # no version of the bot's: someone else's tables
        raise TargetNotEmpty(f"it has tables that are not the bot's ({', '.join(tables[:5])})")
    # The bot's schema, made by a bot that started on it: empty if it has no rows.
    full.remove("schema_version")
    version = await conn.fetchval("SELECT MAX(version) FROM schema_version")
    if version != schema_version():
        raise TargetNotEmpty(f"it has the bot's tables at schema {version}, not {schema_version()}")
    if full:
        said = ", ".join(full[:6]) + (", …" if len(full) > 6 else "")
        raise TargetNotEmpty(f"it holds rows already (in {said})")
    return True


async def _make_schema(conn: Any) -> None:
    """What PostgresDatabase._migrate makes on an empty database, in this transaction."""
    await conn.execute("CREATE TABLE schema_version (version BIGINT NOT NULL)")
    scripts = migrations_pg()
    for _, sql in scripts:
        await conn.execute(sql)
    await conn.execute("INSERT INTO schema_version (version) VALUES ($1)", scripts[-1][0])


async def _columns(conn: Any, table: str) -> list[str]:
    rows = await conn.fetch(
        "SELECT column_name FROM information_schema.columns"
        " WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position",
        table,
    )
    return [r["column_name"] for r in rows]


async def _copy_table(conn: Any, db: sqlite3.Connection, table: str, columns: list[str]) -> int:
    names = ", ".join(f'"{c}"' for c in columns)
    cursor = db.execute(f'SELECT {names} FROM "{table}"')  # noqa: S608 - names from the schema
    copied = 0
    while batch := cursor.fetchmany(BATCH):
        await conn.copy_records_to_table(table, records=batch, columns=columns)
        copied += len(batch)
    return copied


async def _set_sequences(conn: Any, db: sqlite3.Connection) -> None:
    """Each identity column's sequence past the highest id given: the rows' and, as SQLite's
    AUTOINCREMENT never gives an id twice, its `sqlite_sequence` (rows deleted since)."""
    given: dict[str, int] = {}
    with contextlib.suppress(sqlite3.OperationalError):  # no AUTOINCREMENT table written yet
        given = {
            name: int(seq) for name, seq in db.execute("SELECT name, seq FROM sqlite_sequence")
        }
    identities = await conn.fetch(
        "SELECT table_name, column_name FROM information_schema.columns"
        " WHERE table_schema = current_schema() AND is_identity = 'YES'"
    )
    for r in identities:
        table, column = r["table_name"], r["column_name"]
        highest = await conn.fetchval(f'SELECT MAX("{column}") FROM "{table}"')  # noqa: S608
        top = max(int(highest or 0), given.get(table, 0))
        sequence = await conn.fetchval("SELECT pg_get_serial_sequence($1, $2)", table, column)
        # setval(seq, n, true): the next id is n + 1; (1, false): the next id is 1.
        await conn.execute("SELECT setval($1, $2, $3)", sequence, max(top, 1), top > 0)


async def copy_to_postgres(source: Path, url: str) -> Copied:
    """Copy the SQLite database at `source` into the empty PostgreSQL database at `url`.

    DatabaseFileError: the source or the server cannot be used (a newer source schema
    included); TargetNotEmpty: the target holds something; CopyFailed: a row or a count did
    not go over. In each case nothing was written to the target. `on_table(table, rows)`:
    called as each table is copied and counted (progress for a large database).
    """
    known = schema_version()
    version = _source_version(source)
    if version > known:
        raise DatabaseFileError(
            source,
            f"is at schema {version}, newer than this version of the bot knows ({known}):"
            " run migrate-db of the newer version",
        )
    with tempfile.TemporaryDirectory(prefix="migrate-db-") as scratch:
        if version < known:  # migrated in a copy: the source itself is only read
            copy = Path(scratch) / "source.sqlite3"
            await backup_database(source, copy, known_version=known)
            from bot.storage.repository import Storage

            migrated = Storage(copy)
            await migrated.open(verify=False)
            await migrated.close()
            source = copy
        return await _copy(source, url)


async def _copy(source: Path, url: str) -> Copied:
    import asyncpg

    try:
        conn = await asyncpg.connect(url)
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        raise DatabaseFileError(
            "--to", f"names a PostgreSQL server that cannot be used: {redact(str(exc), url)}"
        ) from None
    db = _read_only(source)
    done = Copied()
    try:
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", _LOCK)
            if not await _check_empty(conn):
                await _make_schema(conn)
            tables = _tables(db)
            target = set(await _pg_tables(conn))
            # The same tables on both sides (the same schema version): none left behind.
            differ = sorted(set(tables) ^ (target - {"schema_version"}))
            if differ:
                raise CopyFailed(f"the two schemas differ ({', '.join(differ)})")
            for table in tables:
                if table in NOT_COPIED:
                    done.skipped.append(table)
                    continue
                columns = await _columns(conn, table)
                have = {r[1] for r in db.execute(f'PRAGMA table_info("{table}")')}
                if set(columns) != have:
                    raise CopyFailed(f"{table}: its columns differ between the two databases")
                try:
                    await _copy_table(conn, db, table, columns)
                except (asyncpg.PostgresError, asyncpg.DataError, ValueError, TypeError) as exc:
                    raise CopyFailed(f"{table}: a row did not go over ({exc})") from None
                expected = db.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0]  # noqa: S608
                counted = await conn.fetchval(f'SELECT COUNT(*) FROM "{table}"')  # noqa: S608
                if counted != expected:
                    raise CopyFailed(f"{table}: {counted} rows arrived of {expected}")
                done.tables.append((table, int(counted)))
            await _set_sequences(conn, db)
    except (OSError, asyncpg.InterfaceError, asyncpg.PostgresConnectionError) as exc:
        raise CopyFailed(f"the server went away ({redact(str(exc), url)})") from None
    except asyncpg.PostgresError as exc:  # the schema could not be made, say
        raise CopyFailed(redact(str(exc), url)) from None
    except sqlite3.Error as exc:
        raise DatabaseFileError(source, f"cannot be read ({exc})") from None
    finally:
        db.close()
        with contextlib.suppress(Exception):  # a connection already lost
            await conn.close()
    return done


async def _pg_tables(conn: Any) -> list[str]:
    rows = await conn.fetch(
        "SELECT table_name FROM information_schema.tables"
        " WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
    )
    return [r["table_name"] for r in rows]
