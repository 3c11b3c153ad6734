"""What a phone user trips over (issue 12), end to end through the fake Bot API server.

Time zones written as offsets, buttons tapped twice, the daily button's time, group prompts,
command menus per scope and language, too-short answers, overrule buttons.
"""

from __future__ import annotations

from datetime import UTC, datetime, time

import pytest

from bot.config import Settings
from bot.core.content import Library
from bot.core.levels import Level
from tests.conftest import BotHarness, FakeClock
from tests.support.fake_bot_api import FakeBotAPI, FakeUser, Sent
from tests.support.wait import until

ADA = FakeUser(1001, "Ada", "en")
LI = FakeUser(1002, "李雷", "zh-hans")


# -- time zones written as offsets -----------------------------------------------------------


@pytest.mark.parametrize("written", ["GMT+8", "UTC+8", "+8", "+08:00", "东八区", "utc+8:00"])
async def test_offsets_mean_hours_ahead_of_utc(
    bot: BotHarness, clock: FakeClock, written: str
) -> None:
    # The clock reads 09:00 UTC: 17:00 in Shanghai, 01:00 at UTC-8 (the inverted reading).
    assert clock() == datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    (reply,) = await bot.say(ADA, f"/timezone {written}")
    assert "Time zone set to UTC+08:00 (local time 17:00)" in reply.visible
    user = await bot.storage.get_user(ADA.id)
    assert user is not None and user.timezone == "Etc/GMT-8"
    (reply,) = await bot.say(ADA, "/timezone")
    assert "Your time zone is UTC+08:00 (local time 17:00)" in reply.visible


async def test_offset_west_of_utc_and_the_daily_time_follows(bot: BotHarness) -> None:
    await bot.say(ADA, "/daily 08:30")
    (reply,) = await bot.say(ADA, "/timezone UTC-5")
    assert "UTC-05:00 (local time 04:00)" in reply.visible
    chat = await bot.storage.get_chat(ADA.id)
    assert chat is not None and chat.next_due_at == datetime(2026, 3, 2, 13, 30, tzinfo=UTC)
    (reply,) = await bot.say(ADA, "/daily")
    assert "08:30 every day (UTC-05:00)" in reply.visible


async def test_daily_accepts_an_offset_zone(bot: BotHarness) -> None:
    (reply,) = await bot.say(LI, "/daily 08:30 东八区")
    assert "UTC+08:00" in reply.visible
    # The zone named is the user's now: no "that is UTC+08:00 time, set yours" hint.
    assert "/timezone" not in reply.visible
    chat = await bot.storage.get_chat(LI.id)
    # 08:30 at UTC+8 is 00:30 UTC; the next one after 09:00 UTC is tomorrow's.
    assert chat is not None and chat.next_due_at == datetime(2026, 3, 3, 0, 30, tzinfo=UTC)


# -- buttons tapped twice --------------------------------------------------------------------


async def test_second_tap_on_an_old_hint_button_is_quiet(bot: BotHarness, api: FakeBotAPI) -> None:
    (old,) = await bot.say(ADA, "/quiz beginner")
    await bot.say(ADA, "/skip", expect=2)  # "skipped" and the next question: `old` is stale
    (edit,) = await bot.press(ADA, old, f"hint:{_question_id(old)}")
    assert edit.method == "editMessageReplyMarkup" and edit.buttons == []
    answered = len(api.callback_answers)
    api.callback(ADA, f"hint:{_question_id(old)}", old)  # the client still showed the button
    (sentinel,) = await bot.say(ADA, "/help")
    assert len(api.callback_answers) == answered + 1  # the spinner stopped
    assert "/quiz" in sentinel.visible
    assert not any("went wrong" in m.visible for m in api.to(ADA.id))


