"""PostgreSQL as an operator meets it: the schema it gets, `health` against the server, the
commands that are the SQLite file's only, a wrong DATABASE_URL, and the tests' own guarantee
that CI runs on a real server (REQUIRE_POSTGRES).

Every storage and flow test runs on PostgreSQL too (the `database_target` fixture in
tests/conftest.py); these are what only PostgreSQL has.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import pytest

from bot.cli import main
from bot.storage import DatabaseFileError, Storage, is_busy
from bot.storage.database import schema_version
from tests.conftest import CONTENT, ROOT
from tests.support.postgres import PostgresServer


def _columns_sqlite(path: Path) -> dict[str, list[str]]:
    with sqlite3.connect(path) as db:
        tables = [
            r[0]
            for r in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        return {t: [r[1] for r in db.execute(f"PRAGMA table_info({t})")] for t in tables}


async def test_a_new_postgresql_database_gets_every_table_and_column_of_sqlites(
    postgres_url: str, tmp_path: Path
) -> None:
    """The same columns, in the same order, as SQLite's migrations build: a migration added
    on one side only fails here."""
    lite = Storage(tmp_path / "bot.sqlite3")
    await lite.open()
    await lite.close()
    pg = Storage.at(postgres_url)
    await pg.open()
    await pg.close()
    conn = await asyncpg.connect(postgres_url)
    try:
        rows = await conn.fetch(
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = 'public' ORDER BY table_name, ordinal_position"
        )
        version = await conn.fetchval("SELECT version FROM schema_version")
    finally:
        await conn.close()
    columns: dict[str, list[str]] = {}
    for r in rows:
        columns.setdefault(r["table_name"], []).append(r["column_name"])
    assert columns.pop("schema_version") == ["version"]
    assert columns == _columns_sqlite(tmp_path / "bot.sqlite3")
    assert version == schema_version()


async def test_a_postgresql_database_keeps_its_data_and_refuses_a_newer_schema(
    postgres_url: str,
) -> None:
    first = Storage.at(postgres_url)
    await first.open()
    await first.ensure_user(501, "Ada", "en")
    await first.close()
    again = Storage.at(postgres_url)
    await again.open()  # migrated once: opening again changes nothing
    user = await again.get_user(501)
    await again.close()
    assert user is not None and user.first_name == "Ada"
    conn = await asyncpg.connect(postgres_url)
    await conn.execute("UPDATE schema_version SET version = 999")
    await conn.close()
    with pytest.raises(DatabaseFileError, match="newer than this version of the bot"):
        await Storage.at(postgres_url).open()


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DATABASE_PATH", str(tmp_path / "bot.sqlite3"))
    monkeypatch.setenv("CONTENT_DIR", str(CONTENT))
    monkeypatch.setenv("LEASE_SECONDS", "30")
    monkeypatch.delenv("TELEGRAM_WEBHOOK_URL", raising=False)
    monkeypatch.chdir(tmp_path)  # no .env of the working tree is read
    return tmp_path


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, (out.out + out.err).strip()


def test_health_on_postgresql_reads_the_server_and_the_bots_heartbeat(
    env: Path,
    postgres_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("DATABASE_URL", postgres_url)

    async def prepare(lease: bool) -> None:
        storage = Storage.at(postgres_url)
        await storage.open()
        if lease:
            now = datetime.now(UTC) - timedelta(seconds=2)
            await storage.take_lease("bot-1", os.getpid(), socket.gethostname(), now,
                                     timedelta(hours=1))  # fmt: skip
        await storage.close()

    asyncio.run(prepare(lease=False))
    assert _run(capsys, "health") == (
        0,
        "ok: stopped: database PostgreSQL (DATABASE_URL) answers; no bot is running on it",
    )
    asyncio.run(prepare(lease=True))
    code, said = _run(capsys, "health")
    assert code == 0
    assert said.startswith(
        "ok: database PostgreSQL (DATABASE_URL) answers; the active replica on PostgreSQL"
        f" (DATABASE_URL) (pid {os.getpid()} on {socket.gethostname()}) renewed its lease"
    )
    assert "stands by" not in said  # this host runs the active one
    assert not (env / "bot.sqlite3").exists()  # no SQLite file made on the side


def test_health_beside_a_standby_replica_names_the_active_one_on_its_host(
    env: Path,
    postgres_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("DATABASE_URL", postgres_url)

    async def prepare() -> None:
        storage = Storage.at(postgres_url)
        await storage.open()
        now = datetime.now(UTC) - timedelta(seconds=2)
        await storage.take_lease("bot-1", 4242, "web-1", now, timedelta(hours=1))
        await storage.close()

    asyncio.run(prepare())
    code, said = _run(capsys, "health")
    assert code == 0
    assert said.startswith(
        "ok: database PostgreSQL (DATABASE_URL) answers; the active replica on PostgreSQL"
        " (DATABASE_URL) (pid 4242 on web-1) renewed its lease"
    ), said
    assert said.endswith(
        f"; this host ({socket.gethostname()}) is not it: a replica running here stands by"
    ), said


def test_health_when_postgresql_cannot_be_reached_is_unhealthy_without_the_password(
    env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("DATABASE_URL", f"postgresql://bot:s3cret-pw@127.0.0.1:{port}/bot")
    code, said = _run(capsys, "health")
    assert code == 3  # as for an unusable SQLite file
    assert said.startswith(
        "Database error: DATABASE_URL names a PostgreSQL server that cannot be used:"
    )
    assert "s3cret-pw" not in said


@pytest.mark.parametrize("command", [["backup", "copy.sqlite3"], ["restore", "old.sqlite3"]])
def test_backup_and_restore_refuse_on_postgresql_and_name_pg_dump(
    env: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
) -> None:
    (env / "old.sqlite3").write_bytes(b"")
    monkeypatch.setenv("DATABASE_URL", "postgresql://bot@127.0.0.1:1/bot")
    code, said = _run(capsys, *command)
    assert code == 1
    assert said == (
        f"{command[0]} works on the SQLite file (DATABASE_PATH); with DATABASE_URL (PostgreSQL)"
        " use PostgreSQL's own tools: pg_dump to back up, pg_restore to restore"
        " (docs/operations.md). Nothing was changed."
    )
    assert sorted(p.name for p in env.iterdir()) == ["old.sqlite3"]


def test_a_database_url_that_is_not_postgresql_is_refused_in_one_line(
    env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", "mysql://bot:s3cret-pw@db/bot")
    with pytest.raises(SystemExit) as stopped:
        main(["health"])
    assert str(stopped.value) == (
        "Configuration error: DATABASE_URL: must be a PostgreSQL URL,"
        " postgresql://user:password@host:5432/database (it starts with 'mysql');"
        " for SQLite, unset it and set DATABASE_PATH"
    )


def _pytest_without_postgres(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """This file's schema test in a pytest that finds no PostgreSQL binaries."""
    environment = {k: v for k, v in os.environ.items() if k != "REQUIRE_POSTGRES"}
    environment.update(PG_BINDIR=str(tmp_path), **env)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "tests/test_postgres.py::test_a_postgresql_database_keeps_its_data_and_refuses_a_newer_schema"],
        cwd=ROOT, env=environment, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_without_postgresql_its_tests_are_skipped_saying_why_and_fail_in_ci(
    tmp_path: Path,
) -> None:
    skipped = _pytest_without_postgres(tmp_path)
    assert skipped.returncode == 0, skipped.stdout
    assert "1 skipped" in skipped.stdout
    assert "PostgreSQL tests skipped: no PostgreSQL binaries (initdb, pg_ctl, postgres)" in (
        skipped.stdout
    )
    required = _pytest_without_postgres(tmp_path, REQUIRE_POSTGRES="1")
    assert required.returncode == 1, required.stdout
    assert "REQUIRE_POSTGRES=1 but PostgreSQL cannot run here: no PostgreSQL binaries" in (
        required.stdout
    )


