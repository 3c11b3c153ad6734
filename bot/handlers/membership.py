"""The bot's own membership: blocked or unblocked in private, removed from or added to groups."""

from __future__ import annotations

from telegram import ChatMember, Update
from telegram.ext import ContextTypes

from bot.handlers.common import services

_GONE = {ChatMember.LEFT, ChatMember.BANNED}


async def my_chat_member(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    change = update.my_chat_member
    if change is None:
        return
    svc = services(context)
    chat = change.chat
    if change.new_chat_member.status in _GONE:
        await svc.storage.mark_inactive(chat.id)
        return
    if change.old_chat_member.status in _GONE:
        # Unblocked, or added (back) to a group: reachable again.
        if chat.type == chat.PRIVATE and change.from_user:
            await svc.storage.ensure_user(change.from_user.id, change.from_user.first_name or "")
        await svc.storage.ensure_chat(chat.id, chat.type, chat.title or "")
