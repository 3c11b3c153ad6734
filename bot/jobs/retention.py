"""The retention job: prunes bookkeeping rows once an hour, in the background.

Started in post_init beside the scheduler and cancelled in post_shutdown. What may be
deleted is decided in `bot.core.retention`; the deleting is `Storage.prune`.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta

from bot.core.retention import cutoffs
from bot.services.practice import Clock
from bot.storage import Storage

log = logging.getLogger(__name__)

INTERVAL_SECONDS = 3600.0


async def prune_once(
    storage: Storage, now: datetime, rounds_closed_after: datetime | None = None
) -> dict[str, int]:
    """One retention pass as of `now`; rows deleted per table."""
    deleted = await storage.prune(cutoffs(now), rounds_closed_after=rounds_closed_after)
    if any(deleted.values()):
        log.info("retention: deleted %s", deleted)
    return deleted


async def prune_forever(storage: Storage, clock: Clock, interval: float = INTERVAL_SECONDS) -> None:
    """Prune now and then every `interval` seconds until cancelled; a failure is logged."""
    done_before: datetime | None = None  # rounds closed before this were pruned by this process
    while True:
        now = clock()
        try:
            # The first pass looks at every closed round; later ones only at the rounds that
            # aged past the cutoff since (with a day of margin for clock changes).
            after = done_before - timedelta(days=1) if done_before else None
            await prune_once(storage, now, after)
            done_before = cutoffs(now).rounds_closed_before
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("retention pass failed")
        await asyncio.sleep(interval)
