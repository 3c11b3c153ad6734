"""The rate limiter: group limits hold (in the bot as it runs too), and a 429 holds back only
the chat it was about."""

from __future__ import annotations

import asyncio
import time
from typing import Any, ClassVar

import pytest
from aiolimiter import AsyncLimiter
from telegram.error import RetryAfter
from telegram.ext import _aioratelimiter

from bot.config import Settings
from bot.core.content import Library
from bot.ratelimit import Lanes, PerChatRetryRateLimiter, bulk_lane, strict_window
from tests.conftest import BotHarness, FakeClock
from tests.support.fake_bot_api import FakeBotAPI, FakeUser, Sent
from tests.support.wait import until


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


async def test_a_429_still_holds_back_and_retries_with_over_a_thousand_chats_held() -> None:
    # Past 1,024 chats held at once the limiter forgets the holds that ran out; the sends
    # that meet a 429 then are retried as every other.
    limiter = PerChatRetryRateLimiter(
        overall_max_rate=100_000, overall_time_period=1, max_retries=2
    )
    told: set[int] = set()

    async def once_429(chat_id: int) -> bool:
        if chat_id not in told:
            told.add(chat_id)
            raise RetryAfter(1)
        return True

    chats = range(1, 1101)
    sent = await asyncio.gather(
        *(
            limiter.process_request(
                lambda c=chat: once_429(c), (), {}, "sendMessage", {"chat_id": chat}, None
            )
            for chat in chats
        ),
        return_exceptions=True,
    )
    assert [r for r in sent if r is not True] == []
    assert told == set(chats)


async def _until_waiting(lanes: Lanes, replies: int, broadcasts: int) -> None:
    for _ in range(100):
        if (len(lanes.replies), len(lanes.broadcasts)) == (replies, broadcasts):
            return
        await asyncio.sleep(0)
    raise AssertionError((len(lanes.replies), len(lanes.broadcasts)))


async def test_a_reply_queued_behind_broadcasts_goes_first() -> None:
    """Ten broadcast sends wait for the overall rate; a reply that comes after them is next.

    The limiter's clock is frozen and moved by hand, so the order does not depend on timing.
    """
    now = [0.0]
    limiter = PerChatRetryRateLimiter(
        overall_max_rate=1, overall_time_period=1, clock=lambda: now[0]
    )
    assert limiter.lanes is not None
    order: list[str] = []

    async def send(name: str, chat_id: int, broadcast: bool) -> None:
        if broadcast:
            bulk_lane()  # as the outbox sender's workers do, for their own task only

        async def callback() -> bool:
            order.append(name)
            return True

        await limiter.process_request(callback, (), {}, "sendMessage", {"chat_id": chat_id}, None)

    sends = [asyncio.create_task(send(f"prompt-{i}", 100 + i, True)) for i in range(11)]
    await _until_waiting(limiter.lanes, 0, 10)  # one went out at once, ten wait
    sends.append(asyncio.create_task(send("reply", 7, False)))
    await _until_waiting(limiter.lanes, 1, 10)
    assert order == ["prompt-0"]
    for _ in range(11):  # one slot a second
        now[0] += 1.0
        limiter.lanes.release()
        await asyncio.sleep(0)
    await asyncio.gather(*sends)
    assert order == ["prompt-0", "reply", *(f"prompt-{i}" for i in range(1, 11))]


async def test_a_reply_behind_two_seconds_of_fan_out_goes_first() -> None:
    """At Telegram's overall limit, 30 a second (the bot's default), a fan-out of 60 is two
    seconds of sends: a reply that comes after all of them are queued is still next, not
    held behind the fan-out's first 30 by a second limit in front of the lanes."""
    now = [0.0]
    limiter = PerChatRetryRateLimiter(
        overall_max_rate=30, overall_time_period=1, clock=lambda: now[0]
    )
    assert limiter.lanes is not None
    order: list[str] = []

    async def send(name: str, chat_id: int, broadcast: bool) -> None:
        if broadcast:
            bulk_lane()

        async def callback() -> bool:
            order.append(name)
            return True

        await limiter.process_request(callback, (), {}, "sendMessage", {"chat_id": chat_id}, None)

    async def turns(n: int) -> None:
        for _ in range(n):
            await asyncio.sleep(0)

    sends = [asyncio.create_task(send(f"prompt-{i}", 100 + i, True)) for i in range(61)]
    await turns(100)  # each has gone as far as it can on a clock that does not move
    sends.append(asyncio.create_task(send("reply", 7, False)))
    await turns(100)
    for _ in range(100):  # one slot at a time, 1/29 s apart (no second sees more than 30)
        if len(order) == 62:
            break
        now[0] += 1 / 29
        limiter.lanes.release()
        await turns(10)
    for task in sends:
        task.cancel()
    await asyncio.gather(*sends, return_exceptions=True)
    assert order == ["prompt-0", "reply", *(f"prompt-{i}" for i in range(1, 61))]


