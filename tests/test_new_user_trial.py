"""Rough edges a new-user trial found (in Chinese and English), end to end through the fake
Bot API server: each test is what the user saw, with the expected text written by hand."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.cli import main
from bot.config import Settings
from bot.core.content import Library, PackError, load_library
from bot.core.levels import Level
from tests.conftest import CONTENT, BotHarness, FakeClock
from tests.support.fake_bot_api import FakeBotAPI, FakeUser, Sent

ADA = FakeUser(1001, "Ada", "en")
LI = FakeUser(1002, "李雷", "zh-hans")


# -- "You covered every key concept" only for full credit ------------------------------------

Q3_LISTED = "preferred_batch_size, max_queue_delay_microseconds, max_batch_size, preserve_ordering"
Q3_STATED = (
    "preferred_batch_size 是希望组成的 batch 大小；max_queue_delay_microseconds 是请求最多排队"
    "等待多久；max_batch_size 是单次最大 batch；preserve_ordering 保证返回顺序。"
)


async def test_every_concept_only_listed_is_not_called_every_concept_covered(
    bot: BotHarness,
) -> None:
    await bot.say(ADA, "/start q_triton-q3", expect=2)
    feedback = await bot.say(ADA, Q3_LISTED)
    text = "\n".join(m.visible for m in feedback)
    # All four named in a bare list: partial credit (60% each), not a full score.
    assert "Score: 60%" in text
    assert "listed without explaining" in text
    assert "You covered every key concept" not in text
    await bot.say(LI, "/start q_triton-q3", expect=2)
    feedback = await bot.say(LI, Q3_LISTED)
    text = "\n".join(m.visible for m in feedback)
    assert "得分：60%" in text and "所有关键概念都答到了" not in text


async def test_every_concept_stated_is_celebrated(bot: BotHarness) -> None:
    await bot.say(ADA, "/start q_triton-q3", expect=2)
    feedback = await bot.say(ADA, Q3_STATED)
    text = "\n".join(m.visible for m in feedback)
    assert "Score: 100%" in text
    assert "You covered every key concept. 🎉" in text


# -- /help lists every command the menus offer ------------------------------------------------

GROUP = -100700


@pytest.mark.parametrize(("user", "code"), [(ADA, None), (LI, "zh")])
async def test_help_lists_every_command_of_the_menus(
    bot: BotHarness, api: FakeBotAPI, user: FakeUser, code: str | None
) -> None:
    (private,) = await bot.say(user, "/help")
    for command in api.menu("all_private_chats", code):
        assert f"/{command}" in private.visible, command
    assert "/settings" in private.visible
    (group,) = await bot.say(user, "/help", chat_id=GROUP)
    menus = api.menu("all_group_chats", code) + api.menu("all_chat_administrators", code)
    for command in menus:
        assert f"/{command}" in group.visible, command


# -- "Next" tapped twice, buttons under a closed question --------------------------------------


def _qid(message: Sent) -> str:
    return next(d for _, d in message.buttons if d.startswith("hint:")).split(":", 1)[1]


def _questions(messages: list[Sent]) -> list[Sent]:
    return [m for m in messages if any(d.startswith("hint:") for _, d in m.buttons)]


async def _feedback(bot: BotHarness, user: FakeUser, text: str) -> Sent:
    """Answer; the feedback's last message (the one with the rating and Next buttons)."""
    before = len(bot.api.to(user.id))
    bot.api.message(user, text)
    for _ in range(20):
        sent = bot.api.to(user.id)[before:]
        if sent and any(d.startswith("next:") for _, d in sent[-1].buttons):
            return sent[-1]
        await bot.api.wait_for(user.id, before + len(sent) + 1)
    raise AssertionError("no complete feedback")


