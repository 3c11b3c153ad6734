"""Telegram failing in the middle of handling someone's update (a 502 on the tap's answer)
is that update's error, not a polling outage: the person is told, and the operator's log
has it with the update's context."""

from __future__ import annotations

import asyncio
import logging

import pytest

from tests.conftest import BotHarness
from tests.support.fake_bot_api import FakeBotAPI, FakeUser
from tests.support.wait import until

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


async def test_a_chat_that_blocked_the_bot_mid_tap_is_logged_by_its_id_and_left_alone(
    bot: BotHarness, api: FakeBotAPI, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    await bot.open_shared(ADA, "triton-q3")
    (again,) = await bot.say(ADA, "/quiz")
    api.fail("answerCallbackQuery", 403)  # blocked between the message and the tap
    api.callback(ADA, again.buttons[0][1], again)
    noted = f"chat {ADA.id} is unreachable: Forbidden: bot was blocked by the user"
    await until(lambda: noted in _unreachable(caplog), 10, "the log line naming the chat")
    for _ in range(200):  # marked just after the line is logged
        user = await bot.storage.get_user(ADA.id)
        if user is not None and not user.active:
            break
        await asyncio.sleep(0.05)
    assert user is not None and not user.active


def _unreachable(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "unreachable" in str(r.msg)]
