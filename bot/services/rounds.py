"""Group rounds: open one (a /quiz or the daily prompt), close it with its ranked results,
the leaderboard, a group's settings (level, round length), introduce the bot to a group.
Called by the group handlers and the daily scheduler alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from telegram import Bot

from bot import delivery
from bot.core.answers import Attempt, attempt_of
from bot.core.levels import Level, QuizArgs
from bot.core.models import LeaderboardRow, RoundAnswer, RoundRecord, UserProfile
from bot.core.outbox import Draft, Kind
from bot.core.packs import named
from bot.core.practice import NoPacks
from bot.core.rounds import closes_at, week_start
from bot.core.selection import pick_question
from bot.core.streaks import StreakState
from bot.core.timezones import zone_of
from bot.i18n import Html
from bot.render import (
    heard_line,
    level_name,
    ranking_messages,
    round_deadline,
    score_summary,
    split_head,
)
from bot.services import Services

if TYPE_CHECKING:
    from bot.core.scoring import ScoreResult


async def draft_round(
    svc: Services,
    chat_id: int,
    *,
    level: Level | None,
    daily: bool,
    opened_by: int | None = None,
    lang: str | None = None,
    pack: str | None = None,
) -> tuple[int, str, Html] | NoPacks | None:
    """Open a round and write its question; None if a round is open or no question fits;
    `NoPacks` if the group follows none and none is in its language (nothing opened).

    Returns (round id, question id, the question message); the caller posts it.
    """
    record = await svc.chats.find(chat_id) or await svc.chats.register(chat_id, "group")
    level = level or record.level or Level.BEGINNER
    group_lang = record.language or lang or "en"
    if pack is not None:
        packs: tuple[str, ...] = (named(svc.library, pack, group_lang),)
    else:
        drawn = await svc.practice.draw_from(chat_id, group_lang)
        if not drawn.packs:
            return NoPacks(group_lang, drawn.others)
        packs = drawn.packs
    pool = svc.library.pool(level, packs=packs)
    question = pick_question(pool, await svc.storage.recent_questions(chat_id), svc.practice.rng)
    if question is None:
        return None
    zone = zone_of(svc.settings.default_timezone, record)
    now = svc.practice.clock()
    closing = closes_at(
        now,
        minutes=record.round_minutes or svc.settings.round_minutes,
        daily=daily,
        zone=zone,
        evening_hour=svc.settings.reminder_hour,
    )
    round_id = await svc.storage.open_round(
        chat_id, question.id, opened_by, now, closing, daily=daily
    )
    if round_id is None:
        return None
    lang = lang or record.language or "en"
    pack_title = svc.library.packs[svc.library.pack_of[question.id]].title
    text = svc.strings(
        lang,
        "round_question",
        level=level_name(svc.strings, lang, question.level),
        pack=pack_title,
        question=question.question,
        deadline=round_deadline(svc.strings, lang, now, closing, record.timezone, zone),
    )
    return round_id, question.id, text


async def open_round(
    bot: Bot,
    svc: Services,
    chat_id: int,
    *,
    level: Level | None,
    opened_by: int | None = None,
    lang: str | None = None,
    pack: str | None = None,
) -> str | NoPacks | None:
    """Post a question as a new round now (/quiz); None if a round is open or none fits;
    `NoPacks` (see `draft_round`)."""
    drafted = await draft_round(
        svc, chat_id, level=level, daily=False, opened_by=opened_by, lang=lang, pack=pack
    )
    if drafted is None or isinstance(drafted, NoPacks):
        return drafted
    round_id, question_id, text = drafted
    result = await delivery.send_messages(bot, chat_id, [text])
    if not result.ok or result.first_message_id is None:
        await svc.storage.cancel_round(round_id)
        await delivery.settle(svc.chats, chat_id, result, "round question")
        return question_id if result.outcome is delivery.Outcome.MAYBE_SENT else None
    await svc.storage.set_round_message(round_id, result.first_message_id)
    return question_id


class Opening(StrEnum):
    """What became of a /quiz in a group."""

    OPENED = "opened"  # the question is posted
    ALREADY_OPEN = "already-open"  # a round is open (`Quiz.open_message_id`: its question)
    NOT_ASKED = "not-asked"  # the arguments name no level or pack: the caller says why
    NO_QUESTION = "no-question"  # nothing fits the level (and pack)
    NO_PACKS = "no-packs"  # none followed, none in the group's language (`Quiz.others`)


@dataclass(frozen=True, slots=True)
class Quiz:
    opening: Opening
    # The open round's question, when a round was open before this /quiz asked for one.
    open_message_id: int | None = None
    others: tuple[str, ...] = ()  # NO_PACKS: the packs to offer


async def quiz_round(
    bot: Bot,
    svc: Services,
    chat_id: int,
    kind: str,
    title: str,
    lang: str,
    wanted: QuizArgs,
    opened_by: int | None,
) -> Quiz:
    """A /quiz in a group: register the group (its language, if unknown, is `lang`, the
    asker's), then open a round unless one is open or the arguments make no sense."""
    await svc.chats.register(chat_id, kind, title, lang)
    open_ = await svc.storage.open_round_of(chat_id)
    if open_ is not None:
        return Quiz(Opening.ALREADY_OPEN, open_.message_id)
    if wanted.problem is not None:
        return Quiz(Opening.NOT_ASKED)
    # The question is for the whole group: in the group's language (replies to one person
    # are in theirs).
    asked = await open_round(
        bot, svc, chat_id, level=wanted.level, opened_by=opened_by, pack=wanted.pack
    )
    if isinstance(asked, NoPacks):
        return Quiz(Opening.NO_PACKS, others=asked.others)
    if asked is not None:
        return Quiz(Opening.OPENED)
    opened_meanwhile = await svc.storage.open_round_of(chat_id) is not None
    return Quiz(Opening.ALREADY_OPEN if opened_meanwhile else Opening.NO_QUESTION)


async def open_round_in(svc: Services, chat_id: int) -> RoundRecord | None:
    """The group's open round, if any."""
    return await svc.storage.open_round_of(chat_id)


async def close_now(svc: Services, round_: RoundRecord, lang: str) -> bool:
    """/reveal: close the round now, its results in the group's language (else `lang`)."""
    record = await svc.chats.find(round_.chat_id)
    return await close_round(svc, round_, (record.language if record else None) or lang)


@dataclass(frozen=True, slots=True)
class Standings:
    """/top: this week's and all-time points, as of the group's local `today`."""

    today: date
    week: list[LeaderboardRow]
    overall: list[LeaderboardRow]


async def standings(svc: Services, chat_id: int) -> Standings:
    """The group's leaderboard: this local week (in the group's zone) and all time."""
    record = await svc.chats.find(chat_id)
    zone = zone_of(svc.settings.default_timezone, record)
    now = svc.practice.clock()
    today = now.astimezone(ZoneInfo(zone)).date()
    week = await svc.storage.leaderboard(chat_id, week_start(now, zone))
    overall = await svc.storage.leaderboard(chat_id, None)
    return Standings(today, week, overall)


async def set_group_level(svc: Services, chat_id: int, kind: str, title: str, level: Level) -> None:
    """The level the group's rounds ask at when none is named."""
    await svc.chats.register(chat_id, kind, title)
    await svc.storage.set_chat_settings(chat_id, level=level)


async def set_group_language(
    svc: Services, chat_id: int, kind: str, title: str, language: str
) -> None:
    """The language of what the bot posts to the whole group (rounds, results, replies)."""
    await svc.chats.register(chat_id, kind, title)
    await svc.storage.set_chat_settings(chat_id, language=language)


async def set_round_length(
    svc: Services, chat_id: int, kind: str, title: str, minutes: int
) -> None:
    """How long the group's /quiz rounds stay open."""
    await svc.chats.register(chat_id, kind, title)
    await svc.storage.set_chat_settings(chat_id, round_minutes=minutes)


class Answered(StrEnum):
    """What became of a reply to one of the bot's messages in a group."""

    NOT_AN_ANSWER = "not-an-answer"  # a reply to another message, not a text, no question
    TOO_LATE = "too-late"  # the round had closed (or closed before the write)
    TOO_SHORT = "too-short"  # `x`, `ok`: not counted, the member is told
    ONE_WORD = "one-word"  # `缓存`, `cache`: not counted, the member told to say more
    COUNTED = "counted"  # stored as the member's latest answer; private feedback recorded
    REPLACED = "replaced"  # an edit of an answer a later message replaced: nothing stored


@dataclass(frozen=True, slots=True)
class RoundReply:
    chat_id: int
    group_title: str
    question_message_id: int  # the message replied to
    message_id: int
    edit_stamp: int  # the edit's time (0: not an edit): one private feedback per version
    first_name: str
    text: str
    heard: bool = False  # spoken: `text` is its transcript, shown atop the private feedback


async def round_asked_in(svc: Services, chat_id: int, message_id: int) -> RoundRecord | None:
    """The round whose question is message `message_id` of the group, open or closed."""
    return await svc.storage.round_by_message(chat_id, message_id)


async def answer_round(svc: Services, reply: RoundReply, user: UserProfile, lang: str) -> Answered:
    """Score a member's reply to a round's question and keep it as their latest answer.

    The member's private feedback (if they started the bot) is recorded with the answer, in
    `lang`, the language of every reply to them.
    """
    round_ = await svc.storage.round_by_message(reply.chat_id, reply.question_message_id)
    if round_ is None:
        return Answered.NOT_AN_ANSWER  # a reply to one of our other messages (results, help)
    if round_.closed_at is not None:
        return Answered.TOO_LATE
    question = svc.library.question(round_.question_id)
    if question is None:
        return Answered.NOT_AN_ANSWER
    match attempt_of(reply.text):
        case Attempt.NO_WORDS:
            return Answered.NOT_AN_ANSWER
        case Attempt.TOO_SHORT:
            return Answered.TOO_SHORT
        case Attempt.ONE_WORD:
            return Answered.ONE_WORD

    def feedback(result: ScoreResult, streak: StreakState, now: datetime) -> Draft | None:
        if not (user.started and user.active):
            return None
        summary = score_summary(svc.strings, lang, result=result, streak=streak)
        head = svc.strings(lang, "round_private_feedback", group=reply.group_title)
        if reply.heard:
            head = Html(f"{heard_line(svc.strings, lang, reply.text)}\n{head}")
        hidden = svc.strings(lang, "round_private_hidden")
        return Draft(
            Kind.FEEDBACK,
            f"feedback:{reply.chat_id}:{reply.message_id}:{reply.edit_stamp}",
            user.user_id,
            tuple(split_head(Html(f"{head}\n{summary}\n\n{hidden}"))),
            now + timedelta(minutes=svc.settings.outbox_deadline_minutes),
        )

    scored = await svc.practice.answer_round(
        round_.round_id,
        question,
        user,
        first_name=reply.first_name,
        message_id=reply.message_id,
        text=reply.text,
        feedback=feedback,
    )
    if scored is None:  # closed between our read and our write, or an edit of a replaced answer
        return Answered.REPLACED if reply.edit_stamp else Answered.TOO_LATE
    return Answered.COUNTED


async def close_round(svc: Services, round_: RoundRecord, lang: str = "en") -> bool:
    """Close a round once; its ranked results are recorded with the close and posted by the
    outbox (after a crash too)."""
    question = svc.library.question(round_.question_id)
    level = question.level if question else Level.BEGINNER
    now = svc.practice.clock()

    def announce(answers: list[RoundAnswer]) -> Draft:
        messages = ranking_messages(svc.strings, round_, question, answers, lang)
        deadline = now + timedelta(minutes=svc.settings.outbox_deadline_minutes)
        return Draft(
            Kind.RANKING,
            f"ranking:{round_.round_id}",
            round_.chat_id,
            tuple(messages),
            deadline,
            reply_to=round_.message_id,
        )

    closed = await svc.storage.close_round(round_.round_id, now, level, announce)
    if closed is None:
        return False
    svc.notify_outbox()
    return True


async def introduce(bot: Bot, svc: Services, chat_id: int, title: str, lang: str) -> None:
    """A few lines when the bot is added to a group."""
    text = svc.strings(lang, "group_intro", title=title or "👋")
    result = await delivery.send_messages(bot, chat_id, [text])
    await delivery.settle(svc.chats, chat_id, result, "introduction")
