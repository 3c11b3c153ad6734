"""What Telegram shows before the first message: command menus per scope, bot descriptions.

Each audience sees only commands that work for it: private chats the practice and settings
commands, groups the round commands, group admins also the group settings. Every menu and
description is registered for the default language (English) and for each other interface
language, so a Chinese client shows Chinese descriptions.
"""

from __future__ import annotations

import logging
from typing import Any

from telegram import (
    BotCommand,
    BotCommandScope,
    BotCommandScopeAllChatAdministrators,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    BotCommandScopeDefault,
)
from telegram.error import TelegramError

from bot.commands import GROUP_ADMIN_MENU, GROUP_MENU, PRIVATE_MENU
from bot.i18n import DEFAULT_LANGUAGE, LANGUAGES, Strings

log = logging.getLogger(__name__)

MENUS: tuple[tuple[BotCommandScope, tuple[tuple[str, str], ...]], ...] = (
    (BotCommandScopeDefault(), PRIVATE_MENU),
    (BotCommandScopeAllPrivateChats(), PRIVATE_MENU),
    (BotCommandScopeAllGroupChats(), GROUP_MENU),
    (BotCommandScopeAllChatAdministrators(), GROUP_ADMIN_MENU),
)


def commands(strings: Strings, lang: str, menu: tuple[tuple[str, str], ...]) -> list[BotCommand]:
    """A menu's commands with their descriptions in `lang`."""
    return [BotCommand(command, strings(lang, key)) for command, key in menu]


async def register(bot: Any, strings: Strings) -> None:
    """Set every menu and the descriptions, per language; a failure never blocks start-up."""
    for lang in LANGUAGES:
        code = None if lang == DEFAULT_LANGUAGE else lang
        try:
            for scope, menu in MENUS:
                await bot.set_my_commands(
                    commands(strings, lang, menu), scope=scope, language_code=code
                )
            await bot.set_my_description(strings(lang, "bot_description"), language_code=code)
            await bot.set_my_short_description(
                strings(lang, "bot_short_description"), language_code=code
            )
        except TelegramError as exc:  # the menu is a convenience
            log.warning("could not register the command menus (%s): %s", lang, exc)