@pytest.mark.parametrize(
    ("user", "toast"), [(ADA, "already have an open question"), (LI, "已经有")]
)
async def test_next_tapped_twice_serves_one_question(
    bot: BotHarness, api: FakeBotAPI, user: FakeUser, toast: str
) -> None:
    await bot.say(user, "/start q_triton-q3", expect=2)
    feedback = await _feedback(bot, user, Q3_STATED)
    before = len(api.to(user.id))
    answered = len(api.callback_answers)
    api.callback(user, "next:beginner", feedback)
    api.callback(user, "next:beginner", feedback)  # the double tap
    earlier = await bot.sentinel(user)
    new = earlier[before:]
    assert len(_questions(new)) == 1
    assert not any("previous question is closed" in m.visible for m in new)
    assert not any("上一题已关闭" in m.visible for m in new)
    assert len(api.callback_answers) == answered + 2  # both spinners stopped
    assert api.callback_answers[answered] == ""
    assert toast in api.callback_answers[answered + 1]
    # The question served stays the open one.
    open_now = await bot.storage.get_open_question(user.id)
    assert open_now is not None and open_now.question_id == _qid(_questions(new)[0])


@pytest.mark.parametrize("action", ["hint", "show", "skip"])
async def test_buttons_under_a_skipped_question_leave_the_new_one_alone(
    bot: BotHarness, api: FakeBotAPI, action: str
) -> None:
    (old,) = await bot.say(ADA, "/quiz beginner")
    _, new = await bot.say(ADA, "/skip", expect=2)
    assert _qid(new) != _qid(old)
    answered = len(api.callback_answers)
    (edit,) = await bot.press(ADA, old, f"{action}:{_qid(old)}")
    assert edit.method == "editMessageReplyMarkup" and edit.buttons == []  # stale buttons go
    assert "That question is closed" in api.callback_answers[answered]
    earlier = await bot.sentinel(ADA)
    assert earlier[-1] is edit or earlier[-1].message_id == edit.message_id
    open_now = await bot.storage.get_open_question(ADA.id)
    assert open_now is not None and open_now.question_id == _qid(new) and open_now.hints == 0


async def test_buttons_under_an_answered_question_say_it_is_closed(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    _, question = await bot.say(LI, "/start q_triton-q3", expect=2)
    await _feedback(bot, LI, Q3_STATED)
    answered = len(api.callback_answers)
    (edit,) = await bot.press(LI, question, "skip:triton-q3")
    assert edit.buttons == []
    assert "这道题已经结束" in api.callback_answers[answered]
    earlier = await bot.sentinel(LI)
    assert not any("已跳过" in m.visible or "没有待回答" in m.visible for m in earlier)


# -- /timezone: abbreviations and Chinese city names with 市 -----------------------------------


# The clock reads Monday 2026-03-02 09:00 UTC (winter time in Europe and North America).
@pytest.mark.parametrize(
    ("written", "zone", "local"),
    [
        ("JST", "Asia/Tokyo", "18:00"),
        ("KST", "Asia/Seoul", "18:00"),
        ("IST", "Asia/Kolkata", "14:30"),
        ("PST", "America/Los_Angeles", "01:00"),
        ("pdt", "America/Los_Angeles", "01:00"),
        ("EST", "America/New_York", "04:00"),
        ("CET", "Europe/Berlin", "10:00"),
        ("BST", "Europe/London", "09:00"),
        ("SGT", "Asia/Singapore", "17:00"),
        ("HKT", "Asia/Hong_Kong", "17:00"),
        ("上海市", "Asia/Shanghai", "17:00"),
        ("北京市", "Asia/Shanghai", "17:00"),
    ],
)
async def test_timezone_abbreviations_and_city_names_resolve(
    bot: BotHarness, written: str, zone: str, local: str
) -> None:
    (reply,) = await bot.say(ADA, f"/timezone {written}")
    assert f"Time zone set to {zone} (local time {local})" in reply.visible
    user = await bot.storage.get_user(ADA.id)
    assert user is not None and user.timezone == zone


async def test_cst_is_ambiguous_and_asks(bot: BotHarness) -> None:
    (reply,) = await bot.say(ADA, "/timezone CST")
    assert "“CST” can mean more than one time zone" in reply.visible
    assert "Asia/Shanghai" in reply.visible and "America/Chicago" in reply.visible
    assert "/timezone Asia/Shanghai" in reply.visible
    user = await bot.storage.get_user(ADA.id)
    assert user is not None and user.timezone is None  # nothing was changed
    (reply,) = await bot.say(LI, "/timezone cst")
    assert "“cst”可以指不止一个时区" in reply.visible
    (reply,) = await bot.say(LI, "/daily 08:30 CST")
    assert "可以指不止一个时区" in reply.visible


# -- /daily as people type it ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("user", "written", "shown"),
    [
        (LI, "工作日 早上8点", "✅ 每日一题时间：工作日 08:00"),
        (LI, "早上 8点", "✅ 每日一题时间：每天 08:00"),
        (LI, "每天 晚上9点", "✅ 每日一题时间：每天 21:00"),
        (LI, "晚上12点", "✅ 每日一题时间：每天 00:00"),
        (LI, "中午12点", "✅ 每日一题时间：每天 12:00"),
        (LI, "周一到周五 8:30", "✅ 每日一题时间：工作日 08:30"),
        (ADA, "weekdays 8:30", "✅ Daily question at 08:30 on weekdays"),
        (ADA, "every day 7am", "✅ Daily question at 07:00 every day"),
        (ADA, "mon-fri 8", "✅ Daily question at 08:00 on weekdays"),
    ],
)
async def test_daily_time_and_days_in_either_order(
    bot: BotHarness, user: FakeUser, written: str, shown: str
) -> None:
    (reply,) = await bot.say(user, f"/daily {written}")
    assert reply.visible.startswith(shown), reply.visible


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        ("8 30", "✅ Daily question at 08:30 every day"),
        ("20 05 Asia/Tokyo", "✅ Daily question at 20:05 every day (Asia/Tokyo)"),
        ("weekdays 7 45", "✅ Daily question at 07:45 on weekdays"),
    ],
)
async def test_daily_hour_and_minutes_written_with_a_space(
    bot: BotHarness, written: str, shown: str
) -> None:
    (reply,) = await bot.say(ADA, f"/daily {written}")
    assert reply.visible.startswith(shown), reply.visible


