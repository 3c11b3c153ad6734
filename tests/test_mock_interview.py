"""Mock interviews (/mock) end to end, as a phone user meets them: the real Application
against the fake Bot API (the Triton pack; question choice seeded)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from PIL import Image

from bot.config import Settings
from bot.core.content import Library, Question, load_library
from tests.conftest import CONTENT, BotHarness, FakeClock
from tests.support.fake_bot_api import FakeBotAPI, FakeUser, Sent
from tests.support.wait import until

ADA = FakeUser(1101, "Ada", "en")
LI = FakeUser(1102, "李雷", "zh-hans")
GROUP = -100400
# States none of the Triton pack's concepts: every answer misses them all, so the follow-up
# is on the question's heaviest concept (the rule: the heaviest one not stated).
BLANK = "我需要再查一下资料才能回答这个问题"


def shown_question(library: Library, message: Sent) -> Question:
    """The library question a message shows (its text is in the message)."""
    found = [q for q in library.questions.values() if q.question in message.visible]
    assert len(found) == 1, message.visible
    return found[0]


def heaviest(question: Question) -> str:
    """The label of the question's heaviest concept, the first of them in the pack's order."""
    top = max(c.weight for c in question.concepts)
    return next(c.label for c in question.concepts if c.weight == top)


def text_of(messages: list[Sent]) -> str:
    return "\n".join(m.visible for m in messages)


async def test_mock_3_asks_three_questions_with_follow_ups_then_a_report(
    bot: BotHarness, api: FakeBotAPI, flow_library: Library
) -> None:
    (first,) = await bot.say(ADA, "/mock 3")
    assert first.visible.startswith("🎤 Mock interview: 3 questions, one at a time.")
    assert "🎤 Question 1/3" in first.visible
    asked = [shown_question(flow_library, first)]
    for n in (1, 2, 3):
        question = asked[-1]
        (turn,) = await bot.say(ADA, BLANK)
        # The score and what was missed, the reference held back; the follow-up on the
        # heaviest concept missed, in the user's language.
        assert turn.visible.startswith(f"✍️ Question {n}/3: 0% · ⏱ 0:00")
        assert f"🔎 Follow-up: what part does “{heaviest(question)}” play here?" in turn.visible
        # What was missed, heaviest first, as feedback names it.
        assert f"❌ Missed: {heaviest(question)[:39]}" in turn.visible
        assert question.answer.splitlines()[0] not in turn.visible
        if n < 3:
            (turn,) = await bot.say(ADA, "这个负责把请求调度到合适的地方，提高整体吞吐")
            assert turn.visible.startswith("✍️ Follow-up: ")
            assert f"🎤 Question {n + 1}/3" in turn.visible
            asked.append(shown_question(flow_library, turn))
    assert len({q.id for q in asked}) == 3  # three different questions
    turn, report, card = await bot.say(ADA, "这个负责把请求调度到合适的地方", expect=3)
    assert turn.visible.startswith("✍️ Follow-up: ")
    # Then its card, a PNG as wide as the /stats picture (a phone's width).
    assert card.method == "sendPhoto"
    assert Image.open(io.BytesIO(card.params["photo"])).size[0] == 1080
    lines = report.visible.split("\n")
    assert lines[0] == "📋 Mock interview report · 3 of 3 answered"
    rows = [line for line in lines if re.match(r"\d\. ", line)]
    assert [row[:3] for row in rows] == ["1. ", "2. ", "3. "]
    assert all(" — 0% · ⏱ 0:00" in row for row in rows)
    for question in asked:  # each row's missed concepts, heaviest first
        assert f"\n    ❌ {heaviest(question)[:39]}" in report.visible
    assert "Total: 0%" in report.visible
    assert "📈 Your first mock interview" in report.visible
    # The reference answers on demand: a button per question.
    data = [d for _, d in report.buttons]
    assert [d.rsplit(":", 1)[1] for d in data] == ["1", "2", "3"]
    (reference,) = await bot.press(ADA, report, data[1])
    assert reference.visible.startswith("📖 Question 2: ")
    assert asked[1].answer.splitlines()[0][:30] in reference.visible
    # Mock answers count like any other: three answers, the day in the streak.
    _, stats = await bot.say(ADA, "/stats", expect=2)
    assert "Answers: 3 on 3 questions" in stats.visible
    assert "Current streak: 1 day" in stats.visible


async def test_skip_and_mock_stop_end_with_the_report_of_what_was_answered(
    bot: BotHarness, flow_library: Library
) -> None:
    (first,) = await bot.say(ADA, "/mock 3")
    question = shown_question(flow_library, first)
    (turn,) = await bot.say(ADA, BLANK)
    assert "🔎 Follow-up" in turn.visible
    (turn,) = await bot.say(ADA, "/skip")  # the follow-up skipped: the next question
    assert turn.visible.startswith("⏭ Skipped.") and "🎤 Question 2/3" in turn.visible
    report, card = await bot.say(ADA, "/mock stop", expect=2)
    assert card.method == "sendPhoto"
    lines = report.visible.split("\n")
    assert lines[0] == "⏹ Mock interview stopped · 1 of 3 answered"
    assert lines[1].startswith("1. ") and " — 0% · ⏱ " in lines[1]
    assert f"🔎 {heaviest(question)[:39]}" in report.visible and "skipped" in lines[3]
    assert [d.rsplit(":", 1)[1] for _, d in report.buttons] == ["1"]
    # Nothing of the interview is left open: the next message is no answer.
    (reply,) = await bot.say(ADA, "这个负责把请求调度到合适的地方")
    assert reply.visible == "There is no open question. Send /quiz for one."
    (reply,) = await bot.say(ADA, "/mock stop")
    assert reply.visible == "No mock interview is running. /mock starts one, e.g. /mock 5."


async def test_a_skipped_question_counts_zero_and_reveal_waits_for_the_report(
    bot: BotHarness,
) -> None:
    await bot.say(ADA, "/mock 2")
    (held,) = await bot.say(ADA, "/reveal")
    assert held.visible.startswith("🎤 In a mock interview the reference answers come")
    (turn,) = await bot.say(ADA, "/skip")
    assert turn.visible.startswith("⏭ Skipped.") and "🎤 Question 2/2" in turn.visible
    await bot.say(ADA, BLANK)
    _, report, _card = await bot.say(ADA, "/skip", expect=3)
    lines = report.visible.split("\n")
    assert lines[0] == "📋 Mock interview report · 1 of 2 answered"
    assert lines[1].startswith("1. ") and lines[1].endswith(" — skipped")


async def test_a_reply_to_an_earlier_question_answers_the_one_on_now(
    bot: BotHarness, flow_library: Library
) -> None:
    (first,) = await bot.say(ADA, "/mock 2")
    earlier = shown_question(flow_library, first)
    await bot.say(ADA, BLANK)
    await bot.say(ADA, "/skip")  # the follow-up: question 2 is on
    (turn,) = await bot.say(ADA, BLANK, reply_to=first.message_id)
    # Not scored against question 1 with its reference shown: it is question 2's answer.
    assert turn.visible.startswith("✍️ Question 2/2: 0%")
    assert earlier.answer.splitlines()[0][:30] not in turn.visible


async def test_a_next_button_from_before_does_not_open_a_question_mid_interview(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await bot.open_shared(ADA, "triton-q3")
    *_, feedback = await bot.say(ADA, "max_batch_size 是单次最大 batch，preferred 是期望的大小")
    (next_button,) = [d for _, d in feedback.buttons if d.startswith("next:")]
    await bot.say(ADA, "/mock 1")
    (turn,) = await bot.say(ADA, BLANK)
    assert "🔎 Follow-up" in turn.visible  # nothing is open while the follow-up is asked
    api.callback(ADA, next_button, feedback)
    await until(lambda: len(api.callback_answers) == 1)
    assert api.callback_answers[0].startswith("🎤 A mock interview is on")
    turn, _report, _card = await bot.say(ADA, "它决定每批最多放多少请求", expect=3)
    assert turn.visible.startswith("✍️ Follow-up: ")  # still the follow-up's answer


async def test_quiz_waits_for_the_interview_and_forget_deletes_it(bot: BotHarness) -> None:
    await bot.say(ADA, "/mock 2")
    (held,) = await bot.say(ADA, "/quiz")  # a new question would take the interview's answers
    assert held.visible.startswith("🎤 A mock interview is on: answer its question")
    (turn,) = await bot.say(ADA, BLANK)
    assert turn.visible.startswith("✍️ Question 1/2: 0%")
    (confirm,) = await bot.say(ADA, "/forget")
    data = next(d for _, d in confirm.buttons if d.startswith("forget:yes"))
    (done,) = await bot.press(ADA, confirm, data)
    assert "deleted everything" in done.visible
    assert await bot.storage.running_mock(ADA.id) is None
    async with bot.storage.transaction() as db:
        rows = await db.execute_fetchall("SELECT COUNT(*) FROM mock_items")
    assert next(iter(rows))[0] == 0


async def test_questions_scored_low_on_weak_spots_come_up_more_often(
    bot: BotHarness, flow_library: Library
) -> None:
    # Li missed everything of triton-q9 twice: its concepts are weak spots, its last score 0.
    for _ in range(2):
        await bot.open_shared(LI, "triton-q9")
        await bot.say(LI, BLANK)
    drawn = []
    for _ in range(60):
        (first,) = await bot.say(LI, "/mock 1 advanced")
        drawn.append(flow_library.questions["triton-q9"].question in first.visible)
        await bot.say(LI, "/mock stop")  # nothing answered: the report alone
    # Drawn at random, one of the five advanced questions would come up 1 time in 5 (12 of
    # 60); triton-q9 weighs 1 + 2 (weak spots) + 1 (scored 0) against 1 for each of the
    # four never answered: 1 time in 2 (30 of 60). Seeded: the same draws every run.
    assert sum(drawn) >= 21, drawn


async def test_a_question_left_open_is_closed_by_the_interview_and_named(
    bot: BotHarness, flow_library: Library
) -> None:
    await bot.open_shared(ADA, "triton-q3")
    (first,) = await bot.say(ADA, "/mock 1")
    left = flow_library.questions["triton-q3"].question
    assert f"(The question left open earlier, “{left}”, is closed unanswered" in first.visible


async def test_mock_arguments_in_any_order_and_friendly_refusals(
    bot: BotHarness, flow_library: Library
) -> None:
    advanced = [q for q in flow_library.questions.values() if q.level.value == "advanced"]
    n = len(advanced)
    assert n < 8  # the pack has fewer: the interview has them all, and says so
    (first,) = await bot.say(LI, "/mock 高级 8")
    assert first.visible.startswith(f"🎤 模拟面试：共 {n} 题")
    assert f"（你要了 8 题，但你关注的题库在这个难度只有 {n} 题。）" in first.visible
    assert f"🎤 第 1/{n} 题" in first.visible and "高级" in first.visible
    (again,) = await bot.say(LI, "/mock 3")  # one runs: shown where it is, not replaced
    assert again.visible.startswith("🎤 你的模拟面试还在进行") and f"第 1/{n} 题" in again.visible
    await bot.say(LI, "/mock stop", expect=1)
    for words, reply in (
        ("/mock 0", "“0”: a mock interview has 1 to 10 questions, e.g. /mock 5"),
        ("/mock 11", "“11”: a mock interview has 1 to 10 questions, e.g. /mock 5"),
        ("/mock 5 90min", "“90min”: the time per answer is 1 to 60 minutes, e.g. /mock 5 3min"),
        ("/mock advanced hard", "/mock takes each of these at most once: a number of questions"),
        ("/mock <b>soon</b>", "I don't know “<b>soon</b>”. /mock takes a number of questions"),
    ):
        (refusal,) = await bot.say(ADA, words)
        assert refusal.visible.startswith(reply)
    (first,) = await bot.say(ADA, "/mock triton 2 3min beginner")
    assert "🎤 Question 1/2 · ⏱ 3:00 per answer" in first.visible
    assert "Beginner · Triton Inference Server" in first.visible


async def test_time_over_the_limit_is_noted(bot: BotHarness) -> None:
    await bot.say(ADA, "/mock 1 2min")
    bot.clock.advance(minutes=3, seconds=5)
    (turn,) = await bot.say(ADA, BLANK)
    assert turn.visible.startswith("✍️ Question 1/1: 0% · ⏱ 3:05 ⚠️ over the 2:00 limit\n")
    _, report, _card = await bot.say(ADA, "/skip", expect=3)
    assert " — 0% · ⏱ 3:05 ⚠️ over the 2:00 limit" in report.visible


async def test_the_second_mock_is_compared_with_the_first(bot: BotHarness) -> None:
    await bot.say(ADA, "/mock 1")
    await bot.say(ADA, BLANK)
    _, report, _card = await bot.say(ADA, "/skip", expect=3)
    assert "Total: 0%" in report.visible
    await bot.say(ADA, "/mock 1")
    _, report, _card = await bot.say(ADA, "/skip", expect=3)  # skipped: this mock is over
    assert "📈 Previous mock: 0% (0 points)" in report.visible


async def test_an_answer_after_24_hours_of_silence_resumes_nothing(
    bot: BotHarness, flow_library: Library
) -> None:
    (first,) = await bot.say(ADA, "/mock 3")
    question = shown_question(flow_library, first)
    bot.clock.advance(hours=24, minutes=1)
    note, *feedback = await bot.say(ADA, "Triton 是统一的推理服务平台，负责模型管理", expect=2)
    assert note.visible == (
        "⌛ Your mock interview was closed after 24 hours of silence (0 of 3 answered)."
        " /mock starts a new one."
    )
    # The message is not lost: scored as ordinary practice, reference and all.
    assert "Score:" in text_of(feedback) and "Reference answer" in text_of(feedback)
    assert question.answer.splitlines()[0][:30] in text_of(feedback)
    (reply,) = await bot.say(ADA, "/mock stop")
    assert reply.visible.startswith("No mock interview is running.")


async def test_the_daily_question_waits_for_the_report(bot: BotHarness, api: FakeBotAPI) -> None:
    await bot.say(ADA, "/daily 10:00")
    await bot.say(ADA, "/mock 1")
    bot.clock.advance(hours=1, minutes=30)  # the daily question is due while the mock is on
    await bot.tick()
    assert not [m for m in api.to(ADA.id) if m.visible.startswith("☀️ Daily question")]
    (turn,) = await bot.say(ADA, BLANK)  # the mock's answer, not the daily question's
    assert turn.visible.startswith("✍️ Question 1/1: 0%")
    _, report, _card = await bot.say(ADA, "/skip", expect=3)
    assert report.visible.startswith("📋 Mock interview report")
    await bot.sentinel(ADA)  # everything the report's update did, delivered
    (daily,) = [m for m in api.to(ADA.id) if m.visible.startswith("☀️ Daily question")]
    assert api.to(ADA.id).index(daily) > api.to(ADA.id).index(report)


async def test_mock_in_a_group_points_to_the_private_chat(bot: BotHarness, api: FakeBotAPI) -> None:
    (reply,) = await bot.say(ADA, "/mock", chat_id=GROUP)
    assert reply.visible.startswith("Mock interviews are one to one")
    markup = reply.params["reply_markup"]["inline_keyboard"]
    assert markup[0][0]["url"] == "https://t.me/interview_test_bot?start=mock"
    # The link's /start mock, in the private chat, starts the interview.
    (first,) = await bot.say(ADA, "/start mock")
    assert first.visible.startswith("🎤 Mock interview: ") and "🎤 Question 1/" in first.visible


async def test_a_stale_interview_leaves_the_daily_question_open_and_counts_its_answers(
    bot: BotHarness, api: FakeBotAPI, flow_library: Library
) -> None:
    await bot.say(ADA, "/daily 10:00")
    await bot.say(ADA, "/interview 2026-03-12")
    (first,) = await bot.say(ADA, "/mock 3")
    question = shown_question(flow_library, first)
    (turn,) = await bot.say(ADA, BLANK)  # question 1 answered; its follow-up is asked
    assert "🔎 Follow-up" in turn.visible
    bot.clock.advance(hours=25)  # Tuesday 10:00: silent 25 h, the day's question is due
    await bot.tick()
    daily = api.to(ADA.id)[-1]
    # The plan brings back what was answered badly: the question the interview was on.
    assert f"hint:{question.id}" in [d for _, d in daily.buttons]
    note, *feedback = await bot.say(ADA, "这个负责把请求调度到合适的地方，提高整体吞吐", expect=2)
    assert note.visible == (
        "⌛ Your mock interview was closed after 24 hours of silence (1 of 3 answered)."
        " /mock starts a new one."
    )
    # The message answers the daily question, scored as usual, reference and all.
    assert "Score:" in text_of(feedback) and "Reference answer" in text_of(feedback)
    assert len(await bot.storage.answers_for(ADA.id)) == 2


async def test_start_todays_plan_waits_for_the_interview(bot: BotHarness, api: FakeBotAPI) -> None:
    await bot.say(ADA, "/daily 10:00")
    (plan,) = await bot.say(ADA, "/interview 2026-03-12")
    assert "plan:start" in [d for _, d in plan.buttons]
    await bot.say(ADA, "/mock 1")
    (turn,) = await bot.say(ADA, BLANK)
    assert "🔎 Follow-up" in turn.visible  # nothing is open while the follow-up is asked
    toasts = len(api.callback_answers)
    api.callback(ADA, "plan:start", plan)
    await until(lambda: len(api.callback_answers) > toasts)
    assert api.callback_answers[toasts].startswith("🎤 A mock interview is on")
    # No plan question was opened: the next message is still the follow-up's answer.
    turn, _report, _card = await bot.say(ADA, "它决定每批最多放多少请求", expect=3)
    assert turn.visible.startswith("✍️ Follow-up: ")


async def test_a_shared_question_link_waits_for_the_interview(bot: BotHarness) -> None:
    await bot.say(ADA, "/mock 2")
    (turn,) = await bot.say(ADA, BLANK)
    assert "🔎 Follow-up" in turn.visible  # nothing is open while the follow-up is asked
    (held,) = await bot.say(ADA, "/start q_triton-q5")  # as /quiz is: held, nothing opened
    assert held.visible.startswith("🎤 A mock interview is on: answer its question")
    (turn,) = await bot.say(ADA, "它决定每批最多放多少请求")
    assert turn.visible.startswith("✍️ Follow-up: ") and "🎤 Question 2/2" in turn.visible
    (held,) = await bot.say(ADA, "/start q_triton-q5")  # no switch offered either
    assert held.visible.startswith("🎤 A mock interview is on: answer its question")
    assert held.buttons == []
    (turn,) = await bot.say(ADA, BLANK)  # still the interview's question
    assert turn.visible.startswith("✍️ Question 2/2: 0%")


async def test_a_switch_button_from_before_does_not_replace_the_interviews_question(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await bot.open_shared(ADA, "triton-q1")
    _, still_open = await bot.say(ADA, "/start q_triton-q5", expect=2)
    (switch,) = [d for _, d in still_open.buttons if d.startswith("switch:")]
    await bot.say(ADA, "/mock 1")
    mock = await bot.storage.running_mock(ADA.id)
    assert mock is not None and mock.question_id == "triton-q1"  # seeded: the one shown
    toasts = len(api.callback_answers)
    api.callback(ADA, switch, still_open)
    await until(lambda: len(api.callback_answers) > toasts)
    assert api.callback_answers[toasts].startswith("🎤 A mock interview is on")
    (turn,) = await bot.say(ADA, BLANK)  # still the interview's question
    assert turn.visible.startswith("✍️ Question 1/1: 0%")


async def test_a_show_answer_button_from_before_waits_for_the_report(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    asked = await bot.open_shared(ADA, "triton-q1")
    show = "show:triton-q1"
    assert show in [d for _, d in asked.buttons]
    await bot.say(ADA, "/mock 1")
    mock = await bot.storage.running_mock(ADA.id)
    assert mock is not None and mock.question_id == "triton-q1"  # seeded: the one shown
    toasts = len(api.callback_answers)
    api.callback(ADA, show, asked)
    await until(lambda: len(api.callback_answers) > toasts)
    assert api.callback_answers[toasts].startswith("🎤 In a mock interview the reference answers")
    (turn,) = await bot.say(ADA, BLANK)  # the reference was not shown: still the question
    assert turn.visible.startswith("✍️ Question 1/1: 0%")


async def test_the_plan_question_an_interview_closed_is_offered_after_its_report(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await bot.say(ADA, "/daily 09:30")
    await bot.say(ADA, "/interview 2026-03-12")
    bot.clock.advance(minutes=30)
    await bot.tick()
    daily = api.to(ADA.id)[-1]
    assert daily.visible.startswith("☀️ Daily question")
    (planned,) = [d for _, d in daily.buttons if d.startswith("hint:")]
    await bot.say(ADA, "/mock 1")  # closes the plan's question, and says so
    _, report, _card, again = await bot.say(ADA, "/skip", expect=4)
    assert report.visible.startswith("📋 Mock interview report")
    # The day's plan goes on where the interview broke in: that question, asked again.
    assert planned in [d for _, d in again.buttons]
    assert await bot.storage.get_open_question(ADA.id) is not None


@pytest.mark.parametrize(
    ("user", "answer_it"),
    [(ADA, "type your answer to the interview's question"), (LI, "请用文字回答面试的这道题")],
    ids=["english", "chinese"],
)
async def test_notes_on_what_is_not_text_point_to_the_interviews_question(
    bot: BotHarness, api: FakeBotAPI, user: FakeUser, answer_it: str
) -> None:
    await bot.say(user, "/mock 1")
    # A sticker, a photo without a caption, a voice message (voice answers off here).
    for send in (api.sticker, lambda u: api.photo(u, caption=None), api.voice):
        before = len(api.to(user.id))
        send(user)
        (note,) = (await api.wait_for(user.id, before + 1, timeout=20))[before:]
        # During an interview, not /quiz (it waits for the report): its question.
        assert answer_it in note.visible and "/quiz" not in note.visible
    (turn,) = await bot.say(user, BLANK)  # nothing was lost: the question is still on
    assert "1/1" in turn.visible


async def test_a_skip_button_from_before_skips_the_interviews_question(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    asked = await bot.open_shared(ADA, "triton-q1")
    await bot.say(ADA, "/mock 1")
    mock = await bot.storage.running_mock(ADA.id)
    assert mock is not None and mock.question_id == "triton-q1"  # seeded: the one shown
    # As /skip: the interview moves on (here, to its report), no practice question opens.
    skipped, report, _card = await bot.press(ADA, asked, "skip:triton-q1", expect=3)
    assert skipped.visible.startswith("⏭ Skipped.")
    assert report.visible.startswith("📋 Mock interview report · 0 of 1 answered")
    assert await bot.storage.running_mock(ADA.id) is None
    assert await bot.storage.get_open_question(ADA.id) is None


# A pack whose concepts are written as claims (net-en's, sql's, rag's are): a label is a
# sentence, not "a word or two", and makes a poor name for the question in the report.
_HANDSHAKE = """id: hs
title: Handshakes
language: en
field: networking
questions:
  - id: hs-q1
    level: beginner
    question: Describe the TCP three-way handshake.
    answer: SYN, SYN-ACK, ACK.
    concepts:
      - label: Three steps are the minimum for both sides to confirm each other's sequence numbers
        weight: 2
        aliases: [minimum, confirm]
      - label: The client sends a SYN with its initial sequence number
        aliases: [SYN]
