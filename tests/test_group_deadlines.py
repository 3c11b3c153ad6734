"""Round deadlines in a group as members read them, before and after an admin sets a zone.

A group without a time zone has its times in the bot's default zone (UTC), which few members
live in: the question says how long is left, names UTC at the clock time, and tells admins
about /timezone, in the group's language. Expected texts are written out here.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.handlers import groups
from tests.conftest import BotHarness
from tests.support.fake_bot_api import FakeBotAPI, FakeUser, Sent

GROUP = -100700
ANA = FakeUser(8101, "Ana")
CAI = FakeUser(8103, "Cai", "zh-hans")
ADMIN = FakeUser(8109, "Root")

HINT_EN = (
    "🌍 Times here are UTC until an admin sets the group's time zone, "
    "e.g. /timezone Asia/Shanghai or /timezone UTC+8."
)
HINT_ZH = "🌍 本群的时间目前按 UTC 显示，管理员设置群时区后改为当地时间"


@pytest.fixture(autouse=True)
def _fresh_ack_window() -> Iterator[None]:
    groups._acks.clear()
    yield
    groups._acks.clear()


async def _round(bot: BotHarness, user: FakeUser, command: str = "/quiz") -> Sent:
    (question,) = await bot.say(user, command, chat_id=GROUP)
    return question


async def test_english_group_without_zone_sees_time_left_and_utc(bot: BotHarness) -> None:
    # The clock starts on Monday 09:00 UTC; rounds last 10 minutes.
    question = await _round(bot, ANA)
    text = question.visible
    assert "The round closes in 10 min (at 09:10 UTC) or on /reveal." in text
    assert HINT_EN in text
    (status,) = await bot.say(ANA, "/timezone", chat_id=GROUP)
    assert status.visible == (
        "This group has no time zone yet, so its times are shown in UTC (now 09:00). "
        "Admins set one with /timezone, e.g. /timezone Asia/Shanghai or /timezone UTC+8."
    )


async def test_chinese_group_then_admin_sets_the_zone(bot: BotHarness, api: FakeBotAPI) -> None:
    api.admins[GROUP] = {ADMIN.id}
    bot.clock.advance(minutes=25)  # 09:25 UTC, 17:25 in Shanghai
    question = await _round(bot, CAI)  # the group's language: its first member's, Chinese
    assert "本轮还有 10 分钟结束（UTC 时间 09:35）；也可以用 /reveal 提前结束。" in question.visible
    assert HINT_ZH in question.visible
    await bot.say(CAI, "/reveal", chat_id=GROUP)

    # English phones are answered in the group's language, Chinese (one language a group).
    (refused,) = await bot.say(ANA, "/timezone 东八区", chat_id=GROUP)
    assert "只有群管理员" in refused.visible
    (bad,) = await bot.say(ADMIN, "/timezone Shangai", chat_id=GROUP)
    assert "我不认识时区“Shangai”" in bad.visible
    (done,) = await bot.say(ADMIN, "/timezone 东八区", chat_id=GROUP)
    assert done.visible.startswith("✅ 本群时区已设为 UTC+08:00（当地时间 17:25）。")
    (status,) = await bot.say(CAI, "/timezone", chat_id=GROUP)
    assert status.visible.startswith("本群时区：UTC+08:00（当地时间 17:25）。")

    groups._acks.clear()
    question = await _round(bot, CAI)
    assert "本轮在 17:35（UTC+08:00）结束，还有 10 分钟；也可以用 /reveal 提前结束。" in (
        question.visible
    )
    assert "🌍" not in question.visible and "UTC 时间" not in question.visible


async def test_daily_round_deadline_in_hours_and_the_schedule_keeps_its_hour(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    api.admins[GROUP] = {ADMIN.id}
    (reply,) = await bot.say(ADMIN, "/daily 09:30", chat_id=GROUP)
    assert "(UTC)" in reply.visible and HINT_EN in reply.visible
    chat = await bot.storage.get_chat(GROUP)
    assert chat is not None and chat.timezone is None  # /daily alone names no zone
    bot.clock.advance(minutes=30)
    await bot.tick()
    (question,) = [m for m in api.to(GROUP) if "Round" in m.visible]
    # A daily round stays open until 20:00 in the group's zone: 10 h 30 min from 09:30.
    assert "The round closes in 10 h 30 min (at 20:00 UTC) or on /reveal." in question.visible
    assert HINT_EN in question.visible

    (done,) = await bot.say(ADMIN, "/timezone Europe/Berlin", chat_id=GROUP)
    assert "Europe/Berlin (local time 10:30)" in done.visible
    (status,) = await bot.say(ANA, "/daily", chat_id=GROUP)
    assert "09:30 every day (Europe/Berlin)" in status.visible
    assert "Next: Tue 03 Mar 09:30" in status.visible
    assert "🌍" not in status.visible
