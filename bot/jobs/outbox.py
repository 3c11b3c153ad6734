"""The outbox sender: delivers every message the bot owes a chat, until its deadline.

Rows come from storage (written before anything is sent), are claimed for this process
(the lease holder), and go out through `bot.delivery` with bounded concurrency. A row is
marked in flight only when its request leaves the process (the rate limiter says when), so
work waiting its turn is never lost by a crash or a stop; and just before the request's body
is written, with no await in between, it is noted in the wire log (bot/storage/wire.py), so
after a crash a row marked in flight whose request never left is sent, not lost. Network
errors, 5xx and 429 are retried with jittered exponential backoff until the row's deadline,
not a fixed number of times. When many sends fail in a row, the sender stops sending for
everyone and probes with one request at a time, backing off, so a wide outage does not burn
every row's retries at once (when the rows that failed into the pause are all done, the next
row claimed is the probe); the first success lets everything flow again. A timeout after
the request left is the one ambiguous outcome: recorded as 'unknown', logged, never sent
again. A token Telegram refuses (401, or 404 on the token) is nobody's chat's fault: the row
stays owed, sending stops for everyone at once (every other request would be refused too,
and must not be spent), and the run is stopped; the next start with a working token sends
what is owed, within each row's deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import logging
import random
import sqlite3
from collections import Counter, deque
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import TypeVar

from telegram import Bot
from telegram.error import RetryAfter

from bot.config import Settings
from bot.core.outbox import Row, Status, backoff
from bot.delivery import (
    Outcome,
    keyboard_from_json,
    on_wire,
    reset_on_wire,
    send_messages,
)
from bot.jobs.clock import epoch_of, shift_since, steady_lock
from bot.ratelimit import bulk_lane
from bot.storage import Storage
from bot.storage.files import is_damage
from bot.storage.wire import WireLog

log = logging.getLogger(__name__)

OUTAGE_AFTER = 5  # failed sends in a row (no success between) that pause all sending
CLAIM_PAUSE = 0.05  # seconds between claims while rows keep arriving
PROBE_MAX = 10.0  # seconds between probes at most: a recovered API is noticed soon


T = TypeVar("T")


class _Stopping(BaseException):
    """Raised instead of letting a request out once the sender stops (the row goes back).

    A BaseException, as CancelledError is: it is raised inside httpx's trace, and PTB turns
    any Exception from the HTTP layer into a NetworkError, which would read as a failed send.
    """


class _Withdrawn(BaseException):
    """Raised instead of letting a request out whose row is no longer ours to send (a
    BaseException for the same reason as `_Stopping`)."""


class _Held(BaseException):
    """Raised instead of writing a request's body when its leaving cannot be made safe now:
    the lease may have run out (another process could be serving the rows), or the wire log
    cannot be written. Nothing was sent; the row is tried again later."""


class OutboxSender:
    def __init__(
        self,
        bot: Bot,
        storage: Storage,
        settings: Settings,
        clock: Callable[[], datetime],
        owner: str,
        *,
        rng: random.Random | None = None,
    ) -> None:
        self.bot = bot
        self.storage = storage
        self.clock = clock
        self.owner = owner
        self.concurrency = settings.send_concurrency
        self.base = settings.retry_base_seconds
        self.cap = settings.retry_max_seconds
        self.poll = settings.outbox_poll_seconds
        self.rng = rng or random.Random()
        self.outcomes: Counter[str] = Counter()
        self._ready: asyncio.Queue[Row] = asyncio.Queue()
        self._later: list[tuple[float, int, Row]] = []  # (loop time, tie-break, row)
        self._seq = itertools.count()
        self._wake = asyncio.Event()
        self._recorded = False  # the wake came from new rows (more may follow at once)
        self._more = False  # the last claim was full: more rows wait in the database
        self._stopping = False
        self._tasks: list[asyncio.Task[None]] = []
        self._busy: set[asyncio.Task[None]] = set()
        # One row per chat at a time, in the order recorded (a ranking before the next
        # question), retries included: later rows of a chat wait behind its current one.
        self._chat_current: set[int] = set()
        self._chat_behind: dict[int, deque[Row]] = {}
        self._held_noted: set[str] = set()  # reasons rows were held back for, said once
        # The pause for everyone: open after OUTAGE_AFTER failures in a row.
        self._failures_in_row = 0
        self._paused_until: float | None = None
        self._pause = self.base
        self._probing = False
        self._admitting = 0  # workers holding a row while sending is paused
        self._resumed = asyncio.Event()
        self._resumed.set()
        # Called when a row turns out to be another process's: it took the database over.
        self.on_taken_over: Callable[[], None] = lambda: None
        # Whether this process surely still holds the database (its lease has not run out):
        # asked, synchronously, right before each request's body is written.
        self.may_send: Callable[[], bool] = lambda: True
        # Called once when Telegram refuses the token: the run stops (exit status 4).
        self.on_token_rejected: Callable[[], None] = lambda: None
        self.token_rejected = False
        # Webhook replicas (PostgreSQL): every this many seconds, what a replica gone (its
        # row expired) left is settled here, as a start settles what the last run left.
        self.sweep: float | None = None
        self._swept = 0.0
        self.wire = WireLog(storage.wire_log)

    # -- lifecycle -----------------------------------------------------------------------------

    async def start(self) -> None:
        """Take over what a previous process left, then start delivering."""
        written = self.wire.read()
        recovered = await self.storage.recover_outbox(
            self.owner, self.clock(), written, self.wire.previous_run
        )
        self.wire.start(self.owner)  # the previous run's lines are settled now
        if recovered.requeued:
            log.info(
                "%d messages left waiting by the previous run are queued again", recovered.requeued
            )
        if recovered.unsent:
            log.info(
                "%d messages the previous run was about to send (marked in flight, their request"
                " never written) are queued again",
                recovered.unsent,
            )
        self._said_unknown(recovered.unknown, "the previous run")
        self._tasks = [asyncio.create_task(self._feed(), name="outbox-feed")]
        self._tasks += [
            asyncio.create_task(self._work(), name=f"outbox-{i}") for i in range(self.concurrency)
        ]

    def _said_unknown(self, rows: list[Row], whose: str) -> None:
        for row in rows:
            log.warning(
                "%s message %d to chat %s may or may not have arrived (%s stopped while"
                " sending it): not sent again",
                row.kind.value, row.id, row.chat_id, whose,
            )  # fmt: skip

    async def _settle_gone_replicas(self) -> None:
        """What a replica that is gone (killed, or stalled past its lease) left: its claims
        queued again, what it had out 'unknown' (its wire log is not here: it may have
        arrived), never sent again."""
        loop = asyncio.get_running_loop()
        if self.sweep is None or loop.time() < self._swept + self.sweep:
            return
        self._swept = loop.time()
        try:
            recovered = await self.storage.recover_outbox(self.owner, self.clock(), None)
        except Exception:
            log.exception("could not settle what a gone replica left")
            return
        if recovered.requeued:
            log.info("%d messages a gone replica held are queued again", recovered.requeued)
        self._said_unknown(recovered.unknown, "a replica that")
        if recovered.requeued:
            self._wake.set()

    @property
    def stopping(self) -> bool:
        return self._stopping

    def wake(self) -> None:
        """New rows were recorded: look now instead of at the next poll."""
        self._recorded = True
        self._wake.set()

    async def stop(self, grace: float) -> None:
        """Stop taking rows; give requests already out `grace` seconds; hand the rest back."""
        self._stopping = True
        self._wake.set()
        busy = set(self._busy)
        for task in self._tasks:
            if task not in busy:
                task.cancel()
        if busy:
            await asyncio.wait(busy, timeout=grace)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
        released = await self.storage.release_outbox(
            self.owner, self.clock(), set(self.wire.out.items())
        )
        self.wire.close()
        waiting = await self.storage.outbox_open_count()
        log.info(
            "outbox stopped: %d messages wait for the next run (%d handed back now); %d had"
            " their request out (recorded as unknown, not sent again)",
            waiting,
            released.requeued + released.unsent,
            len(released.unknown),
        )

    async def abandon(self) -> None:
        """Stop without writing to the database (it was found damaged): the tasks end, and
        what they held is settled by the next start on a sound file, from the wire log, as
        after a crash."""
        self._stopping = True
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
        self.wire.close()

    # -- feeding -------------------------------------------------------------------------------

    async def _feed(self) -> None:
        loop = asyncio.get_running_loop()
        batch = 2 * self.concurrency
        while not self._stopping:
            await self._settle_gone_replicas()
            while self._later and self._later[0][0] <= loop.time():
                self._ready.put_nowait(heapq.heappop(self._later)[2])
            wait = self.poll
            # Claim only what the workers can start soon, and nothing while sending is paused
            # (what stays 'pending' is safe in the database whatever happens to this process)
            # but the one row to probe with, when the pause is over and no row is held here:
            # the rows that failed into the pause may all be done ('unknown' after a hang),
            # and without a probe the pause would never end.
            until = self._paused_until
            if (until is None and self._ready.qsize() < self.concurrency) or (
                until is not None and loop.time() >= until and not self._holding()
            ):
                try:
                    # Under the clock's lock: a step adopted meanwhile would leave these
                    # rows' deadlines on one timeline and their epoch on the other.
                    async with steady_lock(self.clock):
                        rows = await self.storage.claim_outbox(
                            self.owner, batch if until is None else 1
                        )
                        for row in rows:
                            row.epoch = epoch_of(self.clock)
                except Exception:
                    log.exception("could not read the outbox")
                    rows = []
                for row in rows:
                    self._ready.put_nowait(row)
                self._more = len(rows) == batch
                if rows:
                    wait = CLAIM_PAUSE  # more may be waiting: come back soon
            if self._later:
                wait = min(wait, max(0.0, self._later[0][0] - loop.time()))
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), wait)
            recorded, self._recorded = self._recorded, False
            if recorded and not self._stopping:
                # Woken by a recording: let more arrive, then claim them together (a claim is
                # a write transaction: one per row would slow a fan-out down).
                await asyncio.sleep(CLAIM_PAUSE)

    # -- working -------------------------------------------------------------------------------

    async def _work(self) -> None:
        current = asyncio.current_task()
        assert current is not None
        bulk_lane()  # what this task sends waits behind replies to people (bot/ratelimit.py)
        while not self._stopping:
            row = await self._ready.get()
            if self.stopping:
                return  # still claimed: handed back by stop()
            if self._more and self._ready.qsize() < self.concurrency:
                # A backlog (after an outage, a restart): refill as the workers run low, not
                # a batch per poll interval.
                self._wake.set()
            if row.chat_id in self._chat_current and not row.current:
                self._chat_behind.setdefault(row.chat_id, deque()).append(row)
                continue
            self._chat_current.add(row.chat_id)
            row.current = True
            probe = await self._admit()
            self._busy.add(current)
            try:
                await self._deliver(row, probe)
            except asyncio.CancelledError:
                raise
            except _Stopping:
                return  # never left: still claimed, handed back by stop()
            except _Withdrawn:  # never left; the row was settled elsewhere
                self.outcomes["withdrawn"] += 1
                self._next_of_chat(row.chat_id)
            except _Held as held:  # marked in flight, never written: back to waiting
                # Once per reason until a message is sent again: a lease left unrenewed by a
                # full disk held back every row of a fan-out, a line each.
                if str(held) not in self._held_noted:
                    self._held_noted.add(str(held))
                    log.warning("%s message %d to chat %s held back: %s (and others, until"
                                " a message is sent again)",
                                row.kind.value, row.id, row.chat_id, held)  # fmt: skip
                await self._unmark(row, f"held back: {held}")
                self._later_row(row, backoff(1, self.base, self.cap, self.rng))
            except Exception:  # one row's surprise must not stop the others
                log.exception("delivering outbox row %d failed unexpectedly", row.id)
                if row.settled:
                    pass  # its outcome is recorded; what failed came after
                elif row.on_wire and row.id in self.wire.out:
                    # Its request left and what came of it was not recorded: it may have
                    # arrived, so it is not sent again.
                    await self._finish(row, Status.UNKNOWN, "failed after its request left")
                    log.warning(
                        "%s message %d to chat %s may or may not have arrived: not sent again",
                        row.kind.value, row.id, row.chat_id,
                    )  # fmt: skip
                else:
                    if row.on_wire:  # marked in flight, but its request was never written
                        await self._unmark(row, "failed before its request left")
                    self._later_row(row, self.cap)
            finally:
                self._busy.discard(current)
                if probe:
                    self._probing = False

    def _holding(self) -> bool:
        """Whether any claimed row is still here to be sent (so one of them can probe)."""
        return bool(
            self._ready.qsize() or self._later or self._admitting or self._busy or self._probing
        )

    async def _admit(self) -> bool:
        """Wait while sending is paused for everyone; True if this send is the probe."""
        loop = asyncio.get_running_loop()
        self._admitting += 1
        try:
            while self._paused_until is not None:
                if not self._probing and loop.time() >= self._paused_until:
                    self._probing = True
                    return True
                self._resumed.clear()
                timeout = max(0.01, self._paused_until - loop.time()) if not self._probing else None
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._resumed.wait(), timeout)
            return False
        finally:
            self._admitting -= 1

    async def _deliver(self, row: Row, probe: bool) -> None:
        storage, owner = self.storage, self.owner
        if self._deadline(row) <= self.clock():
            await self._finish(row, Status.EXPIRED, "deadline passed")
            log.info("%s message to chat %s expired unsent", row.kind.value, row.chat_id)
            return

        attempt = 0

        async def on_the_wire() -> None:
            nonlocal attempt
            if self._stopping:
                raise _Stopping
            if not row.on_wire:
                marked = await self._record(
                    "its request leaving", lambda: storage.outbox_on_wire(row.id, owner)
                )
                if marked is None:
                    if await storage.holds(owner):
                        raise _Withdrawn  # settled meanwhile (a reminder answered, ...)
                    # Another process took the database over, and this row with it: it must
                    # not leave from here, nor anything else.
                    self._stopping = True
                    log.critical(
                        "%s message %d to chat %s belongs to another process now: this one"
                        " stops sending",
                        row.kind.value, row.id, row.chat_id,
                    )  # fmt: skip
                    self.on_taken_over()
                    raise _Stopping
                row.on_wire = True
                attempt = marked

        def leaving() -> None:
            # Synchronous, right before the body's bytes are written: nothing else runs
            # between this line in the wire log and the socket write.
            if self._stopping:
                raise _Stopping
            if not self.may_send():
                raise _Held("this process's lease may have run out")
            try:
                self.wire.written(row.id, attempt)
            except OSError as exc:
                self.storage.space.refused(exc)  # a full disk: said once, for every write
                raise _Held(f"the wire log cannot be written ({exc})") from None

        async def part_done(parts: int) -> None:
            await self._record(
                "its progress", lambda: storage.outbox_progress(row.id, owner, parts)
            )
            self.wire.settled(row.id)
            row.parts_sent = parts
            row.on_wire = False

        token = on_wire(on_the_wire, leaving)
        try:
            result = await send_messages(
                self.bot,
                row.chat_id,
                row.messages,
                keyboard_from_json(row.keyboard),
                reply_to=row.reply_to,
                start=row.parts_sent,
                on_part=part_done,
                limiter_retries=0,
            )
        finally:
            reset_on_wire(token)
        match result.outcome:
            case Outcome.SENT:
                self._succeeded()
                await self._finish(row, Status.SENT, None, result.first_message_id)
            case Outcome.RETRY:
                if not isinstance(result.error, RetryAfter):
                    self._failed(probe)
                else:
                    self._succeeded()  # Telegram answered: only this chat must wait
                error = str(result.error)
                await self._record("a retry", lambda: storage.outbox_retry(row.id, owner, error))
                self.wire.settled(row.id)
                row.on_wire = False
                row.attempts += 1
                delay = result.retry_after
                row.flood = delay is not None
                if delay is None and self._paused_until is not None:
                    # Everyone waits for Telegram now: the row is ready as soon as it is back
                    # (and may be the one that probes), not at its own backoff.
                    self._ready.put_nowait(row)
                    return
                if delay is None:
                    delay = backoff(row.attempts, self.base, self.cap, self.rng)
                log.debug("chat %s: retry in %.1f s (%s)", row.chat_id, delay, error)
                self._later_row(row, delay)
            case Outcome.MAYBE_SENT:
                self._failed(probe)  # no answer in time: the API may be in trouble
                await self._finish(row, Status.UNKNOWN, str(result.error))
                log.warning(
                    "%s message %d to chat %s may or may not have arrived (%s): not sent again",
                    row.kind.value,
                    row.id,
                    row.chat_id,
                    result.error,
                )
            case Outcome.UNREACHABLE:
                self._succeeded()
                await self._finish(row, Status.FAILED, str(result.error))
                await storage.mark_unreachable(row.chat_id)
            case Outcome.MIGRATED:
                self._succeeded()
                new_id = result.new_chat_id
                assert new_id is not None
                log.info("group %s moved to %s", row.chat_id, new_id)
                await storage.migrate_chat(row.chat_id, new_id)
                await self._record("its move", lambda: storage.outbox_moved(row.id, owner, new_id))
                self.wire.settled(row.id)
                self._next_of_chat(row.chat_id)
                self._chat_current.add(new_id)
                row.chat_id, row.on_wire = new_id, False
                self._ready.put_nowait(row)
            case Outcome.UNAUTHORIZED:
                # Telegram answered and took nothing: the row stays owed (held here, handed
                # back to the queue by stop()), and nothing more leaves from this run.
                error = str(result.error)
                await self._record("a retry", lambda: storage.outbox_retry(row.id, owner, error))
                self.wire.settled(row.id)
                row.on_wire = False
                self._reject_token(row, error)
            case Outcome.REJECTED | Outcome.MESSAGE_GONE:
                self._succeeded()
                await self._finish(row, Status.FAILED, str(result.error))
                log.error(
                    "Telegram rejected %s message %d to chat %s: %s",
                    row.kind.value,
                    row.id,
                    row.chat_id,
                    result.error,
                )

    def _reject_token(self, row: Row, error: str) -> None:
        """Telegram refused the token: stop sending at once, keep every row owed, stop the run."""
        self._stopping = True
        self._wake.set()
        if self.token_rejected:
            return  # the other requests that were out were refused too
        self.token_rejected = True
        log.error(
            "Telegram rejected the token (%s) sending %s message %d to chat %s: sending stops;"
            " what is owed stays owed for a start with a working token",
            error, row.kind.value, row.id, row.chat_id,
        )  # fmt: skip
        self.on_token_rejected()

    async def _finish(
        self, row: Row, status: Status, error: str | None, message_id: int | None = None
    ) -> None:
        now = self.clock()
        await self._record(
            f"its outcome ({status.value})",
            lambda: self.storage.finish_outbox(
                row.id, self.owner, status, now, message_id=message_id, error=error
            ),
        )
        self.wire.settled(row.id)
        row.settled = True
        self.outcomes[status.value] += 1
        if status is Status.SENT:
            self._held_noted.clear()
        self._next_of_chat(row.chat_id)

    async def _unmark(self, row: Row, why: str) -> None:
        """A row marked in flight whose request was never written: back to held (claimed)."""
        await self._record("a retry", lambda: self.storage.outbox_retry(row.id, self.owner, why))
        row.on_wire = False

    async def _record(self, what: str, write: Callable[[], Awaitable[T]]) -> T:
        """Run a write that records what happened on the wire, until the database takes it.

        Giving up would be worse than waiting: a sent message whose outcome is not recorded
        would be sent again. A stop cancels the wait; the row is then settled on the next
        start (in flight: 'unknown'; otherwise queued again).
        """
        delay = 0.1
        while True:
            try:
                return await write()
            except sqlite3.Error as exc:
                if is_damage(exc):
                    raise  # no waiting makes a damaged file whole: the run stops (bot/app.py)
                log.warning("could not record %s (%s); trying again in %.1f s", what, exc, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)

    def _next_of_chat(self, chat_id: int) -> None:
        behind = self._chat_behind.get(chat_id)
        if behind:
            follower = behind.popleft()
            follower.current = True
            self._ready.put_nowait(follower)
        else:
            self._chat_current.discard(chat_id)
        if behind is not None and not behind:
            del self._chat_behind[chat_id]

    def _deadline(self, row: Row) -> datetime:
        """The row's deadline on the clock's timeline now: moved by any wall-clock step
        adopted since it was claimed, as its row in the database was."""
        return row.deadline + shift_since(self.clock, row.epoch)

    def _later_row(self, row: Row, delay: float) -> None:
        left = (self._deadline(row) - self.clock()).total_seconds()
        delay = max(0.0, min(delay, left))  # at the deadline it expires, not later
        when = asyncio.get_running_loop().time() + delay
        heapq.heappush(self._later, (when, next(self._seq), row))
        self._wake.set()

    # -- the pause for everyone ----------------------------------------------------------------

    def _failed(self, probe: bool) -> None:
        loop = asyncio.get_running_loop()
        self._failures_in_row += 1
        if probe:
            self._pause = min(self.cap, PROBE_MAX, self._pause * 2)
            self._paused_until = loop.time() + self.rng.uniform(self._pause / 2, self._pause)
        elif self._paused_until is None and self._failures_in_row >= OUTAGE_AFTER:
            self._pause = self.base
            self._paused_until = loop.time() + self._pause
            log.info("sending paused: %d sends failed in a row", self._failures_in_row)

    def _succeeded(self) -> None:
        self._failures_in_row = 0
        if self._paused_until is not None:
            self._paused_until = None
            self._pause = self.base
            # Telegram is back: what failed because it was away goes now, not at its backoff.
            waiting, self._later = self._later, []
            for entry in waiting:
                if entry[2].flood:
                    heapq.heappush(self._later, entry)
                else:
                    self._ready.put_nowait(entry[2])
            self._resumed.set()
            self._wake.set()
