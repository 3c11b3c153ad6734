"""Private practice end to end: the real Application talking HTTP to the fake Bot API."""

from __future__ import annotations

import asyncio
import io
import logging
import re
from pathlib import Path

from bot.core.content import Library
from bot.logs import configure_logging
from tests.conftest import BotHarness
from tests.support.fake_bot_api import FakeBotAPI, FakeUser, Sent

ADA = FakeUser(1001, "Ada", "en")
LI = FakeUser(1002, "李雷", "zh-hans")


def open_question_id(msg_buttons: list[tuple[str, str]]) -> str:
    data = next(d for _, d in msg_buttons if d.startswith("hint:"))
    return data.split(":", 1)[1]


async def test_start_welcomes_in_three_lines_with_setup_buttons(bot: BotHarness) -> None:
    (welcome,) = await bot.say(ADA, "/start")
    # The greeting, the time zone asked first, then the field in one tap.
    greeting, question, field = welcome.visible.split("\n\n")
    assert greeting.count("\n") == 2 and greeting.startswith("👋 Hi Ada!")
    assert question.startswith("🌍 First, your time zone")
    assert field.startswith("Which field are you preparing for?")
    data = [d for _, d in welcome.buttons]
    assert {"level:beginner", "level:intermediate", "level:advanced"} <= set(data)
    (welcome,) = await bot.press(ADA, welcome, "tz:start:America/New_York")
    assert "daily:on:09:00" in [d for _, d in welcome.buttons]


async def test_start_speaks_chinese_to_chinese_users(bot: BotHarness) -> None:
    (welcome,) = await bot.say(LI, "/start")
    assert "你好，李雷" in welcome.visible


async def test_quiz_answer_and_stats(bot: BotHarness, library: Library) -> None:
    (question,) = await bot.say(ADA, "/quiz advanced")
    assert "Advanced" in question.visible
    assert library.questions[open_question_id(question.buttons)].level.value == "advanced"
    # The answer below is written for triton-q9: open it by its link, every run.
    question = await bot.open_shared(ADA, "triton-q9")
    qid = open_question_id(question.buttons)
    asked = library.questions[qid]
    assert qid == "triton-q9" and asked.level.value == "advanced"
    assert asked.question in question.visible

    answer = (
        "Python backend 在独立子进程里跑，通过 shared memory 和 socket 通信，GIL 不会阻塞 C++ core"
    )
    feedback = await bot.say(ADA, answer)
    text = "\n".join(m.visible for m in feedback)
    assert re.search(r"Score: \d+%", text)
    assert "Reference answer" in text
    assert asked.answer.splitlines()[0][:30] in text
    assert "🔥 Streak: 1 day ·" in text
    assert [d for _, d in feedback[-1].buttons] == [
        "rate:1:good",
        "rate:1:hard",
        "rate:1:again",
        "next:advanced",
    ]
    assert "✅ Covered: Python 代码跑在独立子进程 · " in text
    assert "<blockquote expandable>" in feedback[0].text  # the reference, collapsed

    picture, stats = await bot.say(ADA, "/stats", expect=2)
    assert picture.method == "sendPhoto"
    assert "1 answer · 🔥 1 day, best 1 · Advanced" in picture.visible  # the caption
    assert "Current streak: 1 day · best: 1" in stats.visible
    assert "Answers: 1 on 1 question\n" in stats.visible
    assert "Advanced: 1 answer, average" in stats.visible


async def test_specific_question_feedback_lists_covered_and_missed(bot: BotHarness) -> None:
    await bot.open_shared(ADA, "triton-q3")
    feedback = await bot.say(
        ADA, "max_batch_size 限制最大批，preferred batch size 是想凑到的批大小"
    )
    lines = feedback[0].visible.split("\n")
    # The misses first, then what was covered: a line each.
    assert lines[1] == (
        "❌ Missed: max_queue_delay_microseconds（最大排队等待） · "
        "preserve_ordering（保证返回顺序）"
    )
    assert lines[2] == (
        "✅ Covered: preferred_batch_size（期望的 batch 大小） · max_batch_size（单次最大 batch）"
    )


