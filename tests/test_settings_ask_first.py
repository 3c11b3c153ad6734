"""Settings that ask before they assume (issue 29, item 4), end to end through the fake Bot
API server as a phone user: the time zone asked first, suggestions as buttons, /settings
redrawn in place, a group's settings on one screen, one language per group message.

Expected texts are written by hand; the clock reads Monday 2026-03-02 09:00 UTC (17:00 in
Shanghai, 10:00 in Berlin).
"""

from __future__ import annotations

import re

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
