"""`interview-bot restore`: a backup brought back resends nothing and loses nothing.

The fault sweep of issue 28 restored a backup taken mid fan-out by the documented copy-back:
the restarted bot sent again every prompt delivered after the snapshot (2,049 of 3,000). The
main test here does the same against the real `interview-bot run`, `backup`, `restore` and
`health` processes and counts prompts per chat in the fake Bot API's record.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sqlite3
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.storage.wire import WireLog, wire_log_path
from tests.conftest import CONTENT
from tests.support.fake_bot_api import FakeBotAPI, FakeUser
from tests.support.run import (
    FAST_RUN,
    SENDERS,
    outbox_open_rows,
    prompts_sent,
    run_env,
    start_run,
)
from tests.support.seed import seed_due_subscribers
from tests.support.wait import until

CHATS = 1000  # the sweep's 3,000 take minutes on a loaded machine; run once by hand
CONCURRENCY = SENDERS
WAIT = 180.0  # seconds a step of a fan-out may take on a busy machine (a bound)
WATCHER = FakeUser(999_999, "Sentinel")

# A fan-out slow enough to take a backup in the middle of it, fast retries, a quick stop.
SETTINGS = {**FAST_RUN, "RATE_LIMIT_PER_SECOND": "100"}


async def command(database: Path, *args: str) -> tuple[int, str, str]:
    """An `interview-bot` command on `database`: its status, stdout and stderr."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", *args, cwd=database.parent,
        env={**os.environ, "DATABASE_PATH": str(database), "CONTENT_DIR": str(CONTENT)},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


