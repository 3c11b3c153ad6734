"""One process per database: a lease row (owner, pid, host, since, expiry) renewed while running.

On SQLite a second `interview-bot run` on the same database finds the lease held and stops
at once, naming the holder. On PostgreSQL it is a standby replica instead (`stand_by`): it
says so once and tries to take the lease every tenth of it (at most a second), so it takes
over within LEASE_SECONDS of the active replica's last renewal when that one dies, and at
once when it stops cleanly (its row is deleted). The row's expiry, not an advisory lock on
a connection, decides: a lock goes with its connection, which the server keeps for as long
as TCP takes to notice a machine gone dark (hours by default), and it fences nothing; the
row's expiry holds whatever way the active one went, and the outbox's writes check its
owner. After a crash the lease is taken over once it expires, or at once when
its process is gone from this host. If this process ever finds its lease taken (it stalled
longer than the lease lasts) or its row gone, it stops sending and exits with `LeaseLost`:
the other one is serving the database now, or nothing says this one may.

Webhook replicas on PostgreSQL (`replica`) all serve at once: each takes updates and sends
outbox rows, under a row of its own (`join`, renewed with the lease); the lease itself only
decides which one runs the daily scheduler and the round deadlines, once per tick
cluster-wide. The others stand by for that role alone (`stand_by`), as a polling standby does
for the whole run.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import sqlite3
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.storage import Storage
from bot.storage.outbox import LeaseHolder, peek_lease, replica_name, serves

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


class LeaseLost(Exception):
    """This process found its lease taken over, or gone (its row, or the database file),
    while it ran."""

    def __init__(
        self, holder: LeaseHolder | None, database: Path | str, *, why: str | None = None
    ) -> None:
        self.holder = holder
        if why is None and holder is None:
            why = "its lease row in the database is gone"
        elif why is None and holder is not None:
            since = holder.since.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
            why = (
                f"pid {holder.pid} on {holder.host} took it over (since {since}) after this"
                " one looked dead"
            )
        super().__init__(
            f"This interview-bot lost its hold on {database}: {why}. It stopped sending and"
            " exits; only one may serve a database."
        )


def _now() -> datetime:
    return datetime.now(UTC)


def refuse_if_served(database: Path | str) -> None:
    """Raise LeaseTaken if a live process serves the database, reading it only.

    Before `run` opens the database to check and migrate it: a second instance, even of a
    newer version whose migrations would change the schema under the running one, stops
    here having written nothing. Anything unreadable is left to the check that follows.
    """
    if str(database) == ":memory:":
        return
    holder = peek_lease(str(database))
    if holder is not None and serves(holder, _now(), os.getpid(), socket.gethostname()):
        raise LeaseTaken(holder, database)


def _identity(path: Path | str) -> tuple[int, int] | None:
    """The file a path names now (device, inode); None for no file (or `:memory:`)."""
    if str(path) == ":memory:":
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


class Lease:
    def __init__(
        self,
        storage: Storage,
        seconds: float,
        owner: str | None = None,
        *,
        monotonic: Callable[[], float] = time.monotonic,
        replica: bool = False,
    ) -> None:
        self.storage = storage
        self.ttl = timedelta(seconds=seconds)
        self.owner = owner or uuid.uuid4().hex
        self.pid = os.getpid()
        self.host = socket.gethostname()
        self.lost: LeaseLost | None = None  # set once the lease was found taken or gone
        self.monotonic = monotonic
        self._held_until = 0.0  # monotonic time until which no other process can take over
        self._file: tuple[int, int] | None = None  # (device, inode) of the file it holds
        self._renew = asyncio.Event()  # set: renew now, not at the next third of the lease
        self._renewed = asyncio.Event()  # set by each take or renewal that holds the lease
        # A webhook replica on PostgreSQL: its own row is what lets it send; `active`: it
        # holds the lease too (it runs the scheduler).
        self.replica = replica
        self.active = False
        # Told how many replicas are live, at the join and at each renewal (their limits'
        # share: bot/ratelimit.py).
        self.on_replicas: Callable[[int], None] = lambda count: None

    async def take(self) -> None:
        """Hold the database, or raise LeaseTaken naming the process that does."""
        asked = self.monotonic()
        holder = await self.storage.take_lease(self.owner, self.pid, self.host, _now(), self.ttl)
        if holder is not None:
            raise LeaseTaken(holder, self.storage.name)
        self.active = True
        self._held(asked)
        self._file = _identity(self.storage.path)

    async def join(self) -> None:
        """A webhook replica's own row: from now on it may claim and send outbox rows."""
        asked = self.monotonic()
        await self.storage.join_replicas(self.owner, self.pid, self.host, _now(), self.ttl)
        self._held(asked)
        self.on_replicas(await self.storage.live_replicas(_now()))

    async def _renew_all(self) -> tuple[bool, str | None]:
        """Renew a replica's own row, and the lease if held: whether both still are, and
        why not when it is the replica's row that is gone (else the holder says)."""
        now = _now()
        if self.replica and not await self.storage.renew_lease(
            self.owner, now, self.ttl, replica_name(self.owner)
        ):
            return False, "the other replicas found it dead (its row ran out) and took its work"
        if self.replica:
            self.on_replicas(await self.storage.live_replicas(now))
        if self.replica and not self.active:
            return True, None
        return await self.storage.renew_lease(self.owner, now, self.ttl), None

    async def keep(self, lost: Callable[[], None]) -> None:
        """Renew every third of the lease; call `lost` (once) if it was taken or is gone."""
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._renew.wait(), self.ttl.total_seconds() / 3)
            self._renew.clear()
            asked = self.monotonic()
            try:
                held, why = await self._renew_all()
            except Exception:
                log.exception("could not renew the instance lease")
                # Tried again in a second, not a third of the lease: nothing is sent until
                # it is renewed (a full disk that has room again, a lock let go).
                self._soon_after_failure()
                continue
            if not held:
                self._held_until = 0.0
                await self.lose(why)
                lost()
                return
            if self._file is not None and _identity(self.storage.path) != self._file:
                # Deleted or replaced under it: what it writes now no later start will read,
                # and a second instance would start beside it on a new file of that name.
                self._held_until = 0.0
                await self.lose(why="its database file was deleted or replaced")
                lost()
                return
            self._held(asked)

    def _soon_after_failure(self) -> None:
        asyncio.get_running_loop().call_later(1.0, self._renew.set)

    def renew_soon(self) -> None:
        """Renew at once: the renewals failed on a full disk, which has room again, and
        nothing leaves until the lease is surely held."""
        self._renew.set()

    def _held(self, asked: float) -> None:
        # The expiry written counts from before the write; a margin for the clocks' reading.
        margin = min(1.0, self.ttl.total_seconds() / 10)
        self._held_until = asked + self.ttl.total_seconds() - margin
        self._renewed.set()

    async def until_surely_held(self) -> None:
        """Return once no other process can have taken the database over (`surely_held`),
        asking for a renewal at once meanwhile (a process resumed after a stall longer
        than its lease). Once the lease is lost it never returns: the run is stopping."""
        while not self.surely_held():
            self._renewed.clear()
            if self.lost is None:
                self.renew_soon()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._renewed.wait(), 1.0)

    def surely_held(self) -> bool:
        """No other process can have taken the database over yet (synchronous, cheap): the
        last renewal has not run out. False in a stall longer than the lease, until the
        next renewal says whether it is still ours."""
        return self.monotonic() < self._held_until

    async def lose(self, why: str | None = None) -> None:
        """Note that the lease is no longer this process's, and say why (once): `why`, or
        else who holds it now."""
        if self.lost is not None:
            return
        holder = None
        if why is None:
            try:
                holder = await self.storage.lease_holder()
            except Exception:
                holder = None
        self.lost = LeaseLost(holder if holder and holder.owner != self.owner else None,
                              self.storage.name, why=why)  # fmt: skip
        log.critical("%s", self.lost)

    async def release(self) -> None:
        await self.storage.release_lease(self.owner)


