"""Inline keyboards and their callback data (each at most 64 bytes, checked in tests)."""

from __future__ import annotations

from urllib.parse import quote

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.core.levels import LEVEL_ORDER, Level
from bot.i18n import Strings

QUESTION_LINK_PREFIX = "q_"  # t.me/<bot>?start=q_<question id> opens that question


def question_link(bot_username: str, question_id: str) -> str:
    return f"https://t.me/{bot_username}?start={QUESTION_LINK_PREFIX}{question_id}"


def question_keyboard(
    t: Strings, lang: str, question_id: str, bot_username: str | None = None
) -> InlineKeyboardMarkup:
    """Hint, show answer, skip; and, when the bot's username is known, share the question."""
    rows = [
        [
            InlineKeyboardButton(t(lang, "button_hint"), callback_data=f"hint:{question_id}"),
            InlineKeyboardButton(
                t(lang, "button_show_answer"), callback_data=f"show:{question_id}"
            ),
            InlineKeyboardButton(t(lang, "button_skip"), callback_data=f"skip:{question_id}"),
        ]
    ]
    if bot_username:
        link = question_link(bot_username, question_id)
        share = f"https://t.me/share/url?url={quote(link, safe='')}"
        rows.append([InlineKeyboardButton(t(lang, "button_share"), url=share)])
    return InlineKeyboardMarkup(rows)


def chat_link_keyboard(t: Strings, lang: str, bot_username: str) -> InlineKeyboardMarkup:
    """One button that opens the private chat with the bot."""
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(t(lang, "button_open_private"), url=f"https://t.me/{bot_username}")]]
    )


def next_keyboard(t: Strings, lang: str, level: Level) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(t(lang, "button_next"), callback_data=f"next:{level.value}")]]
    )


def feedback_keyboard(
    t: Strings, lang: str, level: Level, answer_id: int, level_up: Level | None
) -> InlineKeyboardMarkup:
    """Overrule the automatic rating with one tap; next question; maybe move up a level."""
    rate = [
        InlineKeyboardButton(
            t(lang, f"button_rate_{choice}"), callback_data=f"rate:{answer_id}:{choice}"
        )
        for choice in ("good", "hard", "again")
    ]
    rows = [
        rate,
        [InlineKeyboardButton(t(lang, "button_next"), callback_data=f"next:{level.value}")],
    ]
    if level_up is not None:
        name = t(lang, f"level_{level_up.value}")
        rows.append(
            [
                InlineKeyboardButton(
                    t(lang, "button_level_up", level=name), callback_data=f"level:{level_up.value}"
                )
            ]
        )
    return InlineKeyboardMarkup(rows)


def level_keyboard(t: Strings, lang: str, current: Level | None) -> InlineKeyboardMarkup:
    row = [
        InlineKeyboardButton(
            ("✅ " if level is current else "") + t(lang, f"level_{level.value}"),
            callback_data=f"level:{level.value}",
        )
        for level in LEVEL_ORDER
    ]
    return InlineKeyboardMarkup([row])


def start_keyboard(
    t: Strings, lang: str, current: Level | None, daily_time: str, bot_username: str | None = None
) -> InlineKeyboardMarkup:
    levels = level_keyboard(t, lang, current).inline_keyboard[0]
    # The time travels with the button, so a tap sets exactly the time its label shows.
    daily = InlineKeyboardButton(
        t(lang, "button_daily_on", time=daily_time), callback_data=f"daily:on:{daily_time}"
    )
    rows = [list(levels), [daily]]
    if bot_username:  # Telegram's add-to-group picker, then the bot introduces itself there
        add = f"https://t.me/{bot_username}?startgroup=start"
        rows.append([InlineKeyboardButton(t(lang, "button_add_to_group"), url=add)])
    return InlineKeyboardMarkup(rows)


def forget_keyboard(t: Strings, lang: str, token: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    t(lang, "button_forget_yes"), callback_data=f"forget:yes:{token}"
                ),
                InlineKeyboardButton(t(lang, "button_cancel"), callback_data=f"forget:no:{token}"),
            ]
        ]
    )


def settings_keyboard(
    t: Strings,
    lang: str,
    *,
    level: Level,
    daily_on: bool,
    daily_time: str,
    reminders: bool,
    zone: str,
) -> InlineKeyboardMarkup:
    """The /settings screen: each button changes one setting and the screen is redrawn."""
    levels = [
        InlineKeyboardButton(
            ("✅ " if each is level else "") + t(lang, f"level_{each.value}"),
            callback_data=f"set:level:{each.value}",
        )
        for each in LEVEL_ORDER
    ]
    languages = [
        InlineKeyboardButton(
            ("✅ " if code == lang else "") + name, callback_data=f"set:lang:{code}"
        )
        for code, name in (("en", "English"), ("zh", "中文"))
    ]
    daily_key = "button_settings_daily_on" if daily_on else "button_settings_daily_off"
    reminders_key = "button_settings_reminders_on" if reminders else "button_settings_reminders_off"
    return InlineKeyboardMarkup(
        [
            levels,
            languages,
            [
                InlineKeyboardButton(
                    t(lang, "button_settings_zone", zone=zone), callback_data="set:tz"
                )
            ],
            [
                InlineKeyboardButton(
                    t(lang, daily_key, time=daily_time),
                    callback_data=f"set:daily:{'off' if daily_on else 'on'}",
                )
            ],
            [
                InlineKeyboardButton(
                    t(lang, reminders_key), callback_data=f"set:rem:{'off' if reminders else 'on'}"
                )
            ],
        ]
    )
