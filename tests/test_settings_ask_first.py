"""Settings that ask before they assume (issue 29, item 4), end to end through the fake Bot
API server as a phone user: the time zone asked first, suggestions as buttons, /settings
redrawn in place, a group's settings on one screen, one language per group message.

Expected texts are written by hand; the clock reads Monday 2026-03-02 09:00 UTC (17:00 in
Shanghai, 10:00 in Berlin).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from tests.conftest import BotHarness
from tests.support.fake_bot_api import FakeBotAPI, FakeUser, Sent

ADA = FakeUser(1001, "Ada", "en")
LI = FakeUser(1002, "李雷", "zh-hans")
GROUP = -100900
ADMIN_ZH = FakeUser(9102, "管理员", "zh-hans")
MEMBER_ZH = FakeUser(9103, "小王", "zh-hans")

_CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


def _chinese_in(message: Sent) -> list[str]:
    """Chinese characters the message shows, in its text or on its buttons."""
    shown = [message.visible, *(label for label, _ in message.buttons)]
    return [part for part in shown if _CJK.search(part)]


# -- one language per group message ----------------------------------------------------------


async def test_after_lang_en_a_group_hears_english_only(bot: BotHarness, api: FakeBotAPI) -> None:
    api.admins[GROUP] = {ADMIN_ZH.id}
    (question,) = await bot.say(ADMIN_ZH, "/quiz", chat_id=GROUP)  # the group met in Chinese
    assert "本轮" in question.visible
    (done,) = await bot.say(ADMIN_ZH, "/lang en", chat_id=GROUP)
    assert done.visible == "✅ This group's language is now English."
    # Members whose phones are in Chinese, each getting a reply in the group.
    (again,) = await bot.say(ADMIN_ZH, "/quiz", chat_id=GROUP)
    assert again.visible.startswith("A round is already open")
    (pointer,) = await bot.say(MEMBER_ZH, "/stats", chat_id=GROUP)
    assert pointer.visible.startswith("This works in a private chat with me")
    (refused,) = await bot.say(MEMBER_ZH, "/reveal", chat_id=GROUP)
    assert refused.visible == "Only the member who opened this round or a group admin can close it."
    (admins,) = await bot.say(MEMBER_ZH, "/roundlength 5", chat_id=GROUP)
    assert admins.visible == "Only group admins can change this."
    (short,) = await bot.say(MEMBER_ZH, "好", chat_id=GROUP, reply_to=question.message_id)
    assert short.visible.startswith("✍️ That is too short to count as an answer")
    (helped,) = await bot.say(MEMBER_ZH, "/help", chat_id=GROUP)
    assert helped.visible.startswith("Study group commands")
    for message in (again, pointer, refused, admins, short, helped):
        assert _chinese_in(message) == [], message.visible


# -- /start asks the time zone before offering a daily time ---------------------------------


async def test_start_asks_a_chinese_user_her_zone_before_the_daily_time(bot: BotHarness) -> None:
    (welcome,) = await bot.say(LI, "/start")
    assert "先选一下你的时区" in welcome.visible
    # Her phone is in Chinese: China's zone first, tappable; no daily time offered yet.
    zones = [d for _, d in welcome.buttons if d.startswith("tz:start:")]
    assert zones[0] == "tz:start:Asia/Shanghai"
    assert ("⌨️ 其他：输入城市", "tz:start:?") in welcome.buttons
    assert not [label for label, _ in welcome.buttons if "⏰" in label]
    (asked,) = await bot.press(LI, welcome, "tz:start:Asia/Shanghai")
    assert asked.method == "editMessageText" and asked.message_id == welcome.message_id
    assert "✅ 时区：Asia/Shanghai（当地时间 17:00）" in asked.visible
    (data,) = [d for label, d in asked.buttons if label == "⏰ 每天 09:00 推送一题"]
    (done,) = await bot.press(LI, asked, data)
    assert "每天 09:00（Asia/Shanghai）" in done.visible
    chat = await bot.storage.get_chat(LI.id)
    # 09:00 in Shanghai is 01:00 UTC; it is 17:00 there now, so tomorrow's.
    assert chat is not None and chat.next_due_at == datetime(2026, 3, 3, 1, 0, tzinfo=UTC)


async def test_start_offers_an_english_user_a_few_zones_or_a_city_to_type(
    bot: BotHarness,
) -> None:
    (welcome,) = await bot.say(ADA, "/start")
    zones = [label for label, d in welcome.buttons if d.startswith("tz:start:") and "/" in d]
    assert zones[:3] == ["America/New_York", "America/Los_Angeles", "Europe/London"]
    (prompt,) = await bot.press(ADA, welcome, "tz:start:?")
    assert prompt.params["reply_markup"]["force_reply"] is True
    (asked,) = await bot.say(ADA, "Berlin", reply_to=prompt.message_id)
    assert asked.visible.startswith("✅ Time zone: Europe/Berlin (local time 10:00).")
    (data,) = [d for label, d in asked.buttons if "⏰" in label and "09:00" in label]
    (done,) = await bot.press(ADA, asked, data)
    assert "Daily question at 09:00 every day (Europe/Berlin)" in done.visible
    chat = await bot.storage.get_chat(ADA.id)
    assert chat is not None and chat.next_due_at == datetime(2026, 3, 3, 8, 0, tzinfo=UTC)


# -- suggestions as buttons ------------------------------------------------------------------


async def test_a_misspelt_zone_is_answered_with_the_zone_to_tap(bot: BotHarness) -> None:
    (reply,) = await bot.say(LI, "/timezone Shanghia")
    assert "我不认识时区“Shanghia”" in reply.visible
    assert reply.buttons == [("Asia/Shanghai", "tz:set:Asia/Shanghai")]
    (done,) = await bot.press(LI, reply, "tz:set:Asia/Shanghai")
    assert done.visible == "✅ 时区已设为 Asia/Shanghai（当地时间 17:00）。"
    user = await bot.storage.get_user(LI.id)
    assert user is not None and user.timezone == "Asia/Shanghai"


async def test_a_misspelt_group_zone_is_tapped_by_an_admin_only(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    api.admins[GROUP] = {ADMIN_ZH.id}
    await bot.say(ADMIN_ZH, "/lang en", chat_id=GROUP)
    (reply,) = await bot.say(ADMIN_ZH, "/timezone Shanghia", chat_id=GROUP)
    assert reply.buttons == [("Asia/Shanghai", "tz:set:Asia/Shanghai")]
    api.callback(MEMBER_ZH, "tz:set:Asia/Shanghai", reply)
    await bot.sentinel(MEMBER_ZH, GROUP)
    assert api.callback_answers[-1] == "Only group admins can change this."
    chat = await bot.storage.get_chat(GROUP)
    assert chat is not None and chat.timezone is None
    (done,) = await bot.press(ADMIN_ZH, reply, "tz:set:Asia/Shanghai")
    expected = "✅ This group's time zone is now Asia/Shanghai (local time 17:00)."
    assert done.visible.startswith(expected)
    chat = await bot.storage.get_chat(GROUP)
    assert chat is not None and chat.timezone == "Asia/Shanghai"


async def test_a_misspelt_zone_in_daily_is_a_button_setting_the_daily_question(
    bot: BotHarness,
) -> None:
    (reply,) = await bot.say(LI, "/daily 08:30 Shanghia")
    assert "我不认识时区“Shanghia”" in reply.visible
    assert reply.buttons == [("Asia/Shanghai", "tzd:0830:-:Asia/Shanghai")]
    (done,) = await bot.press(LI, reply, "tzd:0830:-:Asia/Shanghai")
    assert "每天 08:30（Asia/Shanghai）" in done.visible
    chat = await bot.storage.get_chat(LI.id)
    # 08:30 in Shanghai is 00:30 UTC; it is 17:00 there now, so tomorrow's.
    assert chat is not None and chat.next_due_at == datetime(2026, 3, 3, 0, 30, tzinfo=UTC)
    user = await bot.storage.get_user(LI.id)
    assert user is not None and user.timezone == "Asia/Shanghai"


async def test_an_ambiguous_zone_in_a_groups_daily_is_tapped_by_an_admin_only(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    api.admins[GROUP] = {ADMIN_ZH.id}
    (reply,) = await bot.say(ADMIN_ZH, "/daily weekdays 20:00 CST", chat_id=GROUP)
    assert reply.buttons == [
        ("Asia/Shanghai", "tzd:2000:w:Asia/Shanghai"),
        ("America/Chicago", "tzd:2000:w:America/Chicago"),
    ]
    api.callback(MEMBER_ZH, "tzd:2000:w:Asia/Shanghai", reply)
    await bot.sentinel(MEMBER_ZH, GROUP)
    assert api.callback_answers[-1] == "只有群管理员可以修改这个设置。"
    chat = await bot.storage.get_chat(GROUP)
    assert chat is None or not chat.daily_enabled
    (done,) = await bot.press(ADMIN_ZH, reply, "tzd:2000:w:Asia/Shanghai")
    assert "工作日 20:00（Asia/Shanghai）" in done.visible
    chat = await bot.storage.get_chat(GROUP)
    assert chat is not None and chat.timezone == "Asia/Shanghai"
    # Monday 20:00 in Shanghai is 12:00 UTC, still ahead today.
    assert chat.next_due_at == datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


async def test_lang_without_a_word_shows_language_buttons(bot: BotHarness) -> None:
    (reply,) = await bot.say(ADA, "/lang")
    assert reply.buttons == [("✅ English", "lang:en"), ("中文", "lang:zh")]
    (edit,) = await bot.press(ADA, reply, "lang:zh")
    assert edit.message_id == reply.message_id
    assert edit.visible == "界面语言：中文。点按钮切换："
    assert edit.buttons == [("English", "lang:en"), ("✅ 中文", "lang:zh")]
    user = await bot.storage.get_user(ADA.id)
    assert user is not None and user.language == "zh"


# -- /settings refreshes in place ------------------------------------------------------------


async def test_settings_zone_is_picked_on_the_screen_itself(bot: BotHarness) -> None:
    (screen,) = await bot.say(LI, "/settings")
    (picker,) = await bot.press(LI, screen, "set:tz")
    assert picker.method == "editMessageText" and picker.message_id == screen.message_id
    assert ("Asia/Shanghai", "tz:scr:Asia/Shanghai") in picker.buttons
    (redrawn,) = await bot.press(LI, screen, "tz:scr:Asia/Shanghai")
    assert redrawn.method == "editMessageText" and redrawn.message_id == screen.message_id
    assert "时区：Asia/Shanghai（当地时间 17:00）" in redrawn.visible
    assert ("🌍 时区：Asia/Shanghai", "set:tz") in redrawn.buttons
    sent = [m for m in await bot.sentinel(LI) if m.method == "sendMessage"]
    assert [m.message_id for m in sent] == [screen.message_id]  # nothing sent besides


async def test_the_zone_pickers_back_button_redraws_the_settings_screen(bot: BotHarness) -> None:
    (screen,) = await bot.say(LI, "/settings")
    (picker,) = await bot.press(LI, screen, "set:tz")
    back = [data for label, data in picker.buttons if label == "← 返回"]
    assert len(back) == 1, picker.buttons
    (redrawn,) = await bot.press(LI, screen, back[0])
    assert redrawn.method == "editMessageText" and redrawn.message_id == screen.message_id
    assert redrawn.visible == screen.visible and redrawn.buttons == screen.buttons


# -- a group's settings on one screen --------------------------------------------------------


async def test_a_group_admin_sees_and_changes_the_groups_settings_on_one_screen(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    api.admins[GROUP] = {ADMIN_ZH.id}
    await bot.say(ADMIN_ZH, "/lang en", chat_id=GROUP)
    (screen,) = await bot.say(ADMIN_ZH, "/settings", chat_id=GROUP)
    assert screen.visible.startswith(
        "⚙️ This group's settings\nLanguage: English\nTime zone: UTC (local time 09:00)\n"
        "Daily round: off\nRound length: 10 minutes"
    )
    (edit,) = await bot.press(ADMIN_ZH, screen, "grp:len:15")
    assert edit.message_id == screen.message_id and "Round length: 15 minutes" in edit.visible
    assert ("✅ 15 min", "grp:len:15") in edit.buttons
    (edit,) = await bot.press(ADMIN_ZH, screen, "grp:daily:on")
    assert "Daily round: on at 09:00 every day" in edit.visible
    (edit,) = await bot.press(ADMIN_ZH, screen, "grp:at:0800")
    assert "Daily round: on at 08:00 every day" in edit.visible
    assert ("✅ 08:00", "grp:at:0800") in edit.buttons
    (picker,) = await bot.press(ADMIN_ZH, screen, "grp:tz")
    assert ("Asia/Shanghai", "tz:grp:Asia/Shanghai") in picker.buttons
    (edit,) = await bot.press(ADMIN_ZH, screen, "tz:grp:Asia/Shanghai")
    assert "Time zone: Asia/Shanghai (local time 17:00)" in edit.visible
    (edit,) = await bot.press(ADMIN_ZH, screen, "grp:lang:zh")
    assert edit.visible.startswith("⚙️ 本群设置\n语言：中文\n时区：Asia/Shanghai（当地时间 17:00）")
    chat = await bot.storage.get_chat(GROUP)
    assert chat is not None
    assert (chat.language, chat.timezone, chat.round_minutes) == ("zh", "Asia/Shanghai", 15)
    # 08:00 in Shanghai is 00:00 UTC: the daily round moved with the zone.
    assert chat.daily_enabled and chat.next_due_at == datetime(2026, 3, 3, 0, 0, tzinfo=UTC)


async def test_a_member_sees_the_groups_settings_but_cannot_change_them(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    api.admins[GROUP] = {ADMIN_ZH.id}
    (admins,) = await bot.say(ADMIN_ZH, "/settings", chat_id=GROUP)
    (screen,) = await bot.say(MEMBER_ZH, "/settings", chat_id=GROUP)
    assert screen.visible.startswith("⚙️ 本群设置\n语言：中文")
    assert screen.visible.endswith("只有群管理员可以修改这些设置。")
    assert screen.buttons == []
    api.callback(MEMBER_ZH, "grp:len:30", admins)  # a member taps the admin's screen
    await bot.sentinel(MEMBER_ZH, GROUP)
    assert api.callback_answers[-1] == "只有群管理员可以修改这个设置。"
    chat = await bot.storage.get_chat(GROUP)
    assert chat is not None and chat.round_minutes is None


async def test_a_groups_lang_buttons_change_it_for_admins_only(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    api.admins[GROUP] = {ADMIN_ZH.id}
    (shown,) = await bot.say(MEMBER_ZH, "/lang", chat_id=GROUP)
    assert shown.visible.startswith("本群语言：中文")
    assert shown.buttons == [("English", "lang:en"), ("✅ 中文", "lang:zh")]
    api.callback(MEMBER_ZH, "lang:en", shown)
    await bot.sentinel(MEMBER_ZH, GROUP)
    assert api.callback_answers[-1] == "只有群管理员可以修改这个设置。"
    (edit,) = await bot.press(ADMIN_ZH, shown, "lang:en")
    assert edit.message_id == shown.message_id
    assert edit.visible.startswith("This group's language is English")
    chat = await bot.storage.get_chat(GROUP)
    assert chat is not None and chat.language == "en"
    member = await bot.storage.get_user(ADMIN_ZH.id)
    assert member is not None and member.language is None  # the admin's own is untouched
