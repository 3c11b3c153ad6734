"""The database file itself: opening it safely, naming what is wrong with it, backing it up.

Every way a database file can be unusable (missing folder that cannot be made, no read or
write permission, not a database at all, damaged pages, written by a newer version of the
bot) ends in one `DatabaseFileError` whose message is one line naming the file and the
problem, and no connection is left open behind it: an open aiosqlite connection is a thread
that would keep the process alive after the error.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

import aiosqlite

from bot.storage.space import ROOM, free_bytes

# A writer elsewhere (a backup, a second tool, a slow disk) may hold the lock for a while;
# users' commands wait this long for it rather than fail.
BUSY_TIMEOUT_MS = 15_000

_CORRUPT = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


class DatabaseFileError(Exception):
    """The database file cannot be used; str() is one line naming the file and the problem."""

    def __init__(self, path: Path | str, problem: str) -> None:
        super().__init__(f"Database error: {path} {problem}")
        self.path = path
        self.problem = problem


def primary_code(exc: BaseException) -> int | None:
    """SQLite's primary result code of an error (SQLITE_FULL, SQLITE_BUSY…), if it has one."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def is_damage(exc: BaseException) -> bool:
    """The file turned out damaged or not a database (SQLITE_CORRUPT, SQLITE_NOTADB)."""
    return isinstance(exc, sqlite3.DatabaseError) and primary_code(exc) in _CORRUPT


def is_busy(exc: BaseException) -> bool:
    """The write lock stayed taken for longer than the busy timeout."""
    return primary_code(exc) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def describe(exc: sqlite3.Error, path: Path | str | None = None) -> str:
    """What an SQLite error means for the file, in words an operator can act on.

    `path`: the database file, whose disk is looked at when SQLite says "I/O error": on a
    full disk, creating the shared-memory file of WAL mode fails so, not with SQLITE_FULL.
    """
    code = primary_code(exc)
    if code == sqlite3.SQLITE_IOERR and path is not None and str(path) != ":memory:":
        room = free_bytes(Path(path).absolute().parent)
        if room is not None and room < ROOM:
            code = sqlite3.SQLITE_FULL
    if code == sqlite3.SQLITE_NOTADB:
        return "is not an SQLite database (the file holds something else)"
    if code == sqlite3.SQLITE_CORRUPT:
        return f"is corrupted ({exc}); restore a backup"
    if code == sqlite3.SQLITE_READONLY:
        return "is read-only (the bot must write to it)"
    if code in (sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM, sqlite3.SQLITE_AUTH):
        return f"cannot be opened ({exc})"
    if code == sqlite3.SQLITE_FULL:
        return "cannot be written: the disk is full"
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return f"stayed locked by another process for {BUSY_TIMEOUT_MS // 1000} s"
    if code == sqlite3.SQLITE_IOERR:
        return f"cannot be read or written (I/O error: {exc})"
    return f"cannot be used ({exc})"


def _check_access(path: Path, *, readonly: bool) -> str:
    """Fail early, with a plain reason, on what the operating system will refuse.

    Returns what to hand to sqlite3: the path, or a read-only URI.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DatabaseFileError(path, f"cannot create its folder ({exc.strerror})") from None
    if path.is_dir():
        raise DatabaseFileError(path, "is a folder, not a database file")
    if not path.exists():
        if readonly:
            raise DatabaseFileError(path, "does not exist")
        if not os.access(path.parent, os.W_OK | os.X_OK):
            raise DatabaseFileError(path, "cannot be created: its folder is not writable")
        return str(path)
    if not os.access(path, os.R_OK):
        raise DatabaseFileError(path, "cannot be read (permission denied)")
    if readonly:
        return path.absolute().as_uri() + "?mode=ro"
    if not os.access(path, os.W_OK):
        raise DatabaseFileError(path, "is read-only (the bot must write to it)")
    if not os.access(path.parent, os.W_OK | os.X_OK):
        # WAL mode keeps two files beside the database (-wal, -shm) and must create them.
        raise DatabaseFileError(path, "is in a read-only folder (SQLite writes -wal/-shm there)")
    return str(path)


def _one_line(problems: list[str]) -> str:
    """SQLite's check rows, on one line: a row may hold several lines of its own ("*** in
    database main ***\nPage 25: ..."), and the error is promised as one line."""
    return "; ".join(" ".join(problem.split()) for problem in problems)


def _clean_mark(path: Path) -> Path:
    """The note a clean close leaves beside the database: `bot.sqlite3-clean`."""
    return path.with_name(f"{path.name}-clean")


def _fingerprint(path: Path) -> str | None:
    """The file as the file system sees it (size, modification time, inode); None while a
    write-ahead log holds pages not yet in it (a run that did not close)."""
    try:
        wal = path.with_name(f"{path.name}-wal")
        if wal.exists() and wal.stat().st_size > 0:
            return None
        st = path.stat()
    except OSError:
        return None
    return f"{st.st_size} {st.st_mtime_ns} {st.st_ino} {st.st_dev}"


