"""Group rounds: open one (a /quiz or the daily prompt), close it with its ranked results,
introduce the bot to a group. Called by the group handlers and the daily scheduler alike.
"""

from __future__ import annotations

from datetime import timedelta
from zoneinfo import ZoneInfo

from telegram import Bot

from bot import delivery
from bot.core.levels import Level
from bot.core.models import RoundAnswer, RoundRecord
from bot.core.outbox import Draft, Kind
from bot.core.rounds import closes_at
from bot.core.selection import pick_question
from bot.core.timezones import zone_label, zone_of
from bot.i18n import Html
from bot.render import level_name, ranking_messages
from bot.services import Services


async def draft_round(
    svc: Services,
    chat_id: int,
    *,
    level: Level | None,
    daily: bool,
    opened_by: int | None = None,
    lang: str | None = None,
    pack: str | None = None,
) -> tuple[int, str, Html] | None:
    """Open a round and write its question; None if a round is open or no question fits.

    Returns (round id, question id, the question message); the caller posts it.
    """
    record = await svc.storage.get_chat(chat_id)
    if record is None:
        await svc.storage.ensure_chat(chat_id, "group")
        record = await svc.storage.get_chat(chat_id)
    assert record is not None
    level = level or record.level or Level.BEGINNER
    pool = svc.library.pool(level, pack)
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
        closes=closing.astimezone(ZoneInfo(zone)).strftime("%H:%M"),
        zone=zone_label(zone),
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
) -> str | None:
    """Post a question as a new round now (/quiz); None if a round is open or none fits."""
    drafted = await draft_round(
        svc, chat_id, level=level, daily=False, opened_by=opened_by, lang=lang, pack=pack
    )
    if drafted is None:
        return None
    round_id, question_id, text = drafted
    result = await delivery.send_messages(bot, chat_id, [text])
    if not result.ok or result.first_message_id is None:
        await svc.storage.cancel_round(round_id)
        await delivery.settle(svc.storage, chat_id, result, "round question")
        return question_id if result.outcome is delivery.Outcome.MAYBE_SENT else None
    await svc.storage.set_round_message(round_id, result.first_message_id)
    return question_id


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
    await delivery.settle(svc.storage, chat_id, result, "introduction")
