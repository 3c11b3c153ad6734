"""Reads see committed rows only: never another coroutine's open transaction."""

from __future__ import annotations

import asyncio

import pytest

from bot.storage import Storage

USER = 4242


async def test_a_read_does_not_see_another_coroutines_uncommitted_row(storage: Storage) -> None:
    """A read issued while another coroutine's transaction is open (it may wait for it to
    end) never returns the rows that transaction then rolls back."""
    read: asyncio.Task[object] | None = None

    async def insert_read_roll_back() -> None:
        nonlocal read
        async with storage.transaction() as db:
            await db.execute(
                "INSERT INTO users (user_id, first_name, created_at) VALUES (?, 'Ada', '')",
                (USER,),
            )
            read = asyncio.create_task(storage.get_user(USER))
            # Give the read every chance to run now (it may also wait for this transaction).
            await asyncio.wait({read}, timeout=0.5)
            raise RuntimeError("roll back")

    with pytest.raises(RuntimeError, match="roll back"):
        await insert_read_roll_back()
    assert read is not None
    assert await read is None
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
            # Through the database thread, and on the loop's own read connection (a near
            # read never suspends: the sleep lets the writer run).
            assert await storage._all("SELECT * FROM users WHERE user_id = ?", (USER,))
            assert await storage.get_user(USER) is not None
            await asyncio.sleep(0)

    readers = [asyncio.create_task(keep_reading()) for _ in range(8)]
    try:
        for user_id in range(100, 160):
            stored = await storage.ensure_user(user_id, f"u{user_id}", "en")  # write, read back
            assert stored.user_id == user_id
            assert await storage.get_user(user_id) is not None
    finally:
        stop.set()
        await asyncio.gather(*readers)
