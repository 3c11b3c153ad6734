"""Group study chats end to end: rounds, replies, results, leaderboard, membership."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from bot.handlers import groups
from tests.conftest import BotHarness
from tests.support.fake_bot_api import FakeBotAPI, FakeUser, Sent
from tests.support.wait import until

GROUP = -100300
ANA, BEN, CAI, DEE = (
    FakeUser(8001, "Ana"),
    FakeUser(8002, "Ben"),
    FakeUser(8003, "Cai", "zh-hans"),
    FakeUser(8004, "Dee"),
)
ADMIN = FakeUser(8009, "Root")

STRONG = (
    "preferred_batch_size 是期望凑成的批大小，max_queue_delay_microseconds 是最长等待时间，"
    "max_batch_size 是最大 batch，preserve_ordering 保证按顺序返回"
)
MEDIUM = "要调 max_batch_size 和 max_queue_delay_microseconds"
WEAK = "batch size 相关的参数"


@pytest.fixture(autouse=True)
def _fresh_ack_window() -> Iterator[None]:
    groups._acks.clear()
    yield
    groups._acks.clear()


def messages(api: FakeBotAPI) -> list[Sent]:
    return [s for s in api.to(GROUP) if s.method == "sendMessage"]


def reactions(api: FakeBotAPI) -> list[Sent]:
    return [s for s in api.to(GROUP) if s.method == "setMessageReaction"]


async def open_beginner_q3(bot: BotHarness, opener: FakeUser = ANA) -> Sent:
    """Open rounds until the question is triton-q3 (answers below are written for it)."""
    for _ in range(4):
        (question,) = await bot.say(opener, "/quiz beginner", chat_id=GROUP)
        round_ = await bot.storage.open_round_of(GROUP)
        assert round_ is not None
        if round_.question_id == "triton-q3":
            return question
        await bot.say(opener, "/reveal", chat_id=GROUP)
    raise AssertionError("triton-q3 never came up")


async def answer(bot: BotHarness, user: FakeUser, text: str, question: Sent, **kw: object) -> int:
    before = len(reactions(bot.api))
    message_id = bot.api.message(
        user,
        text,
        chat_id=GROUP,
        reply_to=question.message_id,
        **kw,  # type: ignore[arg-type]
    )
    await until(lambda: len(reactions(bot.api)) > before, 5)
    return message_id


async def test_added_to_a_group_the_bot_introduces_itself(bot: BotHarness, api: FakeBotAPI) -> None:
    api.my_chat_member(ADMIN, GROUP, "left", "member", title="Triton study")
    (intro,) = await api.wait_for(GROUP, 1)
    assert intro.visible.startswith("👋 Hi, Triton study!")
    assert "replying" in intro.visible and 2 <= intro.visible.count("\n") <= 4


async def test_round_with_several_members_answering_at_once(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    question = await open_beginner_q3(bot)
    seen = len(messages(api))
    assert "Reply to this message" in question.visible
    (again,) = await bot.say(BEN, "/quiz", chat_id=GROUP)
    assert "already open" in again.visible
    before = len(reactions(api))
    for user, text in (
        (ANA, MEDIUM),
        (BEN, STRONG),
        (CAI, WEAK),
        (DEE, MEDIUM + " preserve ordering"),
    ):
        api.message(user, text, chat_id=GROUP, reply_to=question.message_id)
    await until(lambda: len(reactions(api)) == before + 4, 5)
    assert all("✍" in r.text for r in reactions(api))
    # Nothing is said in the group while the round is open: no spoilers, no flood.
    assert not [m for m in messages(api)[seen:] if "Reference answer" in m.visible]
    (results,) = await bot.say(ANA, "/reveal", chat_id=GROUP)
    text = results.visible
    order = [text.index(name) for name in ("Ben", "Dee", "Ana", "Cai")]
    assert order == sorted(order)
    assert "🥇 Ben — 100% (4/4)" in text
    assert "🥈 Dee — " in text and "(3/4)" in text
    assert "🥉 Ana — " in text and "(2/4)" in text
    assert "Reference answer" in text and "preferred_batch_size" in text


async def test_results_count_concepts_credited_in_part_beside_those_stated(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    # A bare list of three parameter names states none of them: each is credited in part,
    # and the results say so rather than "(0/4)" beside a score above 0%.
    question = await open_beginner_q3(bot)
    await answer(
        bot, ANA, "max_batch_size, preferred_batch_size, max_queue_delay_microseconds", question
    )
    await answer(bot, BEN, STRONG, question)
    (results,) = await bot.say(ANA, "/reveal", chat_id=GROUP)
    text = results.visible
    assert "🥇 Ben — 100% (4/4)" in text  # nothing in part: the usual form
    ana = next(line for line in text.splitlines() if "Ana — " in line)
    assert ana.startswith("🥈 Ana — ")
    assert ana.endswith("% (0/4, 3 more in part)")
    assert not ana.endswith(" 0% (0/4, 3 more in part)")


async def test_an_answer_that_covered_nothing_gets_a_place_but_no_medal(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    # An answer about another question altogether: no concept stated, none in part. Its
    # score may round to 0% or 1%, but a medal beside "(0/4)" reads as a prize for nothing.
    question = await open_beginner_q3(bot)
    await answer(bot, BEN, STRONG, question)
    off_topic = "TCP three-way handshake: SYN, SYN-ACK, ACK; reliable, ordered, retransmission"
    await answer(bot, ANA, off_topic, question)
    (results,) = await bot.say(ANA, "/reveal", chat_id=GROUP)
    lines = results.visible.splitlines()
    assert "🥇 Ben — 100% (4/4)" in lines
    ana = next(line for line in lines if "Ana — " in line)
    assert ana.startswith("2. Ana — ") and ana.endswith("% (0/4)"), ana


async def test_latest_answer_counts_and_edits_replace_it(bot: BotHarness, api: FakeBotAPI) -> None:
    question = await open_beginner_q3(bot)
    first = await answer(bot, ANA, WEAK, question)
    await answer(bot, BEN, WEAK, question)
    await answer(bot, ANA, MEDIUM, question)  # a second answer replaces the first
    before = len(reactions(api))
    api.message(BEN, STRONG, chat_id=GROUP, reply_to=question.message_id, edited_from=None)
    await until(lambda: len(reactions(api)) > before, 5)
    # Editing an older message does not bring an older answer back.
    api.message(
        ANA, WEAK + " edited", chat_id=GROUP, reply_to=question.message_id, edited_from=first
    )
    # /reveal is handled after the edit (one chat's updates run in order): no sleep needed.
    # The edit's ✍ reaction is sent in the background and may come before or after.
    before = len(api.to(GROUP))
    api.message(ANA, "/reveal", chat_id=GROUP)
    while not any("Round closed" in m.visible for m in api.to(GROUP)[before:]):
        await api.wait_for(GROUP, len(api.to(GROUP)) + 1)
    (results,) = [m for m in api.to(GROUP)[before:] if "Round closed" in m.visible]
    assert "🥇 Ben — 100% (4/4)" in results.visible
    assert "🥈 Ana — " in results.visible and "(2/4)" in results.visible
    assert results.visible.count("Ana") == 1


async def test_edit_of_the_current_answer_is_rescored(bot: BotHarness, api: FakeBotAPI) -> None:
    question = await open_beginner_q3(bot)
    mine = await answer(bot, ANA, WEAK, question)
    before = len(reactions(api))
    api.message(ANA, STRONG, chat_id=GROUP, reply_to=question.message_id, edited_from=mine)
    await until(lambda: len(reactions(api)) > before, 5)
    (results,) = await bot.say(ANA, "/reveal", chat_id=GROUP)
    assert "🥇 Ana — 100% (4/4)" in results.visible


async def test_late_answers_and_stray_replies(bot: BotHarness, api: FakeBotAPI) -> None:
    question = await open_beginner_q3(bot)
    await answer(bot, ANA, MEDIUM, question)
    (results,) = await bot.say(ANA, "/reveal", chat_id=GROUP)
    (late,) = await bot.say(BEN, STRONG, chat_id=GROUP, reply_to=question.message_id)
    assert "round has closed" in late.visible
    count = len(api.to(GROUP))
    api.message(CAI, "nice results!", chat_id=GROUP, reply_to=results.message_id)
    api.message(CAI, "reply to a person", chat_id=GROUP, reply_to=12345)
    before_sentinel = await bot.sentinel(CAI, GROUP)
    assert len(before_sentinel) == count  # replies that are not answers: no reaction, no noise
    rows = await bot.storage.answers_for(BEN.id)
    assert rows == []


async def test_reveal_only_by_opener_or_admin(bot: BotHarness, api: FakeBotAPI) -> None:
    api.admins[GROUP] = {ADMIN.id}
    await open_beginner_q3(bot, opener=ANA)
    (refused,) = await bot.say(BEN, "/reveal", chat_id=GROUP)
    assert "Only the member who opened" in refused.visible
    assert await bot.storage.open_round_of(GROUP) is not None
    (results,) = await bot.say(ADMIN, "/reveal", chat_id=GROUP)
    assert "Round closed" in results.visible
    (nothing,) = await bot.say(ADMIN, "/reveal", chat_id=GROUP)
    assert "no open round" in nothing.visible


async def test_round_closes_by_itself_after_a_restart(bot: BotHarness, api: FakeBotAPI) -> None:
    question = await open_beginner_q3(bot)
    assert "closes in 10 min (at 09:10 UTC)" in question.visible
    await answer(bot, ANA, STRONG, question)
    seen = len(messages(api))
    await bot.restart()
    bot.clock.advance(minutes=9)
    await bot.tick()
    assert not [m for m in messages(api)[seen:] if "Round closed" in m.visible]
    bot.clock.advance(minutes=2)
    await bot.tick()
    (results,) = [m for m in messages(api)[seen:] if "Round closed" in m.visible]
    assert "🥇 Ana — 100% (4/4)" in results.visible
    await bot.tick()
    assert len([m for m in messages(api)[seen:] if "Round closed" in m.visible]) == 1


async def test_leaderboard_after_several_rounds(bot: BotHarness, api: FakeBotAPI) -> None:
    for ben_text in (STRONG, MEDIUM):
        question = await open_beginner_q3(bot)
        await answer(bot, BEN, ben_text, question)
        await answer(bot, ANA, WEAK, question)
        await bot.say(ANA, "/reveal", chat_id=GROUP)
        groups._acks.clear()
        # Only triton-q3's answers are written for; other beginner questions come first.
    (board,) = await bot.say(DEE, "/top", chat_id=GROUP)
    text = board.visible
    assert "This week" in text and "All time" in text
    week = text.split("All time")[0]
    assert week.index("Ben") < week.index("Ana")
    assert "2 answers" in text
    assert "🔥1" in text  # group answers count towards personal streaks
    ben = await bot.storage.get_user(BEN.id)
    assert ben is not None and ben.streak.current == 1


async def test_private_feedback_for_members_who_started_the_bot(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await bot.say(ANA, "/start")
    question = await open_beginner_q3(bot)
    await answer(bot, ANA, MEDIUM, question)
    feedback = await api.wait_for(ANA.id, 2)
    private = feedback[-1].visible
    assert "Your answer in" in private and "Score:" in private
    assert "Reference answer" not in private  # no spoiler before the round closes
    await answer(bot, BEN, MEDIUM, question)
    assert api.to(BEN.id) == []  # Ben never started the bot: nothing private


async def test_private_feedback_shows_the_streak_the_round_answer_counted(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await bot.say(ANA, "/start")
    question = await open_beginner_q3(bot)
    await answer(bot, ANA, MEDIUM, question)
    feedback = await api.wait_for(ANA.id, 2)
    assert "🔥 Streak: 1 day · best 1" in feedback[-1].visible


async def test_a_member_who_blocked_the_bot_gets_nothing_private(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await bot.say(ANA, "/start")
    api.my_chat_member(ANA, ANA.id, "member", "kicked")  # Ana blocked the bot since
    for _ in range(200):
        user = await bot.storage.get_user(ANA.id)
        if user is not None and not user.active:
            break
        await asyncio.sleep(0.05)
    assert user is not None and not user.active
    before = len(api.to(ANA.id))
    question = await open_beginner_q3(bot, opener=BEN)
    await answer(bot, ANA, MEDIUM, question)
    await bot.settle()  # the round answer's feedback, if one was drafted, is delivered
    assert api.to(ANA.id)[before:] == []


async def test_private_feedback_is_in_the_members_language_the_group_hears_its_own(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    """Private feedback: /lang first, then the client's language. In the group every reply is
    in the group's language (one language per group message), whoever it is for."""
    await bot.say(CAI, "/start")  # a Chinese client, English chosen
    await bot.say(CAI, "/lang en")
    await bot.say(DEE, "/start")  # an English client, Chinese chosen
    await bot.say(DEE, "/lang zh")
    question = await open_beginner_q3(bot)
    for member in (CAI, DEE):
        before = len(api.to(member.id))
        await answer(bot, member, MEDIUM, question)
        await api.wait_for(member.id, before + 1)
    assert "Your answer in" in api.to(CAI.id)[-1].visible
    assert "你在“" in api.to(DEE.id)[-1].visible
    await bot.say(ANA, "/reveal", chat_id=GROUP)
    (cai_late,) = await bot.say(CAI, STRONG, chat_id=GROUP, reply_to=question.message_id)
    (dee_late,) = await bot.say(DEE, STRONG, chat_id=GROUP, reply_to=question.message_id)
    # The group was met in English (Ana's /quiz): both late replies are in English.
    assert "This round has closed" in cai_late.visible
    assert "This round has closed" in dee_late.visible


