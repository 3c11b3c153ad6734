"""The ✍ under a counted group answer follows the one rule for every send's outcome: a
reaction refused because the bot was removed marks the group unreachable, as a message
would."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator

import pytest

from bot.handlers import groups
from tests.conftest import BotHarness
from tests.support.fake_bot_api import FakeBotAPI
from tests.support.wait import until
from tests.test_group_flow import ANA, GROUP, MEDIUM, open_beginner_q3


@pytest.fixture(autouse=True)
def _fresh_ack_window() -> Iterator[None]:
    groups._acks.clear()
    yield
    groups._acks.clear()


async def test_a_reaction_refused_as_the_bot_was_removed_marks_the_group_unreachable(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    question = await open_beginner_q3(bot)
    api.fail(
        "setMessageReaction", 403, chat_id=GROUP,
        description="Forbidden: bot was kicked from the supergroup chat",
    )  # fmt: skip
    api.message(ANA, MEDIUM, chat_id=GROUP, reply_to=question.message_id)
    for _ in range(500):  # a bound, not a measurement: the ✍ is sent beside the handling
        chat = await bot.storage.get_chat(GROUP)
        if chat is not None and not chat.active:
            break
        await asyncio.sleep(0.01)
    assert chat is not None and not chat.active


async def test_a_refused_reaction_is_logged_with_telegrams_words(
    bot: BotHarness, api: FakeBotAPI, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="bot.delivery")
    question = await open_beginner_q3(bot)
    kicked = "Forbidden: bot was kicked from the supergroup chat"
    api.fail("setMessageReaction", 403, chat_id=GROUP, description=kicked)
    api.message(ANA, MEDIUM, chat_id=GROUP, reply_to=question.message_id)

    def noted() -> list[str]:
        return [r.getMessage() for r in caplog.records if "is unreachable" in r.getMessage()]

    await until(noted, 10)
    assert noted() == [f"chat {GROUP} is unreachable ({kicked}); marking it so"]
