"""Replies on their own client (bot/reply_client.py): the same requests, the same meanings.

The server only sees HTTP, so the reply client must send what PTB's httpx client sends: the
same method, path, form body and User-Agent, checked here byte for byte against httpx's own
request to a capturing server. A failure must mean for delivery what it means on httpx,
checked on real sockets as in tests/test_delivery.py: refused and cut while being written
are retried; read whole and then dropped, or never answered, may have arrived and are not.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.request import BaseRequest, HTTPXRequest
from yarl import URL

from bot.config import Settings
from bot.core.content import Library
from bot.delivery import Outcome, Result, send_messages
from bot.ratelimit import CappedRequest, bulk_lane
from bot.reply_client import AiohttpRequest
from tests.conftest import BotHarness, FakeClock
from tests.support.fake_bot_api import FakeBotAPI, FakeUser
from tests.test_delivery import HUGE, Serve, _read_request, _reset_unread, _server

# Chinese, markup, every kind of character a form body must escape, and a keyboard.
TEXT = "Triton 的 <b>动态批处理</b>：max_batch_size & preferred batch size = 4/8 ~ 100% ✓\n第二行"
KEYBOARD = InlineKeyboardMarkup([[InlineKeyboardButton("下一题 →", callback_data="next:1")]])


@asynccontextmanager
async def _serving(serve: Serve) -> AsyncIterator[str]:
    """`_server`, whose connections are closed and handlers finished before it returns (a
    handler still waiting on its line when the test's loop closes leaks its socket)."""
    open_lines: list[tuple[asyncio.StreamWriter, asyncio.Task[None]]] = []

    async def tracked(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        open_lines.append((writer, task))
        await serve(reader, writer)

    async with _server(tracked) as base_url:
        yield base_url
    for writer, task in open_lines:
        writer.close()
        task.cancel()
    await asyncio.gather(*(task for _, task in open_lines), return_exceptions=True)


@asynccontextmanager
async def _bot(base_url: str, request: BaseRequest) -> AsyncIterator[Bot]:
    await request.initialize()
    try:
        yield Bot("123:abc", base_url=base_url, request=request)
    finally:
        await request.shutdown()


ANSWER = (
    b'{"ok":true,"result":{"message_id":7,"date":0,"chat":{"id":42,"type":"private"},"text":"ok"}}'
)


async def _captured(request: BaseRequest) -> tuple[bytes, list[bytes]]:
    """What a server received of one sendMessage through `request`: (body, head lines)."""
    received: list[bytes] = []

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        received.append(await _read_request(reader))
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n%s" % (len(ANSWER), ANSWER)
        )
        await writer.drain()
        writer.close()

    async with _serving(answer) as base_url, _bot(base_url, request) as bot:
        result = await send_messages(bot, 42, [TEXT], KEYBOARD, reply_to=3)
    assert result.outcome is Outcome.SENT and result.first_message_id == 7
    head, _, body = received[0].partition(b"\r\n\r\n")
    return body, head.lower().split(b"\r\n")


def _header(lines: list[bytes], name: bytes) -> bytes:
    (value,) = [line.split(b":", 1)[1].strip() for line in lines if line.startswith(name + b":")]
    return value


async def test_a_reply_is_the_same_request_on_the_wire_as_on_httpx() -> None:
    ours_body, ours = await _captured(AiohttpRequest(connections=1))
    httpx_body, theirs = await _captured(HTTPXRequest())
    assert ours_body == httpx_body
    assert ours[0] == theirs[0] == b"post /bot123:abc/sendmessage http/1.1"
    for name in (b"content-type", b"content-length", b"user-agent"):
        assert _header(ours, name) == _header(theirs, name)
    assert _header(ours, b"content-type") == b"application/x-www-form-urlencoded"
    assert "动态批处理".encode().hex("%").upper() in ours_body.decode()


async def _result(base_url: str, text: str, *, read: float = 5.0) -> Result:
    async with _bot(base_url, AiohttpRequest(connections=1, read=read)) as bot:
        return await send_messages(bot, 42, [text])


async def _outcome(base_url: str, text: str, *, read: float = 5.0) -> Outcome:
    return (await _result(base_url, text, read=read)).outcome


async def test_a_reply_read_whole_then_dropped_may_have_arrived() -> None:
    received: list[bytes] = []

    async def read_then_drop(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        received.append(await _read_request(reader))
        writer.close()

    async with _serving(read_then_drop) as base_url:
        assert await _outcome(base_url, "the answer") is Outcome.MAYBE_SENT
    assert len(received) == 1 and received[0].endswith(b"text=the+answer")


async def test_a_reply_read_whole_and_never_answered_may_have_arrived() -> None:
    received: list[bytes] = []

    async def read_then_hang(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        received.append(await _read_request(reader))
        await reader.read()  # no answer, until the client gives up and closes the line
        writer.close()

    async with _serving(read_then_hang) as base_url:
        assert await _outcome(base_url, "the answer", read=0.3) is Outcome.MAYBE_SENT
    assert len(received) == 1


async def test_a_reply_cut_while_being_written_is_retried() -> None:
    async with _serving(_reset_unread) as base_url:
        with pytest.warns(ResourceWarning):  # aiohttp's note on a body this large
            result = await _result(base_url, HUGE)
    assert result.outcome is Outcome.RETRY
    # aiohttp names the URL in this error ("Can not write request body for ..."): not the token.
    said = [str(result.error), str(result.error.__cause__)] if result.error else []
    assert said and all("123:abc" not in text for text in said), said


async def test_a_reply_refused_is_retried() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    assert await _outcome(f"http://127.0.0.1:{port}/bot", "the answer") is Outcome.RETRY


class _Recording(BaseRequest):
    """A reply client that answers every request itself and notes what it was asked."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    @property
    def read_timeout(self) -> float | None:
        return 5.0

    async def initialize(self) -> None:
        pass

    async def shutdown(self) -> None:
        pass

    async def do_request(self, url: str, method: str, request_data: Any = None, *_: Any) -> Any:
        self.texts.append(request_data.json_parameters["text"])
        return 200, ANSWER


async def test_replies_move_to_their_client_the_outbox_and_uploads_stay_on_httpx() -> None:
    # The outbox must stay on httpx: its trace tells the outbox when a request leaves
    # (bot/delivery.py), which is how a daily prompt is never sent twice.
    on_httpx: list[bytes] = []

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                on_httpx.append(await _read_request(reader))
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    b"Content-Length: %d\r\n\r\n%s" % (len(ANSWER), ANSWER)
                )
                await writer.drain()
        except asyncio.IncompleteReadError:  # the client closed the line
            writer.close()

    replies = _Recording()
    request = CappedRequest(replies=2, broadcasts=2)

    async def as_the_outbox(bot: Bot) -> None:
        bulk_lane()
        await bot.send_message(42, "the daily question")

    async with _serving(answer) as base_url, _bot(base_url, request) as bot:
        await bot.send_message(42, "before the reply client")
        request.carry_replies(replies)
        await bot.send_message(42, "a reply")
        await asyncio.create_task(as_the_outbox(bot))
        await bot.send_photo(42, b"\x89PNG not really", caption="a picture")
    assert replies.texts == ["a reply"]
    bodies = b"\n".join(on_httpx)
    assert len(on_httpx) == 3
    for sent in (b"text=before+the+reply+client", b"text=the+daily+question", b"a picture"):
        assert sent in bodies


async def test_behind_a_proxy_replies_go_through_it_as_polling_does(
    api: FakeBotAPI,
    bot_settings: Settings,
    flow_library: Library,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The proxy the environment names is the road to Telegram (httpx's reading of it, for
    # polling and the outbox): replies take it too. aiohttp reads the variables by other
    # rules, and replies that took another road were lost while polling went on.
    relayed = bytearray()
    lines: list[asyncio.StreamWriter] = []
    target = URL(api.base_url)

    async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(target.host, target.port)
        lines.extend((writer, up_writer))

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter, note: bool) -> None:
            while data := await src.read(65536):
                if note:
                    relayed.extend(data)
                dst.write(data)
                await dst.drain()
            dst.close()

        await asyncio.gather(
            pipe(reader, up_writer, True), pipe(up_reader, writer, False), return_exceptions=True
        )

    proxy = await asyncio.start_server(relay, "127.0.0.1", 0)
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "HTTPS_PROXY", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy.sockets[0].getsockname()[1]}")
    bot = BotHarness(api, bot_settings, flow_library, clock)
    await bot.start()
    try:
        (reply,) = await bot.say(FakeUser(35001, "Ada", "en"), "/help")
        assert "/quiz" in reply.visible
    finally:
        await bot.stop()
        proxy.close()
        for line in lines:
            line.close()
    assert b"/getUpdates" in relayed  # polling went through the proxy
    assert b"/sendMessage" in relayed  # and so did the reply
