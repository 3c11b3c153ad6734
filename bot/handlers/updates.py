"""Each Telegram update is handled once, however often it arrives.

Telegram may deliver an update again: a webhook request it thinks failed, a replayed request,
or long polling after a restart that came before the offset was confirmed. The first handler
of every update (group -2) claims its `update_id` in the database; a claimed one stops there.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from telegram import Update
from telegram.ext import ApplicationHandlerStop

from bot.handlers.common import BotContext

log = logging.getLogger(__name__)

# Telegram keeps an undelivered update for a day; an older repeat cannot be a redelivery.
REMEMBER = timedelta(days=1)
PRUNE_EVERY = 500  # claims between two prunings of the record

_claims = 0


async def first_delivery(update: Update, context: BotContext) -> None:
    """Let an update through once; stop every later delivery of the same update_id."""
    global _claims
    svc = context.svc
    now = svc.practice.clock()
    if not await svc.storage.claim_update(update.update_id, now):
        log.info("update %s arrived again: already handled, ignored", update.update_id)
        raise ApplicationHandlerStop
    _claims += 1
    if _claims % PRUNE_EVERY == 0:
        await svc.storage.forget_updates_before(now - REMEMBER)
