"""Each Telegram update is handled once, however often it arrives, and at least once,
whenever the process dies.

The inbox: an update is recorded in the database, with its raw JSON, before Telegram is told
it was received (long polling: inside the getUpdates that fetched it, before the next one
moves the offset past it, bot/incoming.py; webhook: before the request is answered 200,
bot/webhook.py). Telegram then never needs to send it again, and a crash cannot lose it:
the next start hands what was recorded and not finished to the application again, in
update_id order, before it polls (`redeliver`).

Telegram may still deliver an update again: a webhook request it thinks failed, a replayed
request, or long polling after a restart that came before the offset was confirmed. The
first handler of every update (group -2) takes its `update_id` in the database; one taken
already stops there. The update processor (bot/app.py) marks it done once its handling
finished (`DoneMarks`); one taken and not done when the process died is handled again by the
next start. Handling twice is safe where it matters: an answer is stored once (the open
question is closed only if still open, and the update's answer is found again, its feedback
given again, bot/services/practice.py); a reply may be sent twice only when the process died
between the reply's arrival and the mark, a few milliseconds per update.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from telegram import Update
from telegram.ext import ApplicationHandlerStop

from bot.handlers.common import HELD_KEY, TAKEN_KEY, BotContext
from bot.storage import Storage

log = logging.getLogger(__name__)

# Telegram keeps an undelivered update for a day; an older repeat cannot be a redelivery.
REMEMBER = timedelta(days=1)
PRUNE_EVERY = 500  # claims between two prunings of the record
# Starts that may find an update unfinished before it is given up: each one that handled it
# died or was killed meanwhile (an update that kills the process must not do so forever).
MAX_TRIES = 3

# TAKEN_KEY: the updates this application took (group -2) and has not marked done, in its
# bot_data: only the handling that took an update marks it, not a second delivery stopped
# meanwhile. HELD_KEY: those whose handling met a full disk, taken again when put back.

_claims = 0


async def first_delivery(update: Update, context: BotContext) -> None:
    """Let an update through once; stop every later delivery of the same update_id."""
    global _claims
    svc = context.svc
    now = svc.practice.clock()
    # One held on a full disk was taken by this run already (or its claim was refused).
    held = context.bot_data.get(HELD_KEY, {}).pop(update.update_id, None) is not None
    if not await svc.storage.claim_update(update.update_id, now) and not held:
        log.info("update %s arrived again: already handled, ignored", update.update_id)
        raise ApplicationHandlerStop
    context.bot_data.setdefault(TAKEN_KEY, set()).add(update.update_id)
    _claims += 1
    if _claims % PRUNE_EVERY == 0:
        await svc.storage.forget_updates_before(now - REMEMBER)


class DoneMarks:
    """Marks updates done in the inbox once their handling ended (handlers ran, or failed
    and were answered by the error handler): never handled again.

    Many at once in one write: the marks that come while one write runs go together in the
    next (a write is a round trip to the database thread, as dear as a small statement;
    issue 13). Each caller returns once its own mark is written. `taken`: the bot_data's
    TAKEN_KEY set (only the handling that took an update marks it).
    """

    def __init__(self, storage: Storage, taken: set[int]) -> None:
        self._storage = storage
        self._taken = taken
        self._next: list[int] = []
        self._next_written: asyncio.Future[None] | None = None
        self._writing: asyncio.Task[None] | None = None

    async def finished(self, update: object) -> None:
        if not isinstance(update, Update) or update.update_id not in self._taken:
            return
        self._taken.discard(update.update_id)
        self._next.append(update.update_id)
        if self._next_written is None:
            self._next_written = asyncio.get_running_loop().create_future()
        written = self._next_written
        if self._writing is None:
            self._writing = asyncio.create_task(self._write())
        # Shielded: a handling cancelled at a stop leaves its mark to be written all the same
        # (its handling had ended); `drain` waits for it before the database closes.
        await asyncio.shield(written)

    async def _write(self) -> None:
        try:
            while self._next:
                batch, written = self._next, self._next_written
                self._next, self._next_written = [], None
                assert written is not None
                try:
                    await self._storage.finish_updates(batch)
                except Exception as exc:
                    # Not done in the inbox: the next start handles these again.
                    log.warning("could not mark %d updates handled: %s", len(batch), exc)
                finally:
                    written.set_result(None)
        finally:
            self._writing = None

    async def drain(self) -> None:
        """Wait for the marks under way (before the database closes)."""
        while self._writing is not None:
            await asyncio.shield(self._writing)


async def redeliver(
    storage: Storage,
    read: Callable[[dict[str, Any]], Update | None],
    queue: asyncio.Queue[Any],
    seen_before: datetime | None = None,
) -> int:
    """Put what the last run recorded and did not finish on `queue`, in update_id order;
    return how many. Called at the start, before polling (or the webhook) begins; webhook
    replicas call it again while they run, for what was recorded before `seen_before` (a
    replica gone left it)."""
    unfinished = await storage.unfinished_updates(MAX_TRIES, seen_before)
    for update_id in unfinished.given_up:
        log.warning(
            "update %s was not handled: every one of the last %d starts that took it stopped"
            " before it was done",
            update_id,
            MAX_TRIES,
        )
    count = 0
    for _, raw in unfinished.again:
        update = read(raw)
        if update is not None:
            queue.put_nowait(update)
            count += 1
    if count:
        log.info("%d updates received and not handled before the last stop: handling them", count)
    return count
