"""`Database.atomic`: a write transaction in one round trip, whole or not at all."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import aiosqlite
import pytest

from bot.storage import Storage

USER = 4242


@pytest.fixture
async def storage(tmp_path: Path) -> AsyncIterator[Storage]:
    store = Storage(tmp_path / "bot.sqlite3")
    await store.open()
    yield store
    await store.close()


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
