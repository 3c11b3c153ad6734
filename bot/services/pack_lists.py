"""The /packs list as a message and its buttons: for /packs, a tap on one of its buttons,
and a group's settings screen, which opens it on its own message with "← Back"."""

from __future__ import annotations

from telegram import InlineKeyboardMarkup

from bot.i18n import Html
from bot.keyboards import packs_keyboard
from bot.render import PackLine, packs_message
from bot.services import Services


async def drawing_language(svc: Services, chat_id: int, kind: str, lang: str) -> str:
    """The language a chat's questions are drawn in: a group's own (else the asker's), a
    private chat's user's."""
    if kind == "private":
        return lang
    record = await svc.chats.find(chat_id)
    return (record.language if record else None) or lang


async def packs_screen(
    svc: Services,
    chat_id: int,
    user_id: int,
    lang: str,
    draw_lang: str,
    read_only: bool,
    *,
    group: bool = False,
    in_settings: bool = False,
) -> tuple[Html, InlineKeyboardMarkup | None]:
    """The /packs message and its buttons (None: read only), a group's (`group`) or a
    private chat's; `in_settings`: opened from a group's settings screen, with "← Back"."""
    listing = await svc.packs.listing(chat_id, user_id, draw_lang)
    lines = [PackLine(r.pack, r.followed, r.done, r.levels) for r in listing.rows]
    text = packs_message(
        svc.strings,
        lang,
        lines,
        any_in_language=listing.any_in_language,
        read_only=read_only,
        drawn_in=draw_lang,
        group=group,
    )
    if read_only:
        return text, None
    buttons = [(r.pack.id, r.pack.title, r.followed) for r in listing.rows]
    return text, packs_keyboard(svc.strings, lang, buttons, in_settings=in_settings)
