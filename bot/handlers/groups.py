"""Group study chats: rounds opened by /quiz or the daily prompt, answers by reply, results.

With privacy mode on the bot sees only commands and replies to its own messages, so members
answer by replying to the round's question. Answers are acknowledged quietly (a reaction,
capped per group so a busy round cannot exhaust the group's 20 messages a minute), members
who started the bot privately get their detailed feedback there, and the reference answer
is held back until the round closes with one ranked results message.
"""

from __future__ import annotations

import logging
import time
from collections import deque

from telegram import Bot, Update
from telegram.constants import ReactionEmoji

from bot import delivery
from bot.core.levels import Level, parse_level, parse_quiz_args
from bot.core.packs import pack_words
from bot.core.voice import Heard
from bot.handlers.common import BotContext, is_admin, refuse_non_admin, send, transcribe
from bot.i18n import parse_language
from bot.keyboards import (
    chat_link_keyboard,
    language_keyboard,
    mock_link_keyboard,
    packs_keyboard,
)
from bot.render import (
    language_name,
    leaderboard_messages,
    level_name,
    no_packs_message,
    pack_list,
    voice_note,
)
from bot.services import Services
from bot.services.rounds import (
    Answered,
    Opening,
    RoundReply,
    answer_round,
    close_now,
    open_round_in,
    quiz_round,
    round_asked_in,
    set_group_language,
    set_group_level,
    set_round_length,
    standings,
)

log = logging.getLogger(__name__)

ACKS_PER_MINUTE = 10  # reactions per group; the rest of the group's budget is for messages
ACK_WINDOW = 60.0
# Reaction times per group within the last minute. Groups quiet for a minute are swept out
# (at most once a minute), so the dict holds only groups active lately, not every group seen.
_acks: dict[int, deque[float]] = {}
_acks_swept = 0.0


def _ack_allowed(chat_id: int, now: float | None = None) -> bool:
    global _acks_swept
    now = time.monotonic() if now is None else now
    if now - _acks_swept > ACK_WINDOW:
        _acks_swept = now
        for stale in [c for c, w in _acks.items() if not w or now - w[-1] > ACK_WINDOW]:
            del _acks[stale]
    window = _acks.setdefault(chat_id, deque())
    while window and now - window[0] > ACK_WINDOW:
        window.popleft()
    if len(window) >= ACKS_PER_MINUTE:
        return False
    window.append(now)
    return True


async def quiz(update: Update, context: BotContext) -> None:
    """/quiz [level] in a group: open a round, or point at the open one."""
    svc = context.svc
    chat, message = update.effective_chat, update.effective_message
    if chat is None or message is None:
        return
    lang = context.lang
    words = pack_words(svc.library, lang)
    wanted = parse_quiz_args(context.args or [], words, svc.library.drafts)
    opener = update.effective_user.id if update.effective_user else None
    quiz = await quiz_round(
        context.bot, svc, chat.id, chat.type, chat.title or "", lang, wanted, opener
    )
    match quiz.opening:
        case Opening.ALREADY_OPEN:
            text = svc.strings(lang, "round_open_already")
            await send(context, chat.id, [text], reply_to=quiz.open_message_id)
        case Opening.NOT_ASKED:
            assert wanted.problem is not None
            first_pack = next(iter(svc.library.offered), "")
            packs = pack_list(svc.strings, lang, svc.library.offered)
            problem = wanted.problem
            if problem == "bad_level" and svc.library.offered:
                problem = "bad_level_or_pack"  # a group's /quiz takes a pack too: say both
            text = svc.strings(lang, problem, word=wanted.word[:40], pack=first_pack, packs=packs)
            await send(context, chat.id, [text], reply_to=message.message_id)
        case Opening.NO_QUESTION:
            name = level_name(svc.strings, lang, wanted.level or Level.BEGINNER)
            await send(context, chat.id, [svc.strings(lang, "no_questions", level=name)])
        case Opening.NO_PACKS:  # offered to the group (an admin's tap follows one)
            others = svc.packs.others(quiz.others)
            text = no_packs_message(svc.strings, lang, others)
            keyboard = packs_keyboard(svc.strings, lang, [(p.id, p.title, False) for p in others])
            await send(context, chat.id, [text], keyboard, reply_to=message.message_id)
        case Opening.OPENED:
            pass


async def answer(update: Update, context: BotContext) -> None:
    """A reply (or an edited reply) to a round's question: score it and keep the latest."""
    message = update.effective_message
    if message is None or message.text is None or not _to_the_bot(update, context):
        return
    await _answer(update, context, message.text)


