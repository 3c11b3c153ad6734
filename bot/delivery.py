"""The one way out to Telegram: send, edit and react, taking a `Bot`, with one meaning per error.

Every send site (handlers, the outbox sender, round closing) goes through here, so a Telegram
error always means the same thing:

- `SENT`: Telegram accepted it (an edit that changes nothing, "message is not modified",
  too: the message already is as asked, as after a second tap on a button).
- `UNREACHABLE`: blocked, kicked, or the chat is gone. One rule follows, whoever noticed:
  `Storage.mark_unreachable` (nothing more is sent there; settings, the daily question
  included, are kept for when the user comes back).
- `MIGRATED`: the group became a supergroup; the result carries the new id.
- `RETRY`: surely not delivered and may pass (connection refused, a connect or write failure,
  5xx, 429).
- `MAYBE_SENT`: the whole request left and no answer came (a read timeout, or the connection
  dropped while waiting for the answer): it may have arrived, so it is never sent again.
- `REJECTED`: Telegram refused this request (our markup, a bad id): retrying cannot help.
- `UNAUTHORIZED`: Telegram refused the bot's token (401, or 404 on the token: revoked with
  @BotFather, a proxy that lost the route). Surely not delivered, and nothing about the chat
  or the message: what is owed stays owed until a start with a working token.

It also tells the outbox sender the moment a request leaves the process (`on_wire`): httpx
reports, through `trace_requests`, when the first byte of a request is about to be written
(past the rate limiter's queue and past connecting), so a request that waits its turn, or
whose connection is refused, was never in flight; and the socket write of the request's
body calls the sender's `leaving` hook first, in the same synchronous step, so the sender's
note that the request is out (its wire log) and the bytes leave together.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum
from typing import Any, Protocol

import httpx
from telegram import (
    Bot,
    ForceReply,
    InlineKeyboardMarkup,
    InputFile,
    Message,
    ReactionTypeEmoji,
    ReplyParameters,
)
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TelegramError,
    TimedOut,
)
from telegram.ext import ExtBot

log = logging.getLogger(__name__)


class Outcome(StrEnum):
    SENT = "sent"
    UNREACHABLE = "unreachable"
    MIGRATED = "migrated"
    RETRY = "retry"
    MAYBE_SENT = "maybe-sent"
    REJECTED = "rejected"
    MESSAGE_GONE = "message-gone"  # an edit of a message deleted since, or too old to edit
    UNAUTHORIZED = "unauthorized"  # 401/404 on the token: nothing was taken


def retry_seconds(exc: RetryAfter) -> float:
    """The wait a 429 asks for, in seconds (PTB 22 keeps it as a timedelta internally)."""
    delay = getattr(exc, "_retry_after", None)
    if isinstance(delay, timedelta):
        return delay.total_seconds()
    return float(exc.retry_after)  # type: ignore[arg-type]


# Bad requests that mean the chat itself is gone, not that our request was wrong.
_GONE = ("chat not found", "user is deactivated", "peer_id_invalid", "bot was kicked")
# A bad request that means an edit asked for what the message already shows.
_UNCHANGED = "message is not modified"
# Telegram's words for an edit of a message that is not there (deleted) or can no longer be
# edited: not the bot's bug, and nothing to retry.
_GONE_MESSAGE = ("message to edit not found", "message can't be edited", "message_id_invalid")


class WireFailure(Exception):
    """A transport's failure, said in the terms `classify` needs: whether the request may
    have reached Telegram whole (`left`). A client other than httpx (bot/reply_client.py)
    raises PTB's errors from one of these, so this module never imports it."""

    def __init__(self, description: str, *, left: bool) -> None:
        super().__init__(description)
        self.left = left


