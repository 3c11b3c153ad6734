"""Commands with nothing to act on say so, and what to do instead: /skip with no question
open, /top in a group before any round has finished."""

from __future__ import annotations

from tests.conftest import BotHarness
from tests.support.fake_bot_api import FakeBotAPI, FakeUser

ADA = FakeUser(7601, "Ada", "en")
LI = FakeUser(7602, "Li", "zh")
GROUP = -100760


async def test_skip_with_no_question_open_says_there_is_none(bot: BotHarness) -> None:
    (reply,) = await bot.say(ADA, "/skip")
    assert reply.visible == "There is no open question. Send /quiz for one."
    (reply,) = await bot.say(LI, "/skip")
    assert reply.visible == "当前没有待回答的题目。发送 /quiz 来一道。"


async def test_top_before_any_round_has_finished_says_how_to_start_one(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    (reply,) = await bot.say(ADA, "/top", chat_id=GROUP)
    assert reply.visible == "No finished rounds yet — /quiz starts one."