async def test_a_write_while_postgresql_restarts_waits_for_it_and_is_stored(
    postgres_url: str, postgres_server: PostgresServer
) -> None:
    """The server restarts (a deploy, a failover) under a write: the write waits for it,
    as for a locked SQLite file, and is stored once it is back."""
    storage = Storage.at(postgres_url)
    await storage.open()
    try:
        await storage.ensure_user(501, "Ada", "en")
        await asyncio.to_thread(postgres_server.pause)

        async def back_in_a_while() -> None:  # within the busy timeout (15 s)
            await asyncio.sleep(2)
            await asyncio.to_thread(postgres_server.resume)

        back = asyncio.create_task(back_in_a_while())
        try:
            await storage.update_user(501, level="advanced")
            found = await storage.get_user(501)
        finally:
            await back
        assert found is not None and found.level is not None
        assert found.level.value == "advanced"
    finally:
        await storage.close()


async def test_postgresql_out_of_reach_past_the_busy_timeout_is_a_busy_database(
    postgres_url: str, postgres_server: PostgresServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the wait the error is the one a locked SQLite file gives (the user is told
    nothing was saved, the outbox tries again); nothing is written, and once the server is
    back the same storage works."""
    monkeypatch.setattr("bot.storage.postgres.BUSY_TIMEOUT_MS", 300)
    storage = Storage.at(postgres_url)
    await storage.open()
    try:
        await storage.ensure_user(501, "Ada", "en")
        await asyncio.to_thread(postgres_server.pause)
        try:
            with pytest.raises(sqlite3.OperationalError) as refused:
                await storage.update_user(501, level="advanced")
            with pytest.raises(sqlite3.OperationalError):
                await storage.get_user(501)
        finally:
            await asyncio.to_thread(postgres_server.resume)
        assert is_busy(refused.value)
        assert "PostgreSQL cannot be reached" in str(refused.value)
        found = await storage.get_user(501)
        assert found is not None and found.level is None  # the refused write wrote nothing
    finally:
        await storage.close()
