"""What a failed request means for delivery: the one mapping, and whether a request left whole.

The mapping is checked on errors shaped as PTB raises them (a `NetworkError` or `TimedOut`
whose cause is the httpx error). Whether a request left whole is checked on real sockets: a
server that reads the whole request and then drops the line (it may have acted on it), and
one that resets the line while the request is still being written (it cannot have).
"""

from __future__ import annotations

import asyncio
import re
import socket
import struct
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import httpx
import pytest
from telegram import Bot
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
from telegram.request import HTTPXRequest

from bot.delivery import Outages, Outcome, classify, send_messages, trace_requests


def _wrapped(kind: type[TelegramError], cause: Exception) -> TelegramError:
    """As PTB's HTTPXRequest raises it: our error, caused by httpx's."""
    error = kind(f"httpx.{type(cause).__name__}: {cause}")
    error.__cause__ = cause
    return error


@pytest.mark.parametrize(
    ("error", "outcome"),
    [
        pytest.param(ChatMigrated(-100123), Outcome.MIGRATED, id="migrated"),
        pytest.param(RetryAfter(3), Outcome.RETRY, id="429"),
        pytest.param(Forbidden("Forbidden: bot was blocked by the user"), Outcome.UNREACHABLE,
                     id="blocked"),
        pytest.param(BadRequest("Bad Request: chat not found"), Outcome.UNREACHABLE,
                     id="chat-gone"),
        pytest.param(BadRequest("Bad Request: can't parse entities"), Outcome.REJECTED,
                     id="bad-markup"),
        pytest.param(BadRequest("Message is not modified: specified new message content and "
                                "reply markup are exactly the same"), Outcome.SENT,
                     id="edit-unchanged"),
        pytest.param(BadRequest("Bad Request: message to edit not found"),
                     Outcome.MESSAGE_GONE, id="edited-message-deleted"),
        pytest.param(BadRequest("Bad Request: message can't be edited"),
                     Outcome.MESSAGE_GONE, id="edited-message-too-old"),
        # A token refused (401; 404 on a malformed one): nothing taken, nobody's chat at fault.
        pytest.param(InvalidToken("Unauthorized"), Outcome.UNAUTHORIZED, id="401"),
        pytest.param(InvalidToken("Not Found"), Outcome.UNAUTHORIZED, id="404-token"),
        pytest.param(NetworkError("Bad Gateway"), Outcome.RETRY, id="502"),
        pytest.param(_wrapped(NetworkError, httpx.ConnectError("refused")), Outcome.RETRY,
                     id="refused"),
        pytest.param(_wrapped(NetworkError, httpx.WriteError("broken pipe")), Outcome.RETRY,
                     id="write-failed"),
        pytest.param(_wrapped(TimedOut, httpx.ConnectTimeout("connect")), Outcome.RETRY,
                     id="connect-timeout"),
        pytest.param(_wrapped(TimedOut, httpx.PoolTimeout("pool")), Outcome.RETRY,
                     id="pool-timeout"),
        # PTB's own pool timeout has no httpx cause, only its words: nothing was sent.
        pytest.param(TimedOut("Pool timeout: All connections in the connection pool are occupied."
                              " Request was *not* sent to Telegram."), Outcome.RETRY,
                     id="ptb-pool-timeout"),
        pytest.param(_wrapped(TimedOut, httpx.WriteTimeout("write")), Outcome.RETRY,
                     id="write-timeout"),
        pytest.param(_wrapped(TimedOut, httpx.ReadTimeout("read")), Outcome.MAYBE_SENT,
                     id="read-timeout"),
        # The line dropped while the answer was awaited; no request attached, so whether it
        # left whole is unknown: it may have arrived.
        pytest.param(_wrapped(NetworkError, httpx.RemoteProtocolError("Server disconnected")),
                     Outcome.MAYBE_SENT, id="server-disconnected"),
        pytest.param(_wrapped(NetworkError, httpx.ReadError("reset by peer")),
                     Outcome.MAYBE_SENT, id="reset-while-reading"),
    ],
)  # fmt: skip
def test_each_error_has_one_meaning(error: TelegramError, outcome: Outcome) -> None:
    assert classify(error) is outcome


Serve = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@asynccontextmanager
async def _server(serve: Serve) -> AsyncIterator[str]:
    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/bot"
    finally:
        server.close()


async def _read_request(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    return head + await reader.readexactly(length)


async def _send(base_url: str, text: str, hooked: bool = True) -> Outcome:
    kwargs = {"event_hooks": {"request": [trace_requests]}} if hooked else {}
    request = HTTPXRequest(write_timeout=10, httpx_kwargs=kwargs)
    bot = Bot("123:abc", base_url=base_url, request=request)
    try:
        result = await send_messages(bot, 42, [text])
    finally:
        await request.shutdown()
    return result.outcome


async def test_a_request_read_whole_then_dropped_may_have_arrived() -> None:
    received: list[bytes] = []

    async def read_then_drop(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        received.append(await _read_request(reader))  # Telegram has it (and may act on it)
        writer.close()  # and the answer never comes

    async with _server(read_then_drop) as base_url:
        assert await _send(base_url, "the daily question") is Outcome.MAYBE_SENT
    assert len(received) == 1 and received[0].endswith(b"text=the+daily+question")


async def _reset_unread(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Read nothing; once the sender's buffers are full, reset the connection."""
    await asyncio.sleep(0.3)
    sock = writer.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


# Far more than the kernel buffers of both ends hold: the write is still going on at the reset.
HUGE = "x" * (48 * 1024 * 1024)


async def test_a_request_cut_while_being_written_is_retried() -> None:
    async with _server(_reset_unread) as base_url:
        assert await _send(base_url, HUGE) is Outcome.RETRY


async def test_without_the_hook_a_cut_write_cannot_be_told_from_a_dropped_answer() -> None:
    """The control for the test above: what the hook adds (httpcore swallows the failed write)."""
    async with _server(_reset_unread) as base_url:
        assert await _send(base_url, HUGE, hooked=False) is Outcome.MAYBE_SENT


def test_an_outage_is_two_log_lines_that_count_the_failed_requests(
    caplog: pytest.LogCaptureFixture,
) -> None:
    outages = Outages()
    for _ in range(3):
        outages.failed(NetworkError("Bad Gateway"))
    outages.failed(TimedOut("Pool timeout: all connections are occupied"))  # ours, not theirs
    outages.succeeded()
    said = [r.getMessage() for r in caplog.records if r.name == "bot.delivery"]
    assert said[0] == "Telegram is not answering (Bad Gateway); retrying with backoff"
    assert re.fullmatch(r"Telegram answers again after \d+\.\d s \(3 failed requests\)", said[1])
    assert len(said) == 2
    # A refusal is an answer: Telegram is up, and no outage is begun.
    outages.failed(Forbidden("Forbidden: bot was blocked by the user"))
    assert not outages.down