def _names(folder: Path, prefix: str = "") -> list[str]:
    """The names in `folder` that start with `prefix`, sorted."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(prefix))


async def _start(api: FakeBotAPI, database: Path) -> asyncio.subprocess.Process:
    return await start_run(run_env(api, database, **SETTINGS), database.parent)


@pytest.mark.parametrize("stop", ["kill -9 with requests out", "SIGTERM"])
async def test_a_backup_taken_mid_fan_out_restored_sends_each_prompt_once(
    api: FakeBotAPI, tmp_path: Path, stop: str
) -> None:
    """Backup while the prompts go out; more go out; the bot is killed (-9) with requests in
    flight, or stopped; `restore`; a restart: every subscriber has the day's prompt once."""
    database = tmp_path / "bot.sqlite3"
    backup = tmp_path / "backups" / "bot-today.sqlite3"
    chats = await seed_due_subscribers(database, CHATS)
    first = await _start(api, database)
    try:
        await until(lambda: len(prompts_sent(api)) >= CHATS // 4, WAIT, "a quarter of the fan-out")
        code, out, err = await command(database, "backup", str(backup))
        assert code == 0, err
        at_backup = len(prompts_sent(api))
        await until(lambda: len(prompts_sent(api)) >= CHATS * 3 // 5, WAIT, "more after the backup")
        if stop == "SIGTERM":
            first.send_signal(signal.SIGTERM)
            _, stderr = await asyncio.wait_for(first.communicate(), 30)
            assert first.returncode == 0, stderr.decode()[-2000:]
        else:  # every worker ends up with a request out and no answer; the process dies
            api.hang()
            await until(lambda: api.hanging == CONCURRENCY, WAIT, "every worker with one out")
            first.kill()
            await first.wait()
    finally:
        if first.returncode is None:
            first.kill()
            await first.wait()
    api.unhang()
    before_restore = len(prompts_sent(api))
    assert at_backup < before_restore < CHATS  # the backup is older than what was sent

    code, out, err = await command(database, "restore", str(backup))
    assert code == 0, err
    (aside,) = _names(tmp_path, "replaced-")
    assert "bot.sqlite3-wire" in _names(tmp_path / aside), out
    assert f"are in {tmp_path / aside}/" in out, out

    code, out, err = await command(database, "health")
    assert code == 0, err
    assert out == f"ok: stopped: database {database} answers; no bot is running on it\n"

    second = await _start(api, database)
    try:
        await until(lambda: len(prompts_sent(api)) == CHATS, WAIT, "every chat prompted")
        for _ in range(600):
            if await outbox_open_rows(database) == 0:
                break
            await asyncio.sleep(0.05)
        # A later message answered: anything sent before it has reached the server.
        seen = len(api.to(WATCHER.id))
        api.message(WATCHER, "/help")
        await api.wait_for(WATCHER.id, seen + 1, timeout=60)
        second.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(second.communicate(), 30)
    finally:
        if second.returncode is None:
            second.kill()
            await second.wait()
    assert second.returncode == 0, stderr.decode()[-2000:]
    per_chat = prompts_sent(api)
    twice = sorted(c for c in chats if per_chat[c] > 1)
    never = sorted(c for c in chats if per_chat[c] == 0)
    assert (len(twice), len(never)) == (0, 0), f"sent twice: {twice[:10]}, never: {never[:10]}"


async def test_restore_refuses_while_a_bot_runs_on_the_database(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    database = tmp_path / "bot.sqlite3"
    backup = tmp_path / "backup.sqlite3"
    await seed_due_subscribers(database, 3)
    code, _, err = await command(database, "backup", str(backup))
    assert code == 0, err
    bot = await _start(api, database)
    try:
        await until(lambda: api.calls["getUpdates"] >= 1, 60, "the first poll")
        before = os.stat(database).st_ino, _names(tmp_path)
        code, out, err = await command(database, "restore", str(backup))
        after = os.stat(database).st_ino, _names(tmp_path)
    finally:
        bot.send_signal(signal.SIGTERM)
        await asyncio.wait_for(bot.communicate(), 30)
    assert code == 5, out + err
    assert err == (
        f"A bot is running on {database} (pid {bot.pid} on {socket.gethostname()}): stop it"
        " first (docker stop interview-bot, or stop `interview-bot run`), then restore again."
        " Nothing was changed.\n"
    )
    assert after == before  # the same file, nothing moved aside, no copy left behind


def _lease_of_a_bot_elsewhere(database: Path, renewed_ago: float) -> None:
    """The lease a bot on another host (a container since removed) left in the database."""
    now = datetime.now(UTC)
    with sqlite3.connect(database) as db:
        db.execute(
            "INSERT INTO instance_lease (name, owner, pid, host, since, heartbeat_at, expires_at)"
            " VALUES ('bot', 'gone-container', 7, 'a-removed-container', ?, ?, ?)",
            (
                (now - timedelta(hours=2)).isoformat(),
                (now - timedelta(seconds=renewed_ago)).isoformat(),
                (now - timedelta(seconds=renewed_ago - 10)).isoformat(),
            ),
        )
    db.close()


async def test_a_backup_of_a_served_database_restores_as_stopped_not_stuck(
    tmp_path: Path,
) -> None:
    """The sweep: `health` called a restored backup's bot stuck ("last renewed its lease 815 s
    ago") and failed, though no bot ran. A backup carries no lease, and a restore gives
    any back: health says the database is stopped, status 0."""
    database = tmp_path / "bot.sqlite3"
    backup = tmp_path / "backup.sqlite3"
    await seed_due_subscribers(database, 3)
    _lease_of_a_bot_elsewhere(database, renewed_ago=815)
    code, _, err = await command(database, "backup", str(backup))
    assert code == 0, err
    code, out, err = await command(database, "restore", str(backup))
    assert code == 0, err
    code, out, err = await command(database, "health")
    assert (code, out, err) == (
        0,
        f"ok: stopped: database {database} answers; no bot is running on it\n",
        "",
    )


async def test_without_the_replaced_database_what_the_backup_owed_counts_as_sent(
    tmp_path: Path,
) -> None:
    """The disk was lost: nothing says what the lost bot sent after the backup, so the
    prompts already due in it count as possibly sent (never twice), and the output says so."""
    database = tmp_path / "bot.sqlite3"
    backup = tmp_path / "backup.sqlite3"
    chats = await seed_due_subscribers(database, 5)  # due a minute ago, not yet sent
    code, _, err = await command(database, "backup", str(backup))
    assert code == 0, err
    for name in _names(tmp_path, "bot.sqlite3"):
        os.unlink(tmp_path / name)
    code, out, err = await command(database, "restore", str(backup))
    assert code == 0, err
    assert f"Nothing to compare with (there was no database at {database}): 5 " in out, out
    with sqlite3.connect(database) as db:
        rows = db.execute("SELECT chat_id, status FROM daily_sends ORDER BY chat_id").fetchall()
    db.close()
    assert rows == [(c, "unknown") for c in chats]


async def test_restore_says_which_answers_and_users_the_backup_lacks(tmp_path: Path) -> None:
    """Answers and users added after the snapshot are not merged: the output counts them,
    with the time of the first answer, and the replaced database keeps them."""
    database = tmp_path / "bot.sqlite3"
    backup = tmp_path / "backup.sqlite3"
    await seed_due_subscribers(database, 2)
    code, _, err = await command(database, "backup", str(backup))
    assert code == 0, err
    with sqlite3.connect(database) as db:  # after the backup: one new user, two answers
        db.execute(
            "INSERT INTO users (user_id, first_name, created_at) VALUES (7, 'new', ?)",
            (datetime.now(UTC).isoformat(),),
        )
        db.executemany(
            "INSERT INTO answers (user_id, chat_id, question_id, level, answer, score, covered,"
            " missed, answered_at, local_day) VALUES (?, ?, 'q', 'beginner', 'an answer', 0.5,"
            " '[]', '[]', ?, '2026-12-07')",
            [(50_001, 50_001, "2026-12-07T14:02:11+00:00"), (7, 7, "2026-12-07T14:30:00+00:00")],
        )
    db.close()
    code, out, err = await command(database, "restore", str(backup))
    assert code == 0, err
    assert (
        "Not in the backup: 2 answers given from 2026-12-07 14:02 UTC, 1 user who started"
        " since; settings changed since (schedules, levels, languages) are as they were then."
        " The replaced database keeps them.\n"
    ) in out, out


def _wire_file_with(database: Path, row_id: int, attempt: int) -> None:
    """The wire file a bot killed with that request out leaves beside the database."""
    log = WireLog(wire_log_path(database))
    log.start()
    log.written(row_id, attempt)
    log.close()


def _owe(db: sqlite3.Connection, key: str, status: str, attempts: int) -> None:
    db.execute(
        "INSERT INTO outbox (kind, dedup_key, chat_id, payload, status, attempts, created_at,"
        " deadline) VALUES ('feedback', ?, 50001, '{\"messages\": [\"x\"]}', ?, ?, ?, ?)",
        (key, status, attempts, datetime.now(UTC).isoformat(),
         (datetime.now(UTC) + timedelta(hours=1)).isoformat()),
    )  # fmt: skip


async def test_restore_takes_each_messages_fate_from_the_replaced_database_and_wire_file(
    tmp_path: Path,
) -> None:
    """Row by row: what the replaced database (and its wire file, for a request that was out
    when it stopped) knows of a message the backup owes decides whether it is owed still."""
    database = tmp_path / "bot.sqlite3"
    backup = tmp_path / "backup.sqlite3"
    await seed_due_subscribers(database, 1)
    with sqlite3.connect(database) as db:
        _owe(db, "in flight, then queued again", "sending", 1)
        _owe(db, "in flight, then sent", "sending", 1)
        _owe(db, "queued, then out but never written", "pending", 0)
        _owe(db, "queued, then out and written", "pending", 0)
        _owe(db, "queued, then refused", "pending", 0)
    db.close()
    code, _, err = await command(database, "backup", str(backup))
    assert code == 0, err
    with sqlite3.connect(database) as db:  # what happened after the backup
        for key, status in [
            ("in flight, then queued again", "pending"),
            ("in flight, then sent", "sent"),
            ("queued, then out but never written", "sending"),
            ("queued, then out and written", "sending"),
            ("queued, then refused", "failed"),
        ]:
            db.execute(
                "UPDATE outbox SET status = ?, attempts = 1 WHERE dedup_key = ?", (status, key)
            )
        (written,) = db.execute(
            "SELECT id FROM outbox WHERE dedup_key = 'queued, then out and written'"
        ).fetchone()
    db.close()
    _wire_file_with(database, written, attempt=1)
    code, _, err = await command(database, "restore", str(backup))
    assert code == 0, err
    with sqlite3.connect(database) as db:
        fates = dict(db.execute("SELECT dedup_key, status FROM outbox").fetchall())
    db.close()
    assert fates == {
        "in flight, then queued again": "pending",  # it never left: owed
        "in flight, then sent": "sent",
        "queued, then out but never written": "pending",  # the wire file: it never left
        "queued, then out and written": "unknown",  # may have arrived: not sent again
        "queued, then refused": "pending",  # did not arrive: the restored bot tries again
    }


async def test_an_update_the_replaced_database_handled_is_not_handled_again(
    tmp_path: Path,
) -> None:
    """An update recorded but not handled when the backup was taken, handled since: the
    restored bot must not answer it a second time."""
    database = tmp_path / "bot.sqlite3"
    backup = tmp_path / "backup.sqlite3"
    await seed_due_subscribers(database, 1)
    seen = datetime.now(UTC).isoformat()
    with sqlite3.connect(database) as db:
        db.executemany(
            "INSERT INTO processed_updates (update_id, seen_at, state, body)"
            " VALUES (?, ?, 'received', '{}')",
            [(41, seen), (42, seen)],
        )
    db.close()
    code, _, err = await command(database, "backup", str(backup))
    assert code == 0, err
    with sqlite3.connect(database) as db:  # 41 handled after the backup; 42 not yet
        db.execute("UPDATE processed_updates SET state = 'done', body = NULL WHERE update_id = 41")
    db.close()
    code, _, err = await command(database, "restore", str(backup))
    assert code == 0, err
    with sqlite3.connect(database) as db:
        states = db.execute("SELECT update_id, state FROM processed_updates ORDER BY 1").fetchall()
    db.close()
    assert states == [(41, "done"), (42, "received")]