async def test_members_chatting_in_a_group_are_not_stored(bot: BotHarness, api: FakeBotAPI) -> None:
    """With privacy mode off the bot sees every message; only what addresses it (a command, a
    reply to the bot, a button) loads (and stores) its sender."""
    api.message(DEE, "hello everyone", chat_id=GROUP)
    api.message(BEN, "a reply to a person", chat_id=GROUP, reply_to=12345)
    await bot.sentinel(ANA, GROUP)
    assert await bot.storage.get_user(DEE.id) is None
    assert await bot.storage.get_user(BEN.id) is None
    assert await bot.storage.get_user(ANA.id) is not None  # a command addresses the bot


async def test_bot_removed_and_added_again(bot: BotHarness, api: FakeBotAPI) -> None:
    await open_beginner_q3(bot)
    api.my_chat_member(ADMIN, GROUP, "member", "left")
    for _ in range(100):
        chat = await bot.storage.get_chat(GROUP)
        if chat is not None and not chat.active:
            break
        await asyncio.sleep(0.02)
    assert chat is not None and not chat.active
    api.my_chat_member(ADMIN, GROUP, "left", "member")
    intro = await api.wait_for(GROUP, len(api.to(GROUP)) + 1)
    assert intro[-1].visible.startswith("👋 Hi")
    chat = await bot.storage.get_chat(GROUP)
    assert chat is not None and chat.active


