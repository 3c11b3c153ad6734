"""The rate limiter: group limits hold, and a 429 holds back only the chat it was about."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from telegram.error import RetryAfter

from bot.ratelimit import PerChatRetryRateLimiter, strict_window


async def _send(
    limiter: PerChatRetryRateLimiter, chat_id: int, log: list[tuple[int, float]]
) -> Any:
    async def callback() -> bool:
        log.append((chat_id, time.monotonic()))
        return True

    return await limiter.process_request(
        callback, (), {}, "sendMessage", {"chat_id": chat_id}, None
    )


async def test_sends_into_one_group_keep_to_the_group_limit() -> None:
    # 4 messages per second into one group stands in for Telegram's 20 per minute.
    rate, period = strict_window(4, 1.0)
    limiter = PerChatRetryRateLimiter(
        overall_max_rate=1000, overall_time_period=1, group_max_rate=rate, group_time_period=period
    )
    log: list[tuple[int, float]] = []
    await asyncio.gather(*(_send(limiter, -100, log) for _ in range(8)))
    times = sorted(t for _, t in log)
    for i in range(len(times) - 4):  # any 5 consecutive sends span more than a second
        assert times[i + 4] - times[i] > 0.98
    # Another group is not held up by the first one's queue.
    await asyncio.gather(*(_send(limiter, -100, log) for _ in range(4)), _check_other(limiter))


async def _check_other(limiter: PerChatRetryRateLimiter) -> None:
    await asyncio.wait_for(_send(limiter, -200, []), 0.3)


async def test_a_429_holds_back_only_its_own_chat() -> None:
    limiter = PerChatRetryRateLimiter(overall_max_rate=1000, overall_time_period=1, max_retries=2)
    log: list[tuple[int, float]] = []
    failed_once = False

    async def flaky() -> bool:
        nonlocal failed_once
        log.append((1, time.monotonic()))
        if not failed_once:
            failed_once = True
            raise RetryAfter(1)
        return True

    started = time.monotonic()
    slow = asyncio.create_task(
        limiter.process_request(flaky, (), {}, "sendMessage", {"chat_id": 1}, None)
    )
    await asyncio.sleep(0.05)
    await asyncio.gather(*(_send(limiter, chat, log) for chat in range(2, 12)))
    others_done = time.monotonic() - started
    assert await slow is True
    assert others_done < 0.5  # the ten other chats did not wait for chat 1's second
    retried = [t for chat, t in log if chat == 1]
    assert len(retried) == 2 and retried[1] - retried[0] >= 1.0  # chat 1 waited as told
