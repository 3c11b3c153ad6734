"""Operations: `interview-bot backup` of a live database, `interview-bot health`, the lock file."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.storage import Storage
from tests.conftest import CONTENT, ROOT
from tests.support.fake_bot_api import FakeBotAPI, FakeUser

HEALTH_USER = FakeUser(616161, "Ops")


def cli(*args: str, database: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """The real `interview-bot` command in a subprocess (the timeout is the failure)."""
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        env={**os.environ, "DATABASE_PATH": str(database), "CONTENT_DIR": str(CONTENT), **env},
        capture_output=True, text=True, timeout=60, check=False, cwd=database.parent,
    )  # fmt: skip


def make_database(path: Path, users: int) -> None:
    async def create() -> None:
        storage = Storage(path)
        await storage.open()
        for i in range(users):
            await storage.ensure_user(20_000 + i, f"user{i}", "en", private=True)
        await storage.close()

    asyncio.run(create())


def count_users(path: Path) -> int:
    with sqlite3.connect(path) as db:
        (count,) = db.execute("SELECT count(*) FROM users").fetchone()
    db.close()
    return int(count)


def test_backup_of_a_live_database_is_a_consistent_copy(tmp_path: Path) -> None:
    """The online backup reads the database as the bot sees it: committed rows that are still
    only in the write-ahead log are in the copy (a copy of the main file would miss them), a
    transaction the bot has open is not, and the backup does not wait for it."""
    database = tmp_path / "bot.sqlite3"
    make_database(database, users=200)  # closed: all 200 are in the main file
    bot = sqlite3.connect(database, isolation_level=None, timeout=15)
    try:
        bot.execute("PRAGMA wal_autocheckpoint=0")  # what it commits stays in the WAL
        for i in range(50):
            bot.execute(
                "INSERT INTO users (user_id, first_name, created_at) VALUES (?, 'w', 'now')",
                (30_000 + i,),
            )
        bot.execute("BEGIN IMMEDIATE")  # the bot in the middle of an answer
        for i in range(7):
            bot.execute(
                "INSERT INTO users (user_id, first_name, created_at) VALUES (?, 'u', 'now')",
                (40_000 + i,),
            )
        assert Path(f"{database}-wal").stat().st_size > 0
        result = cli("backup", str(tmp_path / "copy.sqlite3"), database=database)
        bot.execute("ROLLBACK")
    finally:
        bot.close()
    assert result.returncode == 0, result.stderr
    assert re.match(
        rf"Backed up {re.escape(str(database))} to .*copy.sqlite3: \d+ pages", result.stdout
    )
    copy = tmp_path / "copy.sqlite3"
    with sqlite3.connect(copy) as db:
        assert db.execute("PRAGMA quick_check").fetchall() == [("ok",)]
        assert db.execute("PRAGMA user_version").fetchone()[0] >= 5
    db.close()
    assert count_users(copy) == 200 + 50  # committed, from the WAL; the open transaction's not
    assert not (tmp_path / "copy.sqlite3.partial").exists()


def test_backup_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    database = tmp_path / "bot.sqlite3"
    make_database(database, users=3)
    target = tmp_path / "backup.sqlite3"
    target.write_bytes(b"yesterday's backup")
    refused = cli("backup", str(target), database=database)
    assert refused.returncode == 1
    assert refused.stderr.strip() == f"{target} exists; pass --force to overwrite it"
    assert target.read_bytes() == b"yesterday's backup"
    forced = cli("backup", str(target), "--force", database=database)
    assert forced.returncode == 0, forced.stderr
    assert count_users(target) == 3
    itself = cli("backup", str(database), "--force", database=database)
    assert itself.returncode == 2 and "live database itself" in itself.stderr


def test_restore_of_a_backup_over_a_lost_database(tmp_path: Path) -> None:
    """The live file is garbage: `restore` cannot read it, says so, moves it aside with the
    files beside it, and the backup is the database; health says it is stopped."""
    database = tmp_path / "bot.sqlite3"
    make_database(database, users=7)
    backup = tmp_path / "backup.sqlite3"
    assert cli("backup", str(backup), database=database).returncode == 0
    database.write_bytes(b"\0" * 4096)  # the live file is lost
    restored = cli("restore", str(backup), database=database)
    assert restored.returncode == 0, restored.stderr
    assert f"Nothing to compare with ({database} could not be read (" in restored.stdout
    (aside,) = tmp_path.glob("replaced-*")
    assert (aside / "bot.sqlite3").read_bytes() == b"\0" * 4096
    health = cli("health", database=database)
    assert health.returncode == 0 and health.stdout.startswith("ok: stopped:"), health.stderr
    assert count_users(database) == 7


def test_backup_of_a_missing_or_broken_database(tmp_path: Path) -> None:
    missing = cli("backup", str(tmp_path / "b.sqlite3"), database=tmp_path / "none.sqlite3")
    assert missing.returncode == 1 and "No database at" in missing.stderr
    garbage = tmp_path / "bot.sqlite3"
    garbage.write_bytes(b"not a database, just text\n" * 200)
    broken = cli("backup", str(tmp_path / "b.sqlite3"), database=garbage)
    assert broken.returncode == 3
    assert (
        broken.stderr.strip()
        == f"Database error: {garbage} is not an SQLite database (the file holds something else)"
    )
    assert not (tmp_path / "b.sqlite3").exists()


def test_health_in_polling_mode_reads_the_database(tmp_path: Path) -> None:
    database = tmp_path / "bot.sqlite3"
    assert cli("health", database=database).returncode == 1  # not created yet: not serving
    make_database(database, users=1)
    ok = cli("health", database=database)
    assert ok.returncode == 0 and ok.stdout.startswith("ok: stopped: database")
    with sqlite3.connect(database) as db:
        db.execute("PRAGMA user_version = 99")
    db.close()
    newer = cli("health", database=database)
    assert newer.returncode == 3 and "newer version" in newer.stderr
    assert not Path(f"{database}-journal").exists()


def _write_lease(database: Path, heartbeat_age: float) -> None:
    now = datetime.now(UTC)
    beat = now - timedelta(seconds=heartbeat_age)
    with sqlite3.connect(database) as db:
        db.execute("DELETE FROM instance_lease")
        db.execute(
            "INSERT INTO instance_lease (name, owner, pid, host, since, heartbeat_at, expires_at)"
            " VALUES ('bot', 'someone', 4242, 'box', ?, ?, ?)",
            ((now - timedelta(hours=1)).isoformat(), beat.isoformat(), now.isoformat()),
        )
    db.close()


def test_health_in_polling_mode_reads_the_running_bots_heartbeat(tmp_path: Path) -> None:
    """Unhealthy once the bot's last lease renewal is more than three lease periods old."""
    database = tmp_path / "bot.sqlite3"
    make_database(database, users=1)
    _write_lease(database, heartbeat_age=200)  # LEASE_SECONDS 100: stale after 300 s
    fresh = cli("health", database=database, LEASE_SECONDS="100")
    assert fresh.returncode == 0, fresh.stderr
    # (the age is read when the command runs: its start-up adds a second or two)
    assert re.search(r"\(pid 4242 on box\) renewed its lease 2\d\d\.\d s ago", fresh.stdout)
    _write_lease(database, heartbeat_age=400)
    stale = cli("health", database=database, LEASE_SECONDS="100")
    assert stale.returncode == 1
    assert stale.stderr.startswith(f"unhealthy: the bot on {database} (pid 4242 on box)")
    assert re.search(r"last renewed its lease 4\d\d s ago; it renews every 33.3 s", stale.stderr)
    assert stale.stderr.strip().endswith("(LEASE_SECONDS 100): stuck or gone")