async def stand_by(lease: Lease) -> None:
    """Take the lease, standing by while another replica holds it (PostgreSQL): said once
    when it starts standing by, once when it takes over. Cancel it to stop waiting. A
    webhook replica (`lease.replica`) serves meanwhile: it stands by for the scheduler only."""
    pause = min(1.0, lease.ttl.total_seconds() / 10)
    waited_for: LeaseHolder | None = None
    unreachable = False
    while True:
        try:
            await lease.take()
        except LeaseTaken as exc:
            if waited_for is None and lease.replica:
                log.info(
                    "replica: pid %d on %s runs the daily scheduler of %s; this one (pid %d on"
                    " %s) takes updates and sends, and runs it when that one's lease runs out"
                    " (LEASE_SECONDS=%g) or it stops",
                    exc.holder.pid, exc.holder.host, lease.storage.name, lease.pid,
                    lease.host, lease.ttl.total_seconds(),
                )  # fmt: skip
            elif waited_for is None:
                log.warning(
                    "standby: pid %d on %s is the active replica of %s; this one (pid %d on"
                    " %s) polls nothing and sends nothing, and takes over when that one's"
                    " lease runs out (LEASE_SECONDS=%g) or it stops",
                    exc.holder.pid, exc.holder.host, lease.storage.name, lease.pid,
                    lease.host, lease.ttl.total_seconds(),
                )  # fmt: skip
            waited_for = exc.holder
            unreachable = False
        except sqlite3.OperationalError as exc:  # PostgreSQL out of reach: still standing by
            if not unreachable:
                log.warning("standby: cannot reach the database to take over: %s", exc)
            unreachable = True
        else:
            if waited_for is not None and lease.replica:
                log.warning(
                    "this replica (pid %d on %s) runs the daily scheduler now, after pid %d"
                    " on %s",
                    lease.pid, lease.host, waited_for.pid, waited_for.host,
                )  # fmt: skip
            elif waited_for is not None:
                log.warning(
                    "standby over: this replica (pid %d on %s) is active now, after pid %d"
                    " on %s",
                    lease.pid, lease.host, waited_for.pid, waited_for.host,
                )  # fmt: skip
            return
        await asyncio.sleep(pause)
