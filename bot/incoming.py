"""Reading updates from Telegram: one the library cannot read is skipped, never fatal.

python-telegram-bot parses a `getUpdates` batch as a whole. One update it cannot read (a
server speaking another Bot API version, a field it now requires missing) makes the whole
batch fail; the offset never moves past it, so the same batch is fetched again and again:
no later update from anyone is handled, each try logs the batch's raw text at CRITICAL, and
the library's last `getUpdates` on stop fails the same way, so SIGTERM hangs. Here such a
batch is read update by update: each unreadable one becomes an empty update with its own
`update_id` (the offset moves past it, no handler matches it) and one warning naming the
update id and the reason, not its content.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from telegram import Update
from telegram.error import TelegramError
from telegram.ext import ExtBot

log = logging.getLogger(__name__)

_PARSE_FAILED = "Error while parsing updates!"

# Of a message the bot sent or edited, Telegram answers with the whole message: the message
# it replies to (a second message), every entity of the HTML and every button. The bot reads
# only its id (delivery.Result), and PTB builds an object for each of these, attribute by
# attribute: 8% of the bot's CPU under a burst (py-spy, bench.bot_throughput; issue 13).
# They are dropped before PTB reads the answer; the rest (id, chat, date, text) is kept.
_SENDS = frozenset({"sendMessage", "editMessageText", "editMessageReplyMarkup"})
_ECHOED = ("reply_to_message", "entities", "reply_markup", "link_preview_options")


class InboxUnavailable(TelegramError):
    """The updates a getUpdates brought could not be recorded: they are not taken (the offset
    stays), and polling tries again after PTB's backoff. Not a NetworkError: Telegram
    answered, and the outbox must not wait for it as for an outage (bot.delivery)."""


class TolerantBot(ExtBot[Any]):
    """The application's bot: PTB's ExtBot, with a `getUpdates` that survives a bad update
    and records every batch in the inbox before it returns it (`record_with`)."""

    __slots__ = ("_inbox", "_last_batch", "_poll_gate")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._last_batch: list[Any] = []
        self._inbox: Callable[[list[Any]], Awaitable[object]] | None = None
        self._poll_gate: Callable[[], Awaitable[None]] | None = None

    def poll_when(self, gate: Callable[[], Awaitable[None]]) -> None:
        """Await `gate` before each getUpdates: a replica polls only while it surely holds
        the database (bot/app.py; two pollers of one bot get 409 Conflict from Telegram)."""
        self._poll_gate = gate

    def record_with(self, inbox: Callable[[list[Any]], Awaitable[object]]) -> None:
        """Record every polled batch with `inbox` (bot/handlers/updates.py), awaited before
        getUpdates returns it: before the next getUpdates confirms it to Telegram (PTB moves
        the offset past a batch only when it polls again, after queueing it)."""
        self._inbox = inbox

    async def _post(self, endpoint: str, data: Any = None, **kwargs: Any) -> Any:
        result = await super()._post(endpoint, data, **kwargs)
        if endpoint == "getUpdates":
            self._last_batch = [readable(raw) for raw in result] if isinstance(result, list) else []
            result = self._last_batch
            if self._last_batch and self._inbox is not None:
                try:
                    await self._inbox(self._last_batch)
                except Exception as exc:
                    self._last_batch = []
                    raise InboxUnavailable(
                        f"the updates received could not be recorded ({exc}): not taken yet"
                    ) from exc
        elif endpoint in _SENDS and isinstance(result, dict):
            for key in _ECHOED:
                result.pop(key, None)
        return result

    async def get_updates(self, *args: Any, **kwargs: Any) -> tuple[Update, ...]:
        if self._poll_gate is not None:
            await self._poll_gate()
        try:
            return tuple(map(_without_chatless, await super().get_updates(*args, **kwargs)))
        except (TypeError, ValueError, KeyError, AttributeError):
            # The batch arrived (the request succeeded) and could not be read as a whole.
            batch, self._last_batch = self._last_batch, []
            if not batch:
                raise
        updates = []
        for raw in batch:
            update = self.read(raw)
            if update is not None:
                updates.append(update)
        return tuple(updates)

    def read(self, raw: Any) -> Update | None:
        """One raw update as PTB's Update; one it cannot read is an empty update (its id
        kept), one without an id None."""
        update = self._read(raw)
        if update is not None:
            self.insert_callback_data(update)
        return update

    def _read(self, raw: Any) -> Update | None:
        try:
            return _without_chatless(Update.de_json(raw, self))
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            update_id = raw.get("update_id") if isinstance(raw, dict) else None
            if not isinstance(update_id, int):
                log.warning("skipped an update without an update_id (%s)", type(exc).__name__)
                return None
            kinds = sorted(k for k in raw if k != "update_id")
            log.warning(
                "skipped update %d (%s) this version cannot read: %s",
                update_id,
                ", ".join(kinds) or "empty",
                exc,
            )
            return Update(update_id=update_id)


def readable(value: Any) -> Any:
    """A JSON value as it came, but for a lone UTF-16 surrogate in any of its strings (a
    client that cut an emoji in half sends `\\ud83d` alone): replaced with U+FFFD. Python
    reads one into a string that no UTF-8 encoder takes, so the update could be neither
    recorded in the inbox nor stored as an answer nor quoted in a reply. (Looked for first,
    copied only when found: 7 µs an update instead of 12, on the 2-core VM.)"""
    return _replaced(value) if _has_lone(value) else value


def _has_lone(value: Any) -> bool:
    if isinstance(value, str):
        if value.isascii():
            return False
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    for item in items:  # a loop, not any(): a third of the time
        if not isinstance(item, (int, float, bool)) and item is not None and _has_lone(item):
            return True
    return False


def _replaced(value: Any) -> Any:
    if isinstance(value, str):
        return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in value)
    if isinstance(value, dict):
        return {key: _replaced(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_replaced(item) for item in value]
    return value


def _without_chatless(update: Update) -> Update:
    """An update whose message has no chat (PTB reads it; every handler's filter then fails
    on it) is skipped as unreadable: kept empty, so its offset is still confirmed."""
    message = update.effective_message
    if message is None or getattr(message, "chat", None) is not None:
        return update
    kinds = sorted(k for k, v in update.to_dict().items() if k != "update_id" and v)
    log.warning(
        "skipped update %d (%s) this version cannot read: a message without a chat",
        update.update_id,
        ", ".join(kinds) or "empty",
    )
    return Update(update_id=update.update_id)


class _NoRawBatches(logging.Filter):
    """PTB logs a batch it cannot parse with its full text (users' messages) at CRITICAL;
    TolerantBot reads that batch and logs what it skips, without the content."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (isinstance(record.msg, str) and record.msg.startswith(_PARSE_FAILED))


def quiet_raw_batches() -> None:
    """Install the filter on the loggers PTB reports parse failures to."""
    for name in ("telegram.ext.ExtBot", "telegram.Bot", "telegram._bot"):
        logging.getLogger(name).addFilter(_NoRawBatches())
