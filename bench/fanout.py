"""Daily fan-out: 10,000 chats due at once, with injected 429s and chats that fail for good.

Reports delivered (must be subscribers minus those made to fail for good), duplicates (must
be 0), the achieved rate as a fraction of the configured limit, and peak memory (RSS of the
bot's process; the fake server runs in another one, as Telegram would).
"""

from __future__ import annotations

import asyncio
import random
import resource
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from datetime import time as clock_time
from pathlib import Path

from bench.remote import RemoteAPI, remote_api
from bot.app import build_application, running
from bot.config import Settings
from bot.core.content import load_library
from bot.core.schedule import DailySchedule, Days, next_occurrence
from bot.jobs.daily import DailySender

CONTENT = Path(__file__).resolve().parent.parent / "content"
CHATS = 10_000
RATE = 200.0  # configured messages/s: 7x Telegram's real 30/s, under this bot's CPU ceiling
SHARE_429 = 0.02
SHARE_GONE = 0.01  # blocked the bot: fail for good with 403


async def measure(api: RemoteAPI) -> dict[str, float]:
    rng = random.Random(4)
    ids = list(range(1, CHATS + 1))
    faults: list[dict[str, object]] = [
        {"method": "sendMessage", "status": 429, "chat_id": chat_id, "retry_after": 1}
        for chat_id in rng.sample(ids, int(CHATS * SHARE_429))
    ]
    gone = set(rng.sample(ids, int(CHATS * SHARE_GONE)))
    faults += [{"method": "sendMessage", "status": 403, "chat_id": c} for c in gone]
    api.fail(faults)
    start = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
    now = [start]
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            _env_file=None,  # type: ignore[call-arg]
            telegram_bot_token=api.token,
            telegram_api_base_url=api.base_url,
            database_path=Path(tmp) / "fanout.sqlite3",
            content_dir=CONTENT,
            rate_limit_per_second=RATE,
            send_concurrency=32,
        )
        app = build_application(
            settings, load_library([CONTENT]), clock=lambda: now[0], scheduler=False
        )
        async with running(app, poll_timeout=1):
            storage = app.bot_data["services"].storage
            schedule = DailySchedule(clock_time(9, 0), Days.EVERY_DAY, "UTC")
            due = next_occurrence(schedule, start)
            async with storage.transaction() as db:  # seed 10,000 subscribers in one go
                await db.executemany(
                    "INSERT INTO users (user_id, first_name, language, created_at, started)"
                    " VALUES (?, 'u', 'en', ?, 1)",
                    [(i, start.isoformat()) for i in ids],
                )
                await db.executemany(
                    "INSERT INTO chats (chat_id, kind, created_at, daily_enabled, daily_time,"
                    " timezone, next_due_at, next_due_day) VALUES (?, 'private', ?, 1, '09:00',"
                    " 'UTC', ?, ?)",
                    [(i, start.isoformat(), due.at.isoformat(), due.day.isoformat()) for i in ids],
                )
            now[0] = due.at
            sender: DailySender = app.bot_data["daily_sender"]
            started = time.perf_counter()
            report = await sender.tick()
            elapsed = time.perf_counter() - started
            while report.outcomes["retry"]:  # anything left for a later tick
                report = await sender.tick()
    stats = api.stats()
    per_chat = Counter({int(k): v for k, v in stats["per_chat"].items()})
    delivered = len(per_chat)
    return {
        "subscribers": CHATS,
        "failing_for_good": len(gone),
        "delivered": delivered,
        "duplicates": sum(n - 1 for n in per_chat.values() if n > 1),
        "seconds": elapsed,
        "rate": delivered / elapsed,
        "rate_fraction": delivered / elapsed / RATE,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "violations": len(stats["violations"]),
    }


def run() -> dict[str, float]:
    with remote_api() as api:
        return asyncio.run(measure(api))


def report() -> None:
    f = run()
    print(
        f"Daily fan-out ({CHATS:,} chats due at once, limit {RATE:.0f}/s, "
        f"{SHARE_429:.0%} 429s, {SHARE_GONE:.0%} blocked)"
    )
    expected = f["subscribers"] - f["failing_for_good"]
    print(f"  delivered:        {f['delivered']:8.0f} (expected {expected:.0f})")
    print(f"  duplicates:       {f['duplicates']:8.0f} (must be 0)")
    print(f"  time:             {f['seconds']:8.1f} s, {f['rate']:.1f} messages/s")
    print(f"  rate / limit:     {f['rate_fraction']:8.2f} (target >= 0.9)")
    print(f"  peak RSS:         {f['peak_rss_mb']:8.0f} MB (the bot's process)")


if __name__ == "__main__":
    report()
