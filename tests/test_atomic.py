"""`Database.atomic`: a write transaction in one round trip, whole or not at all."""

from __future__ import annotations

import asyncio
import sqlite3
import threading

import aiosqlite
import pytest

from bot.storage import Storage

USER = 4242
# The round trip to SQLite's database thread and its read connection: SQLite's own mechanism.
pytestmark = pytest.mark.sqlite_only


async def _insert(db: aiosqlite.Connection, user_id: int, name: str) -> int:
    cur = await db.execute(
        "INSERT INTO users (user_id, first_name, created_at) VALUES (?, ?, '')", (user_id, name)
    )
    return cur.rowcount


async def test_the_body_runs_in_one_round_trip_and_commits(storage: Storage) -> None:
    trips = 0
    run = storage.db._execute

    async def counted(*args: object, **kwargs: object) -> object:
        nonlocal trips
        trips += 1
        return await run(*args, **kwargs)

    storage.db._execute = counted  # type: ignore[method-assign]

    async def body(db: aiosqlite.Connection) -> tuple[int, str]:
        inserted = await _insert(db, USER, "Ada")
        rows = await db.execute_fetchall("SELECT first_name FROM users WHERE user_id = ?", (USER,))
        return inserted, rows[0][0]

    assert await storage.atomic(body) == (1, "Ada")
    assert trips == 1
    storage.db._execute = run  # type: ignore[method-assign]
    found = await storage.get_user(USER)
    assert found is not None and found.first_name == "Ada"


async def test_a_body_that_raises_writes_nothing(storage: Storage) -> None:
    async def body(db: aiosqlite.Connection) -> None:
        await _insert(db, USER, "Ada")
        raise LookupError("no such thing")

    with pytest.raises(LookupError, match="no such thing"):
        await storage.atomic(body)
    assert await storage.get_user(USER) is None
    assert not storage.db.in_transaction
    await storage.ensure_user(USER, "Bea")  # the connection is usable again


async def test_a_body_that_waits_on_something_else_is_refused_and_writes_nothing(
    storage: Storage,
) -> None:
    async def body(db: aiosqlite.Connection) -> None:
        await _insert(db, USER, "Ada")
        await asyncio.sleep(0)  # would need the event loop, from the database thread

    with pytest.raises(RuntimeError, match="awaited something that waits"):
        await storage.atomic(body)
    assert await storage.get_user(USER) is None


async def test_cancelled_while_waiting_it_still_runs_whole(storage: Storage) -> None:
    """The caller gives up; the transaction is already queued in the database thread and
    runs whole (both rows), never half, and the next one does not interleave with it."""

    async def body(db: aiosqlite.Connection) -> None:
        await _insert(db, USER, "Ada")
        await _insert(db, USER + 1, "Ben")

    task = asyncio.create_task(storage.atomic(body))
    await asyncio.sleep(0)  # queued
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await storage.ensure_user(USER + 2, "Cy")
    names = await storage._all("SELECT first_name FROM users ORDER BY user_id")
    assert [r[0] for r in names] == ["Ada", "Ben", "Cy"]


async def test_a_write_returning_its_row_commits_at_once(storage: Storage) -> None:
    """`ensure_user` reads its row back through RETURNING: the write is committed when it
    returns (another connection sees it), and the row is the one stored."""
    user = await storage.ensure_user(USER, "Ada", "en")
    assert (user.user_id, user.first_name, user.telegram_language) == (USER, "Ada", "en")
    assert not storage.db.in_transaction
    with sqlite3.connect(storage.path) as other:
        assert other.execute(
            "SELECT first_name FROM users WHERE user_id = ?", (USER,)
        ).fetchall() == [("Ada",)]
    again = await storage.ensure_user(USER, "Bea", None)  # refreshed; the language kept
    assert (again.first_name, again.telegram_language) == ("Bea", "en")


# -- small reads on the loop's thread (`Database._near`) ---------------------------------------


async def test_a_near_read_sees_each_committed_write_and_no_open_transaction(
    storage: Storage,
) -> None:
    assert storage._reader is not None  # a file database has its read connection
    await storage.ensure_user(USER, "Ada", "en")
    assert (await storage.get_user(USER)) is not None
    async with storage.transaction() as db:
        await db.execute("UPDATE users SET first_name = 'Bea' WHERE user_id = ?", (USER,))
        during = await storage.get_user(USER)  # another connection: the open one is unseen
    assert during is not None and during.first_name == "Ada"
    after = await storage.get_user(USER)
    assert after is not None and after.first_name == "Bea"


async def test_a_near_read_does_not_overtake_a_cancelled_write(storage: Storage) -> None:
    """A write whose caller was cancelled may still be queued in the database thread; the
    next read waits for it (through that thread), as reads did before."""
    await storage.ensure_user(USER, "Ada", "en")
    gate = threading.Event()
    busy = asyncio.create_task(storage.db._execute(gate.wait, 10))  # the thread is busy
    task = asyncio.create_task(
        storage._write("UPDATE users SET first_name = 'Bea' WHERE user_id = ?", (USER,))
    )
    await asyncio.sleep(0)  # queued behind it
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    read = asyncio.create_task(storage.get_user(USER))
    await asyncio.sleep(0.05)
    gate.set()
    await busy
    found = await read
    assert found is not None and found.first_name == "Bea"
    assert not storage._maybe_orphan  # and the next read is a near one again


async def test_a_busy_near_read_goes_the_usual_way(storage: Storage) -> None:
    await storage.ensure_user(USER, "Ada", "en")

    class Busy:
        def execute(self, *args: object) -> None:
            busy = sqlite3.OperationalError("database is locked")
            busy.sqlite_errorcode = sqlite3.SQLITE_BUSY
            raise busy

        def close(self) -> None:
            pass

    storage._reader, reader = Busy(), storage._reader  # type: ignore[assignment]
    found = await storage.get_user(USER)
    assert found is not None and found.first_name == "Ada"
    assert reader is not None
    reader.close()


async def test_an_in_memory_database_reads_through_its_one_connection() -> None:
    store = Storage(":memory:")
    await store.open()
    try:
        assert store._reader is None
        await store.ensure_user(USER, "Ada", "en")
        assert await store.get_user(USER) is not None
    finally:
        await store.close()
