"""Rate limiting: PTB's AIORateLimiter, with a 429 holding back only the chat it was about.

AIORateLimiter keeps the bot under Telegram's limits (about 30 messages/s overall, 20 a
minute into one group). On a 429 it pauses *every* request for `retry_after`. Since the
limiter already keeps the overall rate legal, a 429 here concerns one chat (a busy group, a
flood-limited user); pausing the whole fan-out for it would stall thousands of other chats.
So this subclass waits as told for that chat only, then retries (a bounded number of times),
while other chats go on at the configured rate.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from telegram.error import RetryAfter, TelegramError
from telegram.ext import AIORateLimiter

from bot.delivery import leaving, reachability, retry_seconds

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


class PerChatRetryRateLimiter(AIORateLimiter):
    def __init__(self, *, max_retries: int = 3, **limits: Any) -> None:
        # The parent never retries itself (so never pauses everything); we retry per chat.
        super().__init__(max_retries=0, **limits)
        self.retries = max_retries
        self._held_until: dict[object, float] = {}

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, JSON]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> JSON:
        chat = data.get("chat_id")
        retries = self.retries if rate_limit_args is None else rate_limit_args
        if endpoint in UNMETERED:
            # Not messages: they do not spend the group's 20 a minute (callers cap them).
            data = {k: v for k, v in data.items() if k != "chat_id"}
        loop = asyncio.get_running_loop()

        async def on_the_wire(*a: Any, **kw: Any) -> JSON:
            # Past the limiter's queue: the request leaves now (the outbox marks it in flight).
            await leaving()
            return await callback(*a, **kw)

        attempt = 0
        while True:
            wait = self._held_until.get(chat, 0.0) - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            try:
                result = await super().process_request(
                    on_the_wire, args, kwargs, endpoint, data, None
                )
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
