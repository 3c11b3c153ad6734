"""Updates the Telegram library cannot read: skipped one by one, polling goes on."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest
from telegram.error import NetworkError

from bot.app import unretrieved_network_errors
from tests.conftest import BotHarness
from tests.support.fake_bot_api import FakeUser
from tests.support.wait import until

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


async def test_a_message_without_a_chat_is_skipped_in_one_line(
    bot: BotHarness, caplog: pytest.LogCaptureFixture
) -> None:
    # The library reads it, and every handler's filter then failed on its missing chat: a
    # traceback under "error while handling an update" (the fault sweep). Now the same one
    # line as any update this version cannot read.
    caplog.set_level(logging.WARNING)
    message = {k: v for k, v in UNREADABLE["message"].items() if k != "chat"}
    bad = bot.api.push(message=message)
    (welcome,) = await bot.say(BOB, "/start")  # later: polling went on
    assert welcome.visible.startswith("👋 Hi Bob!")
    skipped = [r for r in caplog.records if f"skipped update {bad}" in r.getMessage()]
    assert [r.getMessage() for r in skipped] == [
        f"skipped update {bad} (message) this version cannot read: a message without a chat"
    ]
    assert not [r for r in caplog.records if r.exc_info], "no traceback"


async def test_feedback_reaches_the_user_through_a_brief_server_error(bot: BotHarness) -> None:
    # A 502 on the feedback (Telegram's front end restarting) must not lose the score the
    # user waits for: the reply is sent again a moment later.
    await bot.say(ADA, "/quiz")
    bot.api.fail("sendMessage", 502, chat_id=ADA.id, times=2)
    feedback = await bot.say(ADA, "Triton 负责模型管理和调度，vLLM 作为 backend 接入。")
    text = "\n".join(m.visible for m in feedback)
    assert "Score:" in text or "Reference answer" in text


async def test_a_reply_outlasts_five_seconds_of_server_errors(bot: BotHarness) -> None:
    # Telegram's front end answering 502 for about five seconds: the reply's tries at 0,
    # +0.5, +1.5 and +3.5 s all fail, and the one at +5.5 s gets through, once.
    bot.api.fail("sendMessage", 502, chat_id=ADA.id, times=4)
    (reply,) = await asyncio.wait_for(bot.say(ADA, "/help"), 15)
    assert "/quiz" in reply.visible
    assert [m.visible for m in await bot.sentinel(ADA)] == [reply.visible]  # once


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


async def test_a_reply_that_may_have_arrived_is_logged_with_why_and_not_resent(
    bot: BotHarness, caplog: pytest.LogCaptureFixture
) -> None:
    # Telegram takes the reply and never answers: it may have arrived, so it is not sent
    # again, and the operator's line says why it is in doubt.
    caplog.set_level(logging.WARNING)
    bot.app.bot._request[1]._client.timeout.read = 0.5
    bot.api.hang({BOB.id})
    bot.api.message(BOB, "/help")

    def doubted() -> list[str]:
        return [r.getMessage() for r in caplog.records if "may or may not" in r.getMessage()]

    await until(doubted, 30, "the reply to /help timed out")
    bot.api.unhang()
    (line,) = doubted()
    head = f"reply to chat {BOB.id} may or may not have arrived ("
    assert line.startswith(head) and line.endswith("): not resent"), line
    why = line.removeprefix(head).removesuffix("): not resent")
    assert "time" in why.lower(), line  # the timeout, in the HTTP library's words
    before = await bot.sentinel(BOB)
    assert len([m for m in before if "/quiz" in m.visible]) == 1  # the one that hung


def test_a_request_cut_off_by_a_stop_is_one_line_not_a_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # What asyncio reports when a polling task ends with Telegram's line dropped as the bot
    # stops (seen once in the fault sweep, as three chained tracebacks).
    caplog.set_level(logging.WARNING)
    loop = asyncio.new_event_loop()
    try:
        error = NetworkError("httpx.RemoteProtocolError: Server disconnected")
        unretrieved_network_errors(
            loop, {"message": "Task exception was never retrieved", "exception": error}
        )
        other = ValueError("a bug")
        unretrieved_network_errors(
            loop, {"message": "Task exception was never retrieved", "exception": other}
        )
    finally:
        loop.close()
    lines = [r for r in caplog.records if r.name == "bot.app"]
    assert [r.getMessage() for r in lines] == [
        "a request ended while stopping: httpx.RemoteProtocolError: Server disconnected"
    ]
    assert lines[0].exc_info is None
    # A bug is still reported by asyncio's own handler, with its traceback.
    assert any(r.exc_info and r.exc_info[1] is other for r in caplog.records)
