"""`interview-bot health` in polling mode, in the test's own process: what the container's
HEALTHCHECK (and an operator) reads from the database and the running bot's lease.

tests/test_operations.py runs the command in a subprocess against real runs; here
`bot.cli.main` runs it in this process, so that mutation testing sees its code.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.cli import main
from bot.storage import Storage
from tests.conftest import CONTENT


@pytest.fixture
def database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "bot.sqlite3"
    monkeypatch.setenv("DATABASE_PATH", str(path))
    monkeypatch.setenv("CONTENT_DIR", str(CONTENT))
    monkeypatch.setenv("LEASE_SECONDS", "30")
    monkeypatch.delenv("TELEGRAM_WEBHOOK_URL", raising=False)
    monkeypatch.chdir(tmp_path)  # no .env of the working tree is read
    return path


def lease(database: Path, pid: int | None, host: str, renewed_ago: timedelta) -> None:
    """An opened database; with a pid, the lease a bot `pid` on `host` last renewed
    `renewed_ago`."""

    async def write() -> None:
        storage = Storage(database)
        await storage.open()
        try:
            if pid is not None:
                now = datetime.now(UTC) - renewed_ago
                await storage.take_lease("bot-1", pid, host, now, timedelta(hours=2))
        finally:
            await storage.close()

    asyncio.run(write())


def health(capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["health"])
    out = capsys.readouterr()
    return code, (out.out + out.err).strip()


def test_no_database_is_unhealthy(database: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert health(capsys) == (1, f"unhealthy: no database at {database}")


def test_a_database_no_bot_runs_on_is_healthy(
    database: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lease(database, None, "", timedelta())
    assert health(capsys) == (
        0,
        f"ok: stopped: database {database} answers; no bot is running on it",
    )


def test_a_bot_that_renewed_its_lease_lately_is_healthy(
    database: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pid, host = os.getppid(), socket.gethostname()
    lease(database, pid, host, timedelta(seconds=5))
    code, said = health(capsys)
    assert code == 0
    prefix = f"ok: database {database} answers; the bot on {database} (pid {pid} on {host})"
    assert said.startswith(prefix + " renewed its lease "), said


def test_a_bot_that_stopped_renewing_its_lease_is_unhealthy(
    database: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pid, host = os.getppid(), socket.gethostname()
    lease(database, pid, host, timedelta(seconds=200))  # more than three periods of 30 s
    code, said = health(capsys)
    assert code == 1
    assert said.startswith(f"unhealthy: the bot on {database} (pid {pid} on {host})"), said
    assert said.endswith("it renews every 10 s (LEASE_SECONDS 30): stuck or gone"), said


def test_a_bot_gone_from_this_host_without_giving_its_lease_back_is_no_bot(
    database: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])  # a process that ran and ended
    child.wait()
    lease(database, child.pid, socket.gethostname(), timedelta(seconds=5))
    assert health(capsys) == (
        0,
        f"ok: stopped: database {database} answers; no bot is running on it"
        f" (pid {child.pid}, which held it, is gone)",
    )


def test_a_bot_on_another_host_is_judged_by_its_heartbeat_alone(
    database: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its pid cannot be looked at from here: a recent renewal says it runs."""
    lease(database, 1, "another-host", timedelta(seconds=5))
    code, said = health(capsys)
    assert code == 0
    assert "the bot on" in said and "(pid 1 on another-host)" in said, said
