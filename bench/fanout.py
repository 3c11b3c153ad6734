"""Daily fan-out: 10,000 chats due at once, with injected 429s and chats that fail for good;
then 3,000 chats due during a one-minute API outage (30 s refused, 30 s of 502s).

Reports delivered (must be subscribers minus those made to fail for good), duplicates (must
be 0), the achieved rate as a fraction of the configured limit, peak memory (RSS of the
bot's process; the fake server runs in another one, as Telegram would), and for the outage
the time to drain everything once the API answers again.
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
from bot.storage import Storage

CONTENT = Path(__file__).resolve().parent.parent / "content"
CHATS = 10_000
RATE = 200.0  # configured messages/s: 7x Telegram's real 30/s, under this bot's CPU ceiling
SHARE_429 = 0.02
SHARE_GONE = 0.01  # blocked the bot: fail for good with 403
OUTAGE_CHATS = 3_000
REFUSE_SECONDS = 30.0
BAD_GATEWAY_SECONDS = 30.0


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
            await sender.tick()
            await _drained(storage)  # the outbox sender delivers
            elapsed = time.perf_counter() - started
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


async def measure_outage(api: RemoteAPI) -> dict[str, float]:
    """Prompts fall due while Telegram refuses connections, then answers 502, then recovers."""
    ids = list(range(1, OUTAGE_CHATS + 1))
    start = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
    now = [start]
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            _env_file=None,  # type: ignore[call-arg]
            telegram_bot_token=api.token,
            telegram_api_base_url=api.base_url,
            database_path=Path(tmp) / "outage.sqlite3",
            content_dir=CONTENT,
            rate_limit_per_second=RATE,
            send_concurrency=32,
        )
        app = build_application(
            settings, load_library([CONTENT]), clock=lambda: now[0], scheduler=False
        )
        async with running(app, poll_timeout=1):
            storage = app.bot_data["services"].storage
            await _seed(storage, ids, start)
            now[0] = next_occurrence(
                DailySchedule(clock_time(9, 0), Days.EVERY_DAY, "UTC"), start
            ).at
            api.outage(REFUSE_SECONDS, BAD_GATEWAY_SECONDS)
            began = time.perf_counter()
            await asyncio.sleep(1.0)  # the API is gone when the prompts fall due
            await app.bot_data["daily_sender"].tick()
            back = began + REFUSE_SECONDS + BAD_GATEWAY_SECONDS
            await _drained(storage)
            drained = time.perf_counter()
            statuses = await storage.outbox_statuses()
    stats = api.stats()
    per_chat = Counter({int(k): v for k, v in stats["per_chat"].items()})
    return {
        "subscribers": OUTAGE_CHATS,
        "delivered": sum(1 for c in ids if per_chat[c] >= 1),
        "duplicates": sum(per_chat[c] - 1 for c in ids if per_chat[c] > 1),
        "drain_seconds": drained - back,
        "unknown": statuses.get("unknown", 0),
        "expired": statuses.get("expired", 0),
    }


async def _drained(storage: Storage) -> None:
    """Until the outbox holds nothing open (delivered, or given up)."""
    while await storage.outbox_open_count():  # noqa: ASYNC110 - another task's progress
        await asyncio.sleep(0.05)


async def _seed(storage: Storage, ids: list[int], start: datetime) -> None:
    schedule = DailySchedule(clock_time(9, 0), Days.EVERY_DAY, "UTC")
    due = next_occurrence(schedule, start)
    async with storage.transaction() as db:
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


def run() -> dict[str, float]:
    with remote_api() as api:
        return asyncio.run(measure(api))


def run_outage() -> dict[str, float]:
    with remote_api() as api:
        return asyncio.run(measure_outage(api))


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
    o = run_outage()
    print(
        f"Outage ({OUTAGE_CHATS:,} chats due while the API refuses connections for "
        f"{REFUSE_SECONDS:.0f} s, then answers 502 for {BAD_GATEWAY_SECONDS:.0f} s)"
    )
    print(f"  delivered:        {o['delivered']:8.0f} (expected {o['subscribers']:.0f})")
    print(f"  duplicates:       {o['duplicates']:8.0f} (must be 0)")
    print(f"  drain after back: {o['drain_seconds']:8.1f} s (all delivered, from the API's return)")
    print(f"  unknown, expired: {o['unknown']:4.0f}, {o['expired']:.0f}")


if __name__ == "__main__":
    report()
