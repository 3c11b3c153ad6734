"""Replies to a person go before broadcasts (issue 13): the priority lane, end to end.

The real Application runs against the fake Bot API at a low overall rate (10 messages/s),
with a backlog of daily prompts far longer than the outbox's workers, so every worker has a
prompt waiting in the rate limiter. A user's /quiz then has to overtake them: the test reads
the order in which the fake server received the messages, never wall-clock thresholds.
"""

from __future__ import annotations

import asyncio

from bot.config import Settings
from bot.core.content import Library
from tests.conftest import BotHarness, FakeClock
from tests.support.fake_bot_api import FakeBotAPI, FakeUser
from tests.test_daily_flow import dailies, subscribe

LIN = FakeUser(2301, "Lin", "en")
RATE = 10.0  # messages a second, for everyone
WORKERS = 32  # outbox workers: each holds one prompt waiting for its slot
CHATS = list(range(61001, 61121))  # 120 prompts: twelve seconds of sending at RATE


def _prompts_before(api: FakeBotAPI, index: int) -> int:
    return sum(1 for s in api.sent[:index] if s.chat_id in CHATS and s.method == "sendMessage")


async def test_a_reply_overtakes_the_broadcasts_waiting_for_the_rate_limit(
    api: FakeBotAPI, bot_settings: Settings, flow_library: Library, clock: FakeClock
) -> None:
    settings = bot_settings.model_copy(
        update={
            "rate_limit_per_second": RATE,
            "send_concurrency": WORKERS,
            "stop_grace_seconds": 0.0,  # the backlog is handed back at the end, not sent
        }
    )
    bot = BotHarness(api, settings, flow_library, clock)
    await bot.start()
    try:
        for chat_id in CHATS:
            await subscribe(bot, chat_id, "09:30")
        clock.advance(minutes=30)
        report = await bot.sender.tick()  # all 120 recorded; the outbox is sending them
        assert report.outcomes["queued"] == len(CHATS)
        # Past the limiter's first burst: the bucket is full and the workers wait in line.
        for _ in range(1000):
            if _prompts_before(api, len(api.sent)) >= 2 * RATE:
                break
            await asyncio.sleep(0.01)
        asked_at = len(api.sent)
        api.message(LIN, "/quiz beginner")
        (question,) = await api.wait_for(LIN.id, 1, timeout=30)
        answered_at = api.sent.index(question)
        overtaken = len(CHATS) - _prompts_before(api, answered_at)
        between = _prompts_before(api, answered_at) - _prompts_before(api, asked_at)
    finally:
        await bot.stop()
    assert question.visible.startswith("❓ Beginner")  # the question /quiz beginner asks
    # Still owed when the reply arrived: more than every worker's waiting prompt.
    assert overtaken > WORKERS
    # What arrived between the user's message and the reply: the prompts already let through
    # while the bot read the message and opened a question (a slot every 1/RATE s), not the
    # WORKERS - 1 waiting in line (with one queue for all, the reply would come after them).
    assert between < WORKERS // 2, between
    # Nothing was sent twice meanwhile.
    assert all(len(dailies(api, c)) <= 1 for c in CHATS)
