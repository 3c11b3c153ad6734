"""One-word answers (issue 29): `缓存`, `cache`, `idk` closed the question at 0% with a wall of
feedback. They are refused with a friendly line, and the question stays open (end to end
through the fake Bot API server; expected texts written by hand)."""

from __future__ import annotations

import pytest

from tests.conftest import BotHarness
from tests.support.fake_bot_api import FakeUser

ADA = FakeUser(2921, "Ada", "en")
LI = FakeUser(2922, "李雷", "zh-hans")


@pytest.mark.parametrize("word", ["缓存", "cache", "idk", "max_batch_size"])
async def test_a_one_word_answer_is_refused_and_the_question_stays_open(
    bot: BotHarness, word: str
) -> None:
    await bot.open_shared(ADA, "triton-q3")
    (reply,) = await bot.say(ADA, word)
    assert reply.visible == (
        "✍️ One word is hard to score: answer in a sentence or two (what it is, why it "
        "matters), or /skip for another question. The question is still open."
    )
    assert await bot.storage.answers_for(ADA.id) == []
    state = await bot.storage.get_open_question(ADA.id)
    assert state is not None and state.question_id == "triton-q3"


async def test_a_one_word_answer_is_refused_in_chinese_too(bot: BotHarness) -> None:
    await bot.open_shared(LI, "triton-q3")
    (reply,) = await bot.say(LI, "缓存")
    assert reply.visible == (
        "✍️ 只有一个词，没法评分：请用一两句话作答（是什么、为什么），或发送 /skip 换一题。"
        "题目仍然有效。"
    )
    assert await bot.storage.get_open_question(LI.id) is not None