def classify(exc: BaseException) -> Outcome:
    """The one mapping from a Telegram (or transport) error to what it means for delivery."""
    if isinstance(exc, ChatMigrated):
        return Outcome.MIGRATED
    if isinstance(exc, RetryAfter):
        return Outcome.RETRY
    if isinstance(exc, Forbidden):
        return Outcome.UNREACHABLE
    if isinstance(exc, InvalidToken):
        # Telegram answered, and refused the token: the request was not taken (PTB raises
        # this for a 401 and for a 404, the answer to a malformed or unknown token).
        return Outcome.UNAUTHORIZED
    if isinstance(exc, BadRequest):
        text = exc.message.lower()
        if _UNCHANGED in text:
            return Outcome.SENT
        if any(words in text for words in _GONE_MESSAGE):
            return Outcome.MESSAGE_GONE
        return Outcome.UNREACHABLE if any(g in text for g in _GONE) else Outcome.REJECTED
    cause = exc.__cause__
    if isinstance(cause, WireFailure):
        return Outcome.MAYBE_SENT if cause.left else Outcome.RETRY
    if isinstance(exc, TimedOut):
        # Only a timeout after the request left is ambiguous; a connect or pool timeout
        # means nothing was sent, and a write timeout means not all of it was (a server
        # does not act on half a request).
        never_left = isinstance(
            cause, httpx.ConnectTimeout | httpx.PoolTimeout | httpx.WriteTimeout
        ) or ("pool timeout" in exc.message.lower())
        return Outcome.RETRY if never_left else Outcome.MAYBE_SENT
    if isinstance(cause, httpx.ReadError | httpx.RemoteProtocolError):
        # The connection dropped while we waited for the answer ("Server disconnected", a
        # reset). If the request had been written whole, Telegram may have read and sent it,
        # and nothing tells that apart from a request the server never read: not resent.
        # httpcore reads the answer even after a failed write, so ask whether it was whole.
        return Outcome.MAYBE_SENT if _written_whole(cause) else Outcome.RETRY
    if isinstance(exc, NetworkError):  # refused, a failed write, 5xx
        return Outcome.RETRY
    return Outcome.REJECTED  # Conflict, EndPointNotFound: not the chat's fault


@dataclass(frozen=True, slots=True)
class Result:
    outcome: Outcome
    message: Message | None = None  # the last message Telegram accepted
    first_message_id: int | None = None
    parts_sent: int = 0  # of the messages asked for, counted from the first
    error: TelegramError | None = None

    @property
    def ok(self) -> bool:
        return self.outcome is Outcome.SENT

    @property
    def new_chat_id(self) -> int | None:
        return self.error.new_chat_id if isinstance(self.error, ChatMigrated) else None

    @property
    def retry_after(self) -> float | None:
        return retry_seconds(self.error) if isinstance(self.error, RetryAfter) else None


# -- the moment a request leaves, and whether it left whole ------------------------------------

OnWire = Callable[[], Awaitable[None]]
Leaving = Callable[[], None]
_Hooks = tuple[OnWire, Leaving | None]
_on_wire: contextvars.ContextVar[_Hooks | None] = contextvars.ContextVar("on_wire", default=None)
# The `leaving` hook armed for the task's next socket write (the request body's), if any.
_armed: contextvars.ContextVar[list[Leaving | None] | None] = contextvars.ContextVar(
    "armed", default=None
)
_WHOLE = "interview_bot.written_whole"
# Whether the connections' socket writes can be hooked (see `_hook_writes`); if one cannot,
# `leaving` runs at the trace step just before the body instead, a few dozen µs earlier.
_writes_hooked = [True]


def on_wire(hook: OnWire, leaving: Leaving | None = None) -> contextvars.Token[_Hooks | None]:
    """For the next requests of this task: await `hook` when a request starts to leave the
    process, and call `leaving` (synchronous) right before its body is written."""
    return _on_wire.set((hook, leaving))


def reset_on_wire(token: contextvars.Token[_Hooks | None]) -> None:
    _on_wire.reset(token)


def _hook_writes(stream: object) -> bool:
    """Make a new connection's socket writes call the task's armed `leaving` hook first.

    `stream` is httpcore's stream of a connection just made (anyio's socket stream inside,
    the asyncio transport inside that; with TLS, the encrypted bytes go through the same
    transport). The hook then runs in the same synchronous step as the write of the
    request body, so nothing at all runs between the two. False if the stream is not the
    kind known here (another httpcore or anyio): the caller falls back.
    """
    transport = getattr(getattr(stream, "_stream", None), "_transport", None)
    write = getattr(transport, "write", None)
    if transport is None or not callable(write):
        return False

    def hooked(data: bytes) -> None:
        armed = _armed.get()
        if armed is not None and armed[0] is not None:
            leaving, armed[0] = armed[0], None
            leaving()  # may raise: then these bytes are not written
        write(data)

    try:
        transport.write = hooked
    except AttributeError:  # a transport that takes no attributes
        return False
    return True


