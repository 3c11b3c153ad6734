"""Updates a fault sweep sent that no client makes every day (issue 28): each gets a clear
reply or is skipped with one log line, never a traceback or a turning spinner.

- an answer holding a lone UTF-16 surrogate (`\\ud800` escaped in the JSON);
- a button tap without its message (a button of an inline-mode message);
- a private message from a bot;
- a forged tap on another person's button (`forget:yes` on someone else's confirmation);
- a Bot API answering 502 with an HTML page instead of JSON.

Expected texts are written out by hand.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from bot.handlers import common
from tests.conftest import BotHarness
from tests.support.fake_bot_api import FakeUser

ADA = FakeUser(1001, "Ada", "en")
BOB = FakeUser(1003, "Bob", "en")
EXPIRED = "This button has expired. Send /quiz for a new question."
NOT_YOURS = "This button is not yours."
APOLOGY = "Something went wrong"


def _tracebacks(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.exc_info]


async def test_an_answer_with_a_lone_surrogate_is_scored(
    bot: BotHarness, caplog: pytest.LogCaptureFixture
) -> None:
    await bot.open_shared(ADA, "triton-q1")
    # A client that cut an emoji in half: its JSON carries "\ud83d" alone.
    half = "dynamic batching groups requests into one batch \ud83d on the GPU"
    replies = await bot.say(ADA, half)
    assert any("Score:" in m.visible for m in replies), [m.visible for m in replies]
    assert not [m for m in replies if APOLOGY in m.visible]
    assert _tracebacks(caplog) == []
    (answer,) = await bot.storage.answers_for(ADA.id)
    assert "\ufffd" in answer.answer  # stored readable, the half character replaced


async def test_a_tap_without_its_message_still_stops_the_spinner(
    bot: BotHarness, caplog: pytest.LogCaptureFixture
) -> None:
    await bot.say(ADA, "/start")
    before = len(bot.api.callback_answers)
    # A button of a message sent in inline mode: the tap names the message only by an id.
    bot.api.push(
        callback_query={
            "id": "4242",
            "from": ADA.to_dict(),
            "chat_instance": "ci",
            "inline_message_id": "AAAA-inline",
            "data": "forget:yes:abc",
        }
    )
    await bot.sentinel(ADA)
    assert bot.api.callback_answers[before:] == [EXPIRED]
    assert _tracebacks(caplog) == []


async def test_a_private_message_from_a_bot_is_skipped_in_one_line(
    bot: BotHarness, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    caplog.set_level(logging.INFO)
    # Once per bot per process: a process that ran this test before (mutmut runs the suite
    # twice in one) has named this bot already.
    monkeypatch.setattr(common, "_bots_skipped", {})
    other_bot = {"id": 5005, "is_bot": True, "first_name": "OtherBot", "username": "other_bot"}
    for text in ("/start", "hello, I am a bot"):
        bot.api.push(
            message={
                "message_id": bot.api.next_message_id(5005),
                "date": 1_700_000_000,
                "chat": {"id": 5005, "type": "private", "first_name": "OtherBot"},
                "from": other_bot,
                "text": text,
                **({"entities": [{"type": "bot_command", "offset": 0, "length": 6}]}
                   if text.startswith("/") else {}),
            }
        )  # fmt: skip
    await bot.sentinel(ADA)  # handled after both
    assert bot.api.to(5005) == []
    skipped = [r.getMessage() for r in caplog.records if "from a bot" in r.getMessage()]
    assert len(skipped) == 1, skipped
    assert "5005" in skipped[0]
    assert await bot.storage.get_user(5005) is None  # not stored as a person


async def test_a_forged_tap_on_another_persons_button_is_refused(bot: BotHarness) -> None:
    await bot.say(ADA, "/start")
    (confirm,) = await bot.say(ADA, "/forget")
    yes = next(d for _, d in confirm.buttons if d.startswith("forget:yes:"))
    await bot.say(BOB, "/start")
    before = len(bot.api.callback_answers)
    bot.api.callback(BOB, yes, confirm)  # Bob's tap on the message in Ada's chat
    await bot.sentinel(BOB)
    assert bot.api.callback_answers[before:] == [NOT_YOURS]
    shown = bot.api.find(ADA.id, confirm.message_id)
    assert shown is not None and shown.visible == confirm.visible  # not edited
    assert await bot.storage.get_user(ADA.id) is not None  # nothing deleted
    # Ada's own button still works.
    bot.api.callback(ADA, yes, confirm)
    await bot.sentinel(ADA)
    done = bot.api.find(ADA.id, confirm.message_id)
    assert done is not None and done.visible.startswith("🗑 Done — I have deleted everything")


async def test_a_502_with_an_html_page_is_one_line_not_a_traceback(
    bot: BotHarness, caplog: pytest.LogCaptureFixture
) -> None:
    await bot.say(ADA, "/start")
    caplog.clear()
    bot.api.bad_gateway(1.5, html=True)
    (reply,) = await bot.say(ADA, "/help")  # sent once the front answers again
    assert reply.visible
    assert bot.api.bad_gateways["sendMessage"] + bot.api.bad_gateways["getUpdates"] >= 1
    assert _tracebacks(caplog) == []
    lines: list[Any] = [r.getMessage() for r in caplog.records]
    assert not [line for line in lines if "<html>" in line], lines
    assert [line for line in lines if "not JSON" in line], lines