async def test_feedback_says_why_a_named_concept_did_not_count(bot: BotHarness) -> None:
    await bot.open_shared(ADA, "triton-q9")
    feedback = await bot.say(ADA, "Python 代码不会放到独立的子进程里。\nshared memory, socket")
    text = "\n".join(m.visible for m in feedback)
    # The evidence is the clause that said it, not the one word that matched.
    assert (
        "⚠️ Said wrongly: Python 代码跑在独立子进程 — said the opposite "
        "(“Python 代码不会放到独立的子进程里”)"
    ) in text
    assert (
        "◐ Partly (listed without explaining): 通过 shared memory 交换数据 · 通过 socket / IPC 通信"
    ) in text


async def test_the_same_notes_in_chinese_take_full_width_punctuation(bot: BotHarness) -> None:
    await bot.open_shared(LI, "triton-q9")
    feedback = await bot.say(LI, "Python 代码不会放到独立的子进程里。\nshared memory, socket")
    text = "\n".join(m.visible for m in feedback)
    assert (
        "⚠️ 说错了：Python 代码跑在独立子进程 — 说反了（“Python 代码不会放到独立的子进程里”）"
        in text
    )
    assert (
        "◐ 部分答到（只列了名词，没有解释）：通过 shared memory 交换数据 · 通过 socket / IPC 通信"
    ) in text


async def test_bad_quiz_argument_lists_the_valid_ones(bot: BotHarness) -> None:
    (reply,) = await bot.say(ADA, "/quiz legendary")
    assert "“legendary”" in reply.visible
    assert "beginner, intermediate, advanced" in reply.visible
    assert "triton" in reply.visible  # the packs are listed too
    (reply,) = await bot.say(ADA, "/quiz 高级")
    assert "Advanced" in reply.visible
    (reply,) = await bot.say(ADA, "/quiz HARD triton")
    assert "Advanced" in reply.visible


async def test_no_repeats_while_other_questions_remain(bot: BotHarness) -> None:
    seen = []
    for _ in range(3):
        (question,) = await bot.say(ADA, "/quiz beginner")
        seen.append(open_question_id(question.buttons))
        await bot.say(ADA, "/reveal")
    assert len(set(seen)) == 3


async def test_restart_between_question_and_answer_loses_nothing(bot: BotHarness) -> None:
    (question,) = await bot.say(ADA, "/quiz intermediate")
    qid = open_question_id(question.buttons)
    await bot.restart()
    feedback = await bot.say(ADA, "poll 轮询 和 explicit 显式，生产推荐 explicit")
    text = "\n".join(m.visible for m in feedback)
    assert "Score:" in text
    answers = await bot.storage.answers_for(ADA.id)
    assert [a.question_id for a in answers] == [qid]