async def test_group_settings_are_for_admins(bot: BotHarness, api: FakeBotAPI) -> None:
    api.admins[GROUP] = {ADMIN.id}
    before = len(api.to(GROUP))
    asked = api.message(ANA, "/level advanced", chat_id=GROUP)
    (reply,) = (await api.wait_for(GROUP, before + 1))[before:]
    assert "Only group admins" in reply.visible
    assert reply.params["reply_parameters"]["message_id"] == asked  # addressed to Ana
    (reply,) = await bot.say(ADMIN, "/level advanced", chat_id=GROUP)
    assert "Advanced" in reply.visible
    (reply,) = await bot.say(ANA, "/roundlength 15", chat_id=GROUP)
    assert "Only group admins" in reply.visible
    (reply,) = await bot.say(ADMIN, "/roundlength 0", chat_id=GROUP)
    assert "from 1 to 1440" in reply.visible
    (reply,) = await bot.say(ADMIN, "/roundlength 15", chat_id=GROUP)
    assert "15" in reply.visible
    (question,) = await bot.say(ANA, "/quiz", chat_id=GROUP)
    assert "Advanced" in question.visible and "closes in 15 min (at 09:15 UTC)" in question.visible


async def test_supergroup_migration_moves_rounds(bot: BotHarness, api: FakeBotAPI) -> None:
    new_id = -1009876543210
    question = await open_beginner_q3(bot)
    await answer(bot, ANA, STRONG, question)
    api.message(ADMIN, None, chat_id=GROUP, extra={"migrate_to_chat_id": new_id})
    for _ in range(100):
        if await bot.storage.open_round_of(new_id) is not None:
            break
        await asyncio.sleep(0.02)
    moved = await bot.storage.open_round_of(new_id)
    assert moved is not None and await bot.storage.open_round_of(GROUP) is None


