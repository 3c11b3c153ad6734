"""Reads see committed rows only: never another coroutine's open transaction."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.storage import Storage

USER = 4242


@pytest.fixture
async def storage(tmp_path: Path) -> AsyncIterator[Storage]:
    store = Storage(tmp_path / "bot.sqlite3")
    await store.open()
    yield store
    await store.close()


async def test_a_read_does_not_see_another_coroutines_uncommitted_row(storage: Storage) -> None:
    inserted, read = asyncio.Event(), asyncio.Event()

    async def insert_then_roll_back() -> None:
        async with storage.transaction() as db:
            await db.execute(
                "INSERT INTO users (user_id, first_name, created_at) VALUES (?, 'Ada', '')",
                (USER,),
            )
            inserted.set()
            await read.wait()  # the other coroutine reads while this one is open
            raise RuntimeError("roll back")

    async def writer() -> None:
        with pytest.raises(RuntimeError, match="roll back"):
            await insert_then_roll_back()

    async def reader() -> object:
        await inserted.wait()
        try:
            return await storage.get_user(USER)
        finally:
            read.set()

    _, seen = await asyncio.gather(writer(), reader())
    assert seen is None
    assert await storage.get_user(USER) is None  # rolled back: it never existed


async def test_a_read_sees_what_was_committed_before_it(storage: Storage) -> None:
    """The other side: a separate read connection is not a stale one."""
    await storage.ensure_user(USER, "Ada", "en")
    found = await storage.get_user(USER)
    assert found is not None and found.first_name == "Ada"
    async with storage.transaction() as db:
        await db.execute("UPDATE users SET first_name = 'Bea' WHERE user_id = ?", (USER,))
    found = await storage.get_user(USER)
    assert found is not None and found.first_name == "Bea"


async def test_reads_running_all_the_time_still_see_each_commit(storage: Storage) -> None:
    """Reads share one connection: none may hold a snapshot open for the next one (with a
    cursor left open between two steps, a busy bot would read a snapshot from before its
    own last write, and a user it just stored would not be found)."""
    await storage.ensure_user(USER, "Ada", "en")
    stop = asyncio.Event()

    async def keep_reading() -> None:
        while not stop.is_set():
            assert await storage.get_user(USER) is not None

    readers = [asyncio.create_task(keep_reading()) for _ in range(8)]
    try:
        for user_id in range(100, 160):
            stored = await storage.ensure_user(user_id, f"u{user_id}", "en")  # write, read back
            assert stored.user_id == user_id
            assert await storage.get_user(user_id) is not None
    finally:
        stop.set()
        await asyncio.gather(*readers)
