"""Under an open question: the Skip button skips it, as /skip does, and asks another; the
feedback on an answer is a reply to that answer."""

from __future__ import annotations

from tests.conftest import BotHarness
from tests.support.fake_bot_api import FakeBotAPI, FakeUser
from tests.test_one_question_at_a_time import Q3_ANSWER

ADA = FakeUser(7401, "Ada", "en")


async def test_the_skip_button_under_an_open_question_skips_it_and_asks_another(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    question = await bot.open_shared(ADA, "triton-q3")
    before = len(api.to(ADA.id))
    api.callback(ADA, "skip:triton-q3", question)
    after = await bot.sentinel(ADA)
    texts = [m.visible for m in after[before:]]
    assert texts[0] == "⏭ Skipped.", texts
    assert len(texts) == 2 and any(d.startswith("hint:") for _, d in after[-1].buttons)
    open_now = await bot.storage.get_open_question(ADA.id)
    assert open_now is not None and open_now.question_id != "triton-q3"


async def test_feedback_is_a_reply_to_the_answer_it_scores(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    """In a chat with several answers, each score shows which message it is for."""
    await bot.open_shared(ADA, "triton-q3")
    before = len(api.to(ADA.id))
    answered = api.message(ADA, Q3_ANSWER)
    feedback = (await api.wait_for(ADA.id, before + 1))[before]
    assert feedback.visible.startswith("Score: ")
    assert feedback.params["reply_parameters"]["message_id"] == answered