def identity(path: Path) -> tuple[int, int] | None:
    """Which file `path` names (inode, device); None if none."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_dev


def note_closed_cleanly(path: Path, opened: tuple[int, int] | None) -> None:
    """After a clean close of the file opened as `opened` (`identity`): the file as it was
    left, so the next start may skip reading it whole (`open_database`). Not if the path
    names another file now (replaced under the bot). Best effort: without the note, the
    next start checks the file."""
    fingerprint = _fingerprint(path)
    if fingerprint is not None and opened is not None and identity(path) == opened:
        with contextlib.suppress(OSError):
            _clean_mark(path).write_text(fingerprint, encoding="ascii")


def _closed_cleanly(path: Path) -> bool:
    try:
        noted = _clean_mark(path).read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        return False
    return noted == _fingerprint(path)


async def open_database(
    path: Path | str, *, known_version: int, readonly: bool = False, verify: bool = True
) -> aiosqlite.Connection:
    """Open and check the database: readable, writable, a database, intact, not from the future.

    `verify` runs `PRAGMA quick_check` (reads every page once: 0.38 s for the 344 MB of
    100,000 users, as long as the rest of a start; issue 13), unless the file is exactly as
    this bot left it when it last closed it cleanly (`note_closed_cleanly`: its size,
    modification time and inode, no write-ahead log left). Whatever touched it since (a
    crash, a kill, a restore, a truncation, bytes garbled in place) changes that, and the
    file is read whole again. A writable opening removes the note before anything is written.
    `readonly` opens it for reading only and never creates it. Raises DatabaseFileError;
    never leaves a connection open.
    """
    target = str(path) if str(path) == ":memory:" else _check_access(Path(path), readonly=readonly)
    try:
        db = await aiosqlite.connect(target, isolation_level=None, uri=target.startswith("file:"))
    except sqlite3.Error as exc:
        raise DatabaseFileError(path, describe(exc, path)) from None
    try:
        await db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        async with db.execute("PRAGMA user_version") as cur:  # the first read of the file
            row = await cur.fetchone()
        version = int(row[0]) if row else 0
        if version > known_version:
            raise DatabaseFileError(
                path,
                f"was written by a newer version of the bot (schema version {version}; this"
                f" version knows up to {known_version}): upgrade the bot or restore a backup",
            )
        on_disk = None if target == ":memory:" else Path(path)
        if verify and not (on_disk is not None and not readonly and _closed_cleanly(on_disk)):
            async with db.execute("PRAGMA quick_check(5)") as cur:
                problems = [str(r[0]) for r in await cur.fetchall()]
            if problems != ["ok"]:
                raise DatabaseFileError(
                    path, f"is corrupted ({_one_line(problems)[:300]}); restore a backup"
                )
        if not readonly:
            if on_disk is not None:
                _clean_mark(on_disk).unlink(missing_ok=True)  # written from here on
            await db.execute("PRAGMA journal_mode=WAL")
            await db.execute("PRAGMA foreign_keys=ON")
            await db.execute("PRAGMA synchronous=NORMAL")
            # Take and drop the write lock once: a file we may read but not write (a read-only
            # mount, a file owned by someone else) fails here rather than on a user's answer.
            await db.execute("BEGIN IMMEDIATE")
            await db.execute("ROLLBACK")
    except DatabaseFileError:
        await db.close()
        raise
    except sqlite3.Error as exc:
        await db.close()
        raise DatabaseFileError(path, describe(exc, path)) from None
    except BaseException:
        await db.close()
        raise
    return db


async def backup_database(source: Path, target: Path, *, known_version: int) -> int:
    """Copy the live database to `target` with SQLite's online backup API; return its pages.

    Safe while the bot runs: the copy is one consistent snapshot, without the running bot's
    lease (a backup is served by no one). It is written beside the
    target first and checked, then renamed into place, so a failed backup never leaves a
    half-written file under the target's name.
    """
    db = await open_database(source, known_version=known_version, readonly=True, verify=False)
    partial = target.with_name(target.name + ".partial")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        partial.unlink(missing_ok=True)
        copy = sqlite3.connect(partial, check_same_thread=False)
        try:
            await db.backup(copy)
            # The lease is the running bot's, not data: a backup restored later must not look
            # served (or stuck) by a bot that has long stopped.
            with contextlib.suppress(sqlite3.OperationalError):  # no lease table (before 008)
                copy.execute("DELETE FROM instance_lease")
                copy.commit()
            problems = [str(r[0]) for r in copy.execute("PRAGMA quick_check(5)")]
            if problems != ["ok"]:
                raise DatabaseFileError(source, f"the copy is damaged ({_one_line(problems)})")
            pages = int(copy.execute("PRAGMA page_count").fetchone()[0])
        finally:
            copy.close()
        os.replace(partial, target)
    except sqlite3.Error as exc:
        partial.unlink(missing_ok=True)
        raise DatabaseFileError(source, describe(exc, source)) from None
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise DatabaseFileError(target, f"cannot write the backup ({exc.strerror})") from None
    finally:
        await db.close()
    return pages