async def _health(database: Path, **env: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "health", cwd=database.parent,
        env={**os.environ, "DATABASE_PATH": str(database), "CONTENT_DIR": str(CONTENT), **env},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return process.returncode, (out + err).decode()


async def _health_until(database: Path, code: int, seconds: float = 60) -> str:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        got, text = await _health(database, LEASE_SECONDS="1")
        if got == code:
            return text
        assert loop.time() < deadline, f"health stayed {got}: {text}"


async def test_health_fails_while_the_running_bot_is_stuck(api: FakeBotAPI, tmp_path: Path) -> None:
    """The real `interview-bot run`, stopped (SIGSTOP: its event loop runs nothing, as when
    it hangs), is reported unhealthy; resumed, healthy again."""
    database = tmp_path / "bot.sqlite3"
    env = {
        **os.environ,
        "TELEGRAM_BOT_TOKEN": api.token,
        "TELEGRAM_API_BASE_URL": api.base_url,
        "DATABASE_PATH": str(database),
        "CONTENT_DIR": str(CONTENT),
        "LEASE_SECONDS": "1",  # renewed every 1/3 s; a heartbeat older than 3 s is stale
    }
    bot = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "run", cwd=tmp_path, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        api.message(HEALTH_USER, "/help")
        await api.wait_for(HEALTH_USER.id, 1, timeout=30)  # it runs and serves
        code, text = await _health(database, LEASE_SECONDS="1")
        assert code == 0, text
        assert f"pid {bot.pid} on" in text and "renewed its lease" in text
        bot.send_signal(signal.SIGSTOP)
        text = await _health_until(database, 1)
        assert f"pid {bot.pid} on" in text and "stuck or gone" in text
        bot.send_signal(signal.SIGCONT)
        await _health_until(database, 0)
        api.message(HEALTH_USER, "/help")
        await api.wait_for(HEALTH_USER.id, 2, timeout=30)  # and it serves again
    finally:
        bot.send_signal(signal.SIGCONT)
        bot.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(bot.communicate(), 30)
    assert bot.returncode == 0, stderr.decode()[-2000:]


# -- the lock file ----------------------------------------------------------------------------


def locked(name: str) -> dict[str, tuple[str, bool]]:
    """The pins of a lock file: package -> (version, whether a platform marker limits it)."""
    pins: dict[str, tuple[str, bool]] = {}
    for line in (ROOT / name).read_text().splitlines():
        if m := re.match(r"^([A-Za-z0-9_.-]+)==([^\s;\\]+)", line):
            pins[m.group(1).lower().replace("_", "-")] = (m.group(2), ";" in line)
    return pins


def test_the_lock_files_pin_what_the_tests_run_with() -> None:
    from importlib.metadata import PackageNotFoundError, version

    dev, bot = locked("requirements-dev.lock"), locked("requirements.lock")
    assert {"python-telegram-bot", "aiosqlite", "pydantic", "tornado", "pytest"} <= dev.keys()
    assert {"python-telegram-bot", "aiosqlite", "pydantic", "tornado"} <= bot.keys()
    assert "pytest" not in bot  # the image gets the bot's dependencies only
    for name, (pinned, limited) in dev.items():
        try:
            assert version(name) == pinned, name
        except PackageNotFoundError:
            assert limited, f"{name} is locked but not installed"
    for name, pin in bot.items():
        assert dev[name] == pin, name  # one set of versions, tested and shipped
    for name in ("requirements.lock", "requirements-dev.lock"):
        text = (ROOT / name).read_text()
        hashed = re.findall(r"^\S+==[^\n]*\\\n    --hash=sha256:[0-9a-f]{64}", text, re.M)
        assert len(hashed) == len(locked(name))  # every pin carries its hashes


@pytest.mark.parametrize("consumer", ["Makefile", "Dockerfile"])
def test_installs_go_through_the_lock_file(consumer: str) -> None:
    text = (ROOT / consumer).read_text()
    assert "requirements.lock" in text
    assert "--require-hashes" in text


# -- a bot stopped before Telegram ever answered -----------------------------------------------


async def test_a_bot_stopped_before_telegram_answered_leaves_no_lease(tmp_path: Path) -> None:
    """SIGTERM while the Bot API has never answered: the bot took its lease before it talked
    to Telegram, and must give it back as it stops; `health` then says no bot is running
    (it said, for up to 90 s, that the dead pid renewed its lease)."""
    from tests.support.run import free_port

    database = tmp_path / "bot.sqlite3"
    env = {
        **os.environ,
        "TELEGRAM_BOT_TOKEN": FakeBotAPI.token,
        "TELEGRAM_API_BASE_URL": f"http://127.0.0.1:{free_port()}/bot",  # nothing listens
        "DATABASE_PATH": str(database),
        "CONTENT_DIR": str(CONTENT),
    }
    bot = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "run", cwd=tmp_path, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert bot.stderr is not None
    seen = b""
    try:
        while b"Telegram is not answering" not in seen:
            line = await asyncio.wait_for(bot.stderr.readline(), 60)
            assert line, seen.decode()
            seen += line
        code, text = await _health(database)
        assert code == 0 and f"pid {bot.pid} on" in text, text  # it runs, waiting for Telegram
    finally:
        bot.send_signal(signal.SIGTERM)
        _, rest = await asyncio.wait_for(bot.communicate(), 30)
    assert bot.returncode == 0, (seen + rest).decode()[-2000:]
    code, text = await _health(database)
    assert code == 0, text
    assert text == f"ok: stopped: database {database} answers; no bot is running on it\n"
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT count(*) FROM instance_lease").fetchone() == (0,)
    db.close()


def test_health_says_a_bot_whose_pid_is_gone_is_stopped(tmp_path: Path) -> None:
    """A lease left by a process gone from this host (kill -9) is no running bot."""
    import socket

    database = tmp_path / "bot.sqlite3"
    make_database(database, users=1)
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    _write_lease(database, heartbeat_age=1)
    with sqlite3.connect(database) as db:
        db.execute("UPDATE instance_lease SET pid = ?, host = ?",
                   (int(gone.stdout), socket.gethostname()))  # fmt: skip
    db.close()
    result = cli("health", database=database)
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        f"ok: stopped: database {database} answers; no bot is running on it"
        f" (pid {int(gone.stdout)}, which held it, is gone)\n"
    )


@pytest.mark.parametrize("target", ["practice", "run"])
def test_make_run_and_practice_install_the_bot_alone_not_the_dev_tools(target: str) -> None:
    # `make -n -B` prints every recipe the target would run from scratch, running none.
    make = shutil.which("make")
    assert make is not None, "make is on the PATH: the README's two commands need it"
    printed = subprocess.run(
        [make, "-n", "-B", target], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert "requirements.lock" in printed
    assert "requirements-dev.lock" not in printed
