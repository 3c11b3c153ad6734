"""What a fault sweep against the running bot found, end to end through the fake Bot API
server: forged button data, settings labels, /top's points, content errors, a message gone
before its button was tapped, command arguments. Expected text is written by hand."""

from __future__ import annotations

from datetime import time, timedelta
from pathlib import Path

import pytest

from bot.core.levels import Level
from tests.conftest import BotHarness, FakeClock
from tests.support.fake_bot_api import FakeBotAPI, FakeUser, Sent

ADA = FakeUser(1001, "Ada", "en")
BOB = FakeUser(1003, "Bob", "en")
LI = FakeUser(1002, "李雷", "zh-hans")

EXPIRED = "This button has expired. Send /quiz for a new question."


async def tap(bot: BotHarness, user: FakeUser, message: Sent, data: str) -> tuple[str, list[Sent]]:
    """Tap `data` on `message`; wait (sentinel) and return its toast and what the chat got."""
    api = bot.api
    answered = len(api.callback_answers)
    before = len(api.to(message.chat_id))
    api.callback(user, data, message)
    replies = (await bot.sentinel(user))[before:]
    assert len(api.callback_answers) == answered + 1, "the spinner never stopped"
    return api.callback_answers[answered], replies


async def feedback_of(bot: BotHarness, user: FakeUser) -> tuple[Sent, int]:
    """Answer a question; the feedback message with the rating buttons and its answer id."""
    await bot.open_shared(user, "triton-q1")
    before = len(bot.api.to(user.id))
    bot.api.message(user, "dynamic batching groups requests into one batch on the GPU")
    for _ in range(20):
        sent = bot.api.to(user.id)[before:]
        if sent and any(d.startswith("rate:") for _, d in sent[-1].buttons):
            rate = next(d for _, d in sent[-1].buttons if d.startswith("rate:"))
            return sent[-1], int(rate.split(":")[1])
        await bot.api.wait_for(user.id, before + len(sent) + 1)
    raise AssertionError("no complete feedback")


# -- 1. forged rating data ------------------------------------------------------------------


@pytest.mark.parametrize(
    "data", ["rate:3", "rate:", "rate:abc:good", "rate:999999:good", "rate:{id}:brilliant",
             "rate:{id}:good:extra", "rate:0{id}:good", "rate: {id}:good"],
)  # fmt: skip
async def test_forged_rating_data_is_an_expired_button(bot: BotHarness, data: str) -> None:
    feedback, answer_id = await feedback_of(bot, ADA)
    before = await bot.storage.get_review(ADA.id, "triton-q1")
    toast, replies = await tap(bot, ADA, feedback, data.format(id=answer_id))
    assert toast == EXPIRED
    assert not [m.visible for m in replies if "went wrong" in m.visible]
    assert await bot.storage.get_review(ADA.id, "triton-q1") == before
    assert ("✅ I knew it", f"rate:{answer_id}:good") in bot.api.keyboard(
        ADA.id, feedback.message_id
    )  # the real buttons still work: not taken away


async def test_rating_another_users_answer_is_an_expired_button(bot: BotHarness) -> None:
    _, ada_answer = await feedback_of(bot, ADA)
    ada_review = await bot.storage.get_review(ADA.id, "triton-q1")
    feedback, _ = await feedback_of(bot, BOB)
    toast, _ = await tap(bot, BOB, feedback, f"rate:{ada_answer}:again")
    assert toast == EXPIRED  # not "already reviewed again since": it was never Bob's
    assert await bot.storage.get_review(ADA.id, "triton-q1") == ada_review


async def test_a_rating_overtaken_by_a_later_review_still_says_so(bot: BotHarness) -> None:
    first, first_id = await feedback_of(bot, ADA)
    await feedback_of(bot, ADA)  # the same question again: reviewed since
    toast, _ = await tap(bot, ADA, first, f"rate:{first_id}:good")
    assert toast == "That answer was already reviewed again since."