async def test_daily_bad_time_lists_the_forms_it_accepts(bot: BotHarness) -> None:
    (reply,) = await bot.say(ADA, "/daily 8 75")
    assert reply.visible.startswith(
        "I couldn't read the time “8 75”. Write it like 08:30, 8:30, 8am, 8:30pm or 20:30."
    ), reply.visible
    assert "I don't know the time zone" not in reply.visible and "24-hour" not in reply.visible
    (reply,) = await bot.say(LI, "/daily 25:99")
    assert reply.visible.startswith(
        "我看不懂时间“25:99”。可以这样写：08:30、20:30、8am、早上8点、晚上8点半。"
    ), reply.visible
    chat = await bot.storage.get_chat(ADA.id)
    assert chat is None or not chat.daily_enabled


async def test_daily_24_hour_time_with_pm_is_a_bad_time_not_a_zone(bot: BotHarness) -> None:
    (reply,) = await bot.say(ADA, "/daily 20:30 pm")
    assert "I couldn't read the time “20:30 pm”" in reply.visible
    assert "I don't know the time zone" not in reply.visible
    assert "Examples:\n/daily 08:30 — every day at 08:30" in reply.visible
    chat = await bot.storage.get_chat(ADA.id)
    assert chat is None or not chat.daily_enabled


# -- draft packs are not asked; an English pack first for English users ---------------------


def _english_pack(pack_id: str, title: str, *, draft: bool) -> str:
    head = f"id: {pack_id}\ntitle: {title}\nlanguage: en\n" + ("draft: true\n" if draft else "")
    questions = "".join(
        f"""  - id: {pack_id}-q{n}
    level: beginner
    question: "{title}, question {n}: what does a load balancer do?"
    answer: It spreads requests over several servers.
    concepts:
      - label: Spreads requests over servers.
        aliases: [spreads requests, distributes requests]
"""
        for n in (1, 2)
    )
    return f"{head}questions:\n{questions}"


