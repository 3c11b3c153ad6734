"""Kill -9 in the middle of a fan-out, then a restart: how many chats end with no prompt or two.

Each round seeds 3,000 private chats whose prompt is due, runs the real `interview-bot run`
against the fake Bot API (in this process), kills it (-9) once a random share (10–90%) of
the prompts has arrived, starts it again and lets it finish. A chat whose request was out
at the kill may have got its prompt, so it is recorded 'unknown' and not sent again: if the
request had not reached the server yet, that chat ends with none. The figure to keep small.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import signal
import sys
import tempfile
from collections import Counter
from pathlib import Path

from bot.storage import Storage
from tests.support.fake_bot_api import FakeBotAPI, FakeUser
from tests.support.seed import seed_due_subscribers

CONTENT = Path(__file__).resolve().parent.parent / "content"
CHATS = 3_000
ROUNDS = 6
RATE = 300  # messages/s: a round takes seconds, not minutes
CONCURRENCY = 16
WATCHER = FakeUser(999_999, "Sentinel")


def _env(api: FakeBotAPI, database: Path) -> dict[str, str]:
    return {
        **os.environ,
        "TELEGRAM_BOT_TOKEN": api.token,
        "TELEGRAM_API_BASE_URL": api.base_url,
        "DATABASE_PATH": str(database),
        "CONTENT_DIR": str(CONTENT),
        "LOG_LEVEL": "WARNING",
        "RATE_LIMIT_PER_SECOND": str(RATE),
        "SEND_CONCURRENCY": str(CONCURRENCY),
        "SCHEDULER_INTERVAL_SECONDS": "0.5",
        "OUTBOX_POLL_SECONDS": "0.1",
        "RETRY_BASE_SECONDS": "0.1",
        "RETRY_MAX_SECONDS": "1",
    }


async def _seed(database: Path) -> list[int]:
    return await seed_due_subscribers(database, CHATS)


async def _start(api: FakeBotAPI, database: Path) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "run", cwd=database.parent, env=_env(api, database),
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip


def _prompts(api: FakeBotAPI) -> Counter[int]:
    return Counter(s.chat_id for s in api.sent if s.method == "sendMessage" and s.chat_id > 50_000)


async def _statuses(database: Path) -> dict[str, int]:
    storage = Storage(database)
    await storage.open()
    try:
        return await storage.outbox_statuses()
    finally:
        await storage.close()


async def one_round(kill_share: float) -> dict[str, int]:
    api = FakeBotAPI()
    await api.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            database = Path(tmp) / "bot.sqlite3"
            chats = await _seed(database)
            first = await _start(api, database)
            while len(_prompts(api)) < kill_share * CHATS:  # noqa: ASYNC110 - another process
                await asyncio.sleep(0.005)
            first.send_signal(signal.SIGKILL)
            await first.wait()
            second = await _start(api, database)
            while True:  # every chat's prompt recorded (one row each), and none open
                statuses = await _statuses(database)
                open_rows = sum(statuses.get(s, 0) for s in ("pending", "claimed", "sending"))
                if sum(statuses.values()) == CHATS and not open_rows:
                    break
                await asyncio.sleep(0.2)
            before = len(api.to(WATCHER.id))  # a later message answered: all sent arrived
            api.message(WATCHER, "/help")
            await api.wait_for(WATCHER.id, before + 1, timeout=30)
            second.send_signal(signal.SIGTERM)
            await second.wait()
            per_chat = _prompts(api)
            return {
                "none": sum(1 for c in chats if per_chat[c] == 0),
                "two": sum(1 for c in chats if per_chat[c] > 1),
                "unknown": statuses.get("unknown", 0),
                "unread": api.unread["sendMessage"],
            }
    finally:
        await api.stop()


async def measure(rounds: int = ROUNDS, seed: int = 10) -> list[dict[str, int]]:
    rng = random.Random(seed)
    return [await one_round(rng.uniform(0.1, 0.9)) for _ in range(rounds)]


def report(rounds: int = ROUNDS) -> None:
    # The killed process's connections end in the fake server's handlers: expected, not news.
    logging.getLogger("aiohttp").setLevel(logging.CRITICAL)
    results = asyncio.run(measure(rounds))
    print(
        f"Kill -9 mid fan-out, then a restart ({CHATS:,} chats, {RATE}/s, "
        f"{CONCURRENCY} in flight, {len(results)} rounds)"
    )
    for key, what in (
        ("none", "chats with no prompt"),
        ("two", "chats with two (must be 0)"),
        ("unknown", "rows recorded 'unknown'"),
        ("unread", "arrived whole, not read"),
    ):
        values = [r[key] for r in results]
        print(f"  {what + ':':28} {sum(values):5d} in all, per round {values}")


if __name__ == "__main__":
    report(int(sys.argv[1]) if len(sys.argv) > 1 else ROUNDS)
