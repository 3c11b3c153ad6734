"""`interview-bot backup` in the test's own process: the operator's copy and what they read.

tests/test_operations.py runs the command in a subprocess (a live bot writing meanwhile,
overwriting, restoring); here `bot.cli.main` runs it in this process, so that mutation
testing sees the backup's code.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
from pathlib import Path

import pytest

from bot.cli import main
from bot.storage import Storage
from tests.conftest import CONTENT

EXIT_DATABASE = 3


def make_database(path: Path, users: int) -> None:
    async def create() -> None:
        storage = Storage(path)
        await storage.open()
        for i in range(users):
            await storage.ensure_user(30_000 + i, f"user{i}", "en", private=True)
        await storage.close()

    asyncio.run(create())


@pytest.fixture
def database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "bot.sqlite3"
    monkeypatch.setenv("DATABASE_PATH", str(path))
    monkeypatch.setenv("CONTENT_DIR", str(CONTENT))
    monkeypatch.chdir(tmp_path)  # no .env of the working tree is read
    return path


def test_a_backup_is_a_checked_copy_and_says_its_size(
    database: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_database(database, users=5)
    target = tmp_path / "backups" / "copy.sqlite3"  # its folder is made
    assert main(["backup", str(target)]) == 0
    with sqlite3.connect(target) as copy:
        assert copy.execute("SELECT count(*) FROM users").fetchone() == (5,)
        (pages,) = copy.execute("PRAGMA page_count").fetchone()
    copy.close()
    said = capsys.readouterr().out.strip()
    match = re.fullmatch(rf"Backed up {re.escape(str(database))} to {re.escape(str(target))}:"
                         r" (\d+) pages, (\d+) KB, checked", said)  # fmt: skip
    assert match is not None, said
    assert int(match[1]) == pages
    assert int(match[2]) == round(target.stat().st_size / 1024)
    assert not list(target.parent.glob("*.partial"))  # nothing left beside it


def test_a_backup_of_a_file_that_is_not_a_database_says_so_in_one_line(
    database: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database.write_bytes(b"this is a text file, not a database " * 200)
    target = tmp_path / "copy.sqlite3"
    assert main(["backup", str(target)]) == EXIT_DATABASE
    err = capsys.readouterr().err.strip()
    assert err == (
        f"Database error: {database} is not an SQLite database (the file holds something else)"
    )
    assert not target.exists()
    assert not list(tmp_path.glob("*.partial"))
