"""Telegram failing in the middle of handling someone's update (a 502 on the tap's answer)
is that update's error, not a polling outage: the person is told, and the operator's log
has it with the update's context."""

from __future__ import annotations

import pytest

from tests.conftest import BotHarness
from tests.support.fake_bot_api import FakeBotAPI, FakeUser

ADA = FakeUser(7801, "Ada", "en")


async def test_a_502_while_handling_a_tap_is_apologised_for_and_logged(
    bot: BotHarness, api: FakeBotAPI, caplog: pytest.LogCaptureFixture
) -> None:
    await bot.open_shared(ADA, "triton-q3")
    (again,) = await bot.say(ADA, "/quiz")  # the question shown again, with two buttons
    before = len(api.to(ADA.id))
    api.fail("answerCallbackQuery", 502)
    api.callback(ADA, again.buttons[0][1], again)
    earlier = await bot.sentinel(ADA)
    assert [m.visible for m in earlier[before:]] == [
        "😕 Something went wrong on my side. Please try again in a moment."
    ]
    errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert any(
        m.startswith("error while handling an update") and f"chat {ADA.id}, user {ADA.id})" in m
        for m in errors
    ), errors
