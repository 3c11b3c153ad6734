"""`interview-bot migrate-db --to postgresql://…`: a team moves from its SQLite file to
PostgreSQL without losing a streak, an answer or a message owed.

Run through the real CLI against the real PostgreSQL of tests/support/postgres.py (skipped,
saying why, where there is none); the bot afterwards is the real `interview-bot run`
against the fake Bot API. Expected counts are read from the SQLite file with sqlite3 and
from the server with asyncpg, never from the command's own output.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal
import socket
import sqlite3
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

import asyncpg
import pytest

from bot.cli import main
from bot.core.levels import Level
from bot.core.models import AnswerRecord
from bot.core.outbox import Draft, Kind
from bot.core.streaks import StreakState
from bot.storage import Storage
from bot.storage.database import migrations
from tests.support.fake_bot_api import FakeBotAPI, FakeUser
from tests.support.run import polling_run
from tests.support.wait import until

ADA = FakeUser(501, "Ada")
BEN = 502
GROUP = -1_001_234_567_890
QUESTION = "triton-q3"
PASSWORD = "s3cret-pw"


def _with_password(url: str) -> str:
    """The same database, with a password in the URL (the test server trusts local users,
    so it is accepted and ignored): what must never be printed."""
    parts = urlsplit(url)
    return parts._replace(
        netloc=parts.netloc.replace("postgres@", f"postgres:{PASSWORD}@")
    ).geturl()


async def _seed(path: Path) -> None:
    """A team's database made by the bot's own storage calls: a user with a streak,
    answers, a review card and an open question; a group round with an answer; a message
    owed; a mock interview under way; an interview plan."""
    now = datetime.now(UTC)
    yesterday = (now - timedelta(days=1)).date()
    storage = Storage(path)
    await storage.open()
    try:
        for uid, name in ((ADA.id, "Ada"), (BEN, "Ben")):
            await storage.ensure_user(uid, name, "en")
            await storage.ensure_chat(uid, "private", "", "en")
            await storage.update_user(uid, language="en")
        for n, qid in enumerate(("triton-q1", "triton-q2")):
            await storage.open_question(ADA.id, ADA.id, qid, now - timedelta(days=1, minutes=n))
            when = now - timedelta(days=1)
            record = AnswerRecord(ADA.id, ADA.id, qid, Level.BEGINNER, "batching and queues",
                                  0.6, ["batching"], ["queue delay"], 0, when,
                                  yesterday.isoformat())  # fmt: skip
            recorded = await storage.record_answer(
                record, lambda s: StreakState(current=3, best=5, last_day=yesterday)
            )
            assert recorded is not None
            await storage.save_review(
                ADA.id, qid, card='{"step": 1}', due=now + timedelta(days=2), previous_card=None,
                answer_id=recorded.answer_id, reviewed_at=when, rating=3,
            )  # fmt: skip
        await storage.open_question(ADA.id, ADA.id, QUESTION, now)
        await storage.ensure_chat(GROUP, "supergroup", "Study group", "en")
        round_id = await storage.open_round(
            GROUP, "triton-q1", ADA.id, now, now + timedelta(hours=1), daily=False
        )
        assert round_id is not None
        await storage.set_round_message(round_id, 77)
        await storage.record_round_answer(
            round_id, user_id=ADA.id, first_name="Ada", message_id=78, answer="batching",
            score=0.5, covered=["batching"], missed=[], now=now,
            local_day=now.date().isoformat(), update_streak=lambda s: s,
        )  # fmt: skip
        await storage.enqueue(
            Draft(Kind.REMINDER, "seeded-1", BEN, ("owed",), now - timedelta(days=3)),
            now - timedelta(days=3),
        )  # fmt: skip
        await storage.start_mock(BEN, BEN, ["triton-q1", "triton-q2"], None, now)
        await storage.set_interview(ADA.id, date.today() + timedelta(days=10), now)
    finally:
        await storage.close()


def _sqlite_counts(path: Path) -> dict[str, int]:
    db = sqlite3.connect(path)
    try:
        tables = [
            r[0]
            for r in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        return {t: db.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in tables}  # noqa: S608
    finally:
        db.close()


async def _pg_counts(url: str) -> dict[str, int]:
    conn = await asyncpg.connect(url)
    try:
        tables = [
            r[0]
            for r in await conn.fetch(
                "SELECT table_name FROM information_schema.tables"
                " WHERE table_schema = 'public' AND table_type = 'BASE TABLE'"
            )
        ]
        return {t: await conn.fetchval(f'SELECT COUNT(*) FROM "{t}"') for t in tables}  # noqa: S608
    finally:
        await conn.close()


def _fingerprint(folder: Path) -> dict[str, str]:
    """Every file of the SQLite database (itself, -wal, -shm, …) and its content hash."""
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.iterdir())
        if p.name.startswith("bot.sqlite3")
    }


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DATABASE_PATH", str(tmp_path / "bot.sqlite3"))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)  # no .env of the working tree is read
    return tmp_path


def _migrate(capsys: pytest.CaptureFixture[str], url: str) -> tuple[int, str, str]:
    code = main(["migrate-db", "--to", url])
    out = capsys.readouterr()
    return code, out.out, out.err


async def test_a_team_moved_to_postgresql_keeps_every_row_and_the_bot_goes_on_there(
    env: Path, postgres_url: str, api: FakeBotAPI, capsys: pytest.CaptureFixture[str]
) -> None:
    database = env / "bot.sqlite3"
    await _seed(database)
    before = _sqlite_counts(database)
    files = _fingerprint(env)
    with sqlite3.connect(database) as db:
        highest_answer = db.execute("SELECT MAX(id) FROM answers").fetchone()[0]
    db.close()

    code, out, err = await asyncio.to_thread(_migrate, capsys, _with_password(postgres_url))

    assert (code, err) == (0, "")
    assert PASSWORD not in out
    after = await _pg_counts(postgres_url)
    assert after.pop("schema_version") == 1
    assert before.pop("instance_lease") == 0 and after.pop("instance_lease") == 0
    assert after == before
    for table in ("users", "answers", "reviews", "open_questions", "rounds", "round_answers",
                  "outbox", "mock_sessions", "interview_plans"):  # fmt: skip
        assert before[table] > 0, table
        assert f"{table}: " in out and out.split(f"{table}:")[1].split()[0] == str(before[table])
    assert _fingerprint(env) == files  # the source is only read

    # The bot on PostgreSQL: Ada answers the question left open, her streak goes on from 3.
    def said() -> str:
        return "\n".join(s.visible for s in api.to(ADA.id))

    async with polling_run(api, env, DATABASE_URL=postgres_url) as bot:
        api.message(ADA, "/stats")
        await until(lambda: "📊" in said(), 60, "Ada's /stats")
        assert "📊 2 answers · 🔥 3 days, best 5" in said()
        api.message(ADA, "Dynamic batching with max_queue_delay_microseconds and queues")
        await until(lambda: "Streak:" in said(), 60, "Ada's score")
        bot.send_signal(signal.SIGTERM)
        await asyncio.wait_for(bot.wait(), 30)
    assert "🔥 Streak: 4 days · best 5" in said()
    conn = await asyncpg.connect(postgres_url)
    try:
        ids = [r[0] for r in await conn.fetch("SELECT id FROM answers WHERE question_id = $1",
                                               QUESTION)]  # fmt: skip
    finally:
        await conn.close()
    assert len(ids) == 1 and ids[0] > highest_answer  # a new id, past the copied ones


async def test_a_target_with_rows_is_refused_and_left_as_it_was(
    env: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    await _seed(env / "bot.sqlite3")
    files = _fingerprint(env)
    other = Storage.at(postgres_url)  # a bot already ran there: one user of its own
    await other.open()
    await other.ensure_user(900, "Zoe", "en")
    await other.close()
    before = await _pg_counts(postgres_url)

    code, out, err = await asyncio.to_thread(_migrate, capsys, _with_password(postgres_url))

    assert (code, out) == (1, "")
    shown = postgres_url.replace("postgres@", "postgres:***@")
    assert err.strip() == (
        f"The PostgreSQL database {shown} is not empty: it holds rows already (in users)."
        " migrate-db copies into an empty database only (createdb a new one)."
        " Nothing was changed."
    )
    assert await _pg_counts(postgres_url) == before
    assert _fingerprint(env) == files


async def test_an_empty_database_a_bot_has_started_on_takes_the_copy(
    env: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The bot's schema with no rows (DATABASE_URL set, the bot started and stopped before
    any user came) is empty: the copy goes in."""
    await _seed(env / "bot.sqlite3")
    made = Storage.at(postgres_url)
    await made.open()
    await made.close()
    code, _, err = await asyncio.to_thread(_migrate, capsys, postgres_url)
    assert (code, err) == (0, "")
    counts = _sqlite_counts(env / "bot.sqlite3")
    assert {t: n for t, n in (await _pg_counts(postgres_url)).items() if t in counts} == counts


