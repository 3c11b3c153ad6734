"""A database damaged while the real `interview-bot run` serves it stops the bot as at start.

The pages of the live file are garbled in place (its size kept), as a backup copied over it
or a bad disk would leave it. The process must end by itself with exit status 3 and one line
naming the file and the problem, as a damaged file at start does (tests/test_database_faults.py):
no traceback, and nothing left running that complains when the event loop is gone.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
from pathlib import Path

from tests.support.fake_bot_api import FakeBotAPI, FakeUser
from tests.support.run import run_env, start_run
from tests.support.seed import seed_due_subscribers
from tests.support.wait import until

ADA = FakeUser(1001, "Ada", "en")
EXIT_DATABASE = 3
WAIT = 120.0  # seconds the bot may take on a busy machine (a bound, not a measurement)


def garble_pages(database: Path, rng: random.Random) -> int:
    """Every page of the file but the first (the header and the schema) overwritten with
    random bytes; the size stays. The count of pages garbled."""
    with sqlite3.connect(database) as db:
        (page_size,) = db.execute("PRAGMA page_size").fetchone()
    db.close()
    size = database.stat().st_size
    pages = size // page_size
    with database.open("r+b") as raw:
        for page in range(1, pages):
            raw.seek(page * page_size)
            raw.write(rng.randbytes(page_size))
    assert database.stat().st_size == size
    return pages - 1


async def test_a_database_damaged_while_running_stops_the_bot_with_one_line(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    database = tmp_path / "bot.sqlite3"
    await seed_due_subscribers(database, 300)
    env = run_env(api, database, LOG_LEVEL="INFO", SCHEDULER_INTERVAL_SECONDS="0.5")
    process = await start_run(env, tmp_path)
    try:
        await until(lambda: api.calls["getUpdates"] >= 1, WAIT, "the first poll")
        api.message(ADA, "/help")
        await api.wait_for(ADA.id, 1, timeout=WAIT)  # serving: the database was read
        assert garble_pages(database, random.Random(28)) > 10
        api.message(ADA, "/start")
        try:
            _, stderr = await asyncio.wait_for(process.communicate(), WAIT)
        except TimeoutError:
            raise AssertionError("the bot did not stop: it runs on a damaged database") from None
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    output = stderr.decode()
    assert process.returncode == EXIT_DATABASE, output[-3000:]
    assert "Traceback" not in output, output[-3000:]
    assert "Event loop is closed" not in output, output[-3000:]
    said = [line for line in output.splitlines() if "Database error" in line]
    assert said == [output.strip().splitlines()[-1]], output[-3000:]
    assert said[0].startswith(f"Database error: {database} is "), said
    # Not noted as closed cleanly: the next start reads the file whole and finds the damage.
    assert not (tmp_path / "bot.sqlite3-clean").exists()
