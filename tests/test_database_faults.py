"""A database file the bot cannot use stops it with one line; a busy or full one is survived.

The start-up faults run the real `interview-bot run` in a subprocess: the process must end by
itself (the subprocess timeout is the failure, not a timed assertion) with one line on stderr
naming the file and the problem, exit status 3, and no traceback.
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from bot.storage import Storage
from tests.conftest import BotHarness
from tests.support.fake_bot_api import FakeBotAPI, FakeUser
from tests.support.run import run_env, start_run

ADA = FakeUser(1001, "Ada", "en")
EXIT_DATABASE = 3
# Root reads and writes any file: drop the two capabilities that let it, so the file modes
# apply to the child as they would to the unprivileged user a real deployment runs as.
AS_UNPRIVILEGED: Sequence[str] = ()
if os.geteuid() == 0:
    if shutil.which("setpriv") is None:
        AS_UNPRIVILEGED = ("unavailable",)
    else:
        caps = "-dac_override,-dac_read_search"
        AS_UNPRIVILEGED = ("setpriv", f"--bounding-set={caps}", f"--inh-caps={caps}")


async def run_bot(
    api: FakeBotAPI, database: Path, *, unprivileged: bool = False
) -> tuple[int, str]:
    """`interview-bot run` on `database` until it exits by itself; (status, stdout+stderr)."""
    env = run_env(api, database, LOG_LEVEL="DEBUG")
    prefix = list(AS_UNPRIVILEGED) if unprivileged else []
    if prefix == ["unavailable"]:
        pytest.skip("running as root without setpriv: file modes cannot be tested")
    process = await start_run(
        env,
        database.parent if database.parent.exists() else None,
        prefix=prefix,
        stderr=asyncio.subprocess.STDOUT,
    )
    try:
        out, _ = await asyncio.wait_for(process.communicate(), 60)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise AssertionError("the bot did not exit by itself: it hangs on a bad database") from None
    assert process.returncode is not None
    return process.returncode, out.decode()


def assert_one_line(output: str, database: Path, problem: str) -> None:
    assert "Traceback" not in output, output
    lines = output.strip().splitlines()
    assert lines == [f"Database error: {database} {problem}"], output


async def make_database(path: Path, users: int = 50) -> None:
    """A real, migrated database with some rows, its WAL folded into the main file."""
    storage = Storage(path)
    await storage.open()
    for i in range(users):
        await storage.ensure_user(10_000 + i, f"user{i}", "en", private=True)
    await storage.close()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


async def test_garbage_file(api: FakeBotAPI, tmp_path: Path) -> None:
    database = tmp_path / "bot.sqlite3"
    database.write_bytes(random.Random(7).randbytes(20_000))
    status, output = await run_bot(api, database)
    assert status == EXIT_DATABASE
    assert_one_line(output, database, "is not an SQLite database (the file holds something else)")
    assert api.calls["getMe"] == 0  # stopped before talking to Telegram


async def test_corrupted_page(api: FakeBotAPI, tmp_path: Path) -> None:
    database = tmp_path / "bot.sqlite3"
    await make_database(database)
    with sqlite3.connect(database) as db:
        (root,) = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'users'").fetchone()
        (page_size,) = db.execute("PRAGMA page_size").fetchone()
    db.close()
    with database.open("r+b") as raw:  # a leaf page whose cell pointers point nowhere
        raw.seek((root - 1) * page_size)
        raw.write(b"\x0d\xff\xff\xff" * (page_size // 4))
    status, output = await run_bot(api, database)
    assert status == EXIT_DATABASE
    assert_one_line(
        output, database, "is corrupted (database disk image is malformed); restore a backup"
    )


async def test_damage_sqlite_reports_on_several_lines_is_said_on_one(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    # The end of a leaf page overwritten: SQLite's check answers with a row of several lines
    # ("*** in database main ***", then one line per damaged cell).
    database = tmp_path / "bot.sqlite3"
    await make_database(database, users=200)
    with sqlite3.connect(database) as db:
        (root,) = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'users'").fetchone()
        (page_size,) = db.execute("PRAGMA page_size").fetchone()
    db.close()
    with database.open("r+b") as raw:
        raw.seek(root * page_size - 64)
        raw.write(b"\xff" * 64)
    status, output = await run_bot(api, database)
    assert status == EXIT_DATABASE
    assert "Traceback" not in output, output
    (line,) = output.strip().splitlines()
    assert line.startswith(f"Database error: {database} is corrupted (*** in database main *** ")
    assert "Extends off end of page" in line and line.endswith("); restore a backup")
    assert api.calls["getMe"] == 0


async def test_database_from_a_newer_version(api: FakeBotAPI, tmp_path: Path) -> None:
    database = tmp_path / "bot.sqlite3"
    await make_database(database)
    with sqlite3.connect(database) as db:
        db.execute("PRAGMA user_version = 99")
    db.close()
    status, output = await run_bot(api, database)
    assert status == EXIT_DATABASE
    assert "Traceback" not in output
    (line,) = output.strip().splitlines()
    assert line.startswith(f"Database error: {database} was written by a newer version")
    assert "schema version 99" in line
    with sqlite3.connect(database) as db:  # left as it was: not "migrated" backwards
        assert db.execute("PRAGMA user_version").fetchone() == (99,)
    db.close()


async def test_unreadable_file(api: FakeBotAPI, tmp_path: Path) -> None:
    database = tmp_path / "bot.sqlite3"
    await make_database(database)
    database.chmod(0o000)
    status, output = await run_bot(api, database, unprivileged=True)
    assert status == EXIT_DATABASE
    assert_one_line(output, database, "cannot be read (permission denied)")


async def test_read_only_file(api: FakeBotAPI, tmp_path: Path) -> None:
    database = tmp_path / "bot.sqlite3"
    await make_database(database)
    database.chmod(0o444)
    status, output = await run_bot(api, database, unprivileged=True)
    assert status == EXIT_DATABASE
    assert_one_line(output, database, "is read-only (the bot must write to it)")


async def test_read_only_folder(api: FakeBotAPI, tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    database = folder / "bot.sqlite3"
    await make_database(database)
    folder.chmod(0o555)
    try:
        status, output = await run_bot(api, database, unprivileged=True)
    finally:
        folder.chmod(0o755)
    assert status == EXIT_DATABASE
    assert_one_line(output, database, "is in a read-only folder (SQLite writes -wal/-shm there)")


async def test_missing_folders_are_created(tmp_path: Path) -> None:
    database = tmp_path / "a" / "b" / "bot.sqlite3"
    storage = Storage(database)
    await storage.open()
    await storage.close()
    with sqlite3.connect(database) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] >= 4
    db.close()


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
    assert any("SQLITE_FULL" in r.getMessage() for r in caplog.records)
    await db.execute("PRAGMA max_page_count = 1073741823")
    (again,) = await bot.say(ADA, "max_batch_size 和 preferred batch size", expect=1)
    assert "Score:" in again.visible  # the question stayed open: the answer can be sent again


async def test_a_database_error_before_the_command_gives_one_apology_not_two_replies(
    bot: BotHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The update's claim fails as on a damaged page: the person is told once, and the
    # command does not run after the apology (it answered as well, a second reply).
    real = bot.storage.claim_update
    failures = [sqlite3.DatabaseError("database disk image is malformed")]

    async def claim(*args: Any, **kwargs: Any) -> bool:
        if failures:
            raise failures.pop()
        return await real(*args, **kwargs)

    monkeypatch.setattr(bot.storage, "claim_update", claim)
    bot.api.message(ADA, "/help")
    earlier = await bot.sentinel(ADA)
    assert [m.visible for m in earlier] == [
        "😕 Something went wrong on my side. Please try again in a moment."
    ]
