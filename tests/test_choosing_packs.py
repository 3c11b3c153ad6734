"""Choosing question packs, end to end through the fake Bot API as a phone user would: the
field at /start, /packs follow and unfollow, a pack's link, /quiz <pack>, a group's packs
chosen by its admins, and an English speaker never handed a Chinese question unasked.

The packs are small ones written here (four, in two languages, one a translation); each
question's text says which pack it is from, so what was asked is read off the message.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import yaml

from bot.cli import main
from bot.config import Settings
from bot.core.content import load_library
from tests.conftest import CONTENT, BotHarness, FakeClock
from tests.support.fake_bot_api import FakeBotAPI, FakeUser, Sent

ADA = FakeUser(4101, "Ada", "en")
LI = FakeUser(4102, "李雷", "zh-hans")
GROUP = -100410
ADMIN = FakeUser(4109, "Root", "en")
MEMBER = FakeUser(4108, "Ben", "en")


def _pack(pid: str, title: str, language: str, field: str, extra: str = "") -> str:
    questions = "".join(
        f"""
  - id: {pid}-q{n}
    level: beginner
    question: "{title}: question {n}?"
    answer: The reference answer of question {n}.
    concepts:
      - label: caching layer
        aliases: [cache layer]
"""
        for n in (1, 2)
    )
    return (
        f"id: {pid}\ntitle: {title}\nlanguage: {language}\nfield: {field}\n{extra}"
        f"questions:{questions}"
    )


PACKS = {
    "db-zh.yaml": _pack("db-zh", "数据库 面试题", "zh", "databases"),
    "db-en.yaml": _pack("db-en", "Database Basics", "en", "databases", "translates: db-zh\n"),
    "serving-zh.yaml": _pack("serving-zh", "模型服务 面试题", "zh", "ml-serving"),
    "os-en.yaml": _pack("os-en", "Operating Systems", "en", "operating-systems"),
}


def _content(folder: Path, packs: dict[str, str]) -> Path:
    folder.mkdir()
    for name in ("strings", "glossary", "fonts"):
        (folder / name).symlink_to(CONTENT / name)
    for name, text in packs.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


@asynccontextmanager
async def _harness(
    api: FakeBotAPI, settings: Settings, clock: FakeClock, folder: Path
) -> AsyncIterator[BotHarness]:
    settings = settings.model_copy(update={"content_dir": folder})
    harness = BotHarness(api, settings, load_library([folder]), clock, chosen=())
    await harness.start()
    try:
        yield harness
    finally:
        await harness.stop()


@pytest.fixture
async def bot(
    api: FakeBotAPI, bot_settings: Settings, clock: FakeClock, tmp_path: Path
) -> AsyncIterator[BotHarness]:
    async with _harness(api, bot_settings, clock, _content(tmp_path / "c", PACKS)) as harness:
        yield harness


@pytest.fixture
async def chinese_only(
    api: FakeBotAPI, bot_settings: Settings, clock: FakeClock, tmp_path: Path
) -> AsyncIterator[BotHarness]:
    packs = {k: v for k, v in PACKS.items() if k in ("db-zh.yaml", "serving-zh.yaml")}
    async with _harness(api, bot_settings, clock, _content(tmp_path / "zh", packs)) as harness:
        yield harness


def _asked(messages: list[Sent]) -> list[str]:
    """The questions among `messages`, as their "<title>: question <n>" text."""
    return [
        line.strip().rstrip("?")
        for m in messages
        if any(d.startswith("hint:") for _, d in m.buttons)
        for line in m.visible.splitlines()
        if ": question " in line
    ]


async def _question(bot: BotHarness, user: FakeUser, command: str = "/quiz") -> str:
    (message,) = await bot.say(user, command)
    asked = _asked([message])
    assert asked, message.visible
    return asked[0]


def _button(message: Sent, data: str) -> str:
    return next(text for text, d in message.buttons if d == data)


# -- /start: the field in one tap, the languages said --------------------------------------


async def test_an_english_user_choosing_a_field_gets_an_english_question_from_it(
    bot: BotHarness,
) -> None:
    (welcome,) = await bot.say(ADA, "/start")
    assert "Which field are you preparing for?" in welcome.visible
    assert "Questions are in English and Chinese." in welcome.visible  # theirs first
    fields = [text for text, d in welcome.buttons if d.startswith("field:")]
    assert fields == ["Databases", "Operating systems", "ML serving & LLM inference", "All fields"]
    (chosen,) = await bot.press(ADA, welcome, "field:databases")
    assert "Database Basics (English)" in chosen.visible  # the English one of the two
    assert "数据库" not in chosen.visible
    for _ in range(4):  # the pack's two questions, then again: no other pack, no Chinese
        asked = await _question(bot, ADA)
        assert asked.startswith("Database Basics: question")
        await bot.say(ADA, "/reveal")


async def test_a_chinese_user_choosing_the_same_field_gets_the_chinese_pack(
    bot: BotHarness,
) -> None:
    (welcome,) = await bot.say(LI, "/start")
    assert "题目语言：中文和英文。" in welcome.visible
    await bot.press(LI, welcome, "field:databases")
    asked = await _question(bot, LI)
    assert asked.startswith("数据库 面试题: question")


# -- no pack in the user's language: offered, never handed ----------------------------------


async def test_with_the_shipped_packs_an_english_user_is_asked_in_english(
    api: FakeBotAPI, bot_settings: Settings, clock: FakeClock
) -> None:
    # The shipped packs' questions by language, read from the files.
    shipped = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in CONTENT.glob("*.yaml")]
    questions = {
        lang: [q["question"] for p in shipped if p["language"] == lang for q in p["questions"]]
        for lang in ("en", "zh")
    }
    async with _harness(api, bot_settings, clock, CONTENT) as bot:  # content/ as shipped
        (welcome,) = await bot.say(ADA, "/start")
        assert "Questions are in English and Chinese." in welcome.visible
        fields = [text for text, d in welcome.buttons if d.startswith("field:")]
        # Fields in file order: dep's ML serving, then dtrain's, gpu-en's and gpu's ML
        # infrastructure (in English too since gpu-en: dtrain has no English version), then
        # mysql.yaml's databases (Chinese only), net-en's computer networking (English only),
        # rag's LLM applications (Chinese only) and sd-en's system design (English only), then
        # all.
        assert fields == [
            "ML serving & LLM inference",
            "ML infrastructure",
            "Databases",
            "Computer networking",
            "LLM applications & RAG",
            "System design",
            "All fields",
        ]
        await bot.press(ADA, welcome, "field:ml-serving")
        for _ in range(3):
            (question,) = await bot.say(ADA, "/quiz")
            assert any(q in question.visible for q in questions["en"]), question.visible
            assert "This question bank is in" not in question.visible
            await bot.say(ADA, "/reveal")
        (asked,) = await bot.say(LI, "/quiz")  # a Chinese speaker is asked in Chinese
        assert any(q in asked.visible for q in questions["zh"]), asked.visible


async def test_with_the_shipped_packs_an_english_user_choosing_ml_infrastructure_gets_gpu_en(
    api: FakeBotAPI, bot_settings: Settings, clock: FakeClock
) -> None:
    # ML infrastructure's packs: dtrain (Chinese only) and gpu with its English version gpu-en,
    # so an English user who taps it is asked gpu-en's questions, read from the file.
    english = yaml.safe_load((CONTENT / "gpu-en.yaml").read_text(encoding="utf-8"))
    questions = [q["question"] for q in english["questions"]]
    async with _harness(api, bot_settings, clock, CONTENT) as bot:
        (welcome,) = await bot.say(ADA, "/start")
        (chosen,) = await bot.press(ADA, welcome, "field:ml-infra")
        assert f"{english['title']} (English)" in chosen.visible, chosen.visible
        for _ in range(3):
            (question,) = await bot.say(ADA, "/quiz")
            assert any(q in question.visible for q in questions), question.visible
            assert "This question bank is in" not in question.visible
            await bot.say(ADA, "/reveal")


async def test_a_translation_named_is_asked_as_named_and_an_original_in_ones_language(
    api: FakeBotAPI, bot_settings: Settings, clock: FakeClock
) -> None:
    # The shipped Triton pack and its English version, read from the files.
    packs = {p.stem: yaml.safe_load(p.read_text(encoding="utf-8")) for p in CONTENT.glob("*.yaml")}
    english = [q["question"] for q in packs["triton-en"]["questions"]]
    chinese = [q["question"] for q in packs["triton"]["questions"]]
    async with _harness(api, bot_settings, clock, CONTENT) as bot:
        # A Chinese user who names the English version chose it: asked in English.
        (asked,) = await bot.say(LI, "/quiz triton-en")
        assert any(q in asked.visible for q in english), asked.visible
        await bot.say(LI, "/reveal")
        # Naming the original, each is asked in their own language.
        (asked,) = await bot.say(LI, "/quiz triton")
        assert any(q in asked.visible for q in chinese), asked.visible
        (asked,) = await bot.say(ADA, "/quiz triton")
        assert any(q in asked.visible for q in english), asked.visible


async def test_stats_counts_the_bank_in_the_learners_language(
    api: FakeBotAPI, bot_settings: Settings, clock: FakeClock, tmp_path: Path
) -> None:
    # The bank /stats counts is the one the learner is asked from: with none followed, the
    # shipped packs in their language, not every pack. The shipped packs are seven of 12
    # questions in English and nine in Chinese (dtrain, k8s, rag and sql have no English
    # version shipped, net-en and sd-en no Chinese one), and one English pack is left out to
    # tell the banks apart: 6 x 12 = 72 in English, 9 x 12 = 108 in Chinese (192 - 12 = 180
    # in all).
    shipped = {
        p.name: p.read_text(encoding="utf-8")
        for p in CONTENT.glob("*.yaml")
        if p.name != "dep-en.yaml"
    }
    folder = _content(tmp_path / "shipped", shipped)
    async with _harness(api, bot_settings, clock, folder) as bot:
        for user, line in (
            (ADA, "Question bank: 1 of 72 questions"),
            (LI, "题库：共 108 道题"),
        ):
            await bot.say(user, "/quiz")
            await bot.say(user, "It keeps models loaded and batches requests on the GPU.")
            _, stats = await bot.say(user, "/stats", expect=2)
            assert line in stats.visible, stats.visible


async def test_an_english_user_is_offered_chinese_packs_and_not_handed_one(
    chinese_only: BotHarness,
) -> None:
    bot = chinese_only
    (offer,) = await bot.say(ADA, "/quiz")
    assert "There are no questions in English yet" in offer.visible
    assert "数据库 面试题 (Chinese)" in offer.visible
    assert not any(d.startswith("hint:") for _, d in offer.buttons)  # no question opened
    assert await bot.storage.get_open_question(ADA.id) is None
    assert [d for _, d in offer.buttons] == ["pack:f:db-zh", "pack:f:serving-zh"]
    (edited,) = await bot.press(ADA, offer, "pack:f:serving-zh")
    assert edited.method == "editMessageText"
    assert "✅ followed" in edited.visible
    asked = await _question(bot, ADA)
    assert asked.startswith("模型服务 面试题: question")  # chosen: now it is asked


async def test_the_daily_question_says_once_that_none_is_in_the_language(
    chinese_only: BotHarness,
) -> None:
    bot = chinese_only
    await bot.say(ADA, "/daily 09:30")
    bot.clock.advance(minutes=31)
    await bot.tick()
    sent = bot.api.to(ADA.id)
    assert "There are no questions in English yet" in sent[-1].visible
    assert await bot.storage.get_open_question(ADA.id) is None
    bot.clock.advance(days=1)
    await bot.tick()
    earlier = await bot.sentinel(ADA)
    assert len(earlier) == len(sent)  # the next day: nothing, not the same note again


async def test_a_groups_daily_round_says_once_that_none_is_in_its_language(
    chinese_only: BotHarness, api: FakeBotAPI
) -> None:
    bot = chinese_only
    api.admins[GROUP] = {ADMIN.id}
    await bot.say(ADMIN, "/daily 09:30", chat_id=GROUP)
    bot.clock.advance(minutes=31)
    await bot.tick()
    sent = api.to(GROUP)
    assert "There are no questions in English yet" in sent[-1].visible
    assert await bot.storage.open_round_of(GROUP) is None  # no Chinese round opened
    bot.clock.advance(days=1)
    await bot.tick()
    earlier = await bot.sentinel(ADMIN, chat_id=GROUP)
    assert len(earlier) == len(sent)  # the next day: nothing


async def test_a_groups_daily_round_with_no_question_at_its_level_moves_on_to_the_next_day(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    # Every pack here is beginner only; the group asks for advanced questions.
    api.admins[GROUP] = {ADMIN.id}
    await bot.say(ADMIN, "/level advanced", chat_id=GROUP)
    await bot.say(ADMIN, "/daily 09:30", chat_id=GROUP)
    bot.clock.advance(minutes=31)
    assert (await bot.tick()).outcomes == {"no-question": 1}  # not a failure, once
    assert (await bot.tick()).outcomes == {}  # the day is recorded: not tried again
    chat = await bot.storage.get_chat(GROUP)
    assert chat is not None and chat.next_due_day is not None
    assert chat.next_due_day.isoformat() == "2026-03-03"  # tomorrow's round is due next


# -- /packs: follow and unfollow change what /quiz and the daily question draw from ---------


async def test_packs_lists_the_users_language_first_with_counts(bot: BotHarness) -> None:
    await _question(bot, ADA, "/quiz os-en")
    await bot.say(ADA, "the cache layer keeps hot data close", expect=1)
    await bot.sentinel(ADA)  # the whole feedback sent first
    (listing,) = await bot.say(ADA, "/packs")
    text = listing.visible
    order = [text.index(t) for t in ("Database Basics", "Operating Systems", "数据库", "模型服务")]
    assert order == sorted(order)  # English first, then Chinese, each in file order
    assert "Operating systems · English · Beginner · 2 questions, 1 done" in text
    assert "ML serving & LLM inference · Chinese · Beginner · 2 questions, 0 done" in text
    assert "every pack in English" in text  # none followed yet


async def test_following_and_unfollowing_change_what_quiz_and_the_daily_draw_from(
    bot: BotHarness,
) -> None:
    (listing,) = await bot.say(ADA, "/packs")
    assert _button(listing, "pack:f:serving-zh") == "➕ 模型服务 面试题"
    (edited,) = await bot.press(ADA, listing, "pack:f:serving-zh")
    assert edited.message_id == listing.message_id  # redrawn in place
    assert _button(edited, "pack:u:serving-zh") == "✅ 模型服务 面试题"
    assert "Following 模型服务 面试题" in bot.api.callback_answers[-1]
    assert (await _question(bot, ADA)).startswith("模型服务 面试题")
    await bot.say(ADA, "/reveal")
    await bot.say(ADA, "/daily 09:30")
    bot.clock.advance(minutes=31)
    await bot.tick()
    daily = bot.api.to(ADA.id)[-1]
    assert _asked([daily])[0].startswith("模型服务 面试题")
    await bot.say(ADA, "/reveal")
    (again,) = await bot.press(ADA, edited, "pack:u:serving-zh")
    assert _button(again, "pack:f:serving-zh") == "➕ 模型服务 面试题"
    for _ in range(3):  # unfollowed: back to the English packs, never the Chinese one
        asked = await _question(bot, ADA)
        assert asked.startswith(("Database Basics", "Operating Systems")), asked
        await bot.say(ADA, "/reveal")


async def test_a_followed_pack_is_asked_in_the_users_language_where_translated(
    bot: BotHarness,
) -> None:
    (listing,) = await bot.say(ADA, "/packs")
    await bot.press(ADA, listing, "pack:f:db-zh")  # the Chinese original, followed
    asked = await _question(bot, ADA)
    assert asked.startswith("Database Basics: question")  # its English translation
    (listing,) = await bot.say(LI, "/packs")
    await bot.press(LI, listing, "pack:f:db-en")  # and the other way round
    assert (await _question(bot, LI)).startswith("数据库 面试题: question")


async def test_packs_fits_one_message_however_many_packs_there_are(
    api: FakeBotAPI, bot_settings: Settings, clock: FakeClock, tmp_path: Path
) -> None:
    long = "Distributed Systems Interview Questions on Consensus, Replication and Consistency"
    many = {
        f"p{n:02}.yaml": _pack(f"pack-number-{n:02}", f"{long} {n}", "en", "distributed-systems")
        for n in range(40)
    }
    folder = _content(tmp_path / "many", many)
    async with _harness(api, bot_settings, clock, folder) as bot:
        (listing,) = await bot.say(ADA, "/packs")
        assert len(listing.buttons) == 40  # every pack has its button
        assert "Distributed systems · English" in listing.visible
    # (the api fixture then checks the message was within Telegram's limits)


async def test_a_long_packs_title_in_the_follow_toast_is_cut_with_an_ellipsis(
    api: FakeBotAPI, bot_settings: Settings, clock: FakeClock, tmp_path: Path
) -> None:
    long = "Deploying and autoscaling LLM inference services, interview questions"  # 69
    folder = _content(tmp_path / "long", {"p.yaml": _pack("dep", long, "en", "ml-serving")})
    async with _harness(api, bot_settings, clock, folder) as bot:
        (listing,) = await bot.say(ADA, "/packs")
        (edited,) = await bot.press(ADA, listing, "pack:f:dep")
        await bot.press(ADA, edited, "pack:u:dep")
    # Cut where it is cut, and said to be: not "…services, interview " ending in a space.
    assert api.callback_answers[-2:] == [
        "Following Deploying and autoscaling LLM inference services, interview…",
        "No longer following Deploying and autoscaling LLM inference services, interview…",
    ]


# -- /quiz <pack>, and a pack's link -------------------------------------------------------


async def test_quiz_takes_a_pack_id_or_a_title_word(bot: BotHarness) -> None:
    assert (await _question(bot, ADA, "/quiz serving-zh")).startswith("模型服务 面试题")
    await bot.say(ADA, "/reveal")
    assert (await _question(bot, ADA, "/quiz Operating")).startswith("Operating Systems")
    await bot.say(ADA, "/reveal")
    assert (await _question(bot, ADA, "/quiz beginner basics")).startswith("Database Basics")


async def test_an_unknown_pack_gets_the_list_of_ids(bot: BotHarness) -> None:
    (reply,) = await bot.say(ADA, "/quiz kubernetes")
    assert "“kubernetes” is neither a level nor a pack" in reply.visible
    for pid in ("db-zh", "db-en", "serving-zh", "os-en"):
        assert pid in reply.visible


async def test_an_unknown_word_lists_the_users_language_first_as_packs_does(
    bot: BotHarness,
) -> None:
    # The files hold db-zh before db-en: the list follows /packs, not the file order.
    (reply,) = await bot.say(ADA, "/quiz kubernetes")
    packs = reply.visible.split("Packs: ", 1)[1].split(".")[0].split(", ")
    languages = [p.rsplit(" (", 1)[1] for p in packs]
    assert languages == sorted(languages, key=lambda lang: lang != "English)"), packs
    assert languages[0] == "English)" and "Chinese)" in languages
    (reply,) = await bot.say(LI, "/quiz kubernetes")
    packs = reply.visible.split("可用题库：", 1)[1].split("。")[0].split("、")
    assert packs[0].endswith("（中文）"), packs
    assert [p.endswith("（中文）") for p in packs] == sorted(
        (p.endswith("（中文）") for p in packs), reverse=True
    )


async def test_in_a_group_an_unknown_word_gets_the_list_of_ids_too(bot: BotHarness) -> None:
    # A group's /quiz takes a pack as a private chat's does: the answer names both.
    (reply,) = await bot.say(MEMBER, "/quiz kubernetes", chat_id=GROUP)
    assert "“kubernetes” is neither a level nor a pack" in reply.visible
    for pid in ("db-zh", "db-en", "serving-zh", "os-en"):
        assert pid in reply.visible
    assert await bot.storage.open_round_of(GROUP) is None


async def test_a_pack_link_follows_the_pack_and_opens_its_first_question(
    bot: BotHarness,
) -> None:
    sent = await bot.say(ADA, "/start pack_os-en", expect=2)
    assert _asked(sent) == ["Operating Systems: question 1"]
    (listing,) = await bot.say(ADA, "/packs")
    assert _button(listing, "pack:u:os-en") == "✅ Operating Systems"
    # With a question open, the link does what /quiz does: that one is shown again.
    _, kept = await bot.say(ADA, "/start pack_db-en", expect=2)  # not practised: welcome first
    assert "Operating Systems: question 1" in kept.visible
    assert any(d.startswith("renew:os-en-q1") for _, d in kept.buttons)
    assert (await bot.storage.get_open_question(ADA.id)).question_id == "os-en-q1"  # type: ignore[union-attr]


# -- a group's packs: chosen by its admins ------------------------------------------------


async def test_a_group_admin_picks_the_groups_packs_and_a_member_cannot(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    api.admins[GROUP] = {ADMIN.id}
    (shown,) = await bot.say(MEMBER, "/packs", chat_id=GROUP)
    assert shown.buttons == []  # a member sees the list, without buttons
    assert "Only the group's admins choose its packs." in shown.visible
    # The list speaks of the group, not of the member who asked.
    assert "This group follows none: its questions come from every pack in English" in (
        shown.visible
    )
    assert "You follow" not in shown.visible
    (listing,) = await bot.say(ADMIN, "/packs", chat_id=GROUP)
    answered = len(api.callback_answers)
    api.callback(MEMBER, "pack:f:serving-zh", listing)  # a member taps the admin's list
    await bot.sentinel(MEMBER, chat_id=GROUP)
    assert api.callback_answers[answered] == "Only the group's admins choose its packs."
    assert await bot.storage.followed_packs(GROUP) == []
    (edited,) = await bot.press(ADMIN, listing, "pack:f:serving-zh", expect=1)
    assert _button(edited, "pack:u:serving-zh") == "✅ 模型服务 面试题"
    (round_,) = await bot.say(MEMBER, "/quiz", chat_id=GROUP)
    assert "模型服务 面试题: question" in round_.visible


async def test_a_group_admin_chooses_the_groups_packs_from_its_settings(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    api.admins[GROUP] = {ADMIN.id}
    (screen,) = await bot.say(ADMIN, "/settings", chat_id=GROUP)
    assert "\nPacks: all packs in English\n" in screen.visible
    (listing,) = await bot.press(ADMIN, screen, "grp:packs")
    assert listing.message_id == screen.message_id  # the same message, now the pack list
    assert listing.visible.startswith("Question packs")
    assert ("➕ 模型服务 面试题", "pack:f:serving-zh:grp") in listing.buttons
    assert listing.buttons[-1] == ("← Back", "grp:show")
    assert "This group follows none" in listing.visible
    (edited,) = await bot.press(ADMIN, listing, "pack:f:serving-zh:grp")
    assert api.callback_answers[-1] == "Following 模型服务 面试题"
    assert ("✅ 模型服务 面试题", "pack:u:serving-zh:grp") in edited.buttons
    assert edited.buttons[-1] == ("← Back", "grp:show")  # still a way back
    (back,) = await bot.press(ADMIN, edited, "grp:show")
    assert back.message_id == screen.message_id
    assert "\nPacks: 模型服务 面试题 (Chinese)\n" in back.visible
    (round_,) = await bot.say(MEMBER, "/quiz", chat_id=GROUP)
    assert "模型服务 面试题: question" in round_.visible


async def test_a_member_sees_the_groups_packs_and_level_but_a_tap_changes_nothing(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    api.admins[GROUP] = {ADMIN.id}
    await bot.say(ADMIN, "/level intermediate", chat_id=GROUP)
    (admins,) = await bot.say(ADMIN, "/settings", chat_id=GROUP)
    (shown,) = await bot.say(MEMBER, "/settings", chat_id=GROUP)
    assert "\nPacks: all packs in English\nLevel: Intermediate\n" in shown.visible
    assert shown.visible.endswith("Only group admins can change these.")
    assert shown.buttons == []
    answered = len(api.callback_answers)
    api.callback(MEMBER, "grp:packs", admins)  # a member taps the admin's screen
    api.callback(MEMBER, "pack:f:serving-zh:grp", admins)  # and a pack button on its list
    await bot.sentinel(MEMBER, chat_id=GROUP)
    assert api.callback_answers[answered:] == [
        "Only group admins can change this.",
        "Only the group's admins choose its packs.",
    ]
    assert await bot.storage.followed_packs(GROUP) == []
    assert api.keyboard(GROUP, admins.message_id)[-1] == ("📚 Choose packs", "grp:packs")


async def test_a_groups_quiz_at_a_level_no_pack_has_says_so_and_opens_nothing(
    bot: BotHarness,
) -> None:
    # Every pack here is beginner only.
    (told,) = await bot.say(MEMBER, "/quiz advanced", chat_id=GROUP)
    assert told.visible == "There are no Advanced questions in this pack yet. Try another level."
    assert await bot.storage.open_round_of(GROUP) is None


async def test_a_groups_settings_name_a_few_followed_packs_escaped_and_count_the_rest(
    api: FakeBotAPI, bot_settings: Settings, clock: FakeClock, tmp_path: Path
) -> None:
    many = {f"p{n}.yaml": _pack(f"p{n}", f"Pack {n}", "en", "general") for n in range(6)}
    many["odd.yaml"] = _pack("odd", "C++ <Templates> & Traits " + "x" * 60, "en", "general")
    async with _harness(api, bot_settings, clock, _content(tmp_path / "m", many)) as bot:
        api.admins[GROUP] = {ADMIN.id}
        pids = ["odd", *(f"p{n}" for n in range(6))]
        await bot.storage.follow_packs(GROUP, pids, clock())
        (screen,) = await bot.say(MEMBER, "/settings", chat_id=GROUP)
    lines = [x for x in screen.visible.splitlines() if x.startswith("Packs: ")]
    assert lines == [
        "Packs: C++ <Templates> & Traits xxxxxxxxxxxxxx… (English), Pack 0 (English), "
        "Pack 1 (English), Pack 2 (English), Pack 3 (English), and 2 more"
    ]


# -- the packs' metadata: defaults, and `content check` ------------------------------------


def test_a_pack_naming_no_field_is_in_the_general_field_and_translates_nothing(
    tmp_path: Path,
) -> None:
    text = _pack("old", "Old Pack", "en", "x").replace("field: x\n", "")
    folder = _content(tmp_path / "c", {"old.yaml": text})
    pack = load_library([folder]).packs["old"]
    assert (pack.field, pack.translates) == ("general", None)


@pytest.mark.parametrize(
    ("translates", "problem"),
    [
        ("nowhere", "field translates: no other pack has the id 'nowhere'"),
        ("os-en", "field translates: translates 'os-en', which is in the same language (en)"),
    ],
)
def test_content_check_refuses_a_translation_of_no_pack_or_of_its_own_language(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    translates: str,
    problem: str,
) -> None:
    packs = dict(PACKS)
    packs["db-en.yaml"] = packs["db-en.yaml"].replace(
        "translates: db-zh", f"translates: {translates}"
    )
    folder = _content(tmp_path / "c", packs)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_PATH", str(tmp_path / "bot.sqlite3"))
    assert main(["content", "check", str(folder)]) == 1
    err = capsys.readouterr().err
    assert f"{folder / 'db-en.yaml'}: {problem}" in err


def test_content_check_names_each_packs_language_and_field(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _content(tmp_path / "c", PACKS)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_PATH", str(tmp_path / "bot.sqlite3"))
    assert main(["content", "check", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "pack db-en (en, field databases, translates db-zh), 2 questions" in out
    assert "pack serving-zh (zh, field ml-serving), 2 questions" in out


async def test_with_only_a_draft_pack_quizs_example_shows_no_placeholder(
    api: FakeBotAPI, bot_settings: Settings, clock: FakeClock, tmp_path: Path
) -> None:
    # A bot being set up with a pack still under review: nothing is offered yet.
    draft = {"p.yaml": _pack("p", "Under review", "en", "databases", "draft: true\n")}
    async with _harness(api, bot_settings, clock, _content(tmp_path / "d", draft)) as bot:
        (reply,) = await bot.say(ADA, "/quiz one two three")
    assert reply.visible.startswith("/quiz takes a level and optionally a pack"), reply.visible
    assert "None" not in reply.visible
