"""The one error handler: log with context, tell the user briefly, keep internals private."""

from __future__ import annotations

import contextlib
import logging
import time

from telegram import Update
from telegram.error import Conflict, NetworkError, RetryAfter, TelegramError
from telegram.ext import ApplicationHandlerStop

from bot.delivery import Outcome, classify, reachability
from bot.handlers.common import BotContext, send, ui_language
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
    # A full disk or a lock held past the busy timeout is an operating condition, not a bug:
    # one plain log line, and the user is told that nothing was saved.
    if error is not None and is_full(error):
        key = "storage_full"
        log.error("database full (SQLITE_FULL: disk or size limit): not stored%s", where)
    elif error is not None and is_busy(error):
        key = "storage_busy"
        log.error("database locked past the busy timeout: not stored%s", where)
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
