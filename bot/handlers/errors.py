"""The one error handler: log with context, tell the user briefly, keep internals private.

A full disk is an operating condition, said once by the storage (bot/storage/space.py): an
update that met it is held, not marked done, and handled again once there is room
(`hold_until_room`); its sender is told once that nothing was saved yet (`tell_full`), as is
the sender of an update the inbox could not record (Telegram sends that one again).
"""

from __future__ import annotations

import contextlib
import logging
import time
from typing import Any

from telegram import Bot, Update
from telegram.error import Conflict, NetworkError, RetryAfter, TelegramError
from telegram.ext import ApplicationHandlerStop

from bot import delivery
from bot.delivery import Outcome, classify, reachability
from bot.handlers.common import HELD_KEY, TAKEN_KEY, BotContext, send, ui_language
from bot.services import Services
from bot.storage import is_busy, is_full

log = logging.getLogger(__name__)

# A polling error that repeats (a second poller's 409s, a proxy's garbled answers) is logged
# once a minute, a line each, not with a traceback per poll.
POLLING_NOTE_SECONDS = 60.0
_polling_noted: dict[str, float] = {}


def _polling_failed(error: TelegramError) -> None:
    kind = type(error).__name__
    now = time.monotonic()
    if now - _polling_noted.get(kind, -POLLING_NOTE_SECONDS) < POLLING_NOTE_SECONDS:
        return
    _polling_noted[kind] = now
    if isinstance(error, Conflict):
        log.warning(
            "Telegram answered getUpdates with 409 Conflict: another process polls with this"
            " token (on another host, or on another database); only one may. Retrying."
        )
    else:
        log.warning("getUpdates failed: %s (retrying)", error)


async def on_error(update: object, context: BotContext) -> None:
    error = context.error
    if update is None and isinstance(error, NetworkError) and not isinstance(error, RetryAfter):
        # Polling while Telegram is away: one line when the outage starts and one when it
        # ends (bot.delivery), not a traceback per attempt.
        reachability.failed(error)
        return
    if update is None and isinstance(error, TelegramError) and not isinstance(error, RetryAfter):
        _polling_failed(error)  # Telegram answered, but not with updates: retried by PTB
        return
    if (
        isinstance(error, TelegramError)
        and classify(error) is Outcome.UNREACHABLE
        and isinstance(update, Update)
        and update.effective_chat
    ):
        log.info("chat %s is unreachable: %s", update.effective_chat.id, error)
        await context.svc.chats.mark_unreachable(update.effective_chat.id)
        return
    where = ""
    if isinstance(update, Update):
        chat = update.effective_chat.id if update.effective_chat else None
        user = update.effective_user.id if update.effective_user else None
        where = f" (update {update.update_id}, chat {chat}, user {user})"
    if is_full(error) and isinstance(update, Update):
        # Said once by the storage; this update is handled again once there is room.
        hold_until_room(update, context)
        await tell_full(context.bot, context.svc, update, context.bot_data)
        raise ApplicationHandlerStop
    # A lock held past the busy timeout, or PostgreSQL out of reach (a restart, a failover),
    # is an operating condition, not a bug: one plain log line naming which, and the user is
    # told that nothing was saved.
    if error is not None and is_busy(error):
        key = "storage_busy"
        log.error("database busy or out of reach: not stored%s: %s", where, error)
    else:
        key = "error"
        log.error("error while handling an update%s", where, exc_info=error)
    if isinstance(update, Update) and update.effective_chat:
        await _apologise(update, context, update.effective_chat.id, key)
        # Told that it went wrong, the person gets nothing more for this update: an error
        # before the command's handler (its claim, its sender's record) let PTB go on to the
        # command, and a broken database answered every message twice (the apology, then
        # the answer; found by a new user's trial).
        raise ApplicationHandlerStop


# The updates whose senders were told the disk is full, in bot_data: told once per update,
# however often Telegram sends it again or its handling meets the full disk.
TOLD_KEY = "told_disk_full"
_TOLD_KEPT = 100_000


def hold_until_room(update: Update, context: BotContext) -> None:
    """Keep an update whose handling met a full disk from being marked done: it is handled
    again when the storage has room (bot/app.py), or by the next start."""
    context.bot_data.setdefault(HELD_KEY, {})[update.update_id] = update
    taken = context.bot_data.get(TAKEN_KEY)
    if isinstance(taken, set):
        taken.discard(update.update_id)  # not done: the processor must not mark it so


async def tell_full(bot: Bot, svc: Services, update: Update, bot_data: dict[Any, Any]) -> None:
    """Tell the sender once that nothing was saved yet and their message waits: a person in
    a private chat, a command in a group, a button (its spinner stopped with the words).
    Other messages in a group (members talking) are not answered."""
    told: dict[int, None] = bot_data.setdefault(TOLD_KEY, {})
    user = update.effective_user
    chat = update.effective_chat
    if update.update_id in told or user is None or user.is_bot:
        return
    told[update.update_id] = None
    while len(told) > _TOLD_KEPT:  # the oldest forgotten: Telegram keeps an update a day
        del told[next(iter(told))]
    user_row = None
    with contextlib.suppress(Exception):  # reads work on a full disk; if not, the client's
        user_row = await svc.chats.user(user.id)
    text = svc.strings(ui_language(user_row, update), "storage_full")
    query = update.callback_query
    try:
        if query is not None:
            await query.answer(text[:200], show_alert=True)
        elif chat is not None and update.effective_message is not None:
            message = update.effective_message
            command = bool(message.text and message.text.startswith("/"))
            if chat.type == "private" or command:
                await delivery.send_reply(bot, chat.id, [text])
    except Exception:  # Telegram away or the query too old: the message is kept all the same
        log.debug("could not tell update %s's sender the disk is full", update.update_id)


async def _apologise(update: Update, context: BotContext, chat_id: int, key: str) -> None:
    svc = context.svc
    user_row = None
    if update.effective_user:
        with contextlib.suppress(Exception):  # reads may fail as the write did
            user_row = await svc.chats.user(update.effective_user.id)
    text = svc.strings(ui_language(user_row, update), key)
    try:
        await send(context, chat_id, [text])
    except Exception:  # the apology itself failed (network down): the log has it
        log.warning("could not tell chat %s about the error", chat_id)
