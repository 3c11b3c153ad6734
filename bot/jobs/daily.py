"""Scheduled delivery: daily prompts, closing group rounds on time, evening reminders.

The schedule lives in the database. Each tick asks storage which chats are due, claims each
chat's prompt for its local date (a unique key), marks it 'sending' just before its request
and 'sent' after, and sends through the application's AIORateLimiter with bounded
concurrency. After a crash, claims whose request never started are sent; those that were
under way are not (they may have arrived): at most one prompt per chat and day. A prompt
missed by more than the grace period (the bot was down) is skipped, never sent late in a
burst. Blocked chats are unsubscribed, migrated groups move to their new id,
and other failures are retried on later ticks a bounded number of times.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import date, timedelta
from zoneinfo import ZoneInfo

from telegram import Bot
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
    TimedOut,
)

from bot.core.models import ChatRecord
from bot.core.schedule import (
    DailySchedule,
    Days,
    Due,
    Occurrence,
    due_state,
    next_occurrence,
    parse_time,
    resume_after,
)
from bot.core.streaks import at_risk, visible_streak
from bot.handlers.common import Services, ui_language
from bot.handlers.groups import close_round, open_round
from bot.handlers.keyboards import question_keyboard
from bot.i18n import Html
from bot.practice import Clock
from bot.render import MESSAGE_LIMIT, question_message, utf16_len

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 3  # per chat and day, for errors that may pass (network, 5xx, repeated 429)
PAGE = 500  # due chats read from storage at a time


@dataclass
class TickReport:
    outcomes: Counter[str]
    reminders: int = 0


def schedule_of(chat: ChatRecord, default_zone: str) -> DailySchedule:
    at = parse_time(chat.daily_time)
    assert at is not None, chat.daily_time  # written by /daily from a parsed time
    return DailySchedule(at, Days(chat.daily_days), chat.timezone or default_zone)


class DailySender:
    def __init__(self, bot: Bot, svc: Services, clock: Clock) -> None:
        self.bot = bot
        self.svc = svc
        self.clock = clock

    @property
    def grace(self) -> timedelta:
        return timedelta(minutes=self.svc.settings.daily_grace_minutes)

    async def tick(self) -> TickReport:
        """Serve every chat due now, then close due rounds and send the evening reminders."""
        now = self.clock()
        outcomes: Counter[str] = Counter()
        queue: asyncio.Queue[ChatRecord | None] = asyncio.Queue(maxsize=PAGE)
        workers = self.svc.settings.send_concurrency

        async def produce() -> None:
            after: tuple[str, int] | None = None
            while page := await self.svc.storage.due_chats(now, PAGE, after):
                for chat in page:
                    await queue.put(chat)
                last = page[-1]
                assert last.next_due_at is not None
                after = (last.next_due_at.isoformat(), last.chat_id)
            for _ in range(workers):
                await queue.put(None)

        async def work() -> None:
            while (chat := await queue.get()) is not None:
                try:
                    outcomes[await self._serve(chat)] += 1
                except Exception:  # one chat's surprise must not stop the others
                    log.exception("daily prompt for chat %s failed unexpectedly", chat.chat_id)
                    outcomes["error"] += 1

        await asyncio.gather(produce(), *(work() for _ in range(workers)))
        await self._close_rounds()
        reminders = await self._remind()
        if outcomes:
            log.info("daily tick: %s, %d reminders", dict(outcomes), reminders)
        return TickReport(outcomes, reminders)

    async def _serve(self, chat: ChatRecord) -> str:
        storage = self.svc.storage
        now = self.clock()
        schedule = schedule_of(chat, self.svc.settings.default_timezone)
        assert chat.next_due_at is not None
        assert chat.next_due_day is not None
        current = Occurrence(date.fromisoformat(chat.next_due_day), chat.next_due_at)
        following = next_occurrence(schedule, resume_after(current.at, now, self.grace))
        if due_state(current.at, now, self.grace) is Due.SKIP:
            await storage.advance_daily(chat.chat_id, following)
            return "skipped"
        day = current.day.isoformat()
        if not await storage.claim_daily(chat.chat_id, day, now):
            await storage.advance_daily(chat.chat_id, following)  # already sent that day
            return "already-sent"
        return await self._deliver_and_record(chat, day, following)

    async def _deliver_and_record(self, chat: ChatRecord, day: str, following: Occurrence) -> str:
        storage = self.svc.storage
        chat_id = chat.chat_id

        async def sending() -> None:
            await storage.set_daily_status(chat_id, day, "sending")

        try:
            try:
                question_id = await self.deliver(chat_id, chat.kind, sending)
            except ChatMigrated as moved:
                log.info("group %s moved to %s", chat_id, moved.new_chat_id)
                await storage.migrate_chat(chat_id, moved.new_chat_id)
                chat_id = moved.new_chat_id
                question_id = await self.deliver(chat_id, "supergroup", sending)
        except Forbidden:
            await storage.unsubscribe(chat_id)
            await storage.finish_daily(chat_id, day, "failed", self.clock(), following)
            return "unsubscribed"
        except BadRequest as exc:
            # Our bug (markup) or a chat that no longer exists: retrying cannot help.
            log.error("daily prompt to %s rejected: %s", chat_id, exc)
            await storage.finish_daily(chat_id, day, "failed", self.clock(), following)
            return "rejected"
        except TimedOut:
            # The request may have arrived: at most one prompt a day, so do not send again.
            await storage.finish_daily(chat_id, day, "unknown", self.clock(), following)
            return "timed-out"
        except (RetryAfter, NetworkError) as exc:
            # Telegram answered with an error: the prompt surely did not arrive.
            await storage.set_daily_status(chat_id, day, "claimed")
            attempts = await storage.daily_attempts(chat_id, day)
            if attempts >= MAX_ATTEMPTS:
                log.warning("daily prompt to %s failed %d times: %s", chat_id, attempts, exc)
                await storage.finish_daily(chat_id, day, "failed", self.clock(), following)
                return "gave-up"
            log.info("daily prompt to %s will be retried: %s", chat_id, exc)
            return "retry"  # still claimed: the next tick takes it again
        if question_id is None:
            await storage.finish_daily(chat_id, day, "failed", self.clock(), following)
            return "no-question"
        await storage.finish_daily(chat_id, day, "sent", self.clock(), following, question_id)
        return "sent"

    async def deliver(
        self, chat_id: int, kind: str, before_send: Callable[[], Awaitable[None]]
    ) -> str | None:
        """Open a question in the chat and send it; Telegram errors propagate to the caller.

        `before_send` runs just before the request leaves, after all preparation.
        """
        svc = self.svc
        if kind != "private":
            still_open = await svc.storage.open_round_of(chat_id)
            if still_open is not None:  # the daily round's time has come: results first
                chat = await svc.storage.get_chat(chat_id)
                await close_round(self.bot, svc, still_open, (chat and chat.language) or "en")
            return await open_round(
                self.bot, svc, chat_id, level=None, daily=True, before_send=before_send
            )
        user = await svc.storage.get_user(chat_id)
        if user is None:
            return None
        lang = ui_language(user)
        asked = await svc.practice.ask(chat_id, user, None, None)
        if asked is None:
            return None
        q = asked.question
        messages = question_message(
            svc.strings, lang, level=q.level, pack_title=asked.pack_title, question=q.question
        )
        header = Html(f"{svc.strings(lang, 'daily_header')}\n{messages[0]}")
        if utf16_len(header) <= MESSAGE_LIMIT:
            messages = [header, *messages[1:]]
        keyboard = question_keyboard(svc.strings, lang, q.id)
        await before_send()
        for i, text in enumerate(messages):
            last = i == len(messages) - 1
            await self.bot.send_message(chat_id, text, reply_markup=keyboard if last else None)
        return q.id

    async def _close_rounds(self) -> None:
        """Close every group round whose deadline (stored with the round) has passed."""
        for round_ in await self.svc.storage.due_rounds(self.clock()):
            chat = await self.svc.storage.get_chat(round_.chat_id)
            try:
                await close_round(
                    self.bot, self.svc, round_, (chat.language if chat else None) or "en"
                )
            except TelegramError as exc:
                log.warning(
                    "closing round %s in %s failed: %s", round_.round_id, round_.chat_id, exc
                )

    async def _remind(self) -> int:
        """One evening reminder per day to users whose streak is at risk."""
        svc = self.svc
        now = self.clock()
        since = (now.date() - timedelta(days=4)).isoformat()
        sent = 0
        for user in await svc.storage.reminder_candidates(since):
            local = now.astimezone(ZoneInfo(user.timezone or svc.settings.default_timezone))
            today = local.date()
            if local.hour < svc.settings.reminder_hour or not at_risk(user.streak, today):
                continue
            if not await svc.storage.claim_reminder(user.user_id, today.isoformat(), now):
                continue
            streak = visible_streak(user.streak, today).current
            text = svc.strings(ui_language(user), "reminder", streak=streak)
            try:
                await self.bot.send_message(user.user_id, text)
                sent += 1
            except Forbidden:
                await svc.storage.unsubscribe(user.user_id)
            except (BadRequest, NetworkError) as exc:
                log.warning("reminder to %s failed: %s", user.user_id, exc)
        return sent

    async def run_forever(self, interval: float) -> None:
        """Tick every `interval` seconds until cancelled; a failed tick is logged, not fatal."""
        while True:
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("daily tick failed")
            await asyncio.sleep(interval)
