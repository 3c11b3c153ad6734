"""Feedback that fits a phone (issue 29), end to end through the fake Bot API server: the score
and the top misses first, a "Partly" heading, the reference answer collapsed, no "mixed up"
for a bare list of terms, the rating buttons explained and showing the choice. Expected texts
are written by hand."""

from __future__ import annotations

import pytest

from tests.conftest import BotHarness
from tests.support.fake_bot_api import FakeBotAPI, FakeUser, Sent

ADA = FakeUser(2911, "Ada", "en")
LI = FakeUser(2912, "李雷", "zh-hans")


async def feedback_to(bot: BotHarness, user: FakeUser, text: str) -> list[Sent]:
    """Answer and wait for the whole feedback (its last message carries the rating buttons)."""
    before = len(bot.api.to(user.id))
    bot.api.message(user, text)
    for _ in range(20):
        sent = bot.api.to(user.id)[before:]
        if sent and any(d.startswith("rate:") for _, d in sent[-1].buttons):
            return sent
        await bot.api.wait_for(user.id, before + len(sent) + 1)
    raise AssertionError("no complete feedback")


def head_lines(message: Sent) -> list[str]:
    """The visible lines above the collapsed reference answer."""
    head, quote, _ = message.text.partition("<blockquote expandable>")
    assert quote, message.text
    from tests.support.fake_bot_api import parse_telegram_html

    return parse_telegram_html(head).strip().split("\n")


async def test_low_score_feedback_is_eight_lines_at_most_before_the_collapsed_reference(
    bot: BotHarness,
) -> None:
    await bot.open_shared(ADA, "triton-q3")
    (feedback,) = await feedback_to(bot, ADA, "Triton 会把请求先攒起来，然后一起送给模型去算。")
    lines = head_lines(feedback)
    assert len(lines) <= 8, lines
    assert lines[0].startswith("Score: ")
    # The heaviest three misses named, the fourth counted.
    assert lines[1] == (
        "❌ Missed: preferred_batch_size（期望的 batch 大小） · "
        "max_queue_delay_microseconds（最大排队等待） · max_batch_size（单次最大 batch） · +1 more"
    )
    assert lines[-1] == "📖 Reference answer"
    assert feedback.text.count("<blockquote expandable>") == 1


async def test_partly_credited_concepts_sit_under_partly_not_covered(bot: BotHarness) -> None:
    await bot.open_shared(LI, "triton-q3")
    listed = "preferred_batch_size, max_queue_delay_microseconds, max_batch_size, preserve_ordering"
    (feedback,) = await feedback_to(bot, LI, listed)
    lines = head_lines(feedback)
    assert lines[0].startswith("得分：60%")
    assert lines[1] == (
        "◐ 部分答到（只列了名词，没有解释）：preferred_batch_size（期望的 batch 大小） · "
        "max_queue_delay_microseconds（最大排队等待） · max_batch_size（单次最大 batch） · "
        "另有 1 个"
    )
    assert not any(line.startswith("✅") for line in lines)
    assert "已覆盖" not in feedback.visible


@pytest.mark.parametrize(("user", "mixed_up"), [(ADA, "mixed up with"), (LI, "张冠李戴")])
async def test_a_bare_list_of_terms_is_never_told_it_mixed_something_up(
    bot: BotHarness, user: FakeUser, mixed_up: str
) -> None:
    await bot.open_shared(user, "triton-q1")
    feedback = await feedback_to(bot, user, "可观测、统一入口、vLLM")
    text = "\n".join(m.visible for m in feedback)
    assert mixed_up not in text
    assert "多框架统一服务入口" in text.split("\n")[1]  # named among the misses instead


async def test_the_rating_buttons_are_explained_and_show_the_choice(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await bot.open_shared(LI, "triton-q3")
    feedback = await feedback_to(bot, LI, "我觉得它会把请求攒成一批再送给模型。")
    last = feedback[-1]
    assert last.visible.endswith("👇 你觉得自己会了多少？点一下，决定这道题多久后再来复习。")
    rate = {label: data for label, data in last.buttons if data.startswith("rate:")}
    assert set(rate) == {"✅ 我会", "🤏 部分会", "❌ 不会"}
    (edit,) = await bot.press(LI, last, rate["🤏 部分会"])
    assert edit.method == "editMessageReplyMarkup"
    assert [label for label, _ in api.keyboard(LI.id, last.message_id)] == [
        "✅ 我会",
        "✓ 部分会",  # one mark, not "✓ 🤏"
        "❌ 不会",
        "▶️ 下一题",
    ]
    # Changing one's mind moves the mark.
    await bot.press(LI, last, rate["❌ 不会"])
    assert [label for label, _ in api.keyboard(LI.id, last.message_id)][:3] == [
        "✅ 我会",
        "🤏 部分会",
        "✓ 不会",
    ]
    assert api.callback_answers[-1].startswith("已记录：不会。下次复习：")
