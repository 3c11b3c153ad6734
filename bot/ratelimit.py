"""Rate limiting: PTB's AIORateLimiter, with a 429 holding back only the chat it was about,
and replies to people ahead of broadcasts.

AIORateLimiter keeps the bot under Telegram's limits (about 30 messages/s overall, 20 a
minute into one group). On a 429 it pauses *every* request for `retry_after`. Since the
limiter already keeps the overall rate legal, a 429 here concerns one chat (a busy group, a
flood-limited user); pausing the whole fan-out for it would stall thousands of other chats.
So this subclass waits as told for that chat only, then retries (a bounded number of times),
while other chats go on at the configured rate.

The overall rate is kept by `Lanes` instead of the parent's bucket: the same leaky bucket,
with two queues. Requests made by the outbox sender (daily prompts, reminders, rankings:
`bulk_lane()`) wait in the second; a reply to someone who just wrote to the bot waits only
for other replies, never behind a fan-out's queue. The total stays within the limit.

Webhook replicas on PostgreSQL send at once, each through its own limiter: each keeps to
its share of the limits (`share`: 1/N, N the replicas live in the database, read at each
lease renewal), so together they keep to Telegram's. A chat's 429 stays with the replica
that met it: the chat's row stays that replica's, and the chat's later rows wait for it
(bot/storage/outbox.py's claim).

How many requests are out at once is bounded per lane too (`CappedRequest`): the outbox's
workers bound its own, and replies have slots of their own, which a fan-out hung on a slow
Telegram cannot take.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from collections import deque
from collections.abc import Callable, Coroutine
from typing import Any

from telegram._utils.defaultvalue import DefaultValue
from telegram._utils.types import ODVInput
from telegram.error import RetryAfter, TelegramError
from telegram.ext import AIORateLimiter
from telegram.request import BaseRequest, HTTPXRequest, RequestData

from bot.delivery import LimiterRetries, reachability, retry_seconds

JSON = bool | dict[str, Any] | list[dict[str, Any]]


class _ParentGaveUp(logging.Filter):
    """The parent logs every 429 as an error when told not to retry; we retry, so drop it."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Rate limit hit after maximum of")


logging.getLogger("telegram.ext.AIORateLimiter").addFilter(_ParentGaveUp())
log = logging.getLogger(__name__)


UNMETERED = frozenset({"setMessageReaction", "answerCallbackQuery"})


def strict_window(max_messages: int, window: float) -> tuple[int, float]:
    """(max_rate, time_period) for aiolimiter so no window of `window` s has more than N.

    aiolimiter is a leaky bucket: with (N, T) it lets a burst of N through and then N per T,
    so a window of T can see 2N. One at a time every T/(N-1) allows at most N in any T.
    """
    if max_messages <= 1:
        return 1, window
    return 1, window / (max_messages - 1)


_bulk: contextvars.ContextVar[bool] = contextvars.ContextVar("bulk_lane", default=False)


def bulk_lane() -> None:
    """Send the current task's requests as broadcast traffic: after any waiting reply."""
    _bulk.set(True)