# -- 1. every other prefix ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    ["next:zz", "next:", "next:beginner:1", "hint:", "hint:Triton Q1", "show:a:b", "skip:",
     "level:expert", "level:", "level:beginner:x", "forget:maybe:0123456789ab",
     "forget:yes:nottoken", "forget:", "set:", "set:level:expert", "set:lang:fr",
     "set:rem:maybe", "set:daily:", "set:tz:now", "set:colour:red", "set:level:beginner:x",
     "tz:", "tz:set:Atlantis/Nowhere", "tz:set:asia/shanghai", "tz:set:Tokyo", "tz:bogus:UTC",
     "tz:grp:UTC", "tz:start:UTC:x", "lang:fr", "lang:", "lang:en:x", "grp:len:7",
     "grp:lang:zh", "grp:tz:x", "grp:at:0815", "grp:at:2500", "grp:packs", "grp:packs:x",
     "pack:f:triton:set", "pack:u:triton:grp:x", "pack:x:triton:grp",
     "tzd:0830:x:UTC", "tzd:2561:d:UTC", "tzd:0830:d:Mars/Base", "tzd:830:d:UTC", "tzd:0830:d"],
)  # fmt: skip
async def test_forged_data_of_every_kind_is_an_expired_button(bot: BotHarness, data: str) -> None:
    (question,) = await bot.say(ADA, "/quiz beginner")
    toast, replies = await tap(bot, ADA, question, data)
    assert toast == EXPIRED
    assert replies == []  # no new question, no settings change message, no confirmation
    user = await bot.storage.get_user(ADA.id)
    assert user is not None and user.level is None and user.language is None
    state = await bot.storage.get_open_question(ADA.id)
    assert state is not None  # the question is still open
    assert bot.api.keyboard(ADA.id, question.message_id) == question.buttons


# -- 2. forged daily data --------------------------------------------------------------------


@pytest.mark.parametrize(
    "data", ["daily:off", "daily:zz", "daily:on:25:99", "daily:on:", "daily:on:9:00",
             "daily:on:09:00:00", "daily:", "daily:onn", "daily:on:0900"],
)  # fmt: skip
async def test_forged_daily_data_turns_nothing_on(bot: BotHarness, data: str) -> None:
    (welcome,) = await bot.say(ADA, "/start")
    toast, replies = await tap(bot, ADA, welcome, data)
    assert toast == EXPIRED
    assert not [m.visible for m in replies if "Daily question at" in m.visible]
    chat = await bot.storage.get_chat(ADA.id)
    assert chat is None or not chat.daily_enabled


@pytest.mark.parametrize(("data", "shown"), [("daily:on:07:15", "07:15"), ("daily:on", "09:00")])
async def test_the_daily_data_the_bot_makes_still_works(
    bot: BotHarness, data: str, shown: str
) -> None:
    (welcome,) = await bot.say(ADA, "/start")
    toast, replies = await tap(bot, ADA, welcome, data)  # daily:on: an older version's button
    assert toast == ""
    assert any(f"Daily question at {shown}" in m.visible for m in replies)
    chat = await bot.storage.get_chat(ADA.id)
    hour, minute = map(int, shown.split(":"))
    assert chat is not None and chat.daily_enabled and chat.daily_time == time(hour, minute)


