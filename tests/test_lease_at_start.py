"""What `interview-bot run` decides before it opens the database: another live process
serving it stops the start, one that is gone or whose lease ran out does not.

`refuse_if_served` is the check `run` makes first (bot/app.py); these run it in the test's
process on a database whose lease row another process left (tests/test_run_restarts.py
starts real processes against each other).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.jobs.lease import LeaseTaken, refuse_if_served
from bot.storage import Storage
from bot.storage.outbox import release_lease_file


async def left_by(database: Path, pid: int, host: str, expires_in: timedelta) -> None:
    """The lease row a process `pid` on `host` left, running out `expires_in` from now."""
    storage = Storage(database)
    await storage.open()
    try:
        now = datetime.now(UTC)
        ttl = timedelta(hours=1)
        assert await storage.take_lease("other", pid, host, now - ttl + expires_in, ttl) is None
    finally:
        await storage.close()


def a_gone_pid() -> int:
    """The pid of a process that ran and ended (reaped: nothing runs under it now)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


async def test_a_live_process_on_this_host_stops_the_start(tmp_path: Path) -> None:
    database = tmp_path / "bot.sqlite3"
    await left_by(database, os.getppid(), socket.gethostname(), timedelta(minutes=5))
    with pytest.raises(LeaseTaken) as taken:
        refuse_if_served(database)
    message = str(taken.value)
    assert f"Another interview-bot is running on {database}" in message
    assert f"pid {os.getppid()} on {socket.gethostname()}" in message


async def test_a_process_on_another_host_stops_the_start_until_its_lease_runs_out(
    tmp_path: Path,
) -> None:
    """Another host's process cannot be looked at: its lease is taken at its word."""
    database = tmp_path / "bot.sqlite3"
    await left_by(database, 4242, "another-host", timedelta(minutes=5))
    with pytest.raises(LeaseTaken):
        refuse_if_served(database)
    await left_by(database, 4242, "another-host", timedelta(minutes=-1))
    refuse_if_served(database)  # ran out: the start goes ahead


async def test_a_process_gone_from_this_host_does_not_stop_the_start(tmp_path: Path) -> None:
    """A crash leaves the lease unexpired; on the same host the start sees the pid is gone."""
    database = tmp_path / "bot.sqlite3"
    await left_by(database, a_gone_pid(), socket.gethostname(), timedelta(minutes=5))
    refuse_if_served(database)


async def test_no_database_yet_does_not_stop_the_start(tmp_path: Path) -> None:
    refuse_if_served(tmp_path / "new.sqlite3")
    assert not (tmp_path / "new.sqlite3").exists()  # looked at, never created


def test_a_lease_given_back_after_the_database_file_was_removed_creates_no_file(
    tmp_path: Path,
) -> None:
    # A run stopped before Telegram answered gives its lease back with a plain connection
    # (bot/app.py post_shutdown); the operator moved the database away meanwhile: no empty
    # file may appear where it was (a later start would take it for a new database).
    database = tmp_path / "bot.sqlite3"
    release_lease_file(database, "gone-owner")
    assert not database.exists()