async def test_without_replies_waiting_broadcasts_keep_their_order() -> None:
    now = [0.0]
    lanes = Lanes(2, 1.0, clock=lambda: now[0])
    order: list[int] = []

    async def go(n: int) -> None:
        await lanes.acquire(bulk=True)
        order.append(n)

    tasks = [asyncio.create_task(go(n)) for n in range(6)]
    await _until_waiting(lanes, 0, 4)  # a burst of two, then the bucket is full
    now[0] += 1.0  # room for two more
    lanes.release()
    await asyncio.sleep(0)
    assert order == [0, 1, 2, 3]
    now[0] += 1.0
    lanes.release()
    await asyncio.gather(*tasks)
    assert order == list(range(6))


async def test_no_second_of_a_fan_out_sees_more_than_the_limit() -> None:
    # Telegram's overall limit, 5 a second here: a fan-out of 30 broadcasts starting from an
    # idle bot must not send 5 at once and then 5 a second (10 in its first second).
    now = [0.0]
    limiter = PerChatRetryRateLimiter(
        overall_max_rate=5, overall_time_period=1, clock=lambda: now[0]
    )
    assert limiter.lanes is not None
    sent_at: list[float] = []

    async def send(chat_id: int) -> None:
        bulk_lane()

        async def callback() -> bool:
            sent_at.append(now[0])
            return True

        await limiter.process_request(callback, (), {}, "sendMessage", {"chat_id": chat_id}, None)

    sends = [asyncio.create_task(send(100 + i)) for i in range(30)]
    await asyncio.sleep(0)
    while len(sent_at) < 30:  # the clock moves 10 ms at a time
        now[0] += 0.01
        limiter.lanes.release()
        for _ in range(3):
            await asyncio.sleep(0)
    await asyncio.gather(*sends)
    for start in sent_at:
        assert sum(start <= t < start + 1.0 for t in sent_at) <= 5, start
    # ... and the limit is used: 30 messages take about 30 / 5 s, not much longer.
    assert sent_at[-1] <= 30 / 4


@pytest.mark.parametrize("bulk", [False, True], ids=["replies", "broadcasts"])
async def test_a_send_that_comes_as_room_appears_waits_behind_those_queued(bulk: bool) -> None:
    """Two sends of a lane wait; the bucket gains room for one just as a third arrives:
    the first of those waiting goes, and the newcomer queues behind the other (arrival
    order within a lane). The clock is frozen and moved by hand, as above."""
    now = [0.0]
    lanes = Lanes(1, 1.0, clock=lambda: now[0])
    order: list[int] = []

    async def go(n: int) -> None:
        await lanes.acquire(bulk=bulk)
        order.append(n)

    tasks = [asyncio.create_task(go(n)) for n in range(3)]
    queued = (0, 2) if bulk else (2, 0)
    await _until_waiting(lanes, *queued)  # the first went at once; two wait
    now[0] += 1.0  # room for one more, before the limiter's timer has run
    tasks.append(asyncio.create_task(go(3)))
    await _until_waiting(lanes, *(n + (n > 0) for n in queued))
    lanes.release()
    await asyncio.sleep(0)
    assert order == [0, 1]
    for _ in range(2):
        now[0] += 1.0
        lanes.release()
        await asyncio.sleep(0)
    await asyncio.gather(*tasks)
    assert order == [0, 1, 2, 3]