@pytest.fixture
async def mixed_bot(
    api: FakeBotAPI, bot_settings: Settings, tmp_path: Path, clock: FakeClock
) -> AsyncIterator[BotHarness]:
    """A bank with the Chinese Triton pack, an English pack and an English draft pack."""
    folder = tmp_path / "content"
    folder.mkdir()
    for name in ("triton.yaml", "strings", "glossary", "fonts"):
        (folder / name).symlink_to(CONTENT / name)
    (folder / "basics.yaml").write_text(_english_pack("basics", "Basics", draft=False))
    (folder / "unreviewed.yaml").write_text(_english_pack("unreviewed", "Unreviewed", draft=True))
    settings = bot_settings.model_copy(update={"content_dir": folder})
    harness = BotHarness(api, settings, load_library([folder]), clock, chosen=())
    await harness.start()
    yield harness
    await harness.stop()


async def _asked_in_a_row(bot: BotHarness, user: FakeUser, count: int) -> list[Sent]:
    (first,) = await bot.say(user, "/quiz beginner")
    asked = [first]
    for _ in range(count - 1):
        _, question = await bot.say(user, "/skip", expect=2)
        asked.append(question)
    return asked


async def test_english_users_get_only_the_english_pack_and_never_a_draft(
    mixed_bot: BotHarness,
) -> None:
    asked = await _asked_in_a_row(mixed_bot, ADA, 6)
    ids = [_qid(m) for m in asked]
    # Only the English pack's two: the Chinese one is not handed over unasked, and a draft
    # never. Both asked (and skipped), the longest-ago comes back.
    assert sorted(ids[:2]) == ["basics-q1", "basics-q2"]
    assert ids[2:] == [ids[0], ids[1], ids[0], ids[1]]
    assert not any("This question bank is in" in m.visible for m in asked)


async def test_chinese_users_get_only_the_chinese_pack_and_never_a_draft(
    mixed_bot: BotHarness, flow_library: Library
) -> None:
    beginner = [q.id for q in flow_library.pool(Level.BEGINNER)]  # the Triton pack's
    asked = await _asked_in_a_row(mixed_bot, LI, len(beginner) + 2)
    ids = [_qid(m) for m in asked]
    assert sorted(ids[: len(beginner)]) == sorted(beginner)
    assert set(ids[len(beginner) :]) <= set(beginner)  # repeats, not the English pack


async def test_the_daily_prompt_is_english_for_english_users_and_never_a_draft(
    mixed_bot: BotHarness, api: FakeBotAPI, clock: FakeClock
) -> None:
    await mixed_bot.say(ADA, "/daily 09:30")
    clock.advance(minutes=31, days=-1)
    seen = []
    for _ in range(3):
        clock.advance(days=1)
        await mixed_bot.tick()
        prompt = api.to(ADA.id)[-1]
        assert "Daily question" in prompt.visible
        seen.append(_qid(prompt))
        await mixed_bot.say(ADA, "/skip", expect=2)  # and /skip's question is asked too
        seen.append(_qid(api.to(ADA.id)[-1]))
    assert not any(i.startswith("unreviewed") for i in seen)
    assert seen[0].startswith("basics")


# -- CONTENT_DIR pointing at a relative folder that is not there ----------------------------


