"""What the daily prompt's delivery outcomes mean for a user, and the production scheduler loop.

Rejected (400), chat gone (400 "chat not found"), a timeout before and after the request left,
through the real Application and the fake Bot API server. The last tests run the bot as
`interview-bot run` does, with its own scheduler loop: nothing calls a tick by hand.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import pytest
from telegram.error import BadRequest, TimedOut

from bot import delivery
from bot.app import build_application, running
from bot.config import Settings
from bot.core.content import Library
from bot.delivery import Outcome
from bot.storage import Storage
from tests.conftest import BotHarness, FakeClock
from tests.support.fake_bot_api import FakeBotAPI, FakeUser, Sent
from tests.test_daily_flow import dailies

ADA = FakeUser(2301, "Ada", "en")
GROUP = -100950


async def _subscribed(bot: BotHarness) -> None:
    await bot.say(ADA, "/start")
    (reply,) = await bot.say(ADA, "/daily 09:30")
    assert "09:30" in reply.visible


async def test_a_rejected_prompt_is_not_retried_and_tomorrow_comes_as_usual(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await _subscribed(bot)
    api.fail("sendMessage", 400, chat_id=ADA.id, description="Bad Request: can't parse entities")
    calls = api.calls["sendMessage"]
    bot.clock.advance(minutes=30)
    report = await bot.tick()
    assert report.outcomes["failed"] == 1 and report.outcomes["sent"] == 0
    assert api.calls["sendMessage"] == calls + 1  # our own bug: the same request is not repeated
    assert dailies(api, ADA.id) == []
    # Not the user's doing: they stay subscribed and reachable.
    chat = await bot.storage.get_chat(ADA.id)
    user = await bot.storage.get_user(ADA.id)
    assert chat is not None and user is not None
    assert (chat.active, chat.daily_enabled, user.active) == (True, True, True)
    bot.clock.advance(days=1)
    assert (await bot.tick()).outcomes["sent"] == 1
    assert len(dailies(api, ADA.id)) == 1


async def test_chat_not_found_stops_the_prompts(bot: BotHarness, api: FakeBotAPI) -> None:
    await _subscribed(bot)
    api.fail("sendMessage", 400, chat_id=ADA.id, description="Bad Request: chat not found")
    bot.clock.advance(minutes=30)
    assert (await bot.tick()).outcomes["failed"] == 1
    chat = await bot.storage.get_chat(ADA.id)
    assert chat is not None and not chat.active
    calls = api.calls["sendMessage"]
    bot.clock.advance(days=1)
    report = await bot.tick()
    assert report.outcomes["queued"] == 0 and api.calls["sendMessage"] == calls


async def test_a_timeout_after_sending_is_not_resent_and_tomorrow_comes(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await _subscribed(bot)
    bot.clock.advance(minutes=30)
    bot.app.bot._request[1]._client.timeout.read = 0.5
    api.hang()
    report = await bot.tick()
    api.unhang()
    assert report.outcomes["unknown"] == 1 and report.outcomes["sent"] == 0
    assert len(dailies(api, ADA.id)) == 1  # it reached Telegram once
    assert await bot.storage.outbox_statuses() == {"unknown": 1}
    chat = await bot.storage.get_chat(ADA.id)
    assert chat is not None and chat.active and chat.daily_enabled
    bot.clock.advance(minutes=60)
    assert (await bot.tick()).outcomes["queued"] == 0  # the day's prompt is not sent again
    bot.clock.advance(days=1)
    assert (await bot.tick()).outcomes["sent"] == 1
    assert len(dailies(api, ADA.id)) == 2


def _timed_out(cause: Exception, message: str = "Timed out") -> TimedOut:
    """A TimedOut as PTB's HTTPXRequest raises it: `raise TimedOut(...) from httpx_error`."""
    try:
        raise TimedOut(message) from cause
    except TimedOut as exc:
        return exc


@pytest.mark.parametrize(
    ("error", "outcome"),
    [
        pytest.param(_timed_out(httpx.ConnectTimeout("connect")), Outcome.RETRY, id="connect"),
        pytest.param(
            _timed_out(httpx.PoolTimeout("pool"), "Pool timeout: All connections busy"),
            Outcome.RETRY,
            id="pool",
        ),
        pytest.param(_timed_out(httpx.ReadTimeout("read")), Outcome.MAYBE_SENT, id="read"),
        pytest.param(_timed_out(httpx.WriteTimeout("write")), Outcome.RETRY, id="write"),
        pytest.param(BadRequest("Message text is empty"), Outcome.REJECTED, id="bad-request"),
        pytest.param(BadRequest("Chat not found"), Outcome.UNREACHABLE, id="chat-not-found"),
        pytest.param(BadRequest("User is deactivated"), Outcome.UNREACHABLE, id="deactivated"),
    ],
)
def test_what_a_timeout_or_bad_request_means(error: Exception, outcome: Outcome) -> None:
    # Only a timeout after the whole request left may have delivered it; one that never left
    # (or left in part: a server does not act on half a request) is safe to send again.
    assert delivery.classify(error) is outcome