async def test_a_reply_telegram_answers_with_the_supergroups_id_moves_the_group(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    """No migration update came first: the reply's 400 names the new id, and the group's open
    round moves there with the reply, as when the update comes."""
    new_id = -1009876543211
    await open_beginner_q3(bot)
    api.fail("sendMessage", 400, chat_id=GROUP, migrate_to_chat_id=new_id)
    api.message(ANA, "/top", chat_id=GROUP)
    await bot.sentinel(ANA, GROUP)
    assert api.to(new_id), "the reply goes to the supergroup"
    moved = await bot.storage.open_round_of(new_id)
    assert moved is not None and await bot.storage.open_round_of(GROUP) is None


async def test_forget_removes_group_answers_too(bot: BotHarness, api: FakeBotAPI) -> None:
    await bot.say(ANA, "/start")
    question = await open_beginner_q3(bot)
    await answer(bot, ANA, STRONG, question)
    (results,) = await bot.say(ANA, "/reveal", chat_id=GROUP)
    assert "Ana" in results.visible
    (confirm,) = await bot.say(ANA, "/forget")
    (yes,) = [d for _, d in confirm.buttons if d.startswith("forget:yes:")]
    await bot.press(ANA, confirm, yes)
    (board,) = await bot.say(BEN, "/top", chat_id=GROUP)
    assert "Ana" not in board.visible
    assert await bot.storage.answers_for(ANA.id) == []


async def test_an_admin_changes_the_groups_language(bot: BotHarness, api: FakeBotAPI) -> None:
    # An English phone added the bot: the group is English until an admin says otherwise.
    api.admins[GROUP] = {ADMIN.id}
    api.my_chat_member(ANA, GROUP, "left", "member")
    await api.wait_for(GROUP, 1)  # the bot introduces itself
    (reply,) = await bot.say(ANA, "/lang", chat_id=GROUP)
    assert reply.visible.startswith("This group's language is English")
    (reply,) = await bot.say(CAI, "/lang zh", chat_id=GROUP)  # in the group's language
    assert reply.visible == "Only group admins can change this."
    (reply,) = await bot.say(ADMIN, "/lang 中文", chat_id=GROUP)
    assert reply.visible == "✅ 本群语言已设为中文。"
    # From now on everything in the group is Chinese, whoever it answers.
    (reply,) = await bot.say(ANA, "/lang", chat_id=GROUP)
    assert reply.visible.startswith("本群语言：中文")
    (question,) = await bot.say(ANA, "/quiz", chat_id=GROUP)  # an English member opens it
    assert question.visible.startswith("❓ 本轮")
    (reply,) = await bot.say(ADMIN, "/lang klingon", chat_id=GROUP)
    assert reply.visible == "请选择 en 或 zh，例如 /lang zh。"


@pytest.mark.parametrize(
    "command", ["/stats", "/hint", "/skip", "/export", "/forget", "/reminders"]
)
async def test_personal_commands_in_a_group_point_to_the_private_chat(
    bot: BotHarness, command: str
) -> None:
    (reply,) = await bot.say(ANA, command, chat_id=GROUP)
    assert "private chat" in reply.visible and "@interview_test_bot" in reply.visible


async def test_the_daily_round_closes_a_round_left_open(bot: BotHarness, api: FakeBotAPI) -> None:
    api.admins[GROUP] = {ADMIN.id}
    await bot.say(ADMIN, "/daily 09:05", chat_id=GROUP)
    question = await open_beginner_q3(bot)
    await answer(bot, ANA, STRONG, question)
    seen = len(messages(api))
    bot.clock.advance(minutes=5)
    assert (await bot.tick()).outcomes["sent"] == 2  # the results, then the new question
    new = [m.visible for m in messages(api)[seen:]]
    assert "Round closed" in new[0] and "🥇 Ana" in new[0]  # the open round's results first
    assert "Round" in new[1] and "Reply to this message" in new[1]  # then the daily round
    daily = await bot.storage.open_round_of(GROUP)
    assert daily is not None and daily.daily
    assert daily.closes_at.isoformat() == "2026-03-02T20:00:00+00:00"  # open until evening


async def test_a_round_question_telegram_rejects_is_logged_as_one_and_not_left_open(
    bot: BotHarness, api: FakeBotAPI, caplog: pytest.LogCaptureFixture
) -> None:
    api.fail("sendMessage", 400, chat_id=GROUP, description="Bad Request: can't parse entities")
    api.message(ANA, "/quiz beginner", chat_id=GROUP)
    await bot.sentinel(ANA, GROUP)
    assert await bot.storage.open_round_of(GROUP) is None
    rejected = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert rejected == [
        f"Telegram rejected the round question to chat {GROUP}: Can't parse entities"
    ], rejected
