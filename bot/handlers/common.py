"""What every handler needs: the per-update context (services, user, chat, language), sending.

`BotContext` is the context of every update; `load_context` (group -1, before any handler)
fills it once: the sender as a stored user, the language of every message in the chat (the
sender's in private, the group's in a group: one language per group message) and the
sender's own (for what goes to their private chat). Handlers
read it and never look the user up themselves. Sending goes through `bot.delivery` (one
meaning per Telegram error, one rule for a chat that cannot be reached); these are the
handler-side shortcuts taking a context.
"""

from __future__ import annotations

import logging
import mimetypes
from collections.abc import Sequence
from typing import Any, NamedTuple

from telegram import (
    Audio,
    CallbackQuery,
    Chat,
    ForceReply,
    InlineKeyboardMarkup,
    InputFile,
    Message,
    MessageEntity,
    Update,
    Voice,
)
from telegram.constants import ChatMemberStatus
from telegram.error import BadRequest, Forbidden, TelegramError
from telegram.ext import Application, ApplicationHandlerStop, CallbackContext, ExtBot

from bot import delivery
from bot.core.models import UserProfile
from bot.core.voice import VoiceOutcome
from bot.i18n import DEFAULT_LANGUAGE, Html, language_for, parse_language, user_language
from bot.services import Services

SERVICES_KEY = "services"
# The updates this application took (group -2) and has not marked done (bot/handlers/updates.py).
TAKEN_KEY = "updates_taken"
# Updates whose handling met a full disk, by update_id: handled again once there is room.
HELD_KEY = "updates_held"

log = logging.getLogger(__name__)


class BotContext(CallbackContext[ExtBot[None], dict[Any, Any], dict[Any, Any], dict[Any, Any]]):
    """The context of one update, shared by every handler group that handles it.

    `user` and `lang` are filled once by `load_context`, before any handler runs.
    """

    def __init__(
        self,
        application: Application[Any, Any, Any, Any, Any, Any],
        chat_id: int | None = None,
        user_id: int | None = None,
    ) -> None:
        super().__init__(application, chat_id, user_id)
        self.user: UserProfile | None = None  # the sender, as stored (None: no sender)
        self.lang: str = DEFAULT_LANGUAGE  # of every message into this update's chat
        self.person_lang: str = DEFAULT_LANGUAGE  # of what goes to the sender's private chat

    @property
    def svc(self) -> Services:
        found = self.bot_data[SERVICES_KEY]
        assert isinstance(found, Services)
        return found

    def turn(self, update: Update) -> Turn | None:
        """The loaded turn of an update from a user in a chat; None without either."""
        chat = update.effective_chat
        if self.user is None or chat is None:
            return None
        return Turn(self.svc, self.user, chat, self.lang)


async def load_context(update: Update, context: BotContext) -> None:
    """Group -1: the sender (created or refreshed) and their language, once per update.

    Only for updates a handler acts on for their sender (see `_addressed`): a member chatting
    in a group with privacy mode off is not stored, and the bot's own membership changes
    keep their own rows (a block must not first mark the user reachable again).
    """
    await _screen(update, context)
    if not _addressed(update, context.bot.id):
        return
    context.user = await current_user(update, context.svc)
    context.person_lang = ui_language(context.user, update)
    context.lang = await group_language(update, context.svc) or context.person_lang


async def group_language(update: Update, svc: Services) -> str | None:
    """The language of a group the update comes from (None in private, or a group not met).

    Everything posted into a group is in its language, replies to one member included: a
    group that set `/lang en` reads English only, whoever's phone is in Chinese.
    """
    chat = update.effective_chat
    if chat is None or chat.type == chat.PRIVATE:
        return None
    record = await svc.chats.find(chat.id)
    return parse_language(record.language or "") if record is not None else None


# Bots whose messages were skipped, named once each in the log (the last few hundred).
_bots_skipped: dict[int, None] = {}
_BOTS_KEPT = 256


