"""A Chinese group's daily round closes the round left open with its results in Chinese
(the English flow is tests/test_group_flow.py's)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.handlers import groups
from tests.conftest import BotHarness
from tests.support.fake_bot_api import FakeBotAPI
from tests.test_group_flow import ADMIN, ANA, GROUP, STRONG, answer, messages, open_beginner_q3


@pytest.fixture(autouse=True)
def _fresh_ack_window() -> Iterator[None]:
    groups._acks.clear()
    yield
    groups._acks.clear()


async def test_the_daily_round_closes_the_open_one_with_results_in_the_groups_language(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    api.admins[GROUP] = {ADMIN.id}
    await bot.say(ADMIN, "/lang 中文", chat_id=GROUP)
    await bot.say(ADMIN, "/daily 09:05", chat_id=GROUP)
    question = await open_beginner_q3(bot)
    await answer(bot, ANA, STRONG, question)
    seen = len(messages(api))
    bot.clock.advance(minutes=5)
    assert (await bot.tick()).outcomes["sent"] == 2  # the results, then the new question
    results = messages(api)[seen].visible
    assert results.startswith("🏁 本轮结束"), results