"""


async def test_the_report_names_a_question_by_its_own_words_when_its_concepts_are_sentences(
    api: FakeBotAPI, bot_settings: Settings, clock: FakeClock, tmp_path: Path
) -> None:
    folder = tmp_path / "hs"
    folder.mkdir()
    for name in ("strings", "glossary", "fonts"):
        (folder / name).symlink_to(CONTENT / name)
    (folder / "hs.yaml").write_text(_HANDSHAKE, encoding="utf-8")
    settings = bot_settings.model_copy(update={"content_dir": folder})
    bot = BotHarness(api, settings, load_library([folder]), clock, chosen=())
    await bot.start()
    try:
        await bot.say(ADA, "/mock 1")
        await bot.say(ADA, "I would have to look that up")  # the follow-up comes
        _skipped, report, _card = await bot.say(ADA, "/skip", expect=3)
    finally:
        await bot.stop()
    row = report.visible.split("\n")[1]
    # The question, not its heaviest claim cut short (which the ❌ line below names anyway).
    assert row.startswith("1. Describe the TCP three-way handshake. — 0%"), row


async def _mock_of(
    pack: str, answers: list[str], api: FakeBotAPI, settings: Settings, clock: FakeClock, tmp: Path
) -> list[Sent]:
    """The replies to `/mock 1` then each of `answers`, with `pack` the only pack there is."""
    folder = tmp / "pack"
    folder.mkdir()
    for name in ("strings", "glossary", "fonts"):
        (folder / name).symlink_to(CONTENT / name)
    (folder / "pack.yaml").write_text(pack, encoding="utf-8")
    settings = settings.model_copy(update={"content_dir": folder})
    bot = BotHarness(api, settings, load_library([folder]), clock, chosen=())
    await bot.start()
    try:
        replies = list(await bot.say(ADA, "/mock 1"))
        for answer in answers:
            replies += await bot.say(ADA, answer)
    finally:
        await bot.stop()
    return replies


async def test_a_missed_sentence_is_cut_at_a_word_end_not_mid_word(
    api: FakeBotAPI, bot_settings: Settings, clock: FakeClock, tmp_path: Path
) -> None:
    _, turn = await _mock_of(
        _HANDSHAKE, ["I would have to look that up"], api, bot_settings, clock, tmp_path
    )
    # 40 characters would end "…for both si…": the cut goes back to the end of "both".
    assert "❌ Missed: Three steps are the minimum for both… · The client sends" in turn.visible
    assert "both si…" not in turn.visible


_CLAIM_WITH_SUBJECT = """id: cl
title: Handshakes
language: en
field: networking
questions:
  - id: cl-q1
    level: beginner
    question: Describe the TCP three-way handshake.
    answer: SYN, SYN-ACK, ACK.
    concepts:
      - label: >-
          Three steps are the minimum for both sides to learn and confirm each other's
          initial sequence number
        weight: 2
        subject: [three-way handshake]
        aliases: [three steps]
      - label: The client sends a SYN with its initial sequence number
        aliases: [SYN]
"""


async def test_a_follow_up_on_a_sentence_names_the_concept_short_not_the_whole_claim(
    api: FakeBotAPI, bot_settings: Settings, clock: FakeClock, tmp_path: Path
) -> None:
    _, turn = await _mock_of(
        _CLAIM_WITH_SUBJECT, ["I would have to look that up"], api, bot_settings, clock, tmp_path
    )
    follow_up = next(line for line in turn.visible.splitlines() if "Follow-up" in line)
    assert follow_up == "🔎 Follow-up: what part does “three-way handshake” play here?"


async def test_a_hint_on_a_sentence_concept_cues_its_first_alias_not_the_sentence(
    api: FakeBotAPI, bot_settings: Settings, clock: FakeClock, tmp_path: Path
) -> None:
    pack = _CLAIM_WITH_SUBJECT.replace("aliases: [three steps]", "aliases: [sequence numbers]")
    _, hint = await _mock_of(pack, ["/hint"], api, bot_settings, clock, tmp_path)
    # “sequence numbers” is cued, not the claim's first word (“T…” of “Three steps…”).
    assert hint.visible.startswith("💡 Hint 1: a key point begins “se…” — what is it"), hint
