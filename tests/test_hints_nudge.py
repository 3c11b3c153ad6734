"""Hints that nudge (issue 29): a cue to the concept (how its name begins, its topic), not the
concept itself, and what hints cost said once per question (end to end through the fake Bot
API server; expected texts written by hand)."""

from __future__ import annotations

from tests.conftest import BotHarness
from tests.support.fake_bot_api import FakeUser

ADA = FakeUser(2931, "Ada", "en")


async def test_hints_give_a_cue_and_say_their_cost_once(bot: BotHarness) -> None:
    question = await bot.open_shared(ADA, "triton-q3")
    (first,) = await bot.say(ADA, "/hint")
    assert first.visible == (
        "💡 Hint 1: a key point about batch tuning begins “pref…” — what is it, and why "
        "does it matter?\n"
        "Hints cost a little: with one, even a perfect answer counts only as “I knew it”, "
        "with two or more as “Partly”, so the question comes back sooner."
    )
    (second,) = await bot.press(ADA, question, "hint:triton-q3")
    assert second.visible == (
        "💡 Hint 2: a key point about batch tuning begins “max_…” — what is it, and why "
        "does it matter?"
    )
    assert "preferred_batch_size" not in first.visible
