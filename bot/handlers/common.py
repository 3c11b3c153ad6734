"""What every handler needs: the services, the user and language of an update, sending.

Sending goes through `bot.delivery` (one meaning per Telegram error, one rule for a chat
that cannot be reached); these are the handler-side shortcuts taking a context.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import NamedTuple

from telegram import CallbackQuery, Chat, InlineKeyboardMarkup, InputFile, Message, Update
from telegram.constants import ChatMemberStatus
from telegram.error import BadRequest, Forbidden
from telegram.ext import ContextTypes

from bot import delivery
from bot.core.models import UserProfile
from bot.i18n import Html, language_for, user_language
from bot.services import Services

log = logging.getLogger(__name__)

SERVICES_KEY = "services"


def services(context: ContextTypes.DEFAULT_TYPE) -> Services:
    found = context.bot_data[SERVICES_KEY]
    assert isinstance(found, Services)
    return found


async def current_user(update: Update, svc: Services) -> UserProfile | None:
    """The sender as a stored user (created on first contact), or None for channel posts."""
    tg = update.effective_user
    if tg is None:
        return None
    private = update.effective_chat is not None and update.effective_chat.type == "private"
    user = await svc.storage.get_user(tg.id)
    client = language_for(tg.language_code) if tg.language_code else None
    stale = (
        user is None
        or user.first_name != (tg.first_name or "")[:64]
        or (client is not None and user.telegram_language != client)
    )
    if stale or (private and not (user.active and user.started)):  # type: ignore[union-attr]
        user = await svc.storage.ensure_user(tg.id, tg.first_name or "", client, private=private)
    return user


class Turn(NamedTuple):
    """What a handler of a user's message needs: services, the user, the chat, the language."""

    svc: Services
    user: UserProfile
    chat: Chat
    lang: str


async def begin(update: Update, context: ContextTypes.DEFAULT_TYPE) -> Turn | None:
    """The turn of an update from a user in a chat; None for updates without either."""
    svc = services(context)
    user = await current_user(update, svc)
    chat = update.effective_chat
    if user is None or chat is None:
        return None
    return Turn(svc, user, chat, ui_language(user, update))


def ui_language(user: UserProfile | None, update: Update | None = None) -> str:
    """The language of every reply to this person, in any chat (see `interface_language`).

    With an update, the client's language comes from it (the freshest); without (background
    sends), from what the client reported at the last contact.
    """
    code = update.effective_user.language_code if update and update.effective_user else None
    return user_language(user, code)


async def send(
    context: ContextTypes.DEFAULT_TYPE,
    chat_id: int,
    messages: Sequence[Html],
    keyboard: InlineKeyboardMarkup | None = None,
    *,
    reply_to: int | None = None,
) -> Message | None:
    """Send messages in order (keyboard on the last); the outcome's rule is applied.

    Returns the last message sent, or None if it was not (unreachable, refused, network).
    """
    svc = services(context)
    result = await delivery.send_messages(
        context.bot, chat_id, messages, keyboard, reply_to=reply_to
    )
    if result.outcome is delivery.Outcome.MIGRATED and result.new_chat_id is not None:
        await delivery.settle(svc.storage, chat_id, result)
        chat_id = result.new_chat_id
        result = await delivery.send_messages(context.bot, chat_id, messages, keyboard)
    await delivery.settle(svc.storage, chat_id, result)
    return result.message if result.ok else None


async def set_keyboard(query: CallbackQuery, keyboard: InlineKeyboardMarkup | None) -> None:
    """Change (None: remove) the buttons under the message a button was tapped on.

    A second tap before the client caught up asks for the keyboard it already has; Telegram
    answers 400 "message is not modified", which is the outcome we wanted anyway.
    """
    try:
        await query.edit_message_reply_markup(keyboard)
    except BadRequest as exc:
        if "not modified" not in exc.message.lower():
            raise
        log.debug("keyboard already as wanted: %s", exc)


async def edit_text(
    query: CallbackQuery, text: Html, keyboard: InlineKeyboardMarkup | None = None
) -> None:
    """Redraw the message a button was tapped on; unchanged (a repeated tap) is fine."""
    try:
        await query.edit_message_text(text, reply_markup=keyboard)
    except BadRequest as exc:
        if "not modified" not in exc.message.lower():
            raise
        log.debug("message already as wanted: %s", exc)


async def is_admin(update: Update, context: ContextTypes.DEFAULT_TYPE) -> bool:
    """True in private chats, for group admins, and for anonymous admins posting as the group."""
    chat, message, user = update.effective_chat, update.effective_message, update.effective_user
    if chat is None:
        return False
    if chat.type == chat.PRIVATE:
        return True
    if message is not None and message.sender_chat is not None:
        # Anonymous admins post as the group itself (the user shown is GroupAnonymousBot).
        return message.sender_chat.id == chat.id
    if user is None:
        return False
    try:
        member = await context.bot.get_chat_member(chat.id, user.id)
    except (BadRequest, Forbidden):
        return False
    return member.status in (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR)


async def send_photo(
    context: ContextTypes.DEFAULT_TYPE, chat_id: int, png: bytes, caption: Html
) -> bool:
    """Send a picture; False (nothing sent) if the chat is gone or Telegram refused it."""
    return await _send_file(
        context, chat_id, "photo", InputFile(png, filename="stats.png"), caption
    )


async def send_document(
    context: ContextTypes.DEFAULT_TYPE, chat_id: int, data: bytes, filename: str, caption: Html
) -> bool:
    """Send a file; False (nothing sent) if the chat is gone or Telegram refused it."""
    return await _send_file(
        context, chat_id, "document", InputFile(data, filename=filename), caption
    )


async def _send_file(
    context: ContextTypes.DEFAULT_TYPE, chat_id: int, kind: str, file: InputFile, caption: Html
) -> bool:
    result = await delivery.send_file(context.bot, chat_id, kind, file, caption)
    await delivery.settle(services(context).storage, chat_id, result, kind)
    return result.ok