async def voice_answer(update: Update, context: BotContext) -> None:
    """A voice message (or audio file) replying to a round's question: transcribed, then
    counted as the same text typed would be; what stops it (voice answers off, too long, the
    service failing) is said in the group, under the recording."""
    svc = context.svc
    chat, message = update.effective_chat, update.effective_message
    if chat is None or message is None or not _to_the_bot(update, context):
        return
    recording = message.voice or message.audio
    replied = message.reply_to_message
    if recording is None or replied is None:
        return
    round_ = await round_asked_in(svc, chat.id, replied.message_id)
    if round_ is None:  # a reply to one of our other messages: as a typed one, not an answer
        return
    lang = context.lang
    if round_.closed_at is not None:  # not transcribed for nothing: said as a typed one is
        text = svc.strings(lang, "round_closed_late")
        await send(context, chat.id, [text], reply_to=message.message_id)
        return
    # The member's own language is what they likely speak; the group's is what is said back.
    heard = await transcribe(context, recording, context.person_lang)
    if not isinstance(heard, Heard):
        note = voice_note(svc.strings, lang, heard)
        await send(context, chat.id, [note], reply_to=message.message_id)
        return
    await _answer(update, context, heard.text, heard=True)


def _to_the_bot(update: Update, context: BotContext) -> bool:
    """A member's reply to one of the bot's messages (another bot's never counts)."""
    message, tg_user = update.effective_message, update.effective_user
    if message is None or tg_user is None or tg_user.is_bot:
        return False
    replied = message.reply_to_message
    return (
        replied is not None
        and replied.from_user is not None
        and (replied.from_user.id == context.bot.id)
    )


async def _answer(update: Update, context: BotContext, text: str, *, heard: bool = False) -> None:
    """Count `text` as the member's answer to the round replied to; `heard`: it was spoken."""
    svc = context.svc
    chat, message = update.effective_chat, update.effective_message
    tg_user = update.effective_user
    replied = message.reply_to_message if message is not None else None
    user = context.user
    if chat is None or message is None or tg_user is None or replied is None or user is None:
        return
    lang = context.lang  # what is said in the group
    edited = update.edited_message is not None
    outcome = await answer_round(
        svc,
        RoundReply(
            chat_id=chat.id,
            group_title=chat.title or "",
            question_message_id=replied.message_id,
            message_id=message.message_id,
            edit_stamp=int(message.edit_date.timestamp()) if message.edit_date else 0,
            first_name=tg_user.first_name or "",
            text=text,
            heard=heard,
        ),
        user,
        context.person_lang,  # the private feedback: in the member's own language
    )
    reply = {
        Answered.TOO_LATE: "round_closed_late",
        Answered.TOO_SHORT: "round_answer_too_short",
        Answered.ONE_WORD: "round_answer_one_word",
    }
    if outcome in reply:
        if not edited:  # an edit that changed nothing needs no reply (and gets no ✍ either)
            text = svc.strings(lang, reply[outcome])
            await send(context, chat.id, [text], reply_to=message.message_id)
        return
    if outcome is not Answered.COUNTED:
        return
    # Acknowledge without holding up the next update; the private feedback was recorded
    # with the answer and goes out through the outbox.
    if _ack_allowed(chat.id):
        context.application.create_task(
            _react(context.bot, svc, chat.id, message.message_id), update=update
        )
    svc.notify_outbox()


async def _react(bot: Bot, svc: Services, chat_id: int, message_id: int) -> None:
    result = await delivery.react(bot, chat_id, message_id, ReactionEmoji.WRITING_HAND)
    if result.outcome is delivery.Outcome.REJECTED:  # reactions disabled in this group: fine
        log.debug("no reaction in %s: %s", chat_id, result.error)
    elif not result.ok:
        await delivery.settle(svc.chats, chat_id, result, "reaction")


async def reveal(update: Update, context: BotContext) -> None:
    """/reveal in a group: the opener or an admin closes the round now."""
    svc = context.svc
    chat, user = update.effective_chat, update.effective_user
    if chat is None:
        return
    lang = context.lang
    round_ = await open_round_in(svc, chat.id)
    if round_ is None:
        await send(context, chat.id, [svc.strings(lang, "no_open_round")])
        return
    opener = user is not None and round_.opened_by == user.id
    if not opener and not await is_admin(update, context):
        await send(context, chat.id, [svc.strings(lang, "reveal_not_allowed")])
        return
    await close_now(svc, round_, lang)


async def top(update: Update, context: BotContext) -> None:
    """/top: this week's and all-time points (score x 100 per round), answers and streaks."""
    turn = context.turn(update)
    if turn is None:
        return
    svc, _, chat, lang = turn
    t = svc.strings
    board = await standings(svc, chat.id)
    if not board.overall:
        await send(context, chat.id, [t(lang, "top_empty")])
        return
    await send(
        context, chat.id, leaderboard_messages(t, lang, board.week, board.overall, board.today)
    )