@pytest.mark.parametrize(
    ("endpoint", "data"),
    [("setMyCommands", {"commands": []}), ("setMessageReaction", {"chat_id": 7, "message_id": 1})],
    ids=["no-chat", "reaction"],
)
async def test_requests_that_are_not_messages_do_not_wait_for_the_message_rate(
    endpoint: str, data: dict[str, Any]
) -> None:
    """Telegram's 30 a second counts messages: the command menus (no chat) and a ✍ reaction
    go at once while the bucket is full and messages wait. The clock is frozen: no room
    comes while the test runs."""
    now = [0.0]
    limiter = PerChatRetryRateLimiter(
        overall_max_rate=1, overall_time_period=1, clock=lambda: now[0]
    )
    assert limiter.lanes is not None
    log: list[tuple[int, float]] = []
    await _send(limiter, 100, log)  # the bucket is full now
    waiting = asyncio.create_task(_send(limiter, 101, log))
    await _until_waiting(limiter.lanes, 1, 0)

    async def callback() -> bool:
        return True

    other = asyncio.create_task(
        limiter.process_request(callback, (), {}, endpoint, dict(data), None)
    )
    for _ in range(100):
        if other.done():
            break
        await asyncio.sleep(0)
    assert other.done() and other.result() is True, f"{endpoint} waited for the message rate"
    assert len(log) == 1  # the second message still waits
    waiting.cancel()


async def test_sends_waiting_their_turn_leave_the_processor_idle() -> None:
    """While sends wait for the overall rate, the bot sleeps until the next one's turn.

    A limiter that woke on every turn of the event loop instead would send at the same
    moments, but keep a core busy for as long as anything waits: an operator would see the
    bot at full CPU through every paced fan-out. A bound, not a speed: seven sends at one
    every 0.5 s wait about 3 s, and the process spends under a tenth of that on the CPU.
    """
    limiter = PerChatRetryRateLimiter(overall_max_rate=3, overall_time_period=1)
    log: list[tuple[int, float]] = []
    cpu, wall = time.process_time(), time.monotonic()
    await asyncio.gather(*(_send(limiter, 100 + i, log) for i in range(7)))
    cpu, wall = time.process_time() - cpu, time.monotonic() - wall
    assert len(log) == 7
    assert cpu < wall / 10, f"{cpu:.2f} s of CPU in {wall:.2f} s of waiting"


# -- the bot as it runs: a burst owed to one group ----------------------------------------------

GROUP = -100700
MEMBERS = [FakeUser(7001 + i, f"Member{i}") for i in range(4)]
# aiolimiter (which PTB's group limits run on) reads the event loop's clock, not the
# harness's FakeClock; so the test runs its clock this many times faster (below).
SPEEDUP = 15


class _FastLimiter(AsyncLimiter):
    """aiolimiter's leaky bucket with its period shortened SPEEDUP times: the same bucket
    on a clock that runs SPEEDUP times faster."""

    built: ClassVar[list[tuple[float, float]]] = []

    def __init__(self, max_rate: float, time_period: float = 60) -> None:
        super().__init__(max_rate, time_period / SPEEDUP)
        _FastLimiter.built.append((max_rate, time_period))


