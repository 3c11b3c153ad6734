"""The bot's own membership: blocked or unblocked in private, removed from or added to groups."""

from __future__ import annotations

from telegram import ChatMember, Update

from bot.handlers.common import BotContext
from bot.i18n import language_for
from bot.services.rounds import introduce

_GONE = {ChatMember.LEFT, ChatMember.BANNED}


async def my_chat_member(update: Update, context: BotContext) -> None:
    change = update.my_chat_member
    if change is None:
        return
    svc = context.svc
    chat = change.chat
    if change.new_chat_member.status in _GONE:
        await svc.chats.mark_unreachable(chat.id)
        return
    if change.old_chat_member.status in _GONE:
        # Unblocked, or added (back) to a group: reachable again.
        adder = change.from_user
        lang = language_for(adder.language_code if adder else None)
        person = (adder.id, adder.first_name or "") if chat.type == chat.PRIVATE and adder else None
        record = await svc.chats.came_back(chat.id, chat.type, chat.title or "", lang, person)
        if chat.type in (chat.GROUP, chat.SUPERGROUP):  # not channels: no rounds there
            await introduce(context.bot, svc, chat.id, chat.title or "", record.language or lang)
