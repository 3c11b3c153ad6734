"""The Skip button under an open question: it skips it, as /skip does, and asks another."""

from __future__ import annotations

from tests.conftest import BotHarness
from tests.support.fake_bot_api import FakeBotAPI, FakeUser

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