class Lanes:
    """The bot's overall message rate: a leaky bucket (as aiolimiter's: a burst of
    `max_rate`, then `max_rate` per `period`) whose waiting requests are let through replies
    first, then broadcasts, each lane in arrival order."""

    def __init__(
        self, max_rate: float, period: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.capacity = float(max_rate)
        self.per_second = max_rate / period
        self.clock = clock
        self.level = 0.0
        self.last = clock()
        self.replies: deque[asyncio.Future[None]] = deque()
        self.broadcasts: deque[asyncio.Future[None]] = deque()
        self._timer: asyncio.TimerHandle | None = None

    async def acquire(self, bulk: bool) -> None:
        """Wait for a slot: a broadcast waits behind every reply that is waiting."""
        self._leak()
        waiting = self.replies or (bulk and self.broadcasts)
        if not waiting and self.level + 1 <= self.capacity:
            self.level += 1
            return
        granted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        (self.broadcasts if bulk else self.replies).append(granted)
        self._arm()
        await granted  # cancelled while waiting: skipped when its turn comes

    def release(self) -> None:
        """Let through as many waiting requests as the bucket has room for (timer-driven)."""
        self._timer = None
        self._leak()
        while self.level + 1 <= self.capacity and (granted := self._next()) is not None:
            granted.set_result(None)
            self.level += 1
        self._arm()

    def _next(self) -> asyncio.Future[None] | None:
        for queue in (self.replies, self.broadcasts):
            while queue:
                granted = queue.popleft()
                if not granted.done():
                    return granted
        return None

    def _leak(self) -> None:
        now = self.clock()
        self.level = max(0.0, self.level - (now - self.last) * self.per_second)
        self.last = now

    def _arm(self) -> None:
        if self._timer is None and (self.replies or self.broadcasts):
            wait = max(0.0, (self.level + 1 - self.capacity) / self.per_second)
            self._timer = asyncio.get_running_loop().call_later(wait, self.release)


class PerChatRetryRateLimiter(AIORateLimiter):
    def __init__(
        self,
        *,
        max_retries: int = 3,
        overall_max_rate: float = 30,
        overall_time_period: float = 1,
        clock: Callable[[], float] = time.monotonic,
        **limits: Any,
    ) -> None:
        # The parent never retries itself (so never pauses everything); we retry per chat.
        # It keeps the group limits; the overall rate is ours, in two lanes.
        super().__init__(max_retries=0, overall_max_rate=0, **limits)
        self.retries = max_retries
        self._held_until: dict[object, float] = {}
        # Strict: no window of `overall_time_period` sees more than the limit. A plain
        # bucket of (N, T) lets N through at once and then N per T: 2N in a fan-out's first T.
        self.lanes = (
            Lanes(*strict_window(max(1, int(overall_max_rate)), overall_time_period), clock)
            if overall_max_rate and overall_time_period
            else None
        )
        self.shares = 1
        self._per_second = self.lanes.per_second if self.lanes is not None else 0.0
        self._group_period = self._group_time_period

    def share(self, replicas: int) -> bool:
        """Keep to 1/`replicas` of the limits from now on (that many send at once); whether
        the share changed. Groups' pacing starts afresh at the new one."""
        replicas = max(1, replicas)
        if replicas == self.shares:
            return False
        self.shares = replicas
        if self.lanes is not None:
            self.lanes.per_second = self._per_second / replicas
        if self._group_period:
            self._group_time_period = self._group_period * replicas
            self._group_limiters.clear()
        return True

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, JSON]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: LimiterRetries | int | None,
    ) -> JSON:
        chat = data.get("chat_id")
        if isinstance(rate_limit_args, LimiterRetries):
            retries = rate_limit_args.times
        else:
            retries = self.retries if rate_limit_args is None else rate_limit_args
        metered = chat is not None and endpoint not in UNMETERED
        if endpoint in UNMETERED:
            # Not messages: they do not spend the group's 20 a minute (callers cap them).
            data = {k: v for k, v in data.items() if k != "chat_id"}
        loop = asyncio.get_running_loop()
        bulk = _bulk.get()

        async def paced(*a: Any, **kw: Any) -> JSON:
            # Past the group's pacing; then the overall rate, replies first.
            if metered and self.lanes is not None:
                await self.lanes.acquire(bulk)
            return await callback(*a, **kw)

        attempt = 0
        while True:
            wait = self._held_until.get(chat, 0.0) - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            try:
                result = await super().process_request(paced, args, kwargs, endpoint, data, None)
            except RetryAfter as exc:
                if attempt >= retries:
                    if retries:
                        log.warning("chat %s: still rate limited after %d retries", chat, retries)
                    raise
                attempt += 1
                self._held_until[chat] = loop.time() + retry_seconds(exc) + 0.1
                self._forget_expired(loop.time())
                continue
            except TelegramError as exc:
                reachability.failed(exc)
                raise
            reachability.succeeded()
            return result

    def _forget_expired(self, now: float) -> None:
        if len(self._held_until) > 1024:
            for key, until in list(self._held_until.items()):
                if until <= now:
                    del self._held_until[key]


REPLIES_IN_FLIGHT = 16


class CappedRequest(HTTPXRequest):
    """PTB's HTTPXRequest with at most `replies` requests of the reply lane out at once, and
    those on a faster client once one is given (`carry_replies`).

    Requests of the outbox (`bulk_lane()`) are bounded by its workers (`send_concurrency`),
    and never take the replies' slots. Past `replies`, a reply waits here, for free:
    httpcore's pool scans every connection it holds, and every request waiting in it, each
    time a request starts or ends (`_assign_requests_to_connections`, with a `poll` and a
    `getpeername` per idle connection). A burst of 256 updates held 256 connections; 32 in
    flight cost as much CPU per update as 256, and 16 about 7% less (16 interleaved
    rounds; issue 13, BENCHMARKS.md). At Telegram's 30 messages a second, 16 in flight is a
    round trip of half a second. No pool timeout runs while a request waits here, and a
    request that waits its turn was never on the wire (bot.delivery.trace_requests).

    Replies go through the client given to `carry_replies` (bot/reply_client.py: aiohttp,
    half the CPU per request), with this client's timeouts; uploads, the outbox and every
    request before it is given stay on httpx.
    """

    def __init__(self, *, replies: int, broadcasts: int, **kwargs: Any) -> None:
        super().__init__(connection_pool_size=replies + broadcasts, **kwargs)
        self._reply_slots = asyncio.Semaphore(replies)
        self._replies: BaseRequest | None = None

    def carry_replies(self, client: BaseRequest) -> None:
        """Send replies through `client` from now on (initialized; shut down with this one)."""
        self._replies = client

    async def shutdown(self) -> None:
        replies, self._replies = self._replies, None
        if replies is not None:
            await replies.shutdown()
        await super().shutdown()

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        args = (url, method, request_data)
        if _bulk.get():
            return await super().do_request(
                *args, read_timeout, write_timeout, connect_timeout, pool_timeout
            )
        async with self._reply_slots:
            replies = self._replies
            if replies is None or (request_data is not None and request_data.contains_files):
                return await super().do_request(
                    *args, read_timeout, write_timeout, connect_timeout, pool_timeout
                )
            own = self._client.timeout
            return await replies.do_request(
                *args,
                own.read if isinstance(read_timeout, DefaultValue) else read_timeout,
                own.write if isinstance(write_timeout, DefaultValue) else write_timeout,
                own.connect if isinstance(connect_timeout, DefaultValue) else connect_timeout,
            )
