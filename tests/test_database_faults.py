"""A database file the bot cannot use stops it with one line (a busy or full one is survived:
tests/test_database_busy_or_full.py, in the test's own process).

The start-up faults run the real `interview-bot run` in a subprocess: the process must end by
itself (the subprocess timeout is the failure, not a timed assertion) with one line on stderr
naming the file and the problem, exit status 3, and no traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import shutil
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from bot.storage import Storage
from tests.conftest import ROOT
from tests.support.fake_bot_api import FakeBotAPI, FakeUser
from tests.support.run import run_env, start_run
from tests.support.wait import until

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
    db.close()  # the last connection: the empty -wal and -shm go with it


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


# The newest schema this version writes: the highest-numbered migration shipped with it.
MIGRATIONS = ROOT / "bot" / "storage" / "migrations"
SHIPPED_SCHEMA = max(int(script.name.split("_", 1)[0]) for script in MIGRATIONS.glob("*.sql"))


def folder_state(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file in `folder`: its bytes and modification time (nanoseconds)."""
    return {
        entry.name: (entry.read_bytes(), entry.stat().st_mtime_ns)
        for entry in sorted(folder.iterdir())
        if entry.is_file()
    }


@pytest.mark.parametrize("ahead", [1, 5])
async def test_a_database_written_by_a_newer_version_is_refused_untouched(
    api: FakeBotAPI, tmp_path: Path, ahead: int
) -> None:
    """A schema version above the newest this version ships, even by one, stops `run` before
    it talks to Telegram, with one line and status 3, and every file in the folder is left as
    it was (bytes and modification time); `health` (the container's check) says the same."""
    database = tmp_path / "bot.sqlite3"
    await make_database(database)
    newer = SHIPPED_SCHEMA + ahead
    with sqlite3.connect(database) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (SHIPPED_SCHEMA,)
        db.execute(f"PRAGMA user_version = {newer}")
    db.close()
    assert sorted(folder_state(tmp_path)) == ["bot.sqlite3", "bot.sqlite3-clean"]  # no log
    os.utime(database, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
    before = folder_state(tmp_path)

    process = await start_run(
        run_env(api, database, LOG_LEVEL="DEBUG"), tmp_path, stderr=asyncio.subprocess.STDOUT
    )
    exited = asyncio.ensure_future(process.communicate())
    contacted = asyncio.ensure_future(until(lambda: api.calls["getMe"] >= 1, 60, "exit or getMe"))
    await asyncio.wait({exited, contacted}, return_when=asyncio.FIRST_COMPLETED)
    contacted.cancel()
    with contextlib.suppress(asyncio.CancelledError, AssertionError):
        await contacted
    if not exited.done():  # it went on (or hangs): the failure, whatever it did next
        process.kill()
        await exited
        went = "went on to Telegram" if api.calls["getMe"] else "did not exit by itself"
        raise AssertionError(f"the bot {went} with schema version {newer}")
    out, _ = exited.result()
    output = out.decode()

    assert process.returncode == EXIT_DATABASE, output
    assert_one_line(
        output,
        database,
        f"was written by a newer version of the bot (schema version {newer}; this version"
        f" knows up to {SHIPPED_SCHEMA}): upgrade the bot or restore a backup",
    )
    assert api.calls["getMe"] == 0
    assert folder_state(tmp_path) == before  # nothing written, created or removed

    # The container's HEALTHCHECK, run on the same file, fails the same way.
    health = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "health",
        cwd=tmp_path, env=run_env(api, database),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(health.communicate(), 60)
    assert health.returncode == EXIT_DATABASE, (out, err)
    assert err.decode().strip() == output.strip()
    after = folder_state(tmp_path)
    assert {name: after[name] for name in before} == before
    # SQLite's own: a read-only reader of a WAL database leaves an empty log and its index.
    assert set(after) - set(before) <= {"bot.sqlite3-wal", "bot.sqlite3-shm"}
    assert after.get("bot.sqlite3-wal", (b"", 0))[0] == b""


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
