"""Updates the Telegram library cannot read: skipped one by one, polling goes on."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from tests.conftest import BotHarness
from tests.support.fake_bot_api import FakeUser

ADA = FakeUser(1001, "Ada", "en")
BOB = FakeUser(1002, "Bob", "en")

# A message whose chat has no `type`: the library requires one, so it cannot build the
# update (as with any field a server of another Bot API version leaves out).
UNREADABLE = {
    "message": {
        "message_id": 7,
        "date": 1_700_000_000,
        "chat": {"id": 1001},
        "from": {"id": 1001, "is_bot": False, "first_name": "Ada"},
        "text": "my secret answer text",
    }
}


async def test_an_unreadable_update_is_skipped_and_polling_goes_on(
    bot: BotHarness, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    polls_before = bot.api.calls["getUpdates"]
    started = time.monotonic()
    bad = bot.api.push(**UNREADABLE)
    # Bob's /start comes after it, in a later batch or the same one: it must be answered.
    (welcome,) = await bot.say(BOB, "/start")
    assert welcome.visible.startswith("👋 Hi Bob!")
    # And Ada, whose message it was, is not locked out either.
    (hello,) = await bot.say(ADA, "/start")
    assert hello.visible.startswith("👋 Hi Ada!")
    # The bad batch was read once, not fetched again and again (one long poll per second
    # at most here; the broken library looped on it hundreds of times a second).
    elapsed = time.monotonic() - started
    assert bot.api.calls["getUpdates"] - polls_before <= 10 + 2 * elapsed
    skipped = [r for r in caplog.records if f"skipped update {bad}" in r.getMessage()]
    assert len(skipped) == 1
    # The log names the update, never its content.
    assert all("my secret answer text" not in r.getMessage() for r in caplog.records)


async def test_feedback_reaches_the_user_through_a_brief_server_error(bot: BotHarness) -> None:
    # A 502 on the feedback (Telegram's front end restarting) must not lose the score the
    # user waits for: the reply is sent again a moment later.
    await bot.say(ADA, "/quiz")
    bot.api.fail("sendMessage", 502, chat_id=ADA.id, times=2)
    feedback = await bot.say(ADA, "Triton 负责模型管理和调度，vLLM 作为 backend 接入。")
    text = "\n".join(m.visible for m in feedback)
    assert "Score:" in text or "Reference answer" in text


async def test_a_reply_is_not_retried_forever(
    bot: BotHarness, caplog: pytest.LogCaptureFixture
) -> None:
    # Telegram refusing for good: the bot gives up on that reply and says so in its log,
    # and the next message of the same user is answered.
    caplog.set_level(logging.WARNING)
    bot.api.fail("sendMessage", 502, chat_id=BOB.id, times=50)
    bot.api.message(BOB, "/help")
    for _ in range(200):
        if any("not delivered after" in r.getMessage() for r in caplog.records):
            break
        await asyncio.sleep(0.05)
    lost = [r for r in caplog.records if "not delivered after" in r.getMessage()]
    assert len(lost) == 1 and f"chat {BOB.id}" in lost[0].getMessage()
    bot.api.clear_faults()
    (welcome,) = await bot.say(BOB, "/start")
    assert welcome.visible.startswith("👋 Hi Bob!")