async def trace_requests(request: httpx.Request) -> None:
    """An httpx request hook: follow the request's steps through httpcore's `trace` extension.

    Just before the first byte is written (the connection made, the limiter passed), the
    task's `on_wire` hook runs: the outbox marks the row in flight as late as it can await a
    database write. Then, with the headers out, its `leaving` hook is armed and runs inside
    the socket write of the body, right before the bytes go to the kernel (a server acts on
    a request only once it has the body): the outbox notes there, in the wire log, that the
    request is out, with nothing run between that note and the write. When the body has
    been written whole it is noted on the request: httpcore swallows a failed write (to read
    a possible error answer), so a dropped connection looks the same whether the request
    left or not, and this mark tells them apart.
    """
    whole: list[bool] = [False]
    armed: list[Leaving | None] = [None]
    _armed.set(armed)
    before = request.extensions.get("trace")

    async def trace(name: str, info: dict[str, Any]) -> None:
        if name.endswith(".connect_tcp.complete"):
            if not _hook_writes(info.get("return_value")):
                _writes_hooked[0] = False
        elif name.endswith(".send_request_headers.started"):
            hooks = _on_wire.get()
            if hooks is not None:
                await hooks[0]()
        elif name.endswith(".send_request_body.started"):
            hooks = _on_wire.get()
            if hooks is not None and hooks[1] is not None:
                if _writes_hooked[0]:
                    armed[0] = hooks[1]  # run by the body's socket write
                else:
                    hooks[1]()
        elif name.endswith(".send_request_body.complete"):
            whole[0] = True
            if armed[0] is not None:  # no body bytes were written (an empty body)
                leaving, armed[0] = armed[0], None
                leaving()
        if before is not None:
            await before(name, info)

    request.extensions = {**request.extensions, "trace": trace, _WHOLE: whole}


def when_written(done: Callable[[], None]) -> Callable[[httpx.Request], Awaitable[None]]:
    """An httpx request hook: `done()` once each request has been written whole (bot/app.py
    starts the command menus once the first getUpdates is out, not before it)."""

    async def hook(request: httpx.Request) -> None:
        before = request.extensions.get("trace")

        async def trace(name: str, info: dict[str, Any]) -> None:
            if name.endswith(".send_request_body.complete"):
                done()
            if before is not None:
                await before(name, info)

        request.extensions = {**request.extensions, "trace": trace}

    return hook


def _written_whole(exc: httpx.HTTPError) -> bool:
    """False only when the request surely did not leave whole; unknown counts as whole."""
    try:
        whole = exc.request.extensions.get(_WHOLE)
    except RuntimeError:  # an error raised without its request
        return True
    return whole is None or bool(whole[0])


# -- sending -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LimiterRetries:
    """A request's `rate_limit_args`: how often the rate limiter (bot/ratelimit.py) retries a
    429 itself. An object, not a bare int: PTB drops a falsy `rate_limit_args`
    (`ExtBot._merge_api_rl_kwargs`), and 0 is the one the outbox passes."""

    times: int


async def send_messages(
    bot: Bot,
    chat_id: int,
    messages: Sequence[str],
    keyboard: InlineKeyboardMarkup | ForceReply | None = None,
    *,
    reply_to: int | None = None,
    start: int = 0,
    on_part: Callable[[int], Awaitable[None]] | None = None,
    limiter_retries: int | None = None,
) -> Result:
    """Send `messages[start:]` in order (keyboard on the last; the first replies to `reply_to`).

    `on_part(n)` runs after Telegram took message n-1 of several, so a retry resumes there.
    `limiter_retries`: how often the rate limiter itself retries a 429 (the outbox passes 0:
    it retries on its own schedule, with the row back in the queue, not on the wire).
    """
    extra: dict[str, Any] = {}
    if limiter_retries is not None and isinstance(bot, ExtBot):
        extra["rate_limit_args"] = LimiterRetries(limiter_retries)
    last: Message | None = None
    first_id: int | None = None
    for i in range(start, len(messages)):
        is_last = i == len(messages) - 1
        reply = (
            ReplyParameters(message_id=reply_to, allow_sending_without_reply=True)
            if reply_to is not None and i == 0
            else None
        )
        try:
            last = await bot.send_message(
                chat_id,
                messages[i],
                reply_markup=keyboard if is_last else None,
                reply_parameters=reply,
                **extra,
            )
        except TelegramError as exc:
            return Result(classify(exc), last, first_id, i, exc)
        if first_id is None:
            first_id = last.message_id
        if on_part is not None and not is_last:
            await on_part(i + 1)
    return Result(Outcome.SENT, last, first_id, len(messages))