async def test_no_minute_of_a_groups_burst_holds_more_than_twenty_sends(
    api: FakeBotAPI,
    bot_settings: Settings,
    flow_library: Library,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """46 messages owed to one group at once (replies to members' commands, two round
    questions, two rounds' results from the outbox): in no sliding minute does the fake Bot
    API receive more than 20 of them (GROUP_RATE_LIMIT_PER_MINUTE at its default, 20).

    Scaled: the rate limiter cannot run on the harness's clock (aiolimiter reads the event
    loop's), and a minute of real pacing is three minutes for 46 messages, so every limiter
    PTB builds counts its period SPEEDUP (15) times faster: the rule checked is the same,
    at most 20 sends in any window of 60 s / 15 = 4 s, on the times the server received them.
    """

    def messages() -> list[Sent]:  # what counts toward the group's limit (not reactions)
        return [s for s in api.to(GROUP) if s.method != "setMessageReaction"]

    _FastLimiter.built.clear()
    monkeypatch.setattr(_aioratelimiter, "AsyncLimiter", _FastLimiter)
    settings = bot_settings.model_copy(update={"group_rate_limit_per_minute": 20})
    bot = BotHarness(api, settings, flow_library, clock)
    await bot.start()
    before_groups = len(_FastLimiter.built)  # a group's limiter is built on its first send
    try:
        ana, *others = MEMBERS
        (question,) = await bot.say(ana, "/quiz", chat_id=GROUP)
        for user in others:  # answers by reply: a ✍ reaction each (not a message)
            api.message(user, "Triton 用 dynamic batching 在服务端凑批", chat_id=GROUP,
                        reply_to=question.message_id)  # fmt: skip
        # All at once, as a busy group would: 21 /top, results, a new round, 21 /top, results.
        for block in range(2):
            for i in range(21):
                api.message(MEMBERS[i % len(MEMBERS)], "/top", chat_id=GROUP)
            api.message(ana, "/reveal", chat_id=GROUP)
            if block == 0:
                api.message(ana, "/quiz", chat_id=GROUP)
        owed = 1 + 21 + 1 + 1 + 21 + 1
        await until(lambda: len(messages()) >= owed, 120, f"{owed} messages to the group")
        await bot.settle()
    finally:
        await bot.stop()

    assert len(_FastLimiter.built) == before_groups + 1  # the group's, through the patch
    sent = messages()
    assert len(sent) == owed, [s.visible[:40] for s in sent]
    assert sum(s.visible.startswith("🏁 Round closed") for s in sent) == 2
    window = 60 / SPEEDUP
    times = sorted(s.at for s in sent)
    for first, twenty_first in zip(times, times[20:], strict=False):
        assert twenty_first - first > window, "21 sends to the group within one minute"


async def test_a_429_that_is_retried_is_not_logged_as_an_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """PTB's limiter logs "Rate limit hit after maximum of 0 retries" as an error for every
    429 it is told not to retry; this one retries it, so the operator sees no error."""
    limiter = PerChatRetryRateLimiter(overall_max_rate=1000, overall_time_period=1, max_retries=2)
    calls = 0

    async def flaky() -> bool:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RetryAfter(0)
        return True

    result = await limiter.process_request(flaky, (), {}, "sendMessage", {"chat_id": 1}, None)
    assert result is True and calls == 2
    assert not [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]


async def test_a_replica_sharing_the_limits_with_another_keeps_to_half_of_them() -> None:
    # Two webhook replicas send at once: each keeps to 3 of the overall 6 a second, and to
    # 2 of a group's 4, so together they keep to the limits.
    now = [0.0]
    limiter = PerChatRetryRateLimiter(
        overall_max_rate=6, overall_time_period=1, clock=lambda: now[0]
    )
    assert limiter.lanes is not None
    assert limiter.share(2)
    sent_at: list[float] = []

    async def send(chat_id: int) -> None:
        bulk_lane()

        async def callback() -> bool:
            sent_at.append(now[0])
            return True

        await limiter.process_request(callback, (), {}, "sendMessage", {"chat_id": chat_id}, None)

    sends = [asyncio.create_task(send(100 + i)) for i in range(18)]
    await asyncio.sleep(0)
    while len(sent_at) < 18:  # the clock moves 10 ms at a time
        now[0] += 0.01
        limiter.lanes.release()
        for _ in range(3):
            await asyncio.sleep(0)
    await asyncio.gather(*sends)
    for start in sent_at:
        assert sum(start <= t < start + 1.0 for t in sent_at) <= 3, start
    # A group's pacing is halved too (real time: aiolimiter's own clock).
    group_rate, group_period = strict_window(4, 1.0)
    grouped = PerChatRetryRateLimiter(
        overall_max_rate=1000, overall_time_period=1,
        group_max_rate=group_rate, group_time_period=group_period,
    )  # fmt: skip
    assert grouped.share(2)
    log: list[tuple[int, float]] = []
    await asyncio.gather(*(_send(grouped, -100, log) for _ in range(3)))
    times = sorted(t for _, t in log)
    assert times[2] - times[0] > 0.98  # 3 sends into the group: over a second, not 0.67 s