async def test_a_forget_button_from_before_tokens_still_answers(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    (welcome,) = await bot.say(ADA, "/start")
    toast, _ = await tap(bot, ADA, welcome, "forget:yes")
    assert toast == ""
    assert await bot.storage.get_user(ADA.id) is not None  # nothing deleted
    edited = api.find(ADA.id, welcome.message_id)
    assert edited is not None and "This confirmation has expired" in edited.visible


# -- 3. Chinese /settings buttons are actions ----------------------------------------------


async def test_chinese_settings_buttons_say_what_a_tap_does(bot: BotHarness) -> None:
    await bot.say(LI, "/daily 10:33")
    (screen,) = await bot.say(LI, "/settings")
    assert "每日一题：已开启，每天 10:33" in screen.visible and "晚间提醒：已开启" in screen.visible
    labels = [label for label, _ in screen.buttons]
    assert "⏰ 关闭每日一题（10:33）" in labels
    assert "🔔 关闭晚间提醒" in labels
    rem = next(d for label, d in screen.buttons if "晚间提醒" in label)
    daily = next(d for label, d in screen.buttons if "每日一题" in label)
    await bot.press(LI, screen, rem)
    await bot.press(LI, screen, daily)
    labels = [label for label, _ in bot.api.keyboard(LI.id, screen.message_id)]
    assert "⏰ 开启每日一题（10:33）" in labels
    assert "🔕 开启晚间提醒" in labels


# -- 4. /top: 1 pt, 2 pts --------------------------------------------------------------------

GROUP = -100900


async def test_top_counts_one_point_in_the_singular(bot: BotHarness, clock: FakeClock) -> None:
    for user in (ADA, BOB):  # the group and both members are known
        await bot.say(user, "/help", chat_id=GROUP)
    now = clock()
    round_id = await bot.storage.open_round(
        GROUP, "triton-q3", None, now, now + timedelta(minutes=10), daily=False
    )
    assert round_id is not None
    for i, (user, score) in enumerate(((ADA, 0.01), (BOB, 0.02))):
        await bot.storage.record_round_answer(
            round_id,
            user_id=user.id,
            first_name=user.first_name,
            message_id=100 + i,
            answer="max_batch_size",
            score=score,
            covered=[],
            missed=["max_batch_size"],
            now=now,
            local_day=now.date().isoformat(),
            update_streak=lambda streak: streak,
        )
    assert await bot.storage.close_round(round_id, now, Level.BEGINNER) is not None
    (board,) = await bot.say(ADA, "/top", chat_id=GROUP)
    assert "1. Bob — 2 pts · 1 answer" in board.visible
    assert "2. Ada — 1 pt · 1 answer" in board.visible
    assert "1 pts" not in board.visible
    (board,) = await bot.say(LI, "/top", chat_id=GROUP)
    assert "2. Ada — 1 分 · 1 次作答" in board.visible


# -- 5. content errors name only what there is -------------------------------------------------

QUESTION = """\
  - id: {id}
    level: beginner
    question: What does dynamic batching do?
    answer: It groups requests into one batch.
    concepts:
      - label: grouping requests
        aliases: [groups requests]
"""


def pack_text(pack_id: str, *question_ids: str) -> str:
    head = f"id: {pack_id}\ntitle: Demo\nlanguage: en\nquestions:\n"
    return head + "".join(QUESTION.format(id=qid) for qid in question_ids)


def check(paths: list[Path], capsys: pytest.CaptureFixture[str]) -> list[str]:
    from bot.cli import main

    assert main(["content", "check", *map(str, paths)]) == 1
    return capsys.readouterr().err.splitlines()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'id: demo\ntitle: "Demo\n', "found unexpected end of stream (line 3, column 1)"),
        (b"id: demo\ntitle: caf\xe9\n", "the file is not UTF-8 (at byte 20): save it as UTF-8"),
        (b"", "the file is empty"),
        (b"- id: demo\n", "a pack must be a YAML mapping (id:, title:, language:, questions:),"
                          " not a list"),
    ],
)  # fmt: skip
def test_a_file_level_problem_has_no_question_or_field_placeholder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes, message: str
) -> None:
    pack = tmp_path / "broken.yaml"
    pack.write_bytes(data)
    assert check([pack], capsys) == [f"{pack}: {message}"]


def test_a_question_id_twice_in_one_file_names_both_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = tmp_path / "demo.yaml"
    pack.write_text(pack_text("demo", "triton-q1", "triton-q2", "triton-q1"), encoding="utf-8")
    # Each question is 7 lines after the 4-line head: its id on lines 5, 12 and 19.
    assert check([pack], capsys) == [
        f"{pack}: question triton-q1: field id: appears twice (lines 5 and 19)"
    ]


def test_a_question_id_in_two_files_names_both_files_and_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text(pack_text("one", "triton-q1"), encoding="utf-8")
    second.write_text(pack_text("two", "triton-q2", "triton-q1"), encoding="utf-8")
    errors = check([first, second], capsys)
    assert errors == [f"{second}: question triton-q1: field id: also used in {first}, line 5"
                      f" (here, line 12)"]  # fmt: skip


# -- 6. a button on a message deleted since ----------------------------------------------------

GONE = "Bad Request: message to edit not found"


async def test_a_settings_tap_on_a_deleted_screen_sends_it_anew(
    bot: BotHarness, api: FakeBotAPI, caplog: pytest.LogCaptureFixture
) -> None:
    (screen,) = await bot.say(ADA, "/settings")
    assert "Evening reminders: on" in screen.visible
    api.fail("editMessageText", 400, chat_id=ADA.id, description=GONE)  # the user deleted it
    (redrawn,) = await bot.press(ADA, screen, "set:rem:off")
    assert redrawn.method == "sendMessage" and redrawn.message_id != screen.message_id
    assert "Evening reminders: off" in redrawn.visible
    assert ("🔕 Evening reminders: turn on", "set:rem:on") in redrawn.buttons
    user = await bot.storage.get_user(ADA.id)
    assert user is not None and not user.reminders
    assert not [r for r in caplog.records if r.levelname == "ERROR"]