# A reply is retried briefly when Telegram did not take it (refused, 5xx, 429): the person
# is waiting for it now, and a reply minutes late answers nothing. The window is short, so a
# SIGTERM meanwhile still stops the bot within seconds. A reply that may have arrived (a
# timeout after it left) is never resent. The last try is at +5.5 s, inside the window: with
# three delays it was at +3.5 s, and a five-second blip of 502s lost the reply (fault sweep).
REPLY_RETRY_DELAYS = (0.5, 1.0, 2.0, 2.0)
REPLY_RETRY_WINDOW = 6.0


async def send_reply(
    bot: Bot,
    chat_id: int,
    messages: Sequence[str],
    keyboard: InlineKeyboardMarkup | ForceReply | None = None,
    *,
    reply_to: int | None = None,
    delays: Sequence[float] = REPLY_RETRY_DELAYS,
) -> Result:
    """Send a reply (as `send_messages`), retrying what Telegram did not take for a few
    seconds; parts already taken are not sent again. A reply given up on is logged."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + REPLY_RETRY_WINDOW
    result = await send_messages(bot, chat_id, messages, keyboard, reply_to=reply_to)
    attempts = 1
    for delay in delays:
        if result.outcome is not Outcome.RETRY:
            break
        wait = result.retry_after if result.retry_after is not None else delay
        if loop.time() + wait > deadline:
            break
        await asyncio.sleep(wait)
        start = result.parts_sent
        result = await send_messages(
            bot,
            chat_id,
            messages,
            keyboard,
            reply_to=reply_to if start == 0 else None,
            start=start,
        )
        attempts += 1
    if result.outcome is Outcome.RETRY:
        log.warning(
            "reply to chat %s not delivered after %d attempts: %s", chat_id, attempts, result.error
        )
    elif result.outcome is Outcome.MAYBE_SENT:
        log.warning(
            "reply to chat %s may or may not have arrived (%s): not resent", chat_id, result.error
        )
    return result


async def send_file(bot: Bot, chat_id: int, kind: str, file: InputFile, caption: str) -> Result:
    """Send a photo or a document with a caption."""
    try:
        if kind == "photo":
            message = await bot.send_photo(chat_id, file, caption=caption)
        else:
            message = await bot.send_document(chat_id, file, caption=caption)
    except TelegramError as exc:
        return Result(classify(exc), error=exc)
    return Result(Outcome.SENT, message, message.message_id, 1)


async def edit_text(
    bot: Bot,
    chat_id: int,
    message_id: int,
    text: str,
    keyboard: InlineKeyboardMarkup | None = None,
) -> Result:
    """Replace a message's text (and keyboard: None removes it)."""
    try:
        edited = await bot.edit_message_text(
            text, chat_id=chat_id, message_id=message_id, reply_markup=keyboard
        )
    except TelegramError as exc:
        return Result(classify(exc), error=exc)
    return Result(Outcome.SENT, edited if isinstance(edited, Message) else None, message_id, 1)


async def edit_keyboard(
    bot: Bot, chat_id: int, message_id: int, keyboard: InlineKeyboardMarkup | None
) -> Result:
    """Replace the buttons under a message (None removes them)."""
    try:
        edited = await bot.edit_message_reply_markup(
            chat_id=chat_id, message_id=message_id, reply_markup=keyboard
        )
    except TelegramError as exc:
        return Result(classify(exc), error=exc)
    return Result(Outcome.SENT, edited if isinstance(edited, Message) else None, message_id, 1)


async def react(bot: Bot, chat_id: int, message_id: int, emoji: str) -> Result:
    """Put a reaction on a message."""
    try:
        await bot.set_message_reaction(chat_id, message_id, [ReactionTypeEmoji(emoji)])
    except TelegramError as exc:
        return Result(classify(exc), error=exc)
    return Result(Outcome.SENT, None, message_id, 1)


