"""What a phone user trips over (issue 12), end to end through the fake Bot API server.

Time zones written as offsets, buttons tapped twice, the daily button's time, group prompts,
command menus per scope and language, too-short answers, overrule buttons.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.conftest import BotHarness, FakeClock
from tests.support.fake_bot_api import FakeBotAPI, FakeUser

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


def _question_id(message: object) -> str:
    buttons = getattr(message, "buttons", [])
    return next(d for _, d in buttons if d.startswith("hint:")).split(":", 1)[1]


# -- /start offers the daily time the user had -----------------------------------------------


async def test_start_offers_the_daily_time_the_user_had_and_sets_it(bot: BotHarness) -> None:
    await bot.say(LI, "/daily 8:30pm")
    (reply,) = await bot.say(LI, "/daily off")
    (welcome,) = await bot.say(LI, "/start")
    labels = [label for label, _ in welcome.buttons if "⏰" in label]
    assert labels == ["⏰ 每天 20:30 推送一题"]
    data = next(d for label, d in welcome.buttons if "⏰" in label)
    (reply,) = await bot.press(LI, welcome, data)
    assert "20:30" in reply.visible
    chat = await bot.storage.get_chat(LI.id)
    assert chat is not None and chat.daily_enabled and chat.daily_time == "20:30"


async def test_the_daily_button_sets_the_time_on_its_label(bot: BotHarness) -> None:
    (welcome,) = await bot.say(ADA, "/start")  # offers 09:00
    await bot.say(ADA, "/daily 07:15")
    await bot.say(ADA, "/daily off")
    data = next(d for label, d in welcome.buttons if "09:00" in label)
    (reply,) = await bot.press(ADA, welcome, data)  # the old message's button says 09:00
    assert "Daily question at 09:00" in reply.visible


# -- group /level without a level ------------------------------------------------------------

GROUP = -100400
ADMIN_EN = FakeUser(8101, "Root", "en")
ADMIN_ZH = FakeUser(8102, "管理员", "zh-hans")


async def test_group_level_without_a_word_explains_in_the_admins_language(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    api.admins[GROUP] = {ADMIN_EN.id, ADMIN_ZH.id}
    await bot.say(ADMIN_ZH, "/quiz", chat_id=GROUP)  # the group is first met in Chinese
    (reply,) = await bot.say(ADMIN_EN, "/level", chat_id=GROUP)
    assert "This group's level is Beginner" in reply.visible
    assert "e.g. /level advanced" in reply.visible and "“”" not in reply.visible
    (reply,) = await bot.say(ADMIN_ZH, "/level", chat_id=GROUP)
    assert "本群当前难度：初级" in reply.visible and "例如：/level 高级" in reply.visible
    (reply,) = await bot.say(ADMIN_EN, "/level expert-ish", chat_id=GROUP)
    assert "“expert-ish”" in reply.visible and "Example: /level advanced" in reply.visible
    (reply,) = await bot.say(ADMIN_EN, "/level advanced", chat_id=GROUP)
    (reply,) = await bot.say(ADMIN_EN, "/level", chat_id=GROUP)
    assert "This group's level is Advanced" in reply.visible