async def answered(bot: BotHarness, user: FakeUser, text: str) -> list[Sent]:
    """Answer and wait for the whole feedback (its last message carries the rating buttons)."""
    before = len(bot.api.to(user.id))
    bot.api.message(user, text)
    for _ in range(20):
        sent = bot.api.to(user.id)[before:]
        if sent and any(d.startswith("rate:") for _, d in sent[-1].buttons):
            return sent
        await bot.api.wait_for(user.id, before + len(sent) + 1)
    raise AssertionError("no complete feedback")


def _question_id(message: object) -> str:
    buttons = getattr(message, "buttons", [])
    return next(d for _, d in buttons if d.startswith("hint:")).split(":", 1)[1]


# -- /start offers the daily time the user had -----------------------------------------------


async def test_start_offers_the_daily_time_the_user_had_and_sets_it(bot: BotHarness) -> None:
    await bot.say(LI, "/daily 8:30pm")
    (reply,) = await bot.say(LI, "/daily off")
    (welcome,) = await bot.say(LI, "/start")
    (welcome,) = await bot.press(LI, welcome, "tz:start:Asia/Shanghai")  # the zone first
    labels = [label for label, _ in welcome.buttons if "⏰" in label]
    assert labels == ["⏰ 每天 20:30 推送一题"]
    data = next(d for label, d in welcome.buttons if "⏰" in label)
    (reply,) = await bot.press(LI, welcome, data)
    assert "20:30" in reply.visible
    chat = await bot.storage.get_chat(LI.id)
    assert chat is not None and chat.daily_enabled and chat.daily_time == time(20, 30)


async def test_the_daily_button_sets_the_time_on_its_label(bot: BotHarness) -> None:
    (welcome,) = await bot.say(ADA, "/start")
    (welcome,) = await bot.press(ADA, welcome, "tz:start:Europe/London")  # offers 09:00
    await bot.say(ADA, "/daily 07:15")
    await bot.say(ADA, "/daily off")
    data = next(d for label, d in welcome.buttons if "09:00" in label)
    (reply,) = await bot.press(ADA, welcome, data)  # the old message's button says 09:00
    assert "Daily question at 09:00" in reply.visible


# -- group /level without a level ------------------------------------------------------------

GROUP = -100400
ADMIN_EN = FakeUser(8101, "Root", "en")
ADMIN_ZH = FakeUser(8102, "管理员", "zh-hans")


