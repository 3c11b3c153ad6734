"""The real `interview-bot run` as a subprocess against the fake Bot API server."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

from bot.storage import Storage
from tests.conftest import CONTENT
from tests.support.fake_bot_api import FakeBotAPI
from tests.support.wait import until

SENDERS = 16  # SEND_CONCURRENCY of FAST_RUN: the requests a fan-out has out at once

# Fast retries and a quick stop, so a test that restarts the run takes seconds.
FAST_RUN = {
    "LOG_LEVEL": "INFO",
    "RATE_LIMIT_PER_SECOND": "300",
    "SEND_CONCURRENCY": str(SENDERS),
    "SCHEDULER_INTERVAL_SECONDS": "0.5",
    "OUTBOX_POLL_SECONDS": "0.1",
    "RETRY_BASE_SECONDS": "0.1",
    "RETRY_MAX_SECONDS": "1",
    "STOP_GRACE_SECONDS": "2",
}


def prompts_sent(api: FakeBotAPI) -> Counter[int]:
    """Daily prompts the server took, per seeded chat (tests/support/seed.py's ids)."""
    return Counter(s.chat_id for s in api.sent if s.method == "sendMessage" and s.chat_id > 50_000)


async def outbox_statuses(database: Path) -> dict[str, int]:
    """The outbox's rows per status, read with the run stopped."""
    storage = Storage(database)
    await storage.open()
    try:
        return await storage.outbox_statuses()
    finally:
        await storage.close()


async def outbox_open_rows(database: Path) -> int:
    """The outbox's rows not yet sent or given up, read with the run stopped."""
    storage = Storage(database)
    await storage.open()
    try:
        return await storage.outbox_open_count()
    finally:
        await storage.close()


def run_env(api: FakeBotAPI, database: Path, **extra: str) -> dict[str, str]:
    """The environment of a bot talking to `api` on `database` (`extra` added or overriding)."""
    return {
        **os.environ,
        "TELEGRAM_BOT_TOKEN": api.token,
        "TELEGRAM_API_BASE_URL": api.base_url,
        "DATABASE_PATH": str(database),
        "CONTENT_DIR": str(CONTENT),
        **extra,
    }


async def start_run(
    env: dict[str, str],
    cwd: Path | None,
    *,
    prefix: Sequence[str] = (),
    stderr: int = asyncio.subprocess.PIPE,
) -> asyncio.subprocess.Process:
    """Start `interview-bot run` (under `prefix`, e.g. setpriv) with its output piped."""
    return await asyncio.create_subprocess_exec(
        *prefix, sys.executable, "-m", "bot", "run",
        cwd=cwd, env=env, stdout=asyncio.subprocess.PIPE, stderr=stderr,
    )  # fmt: skip


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (for a webhook listener)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@asynccontextmanager
async def polling_run(api: FakeBotAPI, folder: Path) -> AsyncIterator[asyncio.subprocess.Process]:
    """`interview-bot run` on a database in `folder`, once its first getUpdates is out;
    killed afterwards if it is still running."""
    process = await start_run(run_env(api, folder / "bot.sqlite3"), folder)
    try:
        await until(lambda: api.calls["getUpdates"] >= 1, 60, "the first poll")
        yield process
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