def test_a_missing_relative_content_dir_is_named_by_its_absolute_path(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # no stray .env
    monkeypatch.setenv("CONTENT_DIR", "nowhere/content")
    monkeypatch.setenv("DATABASE_PATH", str(tmp_path / "bot.sqlite3"))
    assert main(["content", "check"]) == 1
    said = capsys.readouterr().err
    assert f"nowhere/content: does not exist (looked at {tmp_path}/nowhere/content)" in said
    assert "cannot read file" not in said
    with pytest.raises(PackError) as raised:  # what `run` stops with, as "Content error: …"
        load_library([Path("nowhere/content")])
    assert str(raised.value) == (
        f"nowhere/content: does not exist (looked at {tmp_path}/nowhere/content)"
    )


# -- wording: plurals, Chinese punctuation ---------------------------------------------------


async def test_round_length_of_one_minute_is_singular(bot: BotHarness, api: FakeBotAPI) -> None:
    api.admins[GROUP] = {ADA.id}
    (reply,) = await bot.say(ADA, "/roundlength 1", chat_id=GROUP)
    assert "Rounds now close after 1 minute." in reply.visible
    (reply,) = await bot.say(ADA, "/roundlength", chat_id=GROUP)
    assert "Rounds close after 1 minute." in reply.visible
    await bot.say(ADA, "/roundlength 15", chat_id=GROUP)
    (reply,) = await bot.say(ADA, "/roundlength", chat_id=GROUP)
    assert "Rounds close after 15 minutes." in reply.visible


async def test_chinese_lists_use_chinese_punctuation(mixed_bot: BotHarness) -> None:
    (reply,) = await mixed_bot.say(LI, "/quiz 专家")
    assert "可用题库：triton（中文）、basics（英文）。" in reply.visible  # and no draft pack
    (reply,) = await mixed_bot.say(LI, "/timezone CST")
    assert "Asia/Shanghai、America/Chicago" in reply.visible
    (reply,) = await mixed_bot.say(ADA, "/quiz wizard")
    assert "Packs: basics (English), triton (Chinese)." in reply.visible


async def test_a_share_link_to_a_draft_question_does_not_open_it(mixed_bot: BotHarness) -> None:
    welcome, reply = await mixed_bot.say(ADA, "/start q_unreviewed-q1", expect=2)
    assert welcome.visible.startswith("👋 Hi Ada!")
    assert reply.visible == (
        "That shared question is not ready to be asked yet: its question bank is still being"
        " reviewed. Send /quiz for another one."
    )
    (answered,) = await mixed_bot.say(ADA, "It spreads requests over several servers.")
    assert "Send /quiz" in answered.visible and "Score" not in answered.visible
    before = await mixed_bot.sentinel(ADA)
    assert not any("Unreviewed" in m.visible for m in before)
    # A link to a question that is not there at all still says so.
    _, gone = await mixed_bot.say(ADA, "/start q_nothing-q1", expect=2)
    assert "no longer in my question bank" in gone.visible


async def test_quiz_naming_a_draft_pack_says_it_is_being_reviewed(mixed_bot: BotHarness) -> None:
    # The pack exists but is not asked yet: not "no such pack", and not a level it is not.
    (reply,) = await mixed_bot.say(ADA, "/quiz unreviewed")
    assert reply.visible == (
        "The pack “unreviewed” is still being reviewed: its questions are asked once its author"
        " marks it ready. Packs: basics (English), triton (Chinese)."
    )
    (reply,) = await mixed_bot.say(ADA, "/quiz beginner unreviewed")
    assert "“unreviewed” is still being reviewed" in reply.visible
    assert "level" not in reply.visible
    (reply,) = await mixed_bot.say(LI, "/quiz Unreviewed")
    assert reply.visible == (
        "题库“Unreviewed”还在审核中：作者确认后才会出题。可用题库：triton（中文）、basics（英文）。"
    )
    # A word that is neither a level nor any pack: one answer naming both kinds.
    (reply,) = await mixed_bot.say(ADA, "/quiz nothing")
    assert reply.visible == (
        "“nothing” is neither a level nor a pack. Levels: beginner, intermediate, advanced"
        " (also 初级, 中级, 高级 or easy, medium, hard). Packs: basics (English), triton"
        " (Chinese).\nExample: /quiz advanced"
    )


# -- the "every question at this level answered" note: once per user and level --------------

LEVEL_DONE = (
    "🎓 You have answered every Beginner question, so they now come back for practice."
    " Ready for Intermediate? /quiz intermediate"
)


async def test_the_level_done_note_is_said_once_per_level_even_across_a_restart(
    bot: BotHarness, flow_library: Library
) -> None:
    beginner = [q.id for q in flow_library.pool(Level.BEGINNER)]
    for n, qid in enumerate(beginner):
        # A shared link: the welcome comes first only to someone who never answered.
        *_, question = await bot.say(ADA, f"/start q_{qid}", expect=2 if n == 0 else 1)
        assert LEVEL_DONE not in question.visible
        await bot.say(ADA, "max_batch_size 限制最大批，preferred batch size 是想凑到的批大小")
    (first,) = await bot.say(ADA, "/quiz beginner")
    assert _qid(first) in beginner and LEVEL_DONE in first.visible
    _, again = await bot.say(ADA, "/skip", expect=2)
    assert _qid(again) in beginner and "You have answered every" not in again.visible
    await bot.say(ADA, "/reveal")  # closed: /quiz asks anew (it shows an open one again)
    await bot.restart()
    (after,) = await bot.say(ADA, "/quiz beginner")
    assert _qid(after) in beginner and "You have answered every" not in after.visible
    # Another user who has not finished the level is not told.
    (other,) = await bot.say(LI, "/quiz beginner")
    assert "🎓" not in other.visible


async def test_the_daily_prompt_notes_a_bank_in_another_language_as_quiz_does(
    mixed_bot: BotHarness, api: FakeBotAPI, clock: FakeClock
) -> None:
    await mixed_bot.say(ADA, "/daily 09:30")
    clock.advance(minutes=31)
    await mixed_bot.tick()
    english = api.to(ADA.id)[-1]
    assert "Daily question" in english.visible and _qid(english).startswith("basics")
    assert "This question bank is in" not in english.visible
    await mixed_bot.say(ADA, "/skip", expect=2)  # the other English question
    (listing,) = await mixed_bot.say(ADA, "/packs")  # the Chinese pack, chosen
    await mixed_bot.press(ADA, listing, "pack:f:triton")
    await mixed_bot.say(ADA, "/reveal", expect=1)
    clock.advance(days=1)
    await mixed_bot.tick()
    chinese = api.to(ADA.id)[-1]
    assert "Daily question" in chinese.visible and _qid(chinese).startswith("triton")
    assert (
        "🌐 This question bank is in Chinese: the question and the reference answer are in"
        " Chinese. Answer in English, Chinese or a mix — all are scored." in chinese.visible
    )


# -- a reply to a question closed since -----------------------------------------------------


async def test_a_reply_to_a_closed_question_is_scored_against_it_and_not_recorded(
    bot: BotHarness, library: Library
) -> None:
    (first,) = await bot.say(ADA, "/quiz beginner")
    _, second = await bot.say(ADA, "/skip", expect=2)  # the first is closed
    earlier = library.question(_qid(first))
    assert earlier is not None and _qid(second) != earlier.id
    # The first question's own reference answer, sent as a reply to the first question.
    replies = await bot.say(ADA, earlier.answer, reply_to=first.message_id)
    text = "\n".join(m.visible for m in replies)
    assert text.startswith("ℹ️ You replied to an earlier question, closed since")
    assert "Score: 100%" in text
    assert await bot.storage.answers_for(ADA.id) == []  # nothing recorded
    # The open question is still the second one: a plain answer is scored against it.
    still_open = await bot.storage.get_open_question(ADA.id)
    assert still_open is not None and still_open.question_id == _qid(second)
    # A reply to the open question itself is its answer, as any message is.
    answer = "max_batch_size 是单次最大 batch"
    (feedback, *_) = await bot.say(ADA, answer, reply_to=second.message_id)
    assert "earlier question" not in feedback.visible


async def test_the_score_on_a_closed_question_replies_to_the_answer_it_scores(
    bot: BotHarness,
) -> None:
    (first,) = await bot.say(ADA, "/quiz beginner")
    await bot.say(ADA, "/skip", expect=2)  # the first is closed
    before = len(bot.api.to(ADA.id))
    answered = bot.api.message(ADA, "max_batch_size 是单次最大 batch", reply_to=first.message_id)
    (note, *_) = (await bot.api.wait_for(ADA.id, before + 1))[before:]
    assert note.visible.startswith("ℹ️ You replied to an earlier question, closed since")
    assert note.params.get("reply_parameters", {}).get("message_id") == answered


async def test_a_hint_from_a_sentence_label_ends_with_one_full_stop(mixed_bot: BotHarness) -> None:
    await mixed_bot.say(ADA, "/quiz beginner basics")
    (hint,) = await mixed_bot.say(ADA, "/hint")
    # A cue to the concept ("Spreads requests over servers."), not the concept itself.
    assert hint.visible.startswith("💡 Hint 1: a key point begins “Sp…” — what is it")
    assert "Spreads requests" not in hint.visible
    assert "even a perfect answer counts only as “I knew it”" in hint.visible