async def group_level(update: Update, context: BotContext) -> None:
    turn = context.turn(update)
    if turn is None:
        return
    svc, _, chat, lang = turn
    word = " ".join(context.args or []).strip()
    if not word:  # what the level is and how to change it, with an example of this command
        record = await svc.chats.find(chat.id)
        current = (record.level if record else None) or Level.BEGINNER
        name = level_name(svc.strings, lang, current)
        await send(context, chat.id, [svc.strings(lang, "group_level_current", level=name)])
        return
    chosen = parse_level(word)
    if chosen is None:
        await send(context, chat.id, [svc.strings(lang, "level_bad", word=word[:40])])
        return
    if not await is_admin(update, context):
        await refuse_non_admin(update, context, lang)
        return
    await set_group_level(svc, chat.id, chat.type, chat.title or "", chosen)
    name = level_name(svc.strings, lang, chosen)
    await send(context, chat.id, [svc.strings(lang, "group_level_set", level=name)])


async def group_language(update: Update, context: BotContext) -> None:
    """/lang in a group: anyone sees the group's language, admins change it. It is what the
    bot posts to the whole group in (a private chat's /lang is each member's own)."""
    turn = context.turn(update)
    if turn is None:
        return
    svc, _, chat, lang = turn
    args = context.args or []
    if not args:
        # The group's language (what is posted to everyone), named in the asker's.
        record = await svc.chats.find(chat.id)
        current = parse_language((record.language if record else None) or "") or lang
        name = language_name(svc.strings, lang, current)
        text = svc.strings(lang, "group_lang_current", language=name)
        await send(context, chat.id, [text], language_keyboard(current))  # taps: admins only
        return
    wanted = parse_language(args[0])
    if wanted is None:
        await send(context, chat.id, [svc.strings(lang, "lang_bad")])
        return
    if not await is_admin(update, context):
        await refuse_non_admin(update, context, lang)
        return
    await set_group_language(svc, chat.id, chat.type, chat.title or "", wanted)
    await send(context, chat.id, [svc.strings(wanted, "group_lang_set")])


async def round_length(update: Update, context: BotContext) -> None:
    turn = context.turn(update)
    if turn is None:
        return
    svc, _, chat, lang = turn
    args = context.args or []
    if not args:
        record = await svc.chats.find(chat.id)
        minutes = (record.round_minutes if record else None) or svc.settings.round_minutes
        await send(context, chat.id, [svc.strings(lang, "roundlength_current", minutes=minutes)])
        return
    if not (args[0].isdigit() and 1 <= int(args[0]) <= 24 * 60):
        await send(context, chat.id, [svc.strings(lang, "roundlength_bad")])
        return
    if not await is_admin(update, context):
        await refuse_non_admin(update, context, lang)
        return
    await set_round_length(svc, chat.id, chat.type, chat.title or "", int(args[0]))
    await send(context, chat.id, [svc.strings(lang, "roundlength_set", minutes=int(args[0]))])


async def group_help(update: Update, context: BotContext) -> None:
    svc = context.svc
    chat = update.effective_chat
    if chat is not None:
        lang = context.lang
        await send(context, chat.id, [svc.strings(lang, "group_help")])


async def private_only(update: Update, context: BotContext) -> None:
    """Personal commands sent in a group: point to the private chat instead of staying silent."""
    svc = context.svc
    chat, message = update.effective_chat, update.effective_message
    if chat is not None and message is not None:
        lang = context.lang
        username = context.bot.username or ""
        text = svc.strings(lang, "private_only", bot=username)
        keyboard = chat_link_keyboard(svc.strings, lang, username) if username else None
        await send(context, chat.id, [text], keyboard, reply_to=message.message_id)


async def mock(update: Update, context: BotContext) -> None:
    """/mock in a group: mock interviews are one to one; a button opens the private chat
    with the interview started (/start mock)."""
    svc = context.svc
    chat, message = update.effective_chat, update.effective_message
    if chat is None or message is None:
        return
    lang = context.lang
    username = context.bot.username or ""
    keyboard = mock_link_keyboard(svc.strings, lang, username) if username else None
    text = svc.strings(lang, "mock_group")
    await send(context, chat.id, [text], keyboard, reply_to=message.message_id)


async def migrated(update: Update, context: BotContext) -> None:
    """The group became a supergroup: move everything to the new chat id."""
    message = update.effective_message
    if message is None or message.migrate_to_chat_id is None:
        return
    await context.svc.chats.migrate_chat(message.chat_id, message.migrate_to_chat_id)