async def test_user_who_blocked_the_bot_is_marked_inactive(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await bot.say(ADA, "/start")
    api.fail("sendMessage", 403, chat_id=ADA.id)
    api.message(ADA, "/quiz")
    for _ in range(100):
        user = await bot.storage.get_user(ADA.id)
        if user is not None and not user.active:
            break
        await asyncio.sleep(0.05)
    user = await bot.storage.get_user(ADA.id)
    assert user is not None and not user.active


async def test_blocking_via_my_chat_member_marks_inactive(bot: BotHarness, api: FakeBotAPI) -> None:
    await bot.say(ADA, "/start")
    api.my_chat_member(ADA, ADA.id, "member", "kicked")
    for _ in range(100):
        user = await bot.storage.get_user(ADA.id)
        if user is not None and not user.active:
            break
        await asyncio.sleep(0.05)
    assert user is not None and not user.active
    await bot.say(ADA, "/start")  # unblocked and back
    user = await bot.storage.get_user(ADA.id)
    assert user is not None and user.active


async def test_hostile_answers_are_scored_and_rendered_safely(bot: BotHarness) -> None:
    await bot.say(ADA, "/quiz beginner")
    markup = ("<script>alert('x')</script><b>max_batch_size</b> & <i>preserve_ordering" * 100)[
        :5000
    ]
    feedback = await bot.say(ADA, markup)
    text = "\n".join(m.visible for m in feedback)
    assert "Score:" in text
    assert all(len(m.text) <= 4096 for m in feedback)

    await bot.say(ADA, "/quiz beginner")
    weird = (
        "\u200b\u202e\u2066shared memory\u2069 🤖🔥 ＭＡＸ＿ＢＡＴＣＨ＿ＳＩＺＥ "
        "\u0645\u0631\u062d\u0628\u0627"
    )
    feedback = await bot.say(ADA, weird)
    assert "Score:" in "\n".join(m.visible for m in feedback)


async def test_hint_skip_reveal(bot: BotHarness) -> None:
    (question,) = await bot.say(ADA, "/quiz advanced")
    (hint1,) = await bot.say(ADA, "/hint")
    assert hint1.visible.startswith("💡 Hint 1:")
    (hint2,) = await bot.press(ADA, question, question.buttons[0][1])
    assert hint2.visible.startswith("💡 Hint 2:")
    feedback = await bot.say(ADA, "我不知道这道题怎么答")
    assert "💡 2 hints used." in "\n".join(m.visible for m in feedback)

    await bot.say(ADA, "/quiz")
    skipped = await bot.say(ADA, "/skip", expect=2)
    assert skipped[0].visible == "⏭ Skipped."
    assert "❓" in skipped[1].visible
    revealed = await bot.say(ADA, "/reveal")
    assert revealed[0].visible.startswith("📖 Reference answer (not scored)")
    (nothing,) = await bot.say(ADA, "/reveal")
    assert "no open question" in nothing.visible
    (nothing,) = await bot.say(ADA, "/hint")
    assert "no open question" in nothing.visible


async def test_button_under_an_old_question_does_not_touch_the_new_one(bot: BotHarness) -> None:
    (first,) = await bot.say(ADA, "/quiz beginner")
    _, second = await bot.say(ADA, "/skip", expect=2)
    await bot.press(ADA, first, next(d for _, d in first.buttons if d.startswith("show:")))
    state = await bot.storage.get_open_question(ADA.id)
    assert state is not None and state.question_id == open_question_id(second.buttons)


async def test_non_answers_get_a_nudge(bot: BotHarness, api: FakeBotAPI) -> None:
    (reply,) = await bot.say(ADA, "hello there")
    assert "no open question" in reply.visible
    for push in (api.sticker, api.photo, api.voice):
        before = len(api.to(ADA.id))
        push(ADA)
        (reply,) = (await api.wait_for(ADA.id, before + 1))[before:]
        assert "text answers" in reply.visible
    (reply,) = await bot.say(ADA, "/frobnicate")
    assert "/help" in reply.visible
    await bot.say(ADA, "/quiz")
    (reply,) = await bot.say(ADA, "🤷‍♀️👍")
    assert "too short to score" in reply.visible


async def test_a_sticker_with_a_question_open_points_at_that_question(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    # Not "send /quiz for a question": /quiz would only show the open one again.
    await bot.say(ADA, "/quiz")
    before = len(api.to(ADA.id))
    api.sticker(ADA)
    (reply,) = (await api.wait_for(ADA.id, before + 1))[before:]
    assert reply.visible == (
        "I can only read text answers: type your answer to the open question as a message, "
        "or /skip it."
    )
    assert await bot.storage.get_open_question(ADA.id) is not None  # still open
    await bot.say(LI, "/quiz")
    before = len(api.to(LI.id))
    api.photo(LI, caption=None)
    (reply,) = (await api.wait_for(LI.id, before + 1))[before:]
    assert reply.visible == "我只能读文字回答：请用文字回答这道题，或者 /skip 换一题。"


async def test_a_voice_message_with_voice_off_and_a_question_open_points_at_that_question(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    # Not "or send /quiz for a question": /quiz would only show the open one again.
    await bot.say(ADA, "/quiz")
    before = len(api.to(ADA.id))
    api.voice(ADA)
    (reply,) = (await api.wait_for(ADA.id, before + 1))[before:]
    assert reply.visible == (
        "🎙 Voice answers are not enabled on this bot: type your answer to the open question"
        " as a message, or /skip it."
    )
    assert await bot.storage.get_open_question(ADA.id) is not None  # still open
    await bot.say(LI, "/quiz")
    before = len(api.to(LI.id))
    api.voice(LI)
    (reply,) = (await api.wait_for(LI.id, before + 1))[before:]
    assert reply.visible == "🎙 本机器人没有开启语音回答：请用文字回答这道题，或者 /skip 换一题。"


async def test_edits_are_not_rescored(bot: BotHarness, api: FakeBotAPI) -> None:
    await bot.say(ADA, "/quiz beginner")
    before = len(api.to(ADA.id))
    first_id = api.message(ADA, "max_batch_size 是单次最大 batch")
    await api.wait_for(ADA.id, before + 1)
    (note,) = await bot.say(ADA, "max_batch_size preserve_ordering", edited_from=first_id)
    # The answer closed the question: the note does not send the user to answer it again.
    assert note.visible == (
        "✏️ I don't read edits: the message counts as first sent. "
        "There is no open question now; send /quiz for one."
    )
    assert len(await bot.storage.answers_for(ADA.id)) == 1


async def test_an_edit_while_a_question_is_open_says_to_send_the_answer_anew(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await bot.say(ADA, "/quiz beginner")
    before = len(api.to(ADA.id))
    short_id = api.message(ADA, "ok")  # too short: the question stays open
    await api.wait_for(ADA.id, before + 1)
    (note,) = await bot.say(ADA, "max_batch_size and preserve_ordering", edited_from=short_id)
    assert note.visible == (
        "✏️ I don't read edits: the message counts as first sent. "
        "To answer the open question, send your answer as a new message."
    )
    assert await bot.storage.answers_for(ADA.id) == []


async def test_an_edited_command_is_not_run_again(bot: BotHarness, api: FakeBotAPI) -> None:
    # Editing "/quiz beginner" into "/skip" must not skip the open question, nor editing it
    # into "/quiz" replace it: commands run as sent, and the edit gets a note.
    before = len(api.to(ADA.id))
    quiz_id = api.message(ADA, "/quiz beginner")
    (question,) = (await api.wait_for(ADA.id, before + 1))[before:]
    assert "❓" in question.visible
    (note,) = await bot.say(ADA, "/skip", edited_from=quiz_id)
    assert "ran the command as first sent" in note.visible
    (note,) = await bot.say(ADA, "/quiz advanced", edited_from=quiz_id)
    assert "ran the command as first sent" in note.visible
    # Still the first question: the answer is scored against it, and nothing else was asked.
    (feedback,) = await bot.say(ADA, "max_batch_size 和 preferred_batch_size")
    assert "Score:" in feedback.visible
    assert sum("❓" in m.visible for m in api.to(ADA.id)) == 1


async def test_quick_messages_from_one_chat_are_handled_in_order(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    api.message(ADA, "/quiz beginner")
    api.message(ADA, "max_batch_size 是单次最大 batch")  # arrives in the same getUpdates batch
    sent = await api.wait_for(ADA.id, 2)
    assert "❓" in sent[0].visible
    assert "Score:" in sent[1].visible


async def test_settings_commands(bot: BotHarness) -> None:
    (reply,) = await bot.say(ADA, "/timezone Shanghia")
    assert "Asia/Shanghai" in reply.visible and "Did you mean" in reply.visible
    (reply,) = await bot.say(ADA, "/timezone 东京")
    assert "Time zone set to Asia/Tokyo" in reply.visible
    (reply,) = await bot.say(ADA, "/timezone asia/shanghai")
    assert "Time zone set to Asia/Shanghai" in reply.visible
    (reply,) = await bot.say(ADA, "/level expert-ish")
    assert "beginner, intermediate, advanced" in reply.visible
    (reply,) = await bot.say(ADA, "/level 中级")
    assert "Intermediate" in reply.visible
    (question,) = await bot.say(ADA, "/quiz")
    assert "Intermediate" in question.visible
    (reply,) = await bot.say(ADA, "/lang zh")
    assert "中文" in reply.visible
    (reply,) = await bot.say(ADA, "/stats")  # no answers yet: a welcome, no picture
    assert "你的进度" in reply.visible
    (reply,) = await bot.say(ADA, "/lang klingon")
    assert "en" in reply.visible and "zh" in reply.visible


async def test_level_buttons(bot: BotHarness) -> None:
    (welcome,) = await bot.say(ADA, "/start")
    (reply,) = await bot.press(ADA, welcome, "level:advanced")
    assert "Advanced" in reply.visible
    user = await bot.storage.get_user(ADA.id)
    assert user is not None and user.level is not None and user.level.value == "advanced"


def forget_button(confirm: Sent, choice: str) -> str:
    """The callback data of the confirmation's "yes" or "cancel" button."""
    (data,) = [d for _, d in confirm.buttons if d.startswith(f"forget:{choice}:")]
    return data


async def test_forget_deletes_everything_after_confirmation(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await bot.say(ADA, "/quiz")
    await bot.say(ADA, "max_batch_size 是单次最大 batch")
    (confirm,) = await bot.say(ADA, "/forget")
    (cancelled,) = await bot.press(ADA, confirm, forget_button(confirm, "no"))
    assert "Nothing was deleted" in cancelled.visible
    assert await bot.storage.get_user(ADA.id) is not None
    (confirm,) = await bot.say(ADA, "/forget")
    (done,) = await bot.press(ADA, confirm, forget_button(confirm, "yes"))
    assert "deleted everything" in done.visible
    assert await bot.storage.get_user(ADA.id) is None
    assert await bot.storage.answers_for(ADA.id) == []


EXPIRED = "This confirmation has expired: nothing was deleted. Send /forget to be asked again."


async def test_forget_yes_tapped_after_cancel_deletes_nothing(bot: BotHarness) -> None:
    await bot.say(ADA, "/quiz")
    await bot.say(ADA, "max_batch_size 是单次最大 batch")
    (confirm,) = await bot.say(ADA, "/forget")
    yes = forget_button(confirm, "yes")
    (cancelled,) = await bot.press(ADA, confirm, forget_button(confirm, "no"))
    assert cancelled.visible == "Nothing was deleted."
    # A "yes" of the same confirmation arriving after the cancel (a tap before the edit showed).
    (stale,) = await bot.press(ADA, confirm, yes)
    assert stale.visible == EXPIRED
    assert len(await bot.storage.answers_for(ADA.id)) == 1
    _, stats = await bot.say(ADA, "/stats", expect=2)
    assert "Answers: 1 on 1 question" in stats.visible


async def test_forget_an_older_confirmation_expires_when_a_newer_one_is_asked(
    bot: BotHarness,
) -> None:
    await bot.say(ADA, "/quiz")
    await bot.say(ADA, "max_batch_size 是单次最大 batch")
    (older,) = await bot.say(ADA, "/forget")
    (newer,) = await bot.say(ADA, "/forget")
    (stale,) = await bot.press(ADA, older, forget_button(older, "yes"))
    assert stale.visible == EXPIRED
    assert len(await bot.storage.answers_for(ADA.id)) == 1
    (done,) = await bot.press(ADA, newer, forget_button(newer, "yes"))
    assert "deleted everything" in done.visible
    assert await bot.storage.answers_for(ADA.id) == []


async def test_forget_yes_tapped_twice_deletes_once_and_still_says_deleted(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await bot.say(ADA, "/quiz")
    await bot.say(ADA, "max_batch_size 是单次最大 batch")
    (confirm,) = await bot.say(ADA, "/forget")
    yes = forget_button(confirm, "yes")
    (done,) = await bot.press(ADA, confirm, yes)
    assert "deleted everything" in done.visible
    # A double tap: the second one arrives after the deletion. The message keeps saying
    # what happened (never "nothing was deleted"), and the tap is answered.
    taps = api.calls["answerCallbackQuery"]
    api.callback(ADA, yes, confirm)
    await bot.sentinel(ADA)
    assert api.calls["answerCallbackQuery"] == taps + 1
    assert all(EXPIRED not in m.visible for m in api.to(ADA.id))
    assert await bot.storage.answers_for(ADA.id) == []


async def test_token_never_reaches_the_logs(api: FakeBotAPI, bot_settings, library, clock) -> None:  # type: ignore[no-untyped-def]
    stream = io.StringIO()
    configure_logging("DEBUG", [api.token], stream=stream)
    try:
        harness = BotHarness(api, bot_settings, library, clock)
        await harness.start()
        await harness.say(ADA, "/start")
        api.fail("sendMessage", 500, chat_id=ADA.id, times=5)
        api.message(ADA, "/help")
        await asyncio.sleep(1.0)
        await harness.stop()
    finally:
        configure_logging("WARNING", [])
        logging.getLogger().handlers.clear()
    logs = stream.getvalue()
    assert "getUpdates" in logs or "sendMessage" in logs  # DEBUG logging really was on
    assert api.token not in logs
    assert api.token.split(":")[1] not in logs


async def test_unknown_buttons_are_answered(bot: BotHarness, api: FakeBotAPI) -> None:
    (welcome,) = await bot.say(ADA, "/start")
    before = api.calls["answerCallbackQuery"]
    api.callback(ADA, "v0-legacy:123", welcome)
    for _ in range(100):
        if api.calls["answerCallbackQuery"] > before:
            break
        await asyncio.sleep(0.02)
    assert api.calls["answerCallbackQuery"] == before + 1
    assert "expired" in api.callback_answers[-1]


async def test_upgrading_leaves_no_forget_confirmation_open(tmp_path: Path) -> None:
    """Migration 011: users from before it have no open /forget confirmation, so a "yes"
    button sent before the upgrade (it carries no token) deletes nothing."""
    import sqlite3

    from bot.storage import Storage
    from bot.storage.database import migrations

    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as db:
        for version, sql in (m for m in migrations() if m[0] <= 10):
            db.executescript(f"BEGIN;\n{sql}\nPRAGMA user_version = {version};\nCOMMIT;")
        db.execute("INSERT INTO users (user_id, first_name, created_at) VALUES (7, 'u', '')")
    storage = Storage(path)
    await storage.open()
    try:
        assert await storage.forget_user(7, "") is False
        assert await storage.get_user(7) is not None
        await storage.open_forget(7, "abc")
        assert await storage.forget_user(7, "abc") is True
        assert await storage.get_user(7) is None
    finally:
        await storage.close()


async def test_a_photo_captioned_with_an_answer_is_scored_by_its_caption(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await bot.say(ADA, "/quiz beginner")
    before = len(api.to(ADA.id))
    api.photo(ADA, caption="max_batch_size 和 preferred_batch_size 控制凑批")
    replies = (await api.wait_for(ADA.id, before + 1))[before:]
    assert replies[0].visible.startswith("📷 I scored your caption; I cannot read the picture")
    assert "Score:" in replies[0].visible
    assert len(await bot.storage.answers_for(ADA.id)) == 1
    # A photo without a caption, or with an emoji only, is no answer: the question stays open.
    await bot.say(ADA, "/quiz beginner")
    for caption in (None, "👍"):
        before = len(api.to(ADA.id))
        api.photo(ADA, caption=caption)
        (reply,) = (await api.wait_for(ADA.id, before + 1))[before:]
        assert "text answers" in reply.visible
    assert await bot.storage.get_open_question(ADA.id) is not None