# -- what an outcome changes ---------------------------------------------------------------------


class Reachability(Protocol):
    async def mark_unreachable(self, chat_id: int) -> None: ...

    async def migrate_chat(self, old_id: int, new_id: int) -> None: ...


async def settle(store: Reachability, chat_id: int, result: Result, what: str = "message") -> None:
    """Apply the one rule for each outcome of an interactive send (replies, photos, edits)."""
    match result.outcome:
        case Outcome.UNREACHABLE:
            log.info("chat %s is unreachable (%s); marking it so", chat_id, result.error)
            await store.mark_unreachable(chat_id)
        case Outcome.MIGRATED:
            new_id = result.new_chat_id
            assert new_id is not None
            log.info("group %s moved to %s", chat_id, new_id)
            await store.migrate_chat(chat_id, new_id)
        case Outcome.MESSAGE_GONE:
            log.info("the %s to chat %s found its message gone: %s", what, chat_id, result.error)
        case Outcome.REJECTED:
            # Bad markup or a bad id is our bug: log it loudly, never retry the same request.
            log.error("Telegram rejected the %s to chat %s: %s", what, chat_id, result.error)
        case Outcome.UNAUTHORIZED:
            # Not the chat's doing: the run stops (polling or the outbox notices it).
            log.warning("the %s to chat %s was not sent: %s", what, chat_id, result.error)
        case Outcome.RETRY | Outcome.MAYBE_SENT:
            reachability.failed(result.error)
            log.debug("%s to chat %s not confirmed: %s", what, chat_id, result.error)
        case Outcome.SENT:
            pass


# -- one line per outage -------------------------------------------------------------------------


class Outages:
    """Logs one WARNING when Telegram stops answering and one when it answers again.

    Fed by every request that passes the rate limiter (sends and polling alike), so a brief
    outage gives two lines, not a traceback per request.
    """

    def __init__(self) -> None:
        self.since: float | None = None
        self.failures = 0
        self._first_error = ""

    def failed(self, exc: BaseException | None) -> None:
        if isinstance(exc, TimedOut) and "pool timeout" in exc.message.lower():
            return  # our own connection pool was busy: says nothing about Telegram
        transport = exc is None or classify(exc) in (Outcome.RETRY, Outcome.MAYBE_SENT)
        if not transport or isinstance(exc, RetryAfter):
            self.succeeded()  # Telegram answered (a refusal, a flood limit): it is up
            return
        self.failures += 1
        if self.since is None:
            self.since = time.monotonic()
            self._first_error = brief(exc)
            log.warning("Telegram is not answering (%s); retrying with backoff", brief(exc))

    def succeeded(self) -> None:
        if self.since is not None:
            took = time.monotonic() - self.since
            log.warning(
                "Telegram answers again after %.1f s (%d failed requests)", took, self.failures
            )
        self.since = None
        self.failures = 0

    @property
    def down(self) -> bool:
        return self.since is not None


reachability = Outages()


class _PollingOutage(logging.Filter):
    """PTB logs a traceback for every failed getUpdates; `reachability` says it once instead."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, NetworkError) and not isinstance(exc, RetryAfter):
            reachability.failed(exc)
            return False
        return True


logging.getLogger("telegram.ext.Updater").addFilter(_PollingOutage())


def _not_json_page(record: logging.LogRecord) -> bool:
    """PTB logs an answer it cannot read as JSON (a front end's HTML page with a 502) with
    a traceback and the whole page, for every request; the error it raises is a failed
    request like any other, said once by `reachability` (`brief`)."""
    return not (isinstance(record.msg, str) and record.msg.startswith("Can not load invalid JSON"))


logging.getLogger("telegram.request.BaseRequest").addFilter(_not_json_page)

# PTB's error for such an answer quotes the page: ". Parsing the server response b'…' failed".
_PAGE_QUOTED = re.compile(r"\. Parsing the server response .* failed$", re.DOTALL)


def brief(exc: BaseException | None) -> str:
    """An error as one short line: a page that is not JSON is named, not quoted."""
    return _PAGE_QUOTED.sub(", with a page that is not JSON", str(exc))


def keyboard_from_json(data: dict[str, Any] | None) -> InlineKeyboardMarkup | None:
    return None if data is None else InlineKeyboardMarkup.de_json(data, None)