async def test_a_failure_part_way_leaves_the_target_empty(
    env: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A row PostgreSQL cannot hold (a NUL character: SQLite text may carry one) in a table
    copied late: the tables made and the rows copied before it are all rolled back."""
    database = env / "bot.sqlite3"
    await _seed(database)
    with sqlite3.connect(database) as db:
        db.execute("UPDATE outbox SET last_error = ?", ("bad\x00byte",))
    db.close()
    code, out, err = await asyncio.to_thread(_migrate, capsys, _with_password(postgres_url))
    assert (code, out) == (3, "")
    assert err.startswith("Database error: the copy to postgresql://postgres:***@")
    assert "failed: outbox: a row did not go over" in err
    assert err.rstrip().endswith("Nothing was written there.")
    assert PASSWORD not in err
    assert await _pg_counts(postgres_url) == {}  # not even the schema


async def test_a_running_bot_or_a_newer_database_is_refused_before_the_target_is_touched(
    env: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    database = env / "bot.sqlite3"
    await _seed(database)
    storage = Storage(database)
    await storage.open()
    now = datetime.now(UTC)
    await storage.take_lease("bot-1", os.getpid(), socket.gethostname(), now, timedelta(hours=1))
    await storage.close()
    code, out, err = await asyncio.to_thread(_migrate, capsys, postgres_url)
    assert (code, out) == (5, "")
    assert err.startswith(f"A bot is running on {database} (pid {os.getpid()} on ")
    assert err.rstrip().endswith("Nothing was changed.")

    with sqlite3.connect(database) as db:
        db.execute("DELETE FROM instance_lease")
        db.execute("PRAGMA user_version = 999")
    db.close()
    code, out, err = await asyncio.to_thread(_migrate, capsys, postgres_url)
    assert (code, out) == (3, "")
    assert "is at schema 999, newer than this version of the bot knows" in err
    assert await _pg_counts(postgres_url) == {}


def test_a_target_that_is_not_postgresql_is_a_usage_error(
    env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (env / "bot.sqlite3").write_bytes(b"")
    code, out, err = _migrate(capsys, "mysql://bot:s3cret-pw@db/bot")
    assert (code, out) == (2, "")
    assert err.strip() == (
        "--to must be a PostgreSQL URL, postgresql://user:password@host:5432/database"
        " (it starts with 'mysql')"
    )


async def test_postgresql_out_of_reach_is_named_without_the_password(
    env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    await _seed(env / "bot.sqlite3")
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, out, err = await asyncio.to_thread(
        _migrate, capsys, f"postgresql://bot:{PASSWORD}@127.0.0.1:{port}/bot"
    )
    assert (code, out) == (3, "")
    assert err.startswith("Database error: --to names a PostgreSQL server that cannot be used:")
    assert PASSWORD not in err


async def test_a_database_of_an_older_version_is_migrated_in_a_copy_and_left_as_it_was(
    env: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A team still on the previous version (schema 16: no interview plans yet) moves in
    one step; its file stays at 16 for the old version to run on."""
    database = env / "bot.sqlite3"
    db = sqlite3.connect(database)
    for version, sql in migrations():
        if version <= 16:
            db.executescript(f"BEGIN;\n{sql}\nPRAGMA user_version = {version};\nCOMMIT;")
    db.execute(
        "INSERT INTO users (user_id, first_name, created_at, streak_current, streak_best)"
        " VALUES (501, 'Ada', '2026-12-01T10:00:00+00:00', 3, 5)"
    )
    db.commit()
    db.close()
    files = _fingerprint(env)

    code, out, err = await asyncio.to_thread(_migrate, capsys, postgres_url)

    assert (code, err) == (0, "")
    assert "interview_plans: 0" in " ".join(out.split())
    conn = await asyncpg.connect(postgres_url)
    try:
        ada = await conn.fetchrow("SELECT first_name, streak_current, streak_best FROM users")
    finally:
        await conn.close()
    assert tuple(ada) == ("Ada", 3, 5)
    assert _fingerprint(env) == files
    db = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 16
    db.close()


async def test_a_database_with_tables_of_something_else_is_refused_even_empty(
    env: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The wrong database named (another application's, its tables empty): refused, not
    mixed with the bot's tables."""
    await _seed(env / "bot.sqlite3")
    conn = await asyncpg.connect(postgres_url)
    await conn.execute("CREATE TABLE invoices (id BIGINT PRIMARY KEY, total NUMERIC)")
    await conn.close()
    code, out, err = await asyncio.to_thread(_migrate, capsys, postgres_url)
    assert (code, out) == (1, "")
    assert err.strip() == (
        f"The PostgreSQL database {postgres_url} is not empty: it has tables that are not the"
        " bot's (invoices). migrate-db copies into an empty database only (createdb a new"
        " one). Nothing was changed."
    )
    assert await _pg_counts(postgres_url) == {"invoices": 0}
