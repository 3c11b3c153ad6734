"""Rough edges a new-user trial found (in Chinese and English), end to end through the fake
Bot API server: each test is what the user saw, with the expected text written by hand."""

from __future__ import annotations

import pytest

from tests.conftest import BotHarness
from tests.support.fake_bot_api import FakeBotAPI, FakeUser

ADA = FakeUser(1001, "Ada", "en")
LI = FakeUser(1002, "李雷", "zh-hans")


# -- "You covered every key concept" only for full credit ------------------------------------

Q3_LISTED = "preferred_batch_size, max_queue_delay_microseconds, max_batch_size, preserve_ordering"
Q3_STATED = (
    "preferred_batch_size 是希望组成的 batch 大小；max_queue_delay_microseconds 是请求最多排队"
    "等待多久；max_batch_size 是单次最大 batch；preserve_ordering 保证返回顺序。"
)


async def test_every_concept_only_listed_is_not_called_every_concept_covered(
    bot: BotHarness,
) -> None:
    await bot.say(ADA, "/start q_triton-q3", expect=2)
    feedback = await bot.say(ADA, Q3_LISTED)
    text = "\n".join(m.visible for m in feedback)
    # All four named in a bare list: partial credit (60% each), not a full score.
    assert "Score: 60%" in text
    assert "listed without explaining" in text
    assert "You covered every key concept" not in text
    await bot.say(LI, "/start q_triton-q3", expect=2)
    feedback = await bot.say(LI, Q3_LISTED)
    text = "\n".join(m.visible for m in feedback)
    assert "得分：60%" in text and "所有关键概念都答到了" not in text


async def test_every_concept_stated_is_celebrated(bot: BotHarness) -> None:
    await bot.say(ADA, "/start q_triton-q3", expect=2)
    feedback = await bot.say(ADA, Q3_STATED)
    text = "\n".join(m.visible for m in feedback)
    assert "Score: 100%" in text
    assert "You covered every key concept. 🎉" in text


# -- /help lists every command the menus offer ------------------------------------------------

GROUP = -100700


@pytest.mark.parametrize(("user", "code"), [(ADA, None), (LI, "zh")])
async def test_help_lists_every_command_of_the_menus(
    bot: BotHarness, api: FakeBotAPI, user: FakeUser, code: str | None
) -> None:
    (private,) = await bot.say(user, "/help")
    for command in api.menu("all_private_chats", code):
        assert f"/{command}" in private.visible, command
    assert "/settings" in private.visible
    (group,) = await bot.say(user, "/help", chat_id=GROUP)
    menus = api.menu("all_group_chats", code) + api.menu("all_chat_administrators", code)
    for command in menus:
        assert f"/{command}" in group.visible, command
