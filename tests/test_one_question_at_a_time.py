"""A new question never silently replaces an open one (issue 29), end to end through the fake
Bot API server: the daily prompt waits for the question the user is on, /quiz shows the open
question again with a choice, and a reply to a question message is scored against it."""

from __future__ import annotations

from tests.conftest import BotHarness
from tests.support.fake_bot_api import FakeBotAPI, FakeUser, Sent
from tests.support.wait import until

ADA = FakeUser(2901, "Ada", "en")
LI = FakeUser(2902, "李雷", "zh-hans")

# triton-q3: "Dynamic Batching 的核心参数有哪些？"
Q3_TEXT = "Dynamic Batching 的核心参数有哪些？"
Q3_ANSWER = (
    "preferred_batch_size 是希望凑成的 batch 大小，max_batch_size 是单次最大 batch，"
    "max_queue_delay_microseconds 是请求最多排队等多久。"
)


def dailies(api: FakeBotAPI, chat_id: int) -> list[Sent]:
    return [s for s in api.to(chat_id) if s.visible.startswith("☀️ Daily question")]


def question_id(message: Sent) -> str:
    return next(d for _, d in message.buttons if d.startswith("hint:")).split(":", 1)[1]


async def test_the_daily_question_waits_for_the_question_opened_minutes_before(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await bot.say(ADA, "/daily 09:02")
    await bot.open_shared(ADA, "triton-q3")  # 09:00: she starts on it
    bot.clock.advance(minutes=2)
    await bot.tick()  # 09:02: the daily question is due
    await bot.sentinel(ADA)
    assert dailies(api, ADA.id) == []  # nothing came in while she was on triton-q3
    state = await bot.storage.get_open_question(ADA.id)
    assert state is not None and state.question_id == "triton-q3"

    # Her answer is scored against triton-q3, and the daily question follows right after.
    before = len(api.to(ADA.id))
    api.message(ADA, Q3_ANSWER)
    while not dailies(api, ADA.id):
        await api.wait_for(ADA.id, len(api.to(ADA.id)) + 1)
    sent = api.to(ADA.id)[before:]
    assert sent[0].visible.startswith("Score: ")
    assert sent[-1].visible.startswith("☀️ Daily question")
    (answer,) = await bot.storage.answers_for(ADA.id)
    assert answer.question_id == "triton-q3" and answer.score >= 0.5
    state = await bot.storage.get_open_question(ADA.id)
    assert state is not None and state.question_id == question_id(sent[-1]) != "triton-q3"
    # One daily question that day: the next tick sends nothing more.
    await bot.tick()
    await bot.sentinel(ADA)
    assert len(dailies(api, ADA.id)) == 1


async def test_a_skipped_question_makes_way_for_the_waiting_daily_one(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await bot.say(ADA, "/daily 09:02")
    await bot.open_shared(ADA, "triton-q3")
    bot.clock.advance(minutes=2)
    await bot.tick()
    skipped, daily = await bot.say(ADA, "/skip", expect=2)
    assert skipped.visible == "⏭ Skipped."
    assert daily.visible.startswith("☀️ Daily question")
    await bot.sentinel(ADA)
    assert len(dailies(api, ADA.id)) == 1  # the daily one instead of another, not both


async def test_the_waiting_daily_question_comes_in_the_users_language(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    li = FakeUser(ADA.id + 50, "Li", "zh")
    await bot.say(li, "/daily 09:02")
    await bot.open_shared(li, "triton-q3")
    bot.clock.advance(minutes=2)
    await bot.tick()
    skipped, daily = await bot.say(li, "/skip", expect=2)
    assert skipped.visible == "⏭ 已跳过。"
    assert daily.visible.startswith("☀️ 每日一题")


async def test_quiz_with_a_question_open_shows_it_again_with_a_choice(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await bot.open_shared(ADA, "triton-q3")
    (again,) = await bot.say(ADA, "/quiz")
    assert "(The previous question is closed.)" not in again.visible
    assert again.visible.startswith("✋ You still have this question open")
    assert Q3_TEXT in again.visible
    assert [label for label, _ in again.buttons] == [
        "✍️ Keep answering",
        "⏭ Skip it, new question",
    ]
    state = await bot.storage.get_open_question(ADA.id)
    assert state is not None and state.question_id == "triton-q3"

    # "Keep answering": the usual question buttons, and a word on what to do.
    keep = next(d for label, d in again.buttons if label == "✍️ Keep answering")
    (edit,) = await bot.press(ADA, again, keep)
    assert edit.method == "editMessageReplyMarkup"
    assert [d for _, d in api.keyboard(ADA.id, again.message_id)][:3] == [
        "hint:triton-q3",
        "show:triton-q3",
        "skip:triton-q3",
    ]
    assert api.callback_answers[-1] == "Go ahead: send your answer as a message."
    feedback = await bot.say(ADA, Q3_ANSWER)
    assert feedback[0].visible.startswith("Score: ")
    (answer,) = await bot.storage.answers_for(ADA.id)
    assert answer.question_id == "triton-q3"


async def test_skip_it_from_quiz_gives_a_new_question(bot: BotHarness) -> None:
    await bot.open_shared(LI, "triton-q3")
    (again,) = await bot.say(LI, "/quiz")
    assert again.visible.startswith("✋ 这道题你还没答完")
    renew = next(d for label, d in again.buttons if label == "⏭ 跳过，换一道新题")
    sent = await bot.press(LI, again, renew, expect=3)
    # The choice's buttons go (an edit), then two messages.
    assert [m.method for m in sent] == ["editMessageReplyMarkup", "sendMessage", "sendMessage"]
    skipped, new = sent[1:]
    assert skipped.visible == "⏭ 已跳过。"
    assert "❓" in new.visible and question_id(new) != "triton-q3"
    state = await bot.storage.get_open_question(LI.id)
    assert state is not None and state.question_id == question_id(new)


async def test_a_reply_to_the_question_message_is_scored_against_that_question(
    bot: BotHarness,
) -> None:
    asked = await bot.open_shared(ADA, "triton-q3")
    await bot.say(ADA, "/quiz")  # shows triton-q3 again: it stays the open one
    feedback = await bot.say(ADA, Q3_ANSWER, reply_to=asked.message_id)
    assert feedback[0].visible.startswith("Score: ")
    assert "ℹ️" not in feedback[0].visible  # recorded, not "for you to see only"
    (answer,) = await bot.storage.answers_for(ADA.id)
    assert answer.question_id == "triton-q3" and answer.score >= 0.5


async def test_a_daily_question_left_waiting_lapses_with_its_day(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await bot.say(ADA, "/daily 09:02")
    await bot.open_shared(ADA, "triton-q3")
    bot.clock.advance(minutes=2)
    await bot.tick()  # Monday's question waits for triton-q3
    bot.clock.advance(hours=23)  # she comes back on Tuesday at 08:02
    feedback = await bot.say(ADA, Q3_ANSWER)
    assert feedback[0].visible.startswith("Score: ")
    await bot.sentinel(ADA)
    assert dailies(api, ADA.id) == []  # Monday's is not sent a day late
    bot.clock.advance(hours=1)  # Tuesday 09:02: Tuesday's comes on time, and only it
    await bot.tick()
    await bot.sentinel(ADA)
    (daily,) = dailies(api, ADA.id)
    assert "closed" not in daily.visible


async def test_a_shared_link_with_a_question_open_asks_before_switching(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await bot.open_shared(ADA, "triton-q3")
    await bot.say(ADA, Q3_ANSWER)  # she has practised: a link brings no welcome now
    await bot.open_shared(ADA, "triton-q7")
    # A friend's link to triton-q5 while she is on triton-q7: shown again, with a choice.
    (again,) = await bot.say(ADA, "/start q_triton-q5")
    assert again.visible.startswith("✋ You still have this question open")
    assert "模型热更新有哪两种模式" in again.visible  # triton-q7's text
    assert [label for label, _ in again.buttons] == [
        "✍️ Keep answering",
        "➡️ Switch to the shared question",
    ]
    state = await bot.storage.get_open_question(ADA.id)
    assert state is not None and state.question_id == "triton-q7"

    # Switching opens the shared question and says which one was closed.
    switch = next(d for label, d in again.buttons if label.startswith("➡️"))
    edit, new = await bot.press(ADA, again, switch, expect=2)
    assert edit.method == "editMessageReplyMarkup"
    assert "为什么 LLM 场景下 Triton 层的 dynamic batching 通常要关闭" in new.visible
    assert "“模型热更新有哪两种模式？生产推荐哪种？”, is closed unanswered" in new.visible
    assert question_id(new) == "triton-q5"
    state = await bot.storage.get_open_question(ADA.id)
    assert state is not None and state.question_id == "triton-q5"


async def test_a_shared_link_with_a_question_open_asks_in_the_users_language(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await bot.open_shared(LI, "triton-q3")
    await bot.say(LI, Q3_ANSWER)
    await bot.open_shared(LI, "triton-q7")
    (again,) = await bot.say(LI, "/start q_triton-q5")
    assert again.visible.startswith("✋ 这道题你还没答完：直接作答，或者换成分享的那道题")
    assert "You still have" not in again.visible
    assert [label for label, _ in again.buttons] == ["✍️ 继续作答", "➡️ 换成分享的题"]


async def test_keep_answering_after_a_shared_link_keeps_the_open_question(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await bot.open_shared(ADA, "triton-q3")
    await bot.say(ADA, Q3_ANSWER)
    await bot.open_shared(ADA, "triton-q7")
    (again,) = await bot.say(ADA, "/start q_triton-q5")
    keep = next(d for label, d in again.buttons if label == "✍️ Keep answering")
    (edit,) = await bot.press(ADA, again, keep)
    assert edit.method == "editMessageReplyMarkup"
    assert api.callback_answers[-1] == "Go ahead: send your answer as a message."
    state = await bot.storage.get_open_question(ADA.id)
    assert state is not None and state.question_id == "triton-q7"


async def test_a_waiting_daily_question_is_retried_until_it_arrives(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await bot.say(ADA, "/daily 09:02")
    await bot.open_shared(ADA, "triton-q3")
    bot.clock.advance(minutes=2)
    await bot.tick()  # the daily question waits for triton-q3
    # Telegram fails the daily question more times than a reply is retried (a few
    # seconds): owed, it is retried until it arrives.
    api.fail("sendMessage", 502, chat_id=ADA.id, times=12, containing="Daily question")
    feedback = await bot.say(ADA, Q3_ANSWER)
    assert feedback[0].visible.startswith("Score: ")
    await bot.sentinel(ADA)
    (daily,) = dailies(api, ADA.id)
    state = await bot.storage.get_open_question(ADA.id)
    assert state is not None and state.question_id == question_id(daily) != "triton-q3"
    # One daily question that day, however often it was tried.
    await bot.tick()
    await bot.sentinel(ADA)
    assert len(dailies(api, ADA.id)) == 1


async def test_a_waiting_daily_question_owed_when_the_bot_stops_comes_after_the_restart(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await bot.say(ADA, "/daily 09:02")
    await bot.open_shared(ADA, "triton-q3")
    bot.clock.advance(minutes=2)
    await bot.tick()  # the daily question waits for triton-q3
    api.fail("sendMessage", 502, chat_id=ADA.id, times=10**6, containing="Daily question")
    calls = api.calls["sendMessage"]
    feedback = await bot.say(ADA, Q3_ANSWER)
    assert feedback[0].visible.startswith("Score: ")
    await until(lambda: api.calls["sendMessage"] >= calls + 2, 10)  # the daily one was tried
    await bot.restart()  # stopped while Telegram refuses it
    api.clear_faults()
    await bot.sentinel(ADA)
    (daily,) = dailies(api, ADA.id)  # owed across the restart: sent once
    state = await bot.storage.get_open_question(ADA.id)
    assert state is not None and state.question_id == question_id(daily) != "triton-q3"


async def test_a_skip_handled_again_after_a_crash_still_brings_the_waiting_daily_question(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await bot.say(ADA, "/daily 09:02")
    await bot.open_shared(ADA, "triton-q3")
    bot.clock.advance(minutes=2)
    await bot.tick()  # the daily question waits for triton-q3
    # Her /skip closed triton-q3, and the process died before the daily question was owed:
    # the inbox hands that /skip over again.
    await bot.storage.close_question(ADA.id, "triton-q3")
    (daily,) = await bot.say(ADA, "/skip")
    assert daily.visible.startswith("☀️ Daily question")
    await bot.sentinel(ADA)
    assert len(dailies(api, ADA.id)) == 1
