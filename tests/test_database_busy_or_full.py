"""A busy, full or failing database while the bot runs is survived; missing folders are made.

These run in the test's own process (the real Application against the fake Bot API), so
mutation testing sees them; tests/test_database_faults.py holds the start-up faults, which
run the real `interview-bot run` in a subprocess.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from bot.storage import Storage
from bot.storage.files import DatabaseFileError
from tests.conftest import BotHarness
from tests.support.fake_bot_api import FakeBotAPI, FakeUser
from tests.support.wait import until

ADA = FakeUser(1001, "Ada", "en")
LI = FakeUser(1002, "Li", "zh")


async def test_missing_folders_are_created(tmp_path: Path) -> None:
    database = tmp_path / "a" / "b" / "bot.sqlite3"
    storage = Storage(database)
    await storage.open()
    await storage.close()
    with sqlite3.connect(database) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] >= 4
    db.close()


async def test_a_damaged_file_on_a_nearly_full_disk_is_called_damaged_not_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Only SQLite's "I/O error" is read as a full disk when room is short: the operator of a
    # garbage file told "the disk is full" would free space and never restore a backup.
    database = tmp_path / "bot.sqlite3"
    database.write_bytes(random.Random(7).randbytes(20_000))
    monkeypatch.setattr("bot.storage.files.free_bytes", lambda folder: 4096)  # 4 KB left
    with pytest.raises(DatabaseFileError) as refused:
        await Storage(database).open()
    assert refused.value.problem == "is not an SQLite database (the file holds something else)"


# -- a busy or full database while the bot runs ------------------------------------------------


async def test_a_locked_database_waits_instead_of_failing_the_answer(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await bot.say(ADA, "/start")
    await bot.say(ADA, "/quiz beginner")
    locked, release = threading.Event(), threading.Event()

    def hold_the_write_lock() -> None:  # another process (a backup, a tool) writing for 6 s
        other = sqlite3.connect(bot.settings.database_path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        locked.set()
        release.wait(6)
        other.execute("COMMIT")
        other.close()

    holder = threading.Thread(target=hold_the_write_lock)
    holder.start()
    try:
        await asyncio.to_thread(locked.wait, 10)
        (reply,) = await bot.say(ADA, "max_batch_size 和 preferred batch size", expect=1)
    finally:
        release.set()
        await asyncio.to_thread(holder.join)
    assert "Score:" in reply.visible, reply.visible
    assert len(await bot.storage.answers_for(ADA.id)) == 1


async def test_a_write_waits_for_the_lock_while_another_task_reads(tmp_path: Path) -> None:
    """SQLite's busy timeout does not wait for a connection with a read statement open (it
    says "database is locked" at once); the storage waits anyway."""
    storage = Storage(tmp_path / "bot.sqlite3")
    await storage.open()
    try:
        for user in range(1, 4):
            await storage.ensure_user(user, f"u{user}")
        other = sqlite3.connect(tmp_path / "bot.sqlite3", isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another process writing, for half a second
        asyncio.get_running_loop().call_later(0.5, other.rollback)
        async with storage.db.execute("SELECT user_id FROM users") as cursor:
            assert await cursor.fetchone() is not None  # a read statement in progress
            await storage._write("UPDATE users SET first_name = 'x' WHERE user_id = 1")
            async with storage.transaction() as db:
                await db.execute("UPDATE users SET first_name = 'y' WHERE user_id = 2")
        other.close()
        names = await storage._all("SELECT first_name FROM users ORDER BY user_id")
        assert [r[0] for r in names] == ["x", "y", "u3"]
    finally:
        await storage.close()


async def test_a_full_disk_refuses_the_answer_clearly(
    bot: BotHarness, api: FakeBotAPI, caplog: pytest.LogCaptureFixture
) -> None:
    await bot.say(ADA, "/start")
    await bot.say(ADA, "/quiz beginner")
    db = bot.storage.db
    async with db.execute("PRAGMA page_count") as cur:
        (pages,) = await cur.fetchone()  # type: ignore[misc]
    async with db.execute("PRAGMA freelist_count") as cur:
        # No free page to reuse: growing needs a new one.
        assert tuple(await cur.fetchone() or ()) == (0,)
    await db.execute(f"PRAGMA max_page_count = {pages}")
    # 4,000 Chinese characters are 12 KB: the row needs overflow pages the file cannot get.
    long_answer = "max_batch_size 和 preferred batch size " + "批处理" * 1300
    (reply,) = await bot.say(ADA, long_answer, expect=1)
    assert "storage is full" in reply.visible
    assert "Score:" not in reply.visible
    assert await bot.storage.answers_for(ADA.id) == []
    assert any("the disk is full" in r.getMessage() for r in caplog.records)
    await db.execute("PRAGMA max_page_count = 1073741823")
    (again,) = await bot.say(ADA, "max_batch_size 和 preferred batch size", expect=1)
    assert "Score:" in again.visible  # the question stayed open: the answer can be sent again


@pytest.mark.parametrize(
    ("user", "apology"),
    [
        (ADA, "😕 Something went wrong on my side. Please try again in a moment."),
        (LI, "😕 我这边出了点问题，请稍后再试。"),
    ],
    ids=["en", "zh"],
)
async def test_a_database_error_before_the_command_gives_one_apology_not_two_replies(
    bot: BotHarness,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    user: FakeUser,
    apology: str,
) -> None:
    # The update's claim fails as on a damaged page: the person is told once, in their
    # language, and the command does not run after the apology (it answered as well, a
    # second reply).
    real = bot.storage.claim_update
    failures = [sqlite3.DatabaseError("database disk image is malformed")]

    async def claim(*args: Any, **kwargs: Any) -> bool:
        if failures:
            raise failures.pop()
        return await real(*args, **kwargs)

    monkeypatch.setattr(bot.storage, "claim_update", claim)
    bot.api.message(user, "/help")
    earlier = await bot.sentinel(user)
    assert [m.visible for m in earlier] == [apology]
    # The operator's log names the update's chat and user, with the error's traceback.
    (logged,) = [r for r in caplog.records if "error while handling an update" in r.getMessage()]
    assert f"chat {user.id}, user {user.id})" in logged.getMessage()
    assert logged.exc_info is not None
    assert "database disk image is malformed" in str(logged.exc_info[1])


async def test_an_apology_that_cannot_be_delivered_is_logged_with_its_chat(
    bot: BotHarness, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # A damaged page fails the update's claim, then the apology meets a chat that blocked
    # the bot, and marking it unreachable fails on the same page: the log says whom.
    await bot.say(ADA, "/start")
    damaged = sqlite3.DatabaseError("database disk image is malformed")
    claims, marks = [damaged], [damaged]
    real_claim, real_mark = bot.storage.claim_update, bot.storage.mark_unreachable

    async def claim(*args: Any, **kwargs: Any) -> bool:
        if claims:
            raise claims.pop()
        return await real_claim(*args, **kwargs)

    async def mark(chat_id: int) -> None:
        if marks:
            raise marks.pop()
        await real_mark(chat_id)

    monkeypatch.setattr(bot.storage, "claim_update", claim)
    monkeypatch.setattr(bot.storage, "mark_unreachable", mark)
    bot.api.fail("sendMessage", 403, chat_id=ADA.id)
    bot.api.message(ADA, "/help")

    def warned() -> list[str]:
        return [r.getMessage() for r in caplog.records if "about the error" in str(r.msg)]

    await until(warned, 10)
    assert warned() == [f"could not tell chat {ADA.id} about the error"]


async def test_an_answer_the_full_database_refused_is_scored_once_there_is_room(
    bot: BotHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The inbox recorded the update; storing its answer met the full database (capped at
    # its size for that one write). The update is held, not done, and handled again when a
    # write succeeds with room (no quiet period here).
    monkeypatch.setattr("bot.storage.space.QUIET", 0.0)
    await bot.say(ADA, "/start")
    await bot.say(ADA, "/quiz beginner")
    db, real = bot.storage.db, bot.storage.record_answer

    async def full_once(*args: Any, **kwargs: Any) -> Any:
        monkeypatch.setattr(bot.storage, "record_answer", real)
        async with db.execute("PRAGMA page_count") as cur:
            (pages,) = await cur.fetchone()  # type: ignore[misc]
        await db.execute(f"PRAGMA max_page_count = {pages}")
        try:
            return await real(*args, **kwargs)
        finally:
            await db.execute("PRAGMA max_page_count = 1073741823")

    monkeypatch.setattr(bot.storage, "record_answer", full_once)
    long_answer = "max_batch_size 和 preferred batch size " + "批处理" * 1300
    (told,) = await bot.say(ADA, long_answer, expect=1)
    assert told.visible == (
        "⚠️ The bot's storage is full, so nothing was saved yet. Your message is kept: I will"
        " answer it as soon as there is room again."
    )
    replies = await bot.say(ADA, "/help", expect=2)  # its claim is the write that finds room
    assert any("Score:" in m.visible for m in replies), [m.visible[:60] for m in replies]
    (stored,) = await bot.storage.answers_for(ADA.id)
    assert stored.answer == long_answer
