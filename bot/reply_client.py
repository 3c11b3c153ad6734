"""The HTTP client that carries replies to people: aiohttp, for half the CPU of httpx.

Sending a message is most of what an update costs the bot: PTB's httpx client (httpx,
httpcore, h11 and anyio, all pure Python) took 2.4 ms of CPU per update in a bare echo bot,
aiohttp (its HTTP parser in C) 1.2 ms, on the same requests (issue 13, BENCHMARKS.md). The
bot is bound by its CPU under a burst, so that is its throughput.

Only replies travel here (`CappedRequest.carry_replies`). The outbox's requests stay on
httpx, whose `trace` extension tells the outbox the moment a request leaves
(bot/delivery.py's `trace_requests`); uploads (the /stats picture) and polling stay there
too, and so do replies behind a proxy (`proxied`). This module is imported once the first
`getUpdates` is out (bot/app.py), not while the bot starts: the import alone is 0.16 s, a
third of a bare bot's start.

The same request goes out either way: a form-encoded POST with PTB's User-Agent, the same
timeouts. A failure is raised as PTB's `TimedOut` or `NetworkError` from a `WireFailure`
that says whether the request had been written whole, which is all `delivery.classify`
needs: not written whole (refused, a connect timeout, a write that failed) is retried,
written whole and unanswered may have arrived, and is never sent twice.
"""

from __future__ import annotations

import ssl
from typing import Any
from urllib.parse import urlencode
from urllib.request import getproxies

import aiohttp
from aiohttp.payload import BytesPayload
from telegram._utils.defaultvalue import DefaultValue
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

from bot.delivery import WireFailure

FORM = "application/x-www-form-urlencoded"
KEEPALIVE = 5.0  # seconds an idle connection is kept, as httpx keeps them


def proxied() -> bool:
    """Whether the environment names a proxy (HTTP_PROXY, HTTPS_PROXY or ALL_PROXY, in either
    case, as httpx reads them through urllib's `getproxies`). Replies then stay on httpx,
    with polling and the outbox: aiohttp reads these variables by other rules (a NO_PROXY
    entry with a port or a scheme, ALL_PROXY, a proxy without a scheme), and replies that
    took another road than polling were lost while the bot polled on (found by the fault
    sweep). A bot behind a proxy gives up the speed, not its replies."""
    found = getproxies()
    return any(found.get(scheme) for scheme in ("http", "https", "all"))


class _Body(BytesPayload):
    """A request body that notes when it has been written whole (to the connection)."""

    def __init__(self, value: bytes) -> None:
        super().__init__(value, content_type=FORM)
        self.whole = False

    async def write_with_length(self, writer: Any, content_length: int | None) -> None:
        await super().write_with_length(writer, content_length)
        self.whole = True


class AiohttpRequest(BaseRequest):
    """PTB's `BaseRequest` on one aiohttp session: at most `connections` at once.

    Timeouts not given per call are `connect`, `read` and `write` seconds (PTB's defaults,
    as its httpx client has them); the whole request is bounded by their sum.
    """

    def __init__(
        self,
        *,
        connections: int,
        tls: ssl.SSLContext | None = None,
        connect: float = 5.0,
        read: float = 5.0,
        write: float = 5.0,
    ) -> None:
        self._connections = connections
        self._tls = tls
        self._connect, self._read, self._write = connect, read, write
        self._session: aiohttp.ClientSession | None = None

    @property
    def read_timeout(self) -> float | None:
        return self._read

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(
                    limit=self._connections,
                    ssl=self._tls if self._tls is not None else True,
                    # httpx's: a server that closes idle connections sooner meets a request
                    # on one as often as it did (that request may be lost, never resent).
                    keepalive_timeout=KEEPALIVE,
                ),
                # Telegram sets no cookies. No proxy (see `proxied`): aiohttp's trust_env
                # would also read ~/.netrc in a thread for every request.
                cookie_jar=aiohttp.DummyCookieJar(),
            )

    async def shutdown(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = BaseRequest.DEFAULT_NONE,
        write_timeout: Any = BaseRequest.DEFAULT_NONE,
        connect_timeout: Any = BaseRequest.DEFAULT_NONE,
        pool_timeout: Any = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        session = self._session
        if session is None or session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        if request_data is not None and request_data.contains_files:
            raise ValueError("uploads go through the httpx client (CappedRequest)")
        connect = _given(connect_timeout, self._connect)
        read = _given(read_timeout, self._read)
        write = _given(write_timeout, self._write)
        body = _Body(urlencode(request_data.json_parameters).encode() if request_data else b"")
        limits = aiohttp.ClientTimeout(
            total=_sum(connect, write, read), sock_connect=connect, sock_read=read
        )
        try:
            async with session.request(
                method, url, data=body, headers={"User-Agent": self.USER_AGENT}, timeout=limits
            ) as response:
                return response.status, await response.read()
        except TimeoutError as exc:  # aiohttp's own timeouts are TimeoutErrors too
            raise TimedOut(f"aiohttp: {type(exc).__name__}") from _failure(exc, url, body)
        except aiohttp.ClientError as exc:
            failure = _failure(exc, url, body)
            raise NetworkError(f"aiohttp.{failure}") from failure


def _given(value: Any, default: float) -> float | None:
    return default if isinstance(value, DefaultValue) else value


def _sum(*seconds: float | None) -> float | None:
    return None if any(s is None for s in seconds) else sum(s for s in seconds if s is not None)


def _failure(exc: BaseException, url: str, body: _Body) -> WireFailure:
    # aiohttp names the URL in some errors ("Can not write request body for ..."), and the
    # URL holds the token: the message says where without it (logs redact it too).
    said = str(exc).replace(url, "the Bot API")
    failure = WireFailure(f"{type(exc).__name__}: {said}", left=body.whole)
    failure.__cause__ = exc
    return failure