async def test_group_level_without_a_word_explains_in_the_groups_language(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    api.admins[GROUP] = {ADMIN_EN.id, ADMIN_ZH.id}
    await bot.say(ADMIN_ZH, "/quiz", chat_id=GROUP)  # the group is first met in Chinese
    # One language per group message: the English admin is answered in the group's.
    (reply,) = await bot.say(ADMIN_EN, "/level", chat_id=GROUP)
    assert "本群当前难度：初级" in reply.visible and "例如：/level 高级" in reply.visible
    assert "“”" not in reply.visible
    (reply,) = await bot.say(ADMIN_EN, "/lang en", chat_id=GROUP)
    (reply,) = await bot.say(ADMIN_ZH, "/level", chat_id=GROUP)
    assert "This group's level is Beginner" in reply.visible
    assert "e.g. /level advanced" in reply.visible
    (reply,) = await bot.say(ADMIN_ZH, "/level expert-ish", chat_id=GROUP)
    assert "“expert-ish”" in reply.visible and "Example: /level advanced" in reply.visible
    (reply,) = await bot.say(ADMIN_EN, "/level advanced", chat_id=GROUP)
    (reply,) = await bot.say(ADMIN_EN, "/level", chat_id=GROUP)
    assert "This group's level is Advanced" in reply.visible


# -- command menus and descriptions ----------------------------------------------------------

PRIVATE = [
    "quiz", "mock", "packs", "hint", "skip", "reveal", "stats", "settings", "level", "daily",
    "interview",
    "reminders", "timezone", "lang", "export", "forget", "help", "start",
]  # fmt: skip
GROUPS = ["quiz", "reveal", "top", "packs", "help"]
GROUP_ADMINS = [
    *("quiz", "reveal", "top", "packs", "settings", "daily", "level", "roundlength", "timezone"),
    "lang",
    "help",
]


@pytest.mark.parametrize("language", [None, "zh"])
async def test_each_audience_sees_only_commands_that_work_for_it(
    bot: BotHarness, api: FakeBotAPI, language: str | None
) -> None:
    assert api.menu("all_private_chats", language) == PRIVATE
    assert api.menu("default", language) == PRIVATE
    assert api.menu("all_group_chats", language) == GROUPS
    assert api.menu("all_chat_administrators", language) == GROUP_ADMINS


async def test_the_menus_wait_for_the_first_poll(bot: BotHarness, api: FakeBotAPI) -> None:
    """Start-up sends nothing of the menus before the first getUpdates (issue 13): the ten
    requests went out beside the bootstrap and held the first poll back."""
    first_poll = api.arrivals.index("getUpdates")
    menus = {"setMyCommands", "setMyDescription", "setMyShortDescription"}
    assert not menus & set(api.arrivals[:first_poll]), api.arrivals[: first_poll + 1]
    assert menus <= set(api.arrivals[first_poll:])  # and then all of them


async def test_menus_are_described_in_each_language(bot: BotHarness, api: FakeBotAPI) -> None:
    def described(scope: str, language: str | None) -> dict[str, str]:
        call = next(
            c
            for c in reversed(api.commands)
            if c["scope"] == scope and c["language_code"] == language
        )
        return dict(zip(call["commands"], call["descriptions"], strict=True))

    assert described("all_private_chats", "zh")["quiz"] == "来一道题，例如 /quiz 高级"
    assert described("all_private_chats", None)["quiz"] == "Get a question, e.g. /quiz advanced"
    assert described("all_group_chats", "zh")["quiz"] == "开一轮，例如 /quiz 高级"
    assert described("all_chat_administrators", None)["roundlength"].startswith("Round length")


async def test_a_menu_telegram_refuses_is_one_warning_naming_its_language(
    api: FakeBotAPI,
    bot_settings: Settings,
    library: Library,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The English menus refused (the first setMyCommands): the bot answers all the same,
    the Chinese menus are still set, and the operator reads which language failed and why."""
    api.fail("setMyCommands", 400, description="Bad Request: Too many commands")
    bot = BotHarness(api, bot_settings, library, clock)
    await bot.start()
    try:
        # The Chinese block's last request: the English one stopped at its first.
        await until(lambda: api.calls["setMyShortDescription"] >= 1, 30, "the zh menus")
        await bot.sentinel(ADA)
    finally:
        await bot.stop()
    warned = [r.getMessage() for r in caplog.records if "command menus" in r.getMessage()]
    assert warned == ["could not register the command menus (en): Too many commands"]
    assert api.menu("all_private_chats", "zh") == PRIVATE


async def test_private_menu_commands_all_answer_in_private(bot: BotHarness) -> None:
    """Every command the private menu offers is known there (none gets 'unknown command')."""
    for command in PRIVATE:
        bot.api.message(ADA, f"/{command}")
    replies = await bot.sentinel(ADA)
    assert len(replies) >= len(PRIVATE)
    assert not [m.visible for m in replies if "don't know that command" in m.visible]


async def test_group_admin_menu_commands_all_answer_in_a_group(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    api.admins[GROUP] = {ADMIN_EN.id}
    for command in GROUP_ADMINS:
        api.message(ADMIN_EN, f"/{command}", chat_id=GROUP)
    replies = await bot.sentinel(ADMIN_EN, GROUP)
    texts = [m.visible for m in replies if m.method == "sendMessage"]
    assert len(texts) >= len(GROUP_ADMINS)
    assert not [t for t in texts if "don't know" in t or "private chat" in t]


async def test_descriptions_are_set_in_both_languages(bot: BotHarness, api: FakeBotAPI) -> None:
    assert "interview" in api.descriptions[("description", None)]
    assert "面试" in api.descriptions[("description", "zh")]
    assert "key concepts" in api.descriptions[("short", None)]
    assert "关键概念" in api.descriptions[("short", "zh")]


# -- /settings -------------------------------------------------------------------------------


async def test_settings_screen_names_the_days_of_the_daily_question(bot: BotHarness) -> None:
    await bot.say(ADA, "/daily 07:00 weekdays")
    (screen,) = await bot.say(ADA, "/settings")
    assert "Daily question: on at 07:00 on weekdays" in screen.visible
    await bot.say(ADA, "/lang zh")
    (screen,) = await bot.say(ADA, "/settings")
    assert "每日一题：已开启，工作日 07:00" in screen.visible
    await bot.say(ADA, "/daily 07:00 every day")
    (screen,) = await bot.say(ADA, "/settings")
    assert "每日一题：已开启，每天 07:00" in screen.visible


async def test_settings_screen_changes_each_setting_in_place(bot: BotHarness) -> None:
    await bot.say(ADA, "/timezone UTC+8")
    (screen,) = await bot.say(ADA, "/settings")
    assert "Level: Beginner" in screen.visible
    assert "Time zone: UTC+08:00 (local time 17:00)" in screen.visible
    assert "Daily question: off" in screen.visible and "Evening reminders: on" in screen.visible

    (edit,) = await bot.press(ADA, screen, "set:level:advanced")
    assert edit.method == "editMessageText" and "Level: Advanced" in edit.visible
    assert ("✅ Advanced", "set:level:advanced") in edit.buttons
    user = await bot.storage.get_user(ADA.id)
    assert user is not None and user.level == "advanced"

    (edit,) = await bot.press(ADA, screen, "set:daily:on")
    assert "Daily question: on at 09:00" in edit.visible
    chat = await bot.storage.get_chat(ADA.id)
    # 09:00 at UTC+8 is 01:00 UTC; after today's 09:00 UTC the next one is tomorrow's.
    assert chat is not None and chat.next_due_at == datetime(2026, 3, 3, 1, 0, tzinfo=UTC)

    (edit,) = await bot.press(ADA, screen, "set:rem:off")
    assert "Evening reminders: off" in edit.visible
    user = await bot.storage.get_user(ADA.id)
    assert user is not None and not user.reminders

    (picker,) = await bot.press(ADA, screen, "set:tz")  # the screen becomes a zone picker
    assert picker.method == "editMessageText" and "Now: UTC+08:00" in picker.visible
    (edit,) = await bot.press(ADA, screen, "tz:scr:Europe/Berlin")
    assert edit.method == "editMessageText"
    assert "Time zone: Europe/Berlin (local time 10:00)" in edit.visible
    (prompt,) = await bot.press(ADA, screen, "set:tz")
    (prompt,) = await bot.press(ADA, screen, "tz:scr:?")  # another zone: typed
    assert "/timezone UTC+8" in prompt.visible
    # The phone opens a reply to the prompt; what is typed there is the zone, not an answer.
    assert prompt.params["reply_markup"]["force_reply"] is True
    await bot.press(ADA, screen, "set:show")

    (edit,) = await bot.press(ADA, screen, "set:lang:zh")
    assert "⚙️ 设置" in edit.visible and "难度：高级" in edit.visible
    (reply,) = await bot.say(ADA, "/help")
    assert "练习" in reply.visible or "题" in reply.visible


# -- too-short answers -----------------------------------------------------------------------


@pytest.mark.parametrize("short", ["x", "ok", "好", "??", "12", "aaaa"])
async def test_a_too_short_answer_is_refused_and_keeps_the_question_open(
    bot: BotHarness, short: str
) -> None:
    await bot.say(ADA, "/quiz beginner")
    (reply,) = await bot.say(ADA, short)
    assert "too short to score" in reply.visible and "still open" in reply.visible
    user = await bot.storage.get_user(ADA.id)
    assert user is not None and user.streak.current == 0
    assert await bot.storage.answers_for(ADA.id) == []
    feedback = await bot.say(ADA, "max_batch_size 和 preferred batch size")
    assert "Score:" in feedback[0].visible  # the question was still open
    user = await bot.storage.get_user(ADA.id)
    assert user is not None and user.streak.current == 1


async def test_a_too_short_answer_is_refused_in_the_users_language(bot: BotHarness) -> None:
    await bot.say(LI, "/quiz beginner")
    (reply,) = await bot.say(LI, "好")
    assert reply.visible.startswith("✍️ 这条回答太短，还不能评分"), reply.visible


async def test_a_too_short_group_reply_is_not_counted(bot: BotHarness, api: FakeBotAPI) -> None:
    api.admins[GROUP] = {ADMIN_EN.id}
    (question,) = await bot.say(ADMIN_EN, "/quiz", chat_id=GROUP)
    (note,) = await bot.say(ADA, "x", chat_id=GROUP, reply_to=question.message_id)
    assert "too short to count" in note.visible
    results = await bot.say(ADMIN_EN, "/reveal", chat_id=GROUP)
    assert "Nobody answered" in results[0].visible
    user = await bot.storage.get_user(ADA.id)
    assert user is None or user.streak.current == 0


# -- overruling the rating -------------------------------------------------------------------


async def test_overrule_buttons_mark_the_choice_once_and_the_toast_names_it(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await bot.say(ADA, "/quiz beginner")
    feedback = await bot.say(ADA, "不知道，没有概念")
    last = feedback[-1]
    rate = {label: data for label, data in last.buttons if data.startswith("rate:")}
    assert set(rate) == {"✅ I knew it", "🤏 Partly", "❌ No"}
    (edit,) = await bot.press(ADA, last, rate["🤏 Partly"])
    assert edit.method == "editMessageReplyMarkup"
    # The buttons stay, the choice marked: it shows, and can be changed.
    assert api.keyboard(ADA.id, last.message_id) == [
        ("✅ I knew it", "rate:1:good"),
        ("✓ Partly", "rate:1:hard"),  # one mark, not "✓ 🤏"
        ("❌ No", "rate:1:again"),
        ("▶️ Next question", "next:beginner"),
    ]
    # Answered at 2026-03-02 09:00 UTC: "partly" brings it back in two days, "no" tomorrow.
    assert api.callback_answers[-1] == "Noted: Partly. Next review: 2026-03-04."
    api.callback(ADA, rate["❌ No"], last)  # changed her mind
    await bot.sentinel(ADA)
    assert api.callback_answers[-1] == "Noted: No. Next review: 2026-03-03."


# -- one rule for the interface language -----------------------------------------------------


async def test_a_chosen_language_is_used_in_private_and_the_group_keeps_its_own(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    api.admins[GROUP] = {ADMIN_EN.id}
    await bot.say(ADMIN_EN, "/quiz", chat_id=GROUP)  # an English group
    (question,) = [m for m in api.to(GROUP) if "Round" in m.visible]
    await bot.say(ADA, "/lang zh")  # Ada's client is English, but she chose Chinese
    (reply,) = await bot.say(ADA, "/help")
    assert "练习" in reply.visible  # in private: hers
    # In the group: the group's, for everyone (one language per group message).
    (note,) = await bot.say(ADA, "x", chat_id=GROUP, reply_to=question.message_id)
    assert "too short" in note.visible
    (reply,) = await bot.say(ADA, "/stats", chat_id=GROUP)
    assert "private chat" in reply.visible
    (note,) = await bot.say(LI, "x", chat_id=GROUP, reply_to=question.message_id)
    assert "too short" in note.visible
    # The group's own messages (results) stay in the group's language.
    results = await bot.say(ADMIN_EN, "/reveal", chat_id=GROUP)
    assert "Round closed" in results[0].visible


async def test_without_a_choice_the_client_language_follows_the_client(bot: BotHarness) -> None:
    (reply,) = await bot.say(LI, "/help")
    assert "练习" in reply.visible
    li_in_english = FakeUser(LI.id, LI.first_name, "en-US")
    (reply,) = await bot.say(li_in_english, "/help")
    assert "Practice" in reply.visible
    user = await bot.storage.get_user(LI.id)
    assert user is not None and user.language is None and user.telegram_language == "en"


# -- the bank's language, a finished level ---------------------------------------------------


async def test_an_english_user_is_told_the_bank_is_chinese(bot: BotHarness) -> None:
    (question,) = await bot.say(ADA, "/quiz")
    assert "This question bank is in Chinese" in question.visible
    (question,) = await bot.say(LI, "/quiz")
    assert "🌐" not in question.visible  # a Chinese bank for a Chinese user needs no note


async def test_answering_every_question_at_a_level_nudges_to_the_next(
    bot: BotHarness, library: Library
) -> None:
    count = len(bot.library.pool(Level.BEGINNER))
    for _ in range(count):
        (question,) = await bot.say(LI, "/quiz beginner")
        assert "🎓" not in question.visible
        await answered(bot, LI, "我不太确定这个问题")
    (question,) = await bot.say(LI, "/quiz beginner")
    assert "初级题目你已经全部答过" in question.visible and "/quiz intermediate" in question.visible


async def test_the_pack_list_shows_each_packs_language(bot: BotHarness) -> None:
    (reply,) = await bot.say(ADA, "/quiz legendary")
    assert "Packs: triton (Chinese)" in reply.visible


# -- links: the private chat, a shared question, adding the bot to a group -------------------


def urls(message: Sent) -> list[str]:
    markup = message.params.get("reply_markup") or {}
    return [b["url"] for row in markup.get("inline_keyboard", []) for b in row if "url" in b]


async def test_the_private_chat_pointer_has_a_link_button(bot: BotHarness) -> None:
    (reply,) = await bot.say(ADA, "/stats", chat_id=GROUP)
    assert "@interview_test_bot" in reply.visible
    assert urls(reply) == ["https://t.me/interview_test_bot"]


async def test_a_shared_question_link_opens_that_question(
    bot: BotHarness, library: Library
) -> None:
    (question,) = await bot.say(ADA, "/quiz beginner")
    qid = _question_id(question)
    (share,) = urls(question)
    assert share == (
        "https://t.me/share/url?url=https%3A%2F%2Ft.me%2Finterview_test_bot%3Fstart%3Dq_" + qid
    )
    # A friend follows the link: /start with the payload, as Telegram sends it.
    friend = FakeUser(1077, "Bo", "en")
    welcome, opened = await bot.say(friend, f"/start q_{qid}", expect=2)
    assert "Hi Bo" in welcome.visible
    assert library.questions[qid].question in opened.visible
    assert _question_id(opened) == qid
    open_ = await bot.storage.get_open_question(friend.id)
    assert open_ is not None and open_.question_id == qid
    # Once Bo has practised, the next shared link opens its question without the welcome.
    await bot.say(friend, "max_batch_size 是最大的 batch")
    (again,) = await bot.say(friend, f"/start q_{qid}")
    assert _question_id(again) == qid and "Hi Bo" not in again.visible
    (welcome,) = await bot.say(friend, "/start")  # a plain /start still welcomes
    assert "Hi Bo" in welcome.visible


async def test_a_link_to_a_question_no_longer_there_says_so(bot: BotHarness) -> None:
    _, reply = await bot.say(ADA, "/start q_gone-q1", expect=2)
    assert "no longer in my question bank" in reply.visible


async def test_welcome_offers_to_add_the_bot_to_a_group(bot: BotHarness) -> None:
    (welcome,) = await bot.say(ADA, "/start")
    assert "https://t.me/interview_test_bot?startgroup=start" in urls(welcome)


async def test_posts_to_the_whole_group_use_the_groups_language(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    api.admins[GROUP] = {ADMIN_EN.id, ADMIN_ZH.id}
    await bot.say(ADMIN_ZH, "/quiz", chat_id=GROUP)  # the group is met in Chinese
    (results,) = await bot.say(ADMIN_EN, "/reveal", chat_id=GROUP)
    assert "本轮结束" in results.visible
    (question,) = await bot.say(ADMIN_EN, "/quiz", chat_id=GROUP)
    assert "❓ 本轮" in question.visible
    (reply,) = await bot.say(ADMIN_EN, "/quiz", chat_id=GROUP)  # to him too: the group's
    assert "已经有一轮在进行中" in reply.visible


async def test_a_reply_to_the_time_zone_prompt_sets_the_zone_and_is_not_scored(
    bot: BotHarness,
) -> None:
    await bot.say(ADA, "/quiz")
    (screen,) = await bot.say(ADA, "/settings")
    await bot.press(ADA, screen, "set:tz")
    (prompt,) = await bot.press(ADA, screen, "tz:scr:?")
    (done,) = await bot.say(ADA, "Europe/Berlin", reply_to=prompt.message_id)
    # 09:00 UTC on 2 March is 10:00 in Berlin (CET, UTC+1).
    assert done.visible == "✅ Time zone set to Europe/Berlin (local time 10:00)."
    user = await bot.storage.get_user(ADA.id)
    assert user is not None and user.timezone == "Europe/Berlin"
    # The question asked before is still open: nothing was scored.
    (hint,) = await bot.say(ADA, "/hint")
    assert "There is no open question" not in hint.visible
    assert "Score" not in done.visible
    # An unknown zone in reply is answered as /timezone answers it, still not scored.
    (bad,) = await bot.say(ADA, "Atlantis", reply_to=prompt.message_id)
    assert "Atlantis" in bad.visible and "Score" not in bad.visible
    # A message that replies to nothing is still the answer to the open question.
    (feedback, *_) = await bot.say(ADA, "Triton 用 dynamic batching 在服务端凑批", expect=1)
    assert feedback.visible.startswith("Score: ")


@pytest.mark.parametrize("typed", ["Asia/Shanghai", "上海"])
async def test_a_chinese_users_reply_to_the_time_zone_prompt_sets_the_zone(
    bot: BotHarness, typed: str
) -> None:
    """The prompt a Chinese user replies to is the Chinese one: it must be known as the
    time-zone prompt too, or the zone typed in reply is taken for an answer."""
    await bot.say(LI, "/quiz")
    (screen,) = await bot.say(LI, "/settings")
    assert "时区：UTC（当地时间 09:00）" in screen.visible
    await bot.press(LI, screen, "set:tz")
    (prompt,) = await bot.press(LI, screen, "tz:scr:?")
    assert prompt.visible.startswith("🌍 直接回复这条消息，告诉我你的时区")
    # The phone opens a reply to the prompt, and the zone is typed there.
    (done,) = await bot.say(LI, typed, reply_to=prompt.message_id)
    # 09:00 UTC on 2 March is 17:00 in Shanghai (UTC+8, no daylight saving).
    assert done.visible == "✅ 时区已设为 Asia/Shanghai（当地时间 17:00）。"
    (screen,) = await bot.say(LI, "/settings")
    assert "时区：Asia/Shanghai（当地时间 17:00）" in screen.visible
    # Nothing was scored: no answer recorded, and the question asked before is still open.
    assert await bot.storage.answers_for(LI.id) == []
    (hint,) = await bot.say(LI, "/hint")
    assert hint.visible.startswith("💡 提示 1：")
