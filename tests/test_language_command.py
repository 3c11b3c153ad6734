"""/lang in a private chat: without an argument it says the interface language and offers
the languages as buttons; with one it changes it, and the answer is in the new language."""

from __future__ import annotations

from tests.conftest import BotHarness
from tests.support.fake_bot_api import FakeUser

ADA = FakeUser(7501, "Ada", "en")


async def test_lang_alone_says_the_interface_language_and_how_to_change_it(
    bot: BotHarness,
) -> None:
    (reply,) = await bot.say(ADA, "/lang")
    assert reply.visible == "Interface language: English. Tap to change it:"
    assert [d for _, d in reply.buttons] == ["lang:en", "lang:zh"]
    await bot.say(ADA, "/lang zh")
    (reply,) = await bot.say(ADA, "/lang")
    assert reply.visible == "界面语言：中文。点按钮切换："
