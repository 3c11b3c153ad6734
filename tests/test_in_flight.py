"""Requests out at once: replies have slots of their own, a bounded number of them."""

from __future__ import annotations

import asyncio

from bot.config import Settings
from bot.core.content import Library
from tests.conftest import BotHarness, FakeClock
from tests.support.fake_bot_api import FakeBotAPI, FakeUser
from tests.support.wait import until
from tests.test_daily_flow import subscribe

ADA = FakeUser(2301, "Ada", "en")


async def test_a_reply_goes_out_while_every_worker_of_the_fan_out_hangs(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    # More prompts fall due than the outbox has workers (16), and Telegram takes each of
    # them and does not answer for a minute: every worker hangs on a request. A person who
    # writes to the bot meanwhile is answered all the same, while they still hang.
    fan_out = list(range(33001, 33041))
    for chat_id in fan_out:
        await subscribe(bot, chat_id, "09:30")
    bot.app.bot._request[1]._client.timeout.read = 60  # they hang past the test's wait
    api.hang(set(fan_out))
    bot.clock.advance(minutes=30)
    await bot.sender.tick()  # recorded; the outbox's workers send them
    try:
        await until(lambda: api.hanging == bot.settings.send_concurrency, what="16 hung")
        (reply,) = await asyncio.wait_for(bot.say(ADA, "/help"), 20)
        assert "/quiz" in reply.visible
        assert api.hanging == bot.settings.send_concurrency  # still hung: the reply went past
    finally:
        api.unhang()
        await bot.settle(timeout=30)


async def test_a_burst_of_people_is_answered_sixteen_requests_at_a_time(
    api: FakeBotAPI, bot_settings: Settings, flow_library: Library, clock: FakeClock
) -> None:
    # Forty people write at once, with Telegram 0.2 s away and no overall rate to wait for:
    # each is answered, and no more than 16 replies are out at a time (a connection each).
    settings = bot_settings.model_copy(update={"rate_limit_per_second": 100_000})
    bot = BotHarness(api, settings, flow_library, clock)
    await bot.start()
    try:
        api.latency = 0.2
        people = [FakeUser(34001 + i, f"user{i}", "en") for i in range(40)]
        for person in people:
            api.message(person, "/help")
        for person in people:
            (reply,) = await api.wait_for(person.id, 1, timeout=20)
            assert "/quiz" in reply.visible
    finally:
        api.latency = 0.0
        await bot.stop()
    assert api.most_in_flight == 16
