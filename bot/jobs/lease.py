"""One process per database: a lease row (owner, pid, host, since, expiry) renewed while running.

A second `interview-bot run` on the same database finds the lease held and stops at once,
naming the holder. After a crash the lease is taken over once it expires, or at once when
its process is gone from this host. If this process ever finds its lease taken (it stalled
longer than the lease lasts), it stops sending: the other one is serving the database now.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.storage import Storage
from bot.storage.outbox import LeaseHolder

log = logging.getLogger(__name__)


class LeaseTaken(Exception):
    def __init__(self, holder: LeaseHolder, database: Path | str) -> None:
        self.holder = holder
        since = holder.since.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        until = holder.expires_at.astimezone(UTC).strftime("%H:%M:%S UTC")
        super().__init__(
            f"Another interview-bot is running on {database}: pid {holder.pid} on"
            f" {holder.host}, since {since} (its lease runs until {until} unless renewed)."
            " Stop it first; only one may serve a database."
        )


def _now() -> datetime:
    return datetime.now(UTC)


class Lease:
    def __init__(self, storage: Storage, seconds: float, owner: str | None = None) -> None:
        self.storage = storage
        self.ttl = timedelta(seconds=seconds)
        self.owner = owner or uuid.uuid4().hex
        self.pid = os.getpid()
        self.host = socket.gethostname()

    async def take(self) -> None:
        """Hold the database, or raise LeaseTaken naming the process that does."""
        holder = await self.storage.take_lease(self.owner, self.pid, self.host, _now(), self.ttl)
        if holder is not None:
            raise LeaseTaken(holder, self.storage.path)

    async def keep(self, lost: Callable[[], None]) -> None:
        """Renew every third of the lease; call `lost` (once) if another process took it."""
        while True:
            await asyncio.sleep(self.ttl.total_seconds() / 3)
            try:
                held = await self.storage.renew_lease(self.owner, _now(), self.ttl)
            except Exception:
                log.exception("could not renew the instance lease")
                continue
            if not held:
                log.critical("another process took over this database; this one stops sending")
                lost()
                return

    async def release(self) -> None:
        await self.storage.release_lease(self.owner)
