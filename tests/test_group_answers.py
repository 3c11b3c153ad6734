"""Which group replies count as answers: bots never do; ✍ only for an answer that was stored."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.handlers import groups
from tests.conftest import BotHarness
from tests.support.fake_bot_api import FakeBotAPI, FakeUser
from tests.support.wait import until
from tests.test_group_flow import (
    ANA,
    BEN,
    GROUP,
    MEDIUM,
    STRONG,
    WEAK,
    open_beginner_q3,
    reactions,
)

RELAY = FakeUser(8199, "RelayBot")
RELAY_FROM = {"id": RELAY.id, "is_bot": True, "first_name": "RelayBot", "username": "relay_bot"}


@pytest.fixture(autouse=True)
def _fresh_ack_window() -> Iterator[None]:
    groups._acks.clear()
    yield
    groups._acks.clear()


def reacted_to(api: FakeBotAPI) -> list[int]:
    return [r.message_id for r in reactions(api)]


async def test_replies_from_bots_are_not_answers(bot: BotHarness, api: FakeBotAPI) -> None:
    question = await open_beginner_q3(bot)
    relayed = api.message(
        RELAY, STRONG, chat_id=GROUP, reply_to=question.message_id, extra={"from": RELAY_FROM}
    )
    # Sentinel: a member's answer after the bot's reply is acknowledged.
    mine = api.message(ANA, MEDIUM, chat_id=GROUP, reply_to=question.message_id)
    await until(lambda: mine in reacted_to(api), 5)
    assert relayed not in reacted_to(api)
    assert await bot.storage.answers_for(RELAY.id) == []
    (results,) = await bot.say(ANA, "/reveal", chat_id=GROUP)
    assert "RelayBot" not in results.visible
    assert "🥇 Ana — " in results.visible


async def test_an_edit_of_a_replaced_answer_gets_no_reaction(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    question = await open_beginner_q3(bot)
    first = api.message(ANA, WEAK, chat_id=GROUP, reply_to=question.message_id)
    await until(lambda: first in reacted_to(api), 5)
    second = api.message(ANA, MEDIUM, chat_id=GROUP, reply_to=question.message_id)
    await until(lambda: second in reacted_to(api), 5)
    api.message(ANA, STRONG, chat_id=GROUP, reply_to=question.message_id, edited_from=first)
    sentinel = api.message(BEN, WEAK, chat_id=GROUP, reply_to=question.message_id)
    await until(lambda: sentinel in reacted_to(api), 5)
    # The edit was not stored (the later answer counts), so it is not acknowledged.
    assert reacted_to(api).count(first) == 1
    # The current answer's edit is stored and acknowledged again.
    api.message(ANA, STRONG, chat_id=GROUP, reply_to=question.message_id, edited_from=second)
    await until(lambda: reacted_to(api).count(second) == 2, 5)
    (results,) = await bot.say(ANA, "/reveal", chat_id=GROUP)
    assert "🥇 Ana — 100% (4/4)" in results.visible