async def test_a_forget_tap_on_a_deleted_confirmation_still_answers(
    bot: BotHarness, api: FakeBotAPI, caplog: pytest.LogCaptureFixture
) -> None:
    (confirm,) = await bot.say(ADA, "/forget")
    no = next(d for _, d in confirm.buttons if d.startswith("forget:no:"))
    api.fail("editMessageText", 400, chat_id=ADA.id, description=GONE)
    (reply,) = await bot.press(ADA, confirm, no)
    assert reply.method == "sendMessage" and "Nothing was deleted" in reply.visible
    assert not [r for r in caplog.records if r.levelname == "ERROR"]


async def test_rating_a_deleted_feedback_message_is_noted_without_an_error(
    bot: BotHarness, api: FakeBotAPI, caplog: pytest.LogCaptureFixture
) -> None:
    feedback, answer_id = await feedback_of(bot, ADA)
    api.fail("editMessageReplyMarkup", 400, chat_id=ADA.id, description=GONE)
    toast, _ = await tap(bot, ADA, feedback, f"rate:{answer_id}:good")
    assert toast.startswith("Noted: I knew it. Next review: ")
    assert not [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]


# -- 7. command arguments --------------------------------------------------------------------


async def test_reminders_with_a_word_it_does_not_know_says_so(bot: BotHarness) -> None:
    (reply,) = await bot.say(ADA, "/reminders maybe")
    assert reply.visible == (
        "I didn't understand “maybe”: use /reminders on or /reminders off.\n"
        "🔔 Evening reminders are on. /reminders off turns them off."
    )
    (reply,) = await bot.say(LI, "/reminders 也许")
    assert reply.visible.startswith("没看懂“也许”：请用 /reminders on 或 /reminders off。\n")
    (reply,) = await bot.say(ADA, "/reminders <b>")
    assert reply.visible.startswith("I didn't understand “<b>”")  # escaped, shown as typed
    (reply,) = await bot.say(ADA, "/reminders")  # no word: just the status
    assert reply.visible == "🔔 Evening reminders are on. /reminders off turns them off."
    user = await bot.storage.get_user(ADA.id)
    assert user is not None and user.reminders


@pytest.mark.parametrize("text", ["/roundlength -5", "/roundlength", "/top"])
async def test_a_group_command_in_private_says_it_works_in_groups(
    bot: BotHarness, text: str
) -> None:
    command = text.split()[0]
    (reply,) = await bot.say(ADA, text)
    assert reply.visible.startswith(f"{command} works in group chats: add me to a group")
    (reply,) = await bot.say(LI, text)
    assert reply.visible.startswith(f"{command} 只能在群聊中使用")


async def test_a_command_for_another_bot_in_private_says_whose_it_is(bot: BotHarness) -> None:
    (reply,) = await bot.say(ADA, "/quiz@otherbot")
    assert reply.visible == "That command is addressed to @otherbot, not to me. /help lists " \
        "what I can do."  # fmt: skip
    assert await bot.storage.get_open_question(ADA.id) is None  # not run
    (reply,) = await bot.say(ADA, "/quiz@interview_test_bot")  # its own name: runs
    assert await bot.storage.get_open_question(ADA.id) is not None
    (reply,) = await bot.say(ADA, "/frobnicate")
    assert reply.visible == "I don't know that command. /help lists what I can do."


async def test_level_never_chosen_names_the_level_questions_come_at(bot: BotHarness) -> None:
    (reply,) = await bot.say(ADA, "/level")
    assert reply.visible == (
        "You have not chosen a level yet, so your questions are Beginner. Choose one:"
    )
    assert "—" not in reply.visible
    (reply,) = await bot.say(LI, "/level")
    assert reply.visible == "你还没有选择难度，目前按初级出题。选择难度："
    await bot.say(ADA, "/level advanced")
    (reply,) = await bot.say(ADA, "/level")
    assert reply.visible == "Your level is Advanced. Choose another:"
