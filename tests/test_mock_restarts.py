"""A mock interview survives the real `interview-bot run` being killed (-9) in the middle:
the restarted bot resumes at the same question, nothing asked twice or skipped."""

from __future__ import annotations

from pathlib import Path

from tests.support.fake_bot_api import FakeBotAPI, FakeUser, Sent
from tests.support.run import polling_run
from tests.support.wait import until

LI = FakeUser(1201, "李雷", "zh-hans")  # the shipped packs are in Chinese: hers by language
BLANK = "我需要再查一下资料才能回答这个问题"  # states no concept of any shipped pack
WAIT = 90.0  # a bound for a loaded machine, not a measurement


def question_after(message: Sent, head: str) -> str:
    """The question text of a mock step: the paragraph after the one holding `head`."""
    paragraphs = message.visible.split("\n\n")
    at = next(i for i, p in enumerate(paragraphs) if head in p)
    return paragraphs[at + 1]


async def said(api: FakeBotAPI, text: str, count: int) -> list[Sent]:
    """Send `text` as Li; the `count` messages that come back."""
    before = len(api.to(LI.id))
    api.message(LI, text)
    return (await api.wait_for(LI.id, before + count, timeout=WAIT))[before:]


async def test_kill_9_mid_interview_then_a_restart_resumes_at_the_same_question(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    async with polling_run(api, tmp_path) as process:
        (first,) = await said(api, "/mock 3", 1)
        assert "🎤 第 1/3 题" in first.visible
        (turn,) = await said(api, BLANK, 1)
        assert turn.visible.startswith("✍️ 第 1/3 题：0%") and "🔎 追问" in turn.visible
        (second,) = await said(api, "/skip", 1)  # the follow-up skipped: question 2
        assert "🎤 第 2/3 题" in second.visible
        asked = question_after(second, "第 2/3 题")
        process.kill()
        await process.wait()
    async with polling_run(api, tmp_path):
        # The /skip may not have been marked handled when the bot died: handled again, it
        # shows where the interview is, as /mock does, and skips nothing more.
        before = len(api.to(LI.id))
        api.message(LI, "/mock")
        api.message(LI, "/help")  # a later message: once it is answered, all before it were
        await until(lambda: any(m.visible.startswith("练习") for m in api.to(LI.id)), WAIT)
        shown = [m for m in api.to(LI.id)[before:] if not m.visible.startswith("练习")]
        assert 1 <= len(shown) <= 2
        for again in shown:
            assert again.visible.startswith("🎤 你的模拟面试还在进行")
            assert question_after(again, "第 2/3 题") == asked
        (turn,) = await said(api, BLANK, 1)
        assert turn.visible.startswith("✍️ 第 2/3 题：0%")
        (third,) = await said(api, "/skip", 1)
        assert "🎤 第 3/3 题" in third.visible
        assert question_after(third, "第 3/3 题") not in (asked,)
        _, report, card = await said(api, "/skip", 3)
        assert card.method == "sendPhoto"
        lines = report.visible.split("\n")
        assert lines[0] == "📋 模拟面试报告 · 答了 2/3 题"
        assert [line[:3] for line in lines if line[:1].isdigit()] == ["1. ", "2. ", "3. "]