async def _screen(update: Update, context: BotContext) -> None:
    """Stop what no handler should act on, before anything is stored for it: a private
    message from a bot (skipped, logged once per bot), a tap whose message is not there
    (inline mode: the spinner is stopped, the button called expired), and a tap on a message
    in another person's private chat (refused: a private chat's buttons are its person's). A
    group's buttons are anyone's to tap: their handlers decide who may (an admin, the member
    a round is for)."""
    sender = update.effective_user
    if sender is None or update.my_chat_member is not None or update.chat_member is not None:
        return
    query = update.callback_query
    chat = update.effective_chat
    # Only in private chats: in a group, an anonymous admin writes as a bot.
    if sender.is_bot and query is None and chat is not None and chat.type == chat.PRIVATE:
        if sender.id not in _bots_skipped:
            _bots_skipped[sender.id] = None
            if len(_bots_skipped) > _BOTS_KEPT:
                del _bots_skipped[next(iter(_bots_skipped))]
            log.info("skipped a message from a bot (user %s): bots are not answered", sender.id)
        raise ApplicationHandlerStop
    if query is None:
        return
    lang = ui_language(None, update)
    if query.message is None:
        await query.answer(context.svc.strings(lang, "button_expired"))
        raise ApplicationHandlerStop
    message_chat = query.message.chat
    if message_chat.type == message_chat.PRIVATE and message_chat.id != sender.id:
        await query.answer(context.svc.strings(lang, "button_not_yours"))
        raise ApplicationHandlerStop


def _addressed(update: Update, bot_id: int) -> bool:
    """Anything in a private chat, a button, or in a group a command or a reply to the bot."""
    if update.my_chat_member is not None:
        return False
    chat, message = update.effective_chat, update.effective_message
    if update.callback_query is not None or (chat is not None and chat.type == chat.PRIVATE):
        return True
    if message is None:
        return False
    first = message.entities[0] if message.entities else None
    command = first is not None and first.type == MessageEntity.BOT_COMMAND and first.offset == 0
    replied = message.reply_to_message
    to_bot = (
        replied is not None and replied.from_user is not None and replied.from_user.id == bot_id
    )
    return command or to_bot


async def current_user(update: Update, svc: Services) -> UserProfile | None:
    """The sender as a stored user (created on first contact), or None for channel posts."""
    tg = update.effective_user
    if tg is None:
        return None
    private = update.effective_chat is not None and update.effective_chat.type == "private"
    client = language_for(tg.language_code) if tg.language_code else None
    return await svc.chats.sender(tg.id, tg.first_name or "", client, private=private)


class Turn(NamedTuple):
    """What a handler of a user's message needs: services, the user, the chat, the language."""

    svc: Services
    user: UserProfile
    chat: Chat
    lang: str


def ui_language(user: UserProfile | None, update: Update | None = None) -> str:
    """The language of every reply to this person (see `bot.i18n.user_language`), with the
    client's language taken from the update (the freshest)."""
    code = update.effective_user.language_code if update and update.effective_user else None
    return user_language(user, code)


async def send(
    context: BotContext,
    chat_id: int,
    messages: Sequence[Html],
    keyboard: InlineKeyboardMarkup | ForceReply | None = None,
    *,
    reply_to: int | None = None,
) -> Message | None:
    """Send messages in order (keyboard on the last); the outcome's rule is applied.

    Returns the last message sent, or None if it was not (unreachable, refused, network).
    """
    svc = context.svc
    result = await delivery.send_reply(context.bot, chat_id, messages, keyboard, reply_to=reply_to)
    if result.outcome is delivery.Outcome.MIGRATED and result.new_chat_id is not None:
        await delivery.settle(svc.chats, chat_id, result)
        chat_id = result.new_chat_id
        result = await delivery.send_reply(context.bot, chat_id, messages, keyboard)
    await delivery.settle(svc.chats, chat_id, result)
    return result.message if result.ok else None


async def expired(context: BotContext, query: CallbackQuery) -> None:
    """A tap whose data the bot does not make (an older version's, or forged): say the button
    has expired, stop the spinner, and do nothing else."""
    await query.answer(context.svc.strings(context.lang, "button_expired"))