# -- the production loop ------------------------------------------------------------------------


@asynccontextmanager
async def _production(
    settings: Settings, library: Library, clock: FakeClock
) -> AsyncIterator[Storage]:
    app = build_application(
        settings.model_copy(update={"scheduler_interval_seconds": 0.05}),
        library,
        clock=clock,
        scheduler=True,  # as `interview-bot run` builds it
        rng=random.Random(20260302),
    )
    async with running(app, poll_timeout=1):
        yield app.bot_data["services"].storage


async def _say(api: FakeBotAPI, user: FakeUser, text: str, chat_id: int | None = None) -> Sent:
    chat = user.id if chat_id is None else chat_id
    before = len(api.to(chat))
    api.message(user, text, chat_id=chat_id)
    return (await api.wait_for(chat, before + 1))[-1]


async def test_the_scheduler_loop_prompts_and_closes_rounds_by_itself(
    api: FakeBotAPI,
    bot_settings: Settings,
    flow_library: Library,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with _production(bot_settings, flow_library, clock) as storage:
        welcome = await _say(api, ADA, "/start")
        api.callback(ADA, "field:ml-serving", welcome)  # the (Chinese) Triton pack, chosen
        await api.wait_for(ADA.id, len(api.to(ADA.id)) + 1)
        await _say(api, ADA, "/daily 09:30")
        question = await _say(api, ADA, "/quiz triton", chat_id=GROUP)
        assert "Round" in question.visible
        # One tick fails (the database hiccups): logged, and the loop goes on.
        real = storage.due_chats
        failed = asyncio.Event()
        ticks = 0

        async def flaky(*args: object, **kw: object) -> object:
            nonlocal ticks
            ticks += 1
            if not failed.is_set():
                failed.set()
                raise RuntimeError("disk I/O error")
            return await real(*args, **kw)  # type: ignore[arg-type]

        monkeypatch.setattr(storage, "due_chats", flaky)
        caplog.set_level(logging.ERROR, logger="bot.jobs.daily")
        await asyncio.wait_for(failed.wait(), timeout=10)
        seen = len(api.to(ADA.id))
        clock.advance(minutes=30)  # 09:30: the prompt is due, the round past its 10 minutes
        (prompt,) = (await api.wait_for(ADA.id, seen + 1))[seen:]
        assert prompt.visible.startswith("☀️ Daily question")
        results = await api.wait_for(GROUP, 2)
        assert "Round closed" in results[1].visible
        assert [r.getMessage() for r in caplog.records] == ["daily tick failed"]
        # Later ticks do not prompt again the same day: wait for three more of them.
        later = ticks + 3
        for _ in range(500):
            if ticks >= later:
                break
            await asyncio.sleep(0.02)
        assert ticks >= later
        await _say(api, ADA, "/help")  # and whatever they recorded was delivered before this
        assert len(dailies(api, ADA.id)) == 1
    # The loop ended with the bot: it is not left running after shutdown.
    assert not [
        t for t in asyncio.all_tasks() if "run_forever" in repr(t.get_coro()) and not t.done()
    ]


async def test_the_daily_tick_logs_plain_words(
    bot: BotHarness, caplog: pytest.LogCaptureFixture
) -> None:
    """What an operator reads in the log: counts in words, not a Python dict."""
    await _subscribed(bot)
    caplog.set_level(logging.INFO, logger="bot.jobs.daily")
    bot.clock.advance(minutes=30)
    await bot.tick()
    assert [r.getMessage() for r in caplog.records if "daily tick" in r.getMessage()] == [
        "daily tick: 1 prompt queued"
    ]


def test_a_tick_with_every_outcome_reads_as_words() -> None:
    from collections import Counter

    from bot.jobs.daily import tick_words

    outcomes = Counter({"queued": 3, "skipped": 1, "already-sent": 2, "no-question": 1, "error": 1})
    assert tick_words(outcomes, reminders=2) == (
        "3 prompts queued, 1 skipped (missed by more than DAILY_GRACE_MINUTES), 2 already sent"
        " that day, 1 with no question to ask, 1 failed (logged above); 2 reminders queued"
    )
    assert tick_words(Counter({"queued": 1}), reminders=1) == "1 prompt queued; 1 reminder queued"
