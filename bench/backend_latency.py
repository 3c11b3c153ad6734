"""Per-update latency on PostgreSQL against SQLite: the same updates through the real
Application against the fake Bot API, one at a time, on each backend.

Each of USERS people sends `/quiz triton`, then an answer that is scored (its storage
writes: the answer, the review, the streak); the next update is pushed only once the reply
to the last one has arrived, so what is timed is one update's own path (getUpdates, the
inbox, the handlers' reads and writes, the reply), with nothing queued behind it. The fake
server runs in its own process with no added latency: the difference between the two is the
database's. PostgreSQL is a real server (tests/support/postgres.py: initdb in a temporary
folder, on this machine, fsync off as in the tests; a production server with fsync on adds
its disk's flush to each commit, as SQLite's WAL does at its checkpoints). The backends
alternate round by round, so a drift in the shared machine's load hits both alike; the load
average is printed with the figures.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import asyncpg

from bench.remote import RemoteAPI, remote_api
from bot.app import build_application, running
from bot.config import Settings
from bot.core.content import load_library
from tests.support.postgres import PostgresServer, start_server

CONTENT = Path(__file__).resolve().parent.parent / "content"
USERS = 40  # per round: 80 updates timed
WARM_UP_USERS = 5  # once-per-process costs (the scorer's import, the first pages) left out
ROUNDS = 4
ANSWER = (
    "Triton 作为统一服务层，vLLM 是推理引擎，作为 backend 接入；"
    "max_batch_size 和 preferred batch size"
)
KINDS = ("/quiz", "answer")


async def _one(api: RemoteAPI, user_id: int, text: str, total: int) -> float:
    """Push one message; seconds until its reply has arrived (`total` sent in all)."""
    started = time.perf_counter()
    await asyncio.to_thread(api.messages, [{"user_id": user_id, "name": "u", "text": text}])
    stats = await asyncio.to_thread(api.wait_sent, total, 60.0)
    elapsed = time.perf_counter() - started
    assert not stats["violations"], stats["violations"][:3]
    return elapsed


async def _drive(api: RemoteAPI) -> dict[str, list[float]]:
    sent = 0
    times: dict[str, list[float]] = {kind: [] for kind in KINDS}
    for i in range(WARM_UP_USERS + USERS):
        for kind, text in zip(KINDS, ("/quiz triton", ANSWER), strict=True):
            sent += 1
            seconds = await _one(api, 20_000 + i, text, sent)
            if i >= WARM_UP_USERS:
                times[kind].append(seconds)
    replies = (await asyncio.to_thread(api.stats))["per_chat"]
    # Each person got two replies: the question, then the feedback on the answer.
    assert set(replies.values()) == {2}, sorted(set(replies.values()))
    return times


async def _fresh_database(server: PostgresServer, name: str) -> str:
    conn = await asyncpg.connect(server.url())
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    return server.url(name)


async def measure(server: PostgresServer | None, round_no: int) -> dict[str, list[float]]:
    """One round on SQLite (`server` None) or on a fresh database of `server`."""
    with remote_api(latency=0.0) as api, tempfile.TemporaryDirectory() as tmp:
        url = None if server is None else await _fresh_database(server, f"bench_{round_no}")
        settings = Settings(
            _env_file=None,  # type: ignore[call-arg]
            telegram_bot_token=api.token,
            telegram_api_base_url=api.base_url,
            database_path=Path(tmp) / "bench.sqlite3",
            database_url=url,
            content_dir=CONTENT,
            rate_limit_per_second=100_000,
        )
        app = build_application(settings, load_library([CONTENT]))
        async with running(app, poll_timeout=1):
            return await _drive(api)


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


def run(rounds: int = ROUNDS) -> dict[str, Any]:
    server = start_server()
    try:
        found: dict[str, dict[str, list[float]]] = {
            backend: {kind: [] for kind in KINDS} for backend in ("sqlite", "postgresql")
        }
        loads = [os.getloadavg()[0]]
        for i in range(rounds):
            order = ("sqlite", "postgresql") if i % 2 == 0 else ("postgresql", "sqlite")
            for backend in order:
                times = asyncio.run(measure(server if backend == "postgresql" else None, i))
                for kind in KINDS:
                    found[backend][kind] += times[kind]
            loads.append(os.getloadavg()[0])
        return {"found": found, "loads": loads}
    finally:
        server.stop()


def report() -> None:
    result = run()
    found = result["found"]
    count = len(found["sqlite"]["answer"])
    rounds = len(result["loads"]) - 1
    print(f"Per-update latency, PostgreSQL vs SQLite ({count} of each update per backend,")
    print(f"  one at a time, {rounds} alternating rounds, fake Bot API with no latency)")
    print(f"  {'update':<8} {'backend':<11} {'median':>8} {'p95':>8}")
    for kind in KINDS:
        for backend in ("sqlite", "postgresql"):
            values = found[backend][kind]
            print(
                f"  {kind:<8} {backend:<11} {statistics.median(values) * 1000:6.1f} ms"
                f" {_p95(values) * 1000:6.1f} ms"
            )
    for kind in KINDS:
        ratio = statistics.median(found["postgresql"][kind]) / statistics.median(
            found["sqlite"][kind]
        )
        print(f"  {kind}: PostgreSQL / SQLite median {ratio:.2f}x")
    print("  load average (1 min) before and after each round: "
          + ", ".join(f"{load:.1f}" for load in result["loads"]))  # fmt: skip


if __name__ == "__main__":
    report()