async def set_keyboard(
    context: BotContext, query: CallbackQuery, keyboard: InlineKeyboardMarkup | None
) -> None:
    """Change (None: remove) the buttons under the message a button was tapped on.

    A second tap before the client caught up asks for the keyboard it already has: Telegram's
    "message is not modified" is the outcome we wanted anyway (delivery counts it as done).
    """
    message = query.message
    if message is None:
        return
    result = await delivery.edit_keyboard(
        context.bot, message.chat.id, message.message_id, keyboard
    )
    # A message deleted since took its buttons with it: settle logs that, nothing to do.
    await delivery.settle(context.svc.chats, message.chat.id, result, "keyboard")


async def edit_text(
    context: BotContext,
    query: CallbackQuery,
    text: Html,
    keyboard: InlineKeyboardMarkup | None = None,
) -> None:
    """Redraw the message a button was tapped on; unchanged (a repeated tap) is fine.

    A message deleted since (the user cleared it, Telegram's "message to edit not found"):
    the redrawn text comes as a new message instead, so the tap is not lost in silence.
    """
    message = query.message
    if message is None:
        return
    chat_id = message.chat.id
    result = await delivery.edit_text(context.bot, chat_id, message.message_id, text, keyboard)
    if result.outcome is delivery.Outcome.MESSAGE_GONE:
        log.info("message %s in chat %s is gone; sending anew", message.message_id, chat_id)
        await send(context, chat_id, [text], keyboard)
        return
    await delivery.settle(context.svc.chats, chat_id, result, "edit")


async def refuse_non_admin(update: Update, context: BotContext, lang: str) -> None:
    """A group setting asked by a member who is not an admin: the refusal, in their language,
    as a reply to them (a busy group sees whom it is for)."""
    chat, message = update.effective_chat, update.effective_message
    if chat is None:
        return
    reply_to = message.message_id if message is not None else None
    await send(context, chat.id, [context.svc.strings(lang, "admins_only")], reply_to=reply_to)


async def is_admin(update: Update, context: BotContext) -> bool:
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


async def send_photo(context: BotContext, chat_id: int, png: bytes, caption: Html) -> bool:
    """Send a picture; False (nothing sent) if the chat is gone or Telegram refused it."""
    return await _send_file(
        context, chat_id, "photo", InputFile(png, filename="stats.png"), caption
    )


async def send_document(
    context: BotContext, chat_id: int, data: bytes, filename: str, caption: Html
) -> bool:
    """Send a file; False (nothing sent) if the chat is gone or Telegram refused it."""
    return await _send_file(
        context, chat_id, "document", InputFile(data, filename=filename), caption
    )


async def _send_file(
    context: BotContext, chat_id: int, kind: str, file: InputFile, caption: Html
) -> bool:
    result = await delivery.send_file(context.bot, chat_id, kind, file, caption)
    await delivery.settle(context.svc.chats, chat_id, result, kind)
    return result.ok


async def download(context: BotContext, file_id: str) -> bytes | None:
    """A file a user sent (getFile, then its download URL on the same Bot API server), or
    None when Telegram does not hand it over (gone, too big for bots, the network)."""
    try:
        file = await context.bot.get_file(file_id)
        return bytes(await file.download_as_bytearray())
    except TelegramError as exc:
        log.warning("could not fetch file %s: %s", file_id[:16], exc)
        return None


async def transcribe(context: BotContext, recording: Voice | Audio, lang: str) -> VoiceOutcome:
    """The words of a voice message or audio file (bot/services/voice.py), fetched from
    Telegram only once the rules let it be transcribed; `lang`: the speaker's language."""
    mime_type = recording.mime_type or "audio/ogg"
    name = recording.file_name if isinstance(recording, Audio) else None
    # The service reads the format from the name's extension (whisper.cpp's server, OpenAI).
    filename = name or f"voice{mimetypes.guess_extension(mime_type) or '.ogg'}"
    return await context.svc.voice.transcribe(
        seconds_of(recording),
        lambda: download(context, recording.file_id),
        lang,
        filename,
        mime_type,
    )


def seconds_of(recording: Voice | Audio) -> int | None:
    """How long a recording is, in seconds, as Telegram said it. Read from its data:
    PTB's `duration` warns that it will become a timedelta (PTB_TIMEDELTA)."""
    seconds = recording.to_dict().get("duration")
    return seconds if isinstance(seconds, int) else None
