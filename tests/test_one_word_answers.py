"""One-word answers (issue 29): `缓存`, `cache`, `idk` closed the question at 0% with a wall of
feedback. They are refused with a friendly line, and the question stays open, in a private
chat and in a group round alike (end to end through the fake Bot API server; expected texts
written by hand)."""

from __future__ import annotations

import pytest

from bot.handlers import groups
from tests.conftest import BotHarness
from tests.support.fake_bot_api import FakeBotAPI, FakeUser
from tests.support.wait import until
from tests.test_group_flow import ANA, GROUP, STRONG, open_beginner_q3, reactions

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


async def test_a_one_word_reply_in_a_group_round_is_refused_and_the_member_answers_again(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    groups._acks.clear()  # reactions are capped per group and minute: start afresh
    question = await open_beginner_q3(bot)
    (note,) = await bot.say(ANA, "缓存", chat_id=GROUP, reply_to=question.message_id)
    assert note.visible == (
        "✍️ One word is hard to score: reply to the question again in a sentence or two "
        "(what it is, why it matters). The round is still open for you."
    )
    assert await bot.storage.answers_for(ANA.id) == []
    # Her real answer is counted, and ranked when the round closes.
    mine = api.message(ANA, STRONG, chat_id=GROUP, reply_to=question.message_id)
    await until(lambda: mine in [r.message_id for r in reactions(api)], 5)
    (results,) = await bot.say(ANA, "/reveal", chat_id=GROUP)
    assert "🥇 Ana — 100% (4/4)" in results.visible
