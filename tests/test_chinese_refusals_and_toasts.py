"""A Chinese user is refused and prompted in Chinese: a group setting they may not change,
/reveal with no round open, and the toast under a question shown again. (The English texts
have their own flow tests.)"""

from __future__ import annotations

from tests.conftest import BotHarness
from tests.support.fake_bot_api import FakeBotAPI, FakeUser

GROUP = -100777
LI = FakeUser(7301, "Li", "zh")
ADMIN = FakeUser(7302, "Root", "zh")


async def test_a_chinese_member_is_told_in_chinese_that_only_admins_set_the_round_length(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    api.admins[GROUP] = {ADMIN.id}
    (reply,) = await bot.say(LI, "/roundlength 15", chat_id=GROUP)
    assert reply.visible == "只有群管理员可以修改这个设置。"


async def test_keep_answering_under_a_question_shown_again_says_so_in_chinese(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await bot.open_shared(LI, "triton-q3")
    (again,) = await bot.say(LI, "/quiz")
    keep = again.buttons[0][1]  # the first of the two: keep answering, then skip
    await bot.press(LI, again, keep)
    assert api.callback_answers[-1] == "好的，直接发一条消息作答吧。"


async def test_reveal_with_no_round_open_says_so_in_chinese(bot: BotHarness) -> None:
    (reply,) = await bot.say(LI, "/reveal", chat_id=GROUP)
    assert reply.visible == "当前没有进行中的轮次。/quiz 开启一轮。"
