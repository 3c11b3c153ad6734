"""A database left by a clean close is not read whole again at the next start (issue 13).

`PRAGMA quick_check` reads every page: 0.38 s for the 344 MB of 100,000 users, as long as
the rest of a start. It is skipped only when the file is exactly as the bot left it at a
clean close; whatever happened to it since (a run that did not close, a touch, a change of
size, another file put in its place) makes the next start check it. Which statements run
is read from SQLite itself (a trace of every statement the opening runs).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiosqlite
import pytest

import bot.storage.files
from bot.storage import Storage

CHECK = "PRAGMA quick_check(5)"


@pytest.fixture
def statements(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every statement run on the connections the storage opens, in order."""
    seen: list[str] = []
    real = aiosqlite.connect

    async def traced(*args: Any, **kwargs: Any) -> aiosqlite.Connection:
        db = await real(*args, **kwargs)
        await db.set_trace_callback(seen.append)
        return db

    monkeypatch.setattr(bot.storage.files.aiosqlite, "connect", traced)
    return seen


async def _opened(path: Path, statements: list[str]) -> tuple[Storage, bool]:
    """The storage opened as `run` opens it (checked); whether the opening read it whole."""
    statements.clear()
    storage = Storage(path)
    await storage.open()
    return storage, CHECK in statements


async def _used(path: Path) -> None:
    """A run that writes and closes cleanly."""
    storage = Storage(path)
    await storage.open()
    await storage.ensure_user(4242, "Lin", "en", private=True)
    await storage.close()


async def test_a_file_left_by_a_clean_close_is_not_read_whole_again(
    tmp_path: Path, statements: list[str]
) -> None:
    path = tmp_path / "bot.sqlite3"
    await _used(path)
    storage, checked = await _opened(path, statements)
    await storage.close()
    assert not checked
    assert "PRAGMA user_version" in statements  # the trace saw the opening


async def test_a_run_that_did_not_close_makes_the_next_start_check(
    tmp_path: Path, statements: list[str]
) -> None:
    path = tmp_path / "bot.sqlite3"
    await _used(path)
    running, _ = await _opened(path, statements)  # killed while it runs: never closed
    await running.ensure_user(4343, "Ada", "en", private=True)
    copy = tmp_path / "copy" / "bot.sqlite3"  # the files as a kill -9 leaves them
    copy.parent.mkdir()
    for suffix in ("", "-wal", "-clean"):
        if path.with_name(path.name + suffix).exists():
            shutil.copyfile(path.with_name(path.name + suffix), copy.with_name(copy.name + suffix))
    await running.close()
    storage, checked = await _opened(copy, statements)
    await storage.close()
    assert checked


@pytest.mark.parametrize(
    "touch",
    [
        pytest.param(lambda p: os.utime(p, ns=(p.stat().st_atime_ns, p.stat().st_mtime_ns + 1)),
                     id="modified-later"),
        pytest.param(lambda p: p.write_bytes(p.read_bytes() + b"\0" * 4096), id="grown"),
        pytest.param(lambda p: shutil.copyfile(p, p.with_name("x")) and os.replace(
            p.with_name("x"), p), id="replaced"),
    ],
)  # fmt: skip
async def test_a_file_touched_after_the_clean_close_is_checked(
    tmp_path: Path, statements: list[str], touch: Callable[[Path], Any]
) -> None:
    path = tmp_path / "bot.sqlite3"
    await _used(path)
    touch(path)
    storage, checked = await _opened(path, statements)
    await storage.close()
    assert checked


async def test_a_file_replaced_under_the_running_bot_is_checked_at_the_next_start(
    tmp_path: Path, statements: list[str]
) -> None:
    path = tmp_path / "bot.sqlite3"
    await _used(path)
    other = tmp_path / "other.sqlite3"
    await _used(other)
    running, _ = await _opened(path, statements)
    os.replace(other, path)  # another file under the name while the bot holds the first
    await running.close()
    storage, checked = await _opened(path, statements)
    await storage.close()
    assert checked


async def _noted(path: Path, step: Callable[[], Awaitable[None]]) -> bool:
    await step()
    return path.with_name(path.name + "-clean").exists()


async def test_the_note_is_gone_while_the_file_is_open_for_writing(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"
    assert await _noted(path, lambda: _used(path))
    storage = Storage(path)
    assert not await _noted(path, storage.open)
    assert await _noted(path, storage.close)


async def test_a_file_another_program_writes_to_meanwhile_is_checked(
    tmp_path: Path, statements: list[str]
) -> None:
    # Its writes wait in the write-ahead log while it keeps the file open: the file itself,
    # its size and time, are as the bot left them.
    path = tmp_path / "bot.sqlite3"
    await _used(path)
    before = path.stat().st_mtime_ns
    other = sqlite3.connect(path)
    try:
        other.execute("UPDATE users SET first_name = 'edited by hand'")
        other.commit()
        assert path.stat().st_mtime_ns == before
        storage, checked = await _opened(path, statements)
        await storage.close()
    finally:
        other.close()
    assert checked
