"""The daily scheduler: records each due prompt, closes due rounds, records evening reminders.

The schedule lives in the database. Each tick asks storage which chats are due, claims each
chat's prompt for its local date (a unique key), prepares it (the question, or a group's
round) and records it in the outbox together with the chat's next occurrence, in one
transaction. The outbox sender (bot/jobs/outbox.py) delivers it, retrying until the grace
period ends. A prompt missed by more than the grace period (the bot was down) is skipped,
never sent late in a burst. A claim left by a crash before its prompt was recorded is taken
again; once recorded, the outbox makes it happen exactly once.

Evening reminders are due the same way: each user's next reminder instant is stored and
indexed, so a tick reads only the users whose instant has come, claims them (the instant
moves to the next evening the streak can be at risk, in the same transaction that records
the reminder) and leaves the sending to the outbox.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from enum import StrEnum

from bot.core.levels import Level
from bot.core.models import ChatRecord, UserProfile
from bot.core.outbox import Draft, Kind, Status
from bot.core.reminders import claim, end_of_day
from bot.core.schedule import (
    Due,
    Occurrence,
    due_state,
    next_occurrence,
    resume_after,
)
from bot.core.streaks import visible_streak
from bot.i18n import user_language
from bot.jobs.clock import SteadyClock
from bot.keyboards import next_keyboard
from bot.services import Services
from bot.services.practice import Clock
from bot.services.rounds import close_round
from bot.services.schedules import Waits, draft_daily_prompt, schedule_of
from bot.storage import is_full
from bot.storage.reminders import ReminderClaim

log = logging.getLogger(__name__)

PAGE = 500  # due chats read from storage at a time
REMINDER_PAGE = 100  # due reminder instants claimed per transaction (short write locks)


class Served(StrEnum):
    """What a tick did with one due chat."""

    QUEUED = "queued"  # its prompt is recorded in the outbox
    SKIPPED = "skipped"  # missed by more than the grace period: moved to the next occurrence
    ALREADY_SENT = "already-sent"  # that local day's prompt was recorded before
    NO_QUESTION = "no-question"  # nothing to ask (no question fits, no user)
    WAITING = "waiting"  # the user is on a question: it comes once that one is closed
    ERROR = "error"  # an unexpected failure, logged
    NO_ROOM = "no-room"  # the disk is full: tried again next tick (said once, bot/storage/space.py)


# What each outcome of a tick is called in its log line: (one, more than one).
TICK_WORDS: dict[Served, tuple[str, str]] = {
    Served.QUEUED: ("{} prompt queued", "{} prompts queued"),
    Served.SKIPPED: ("{} skipped (missed by more than DAILY_GRACE_MINUTES)",) * 2,
    Served.ALREADY_SENT: ("{} already sent that day",) * 2,
    Served.NO_QUESTION: ("{} with no question to ask",) * 2,
    Served.ERROR: ("{} failed (logged above)",) * 2,
    Served.NO_ROOM: ("{} waiting for room on the disk",) * 2,
}


def tick_words(outcomes: Counter[str], reminders: int) -> str:
    """A tick's counts as an operator reads them: "3 prompts queued, 1 skipped (…); 1
    reminder queued", in the order of `Served`; outcomes and reminders that did not happen
    are left out."""
    parts = [
        (one if n == 1 else many).format(n)
        for kind, (one, many) in TICK_WORDS.items()
        if (n := outcomes[kind])
    ]
    text = ", ".join(parts) or "nothing due"
    if reminders:
        text += f"; {reminders} reminder{'' if reminders == 1 else 's'} queued"
    return text


@dataclass
class TickReport:
    outcomes: Counter[str]
    reminders: int = 0


class DailySender:
    def __init__(self, svc: Services, clock: Clock, notify: Callable[[], None]) -> None:
        self.svc = svc
        self.clock = clock
        self.notify = notify  # tells the outbox sender that rows were recorded

    @property
    def grace(self) -> timedelta:
        return timedelta(minutes=self.svc.settings.daily_grace_minutes)

    async def tick(self) -> TickReport:
        """Record every prompt due now, then close due rounds and record evening reminders."""
        await self._adopt_step()
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
                except Exception as exc:  # one chat's surprise must not stop the others
                    if is_full(exc):
                        outcomes[Served.NO_ROOM] += 1
                        continue
                    log.exception("daily prompt for chat %s failed unexpectedly", chat.chat_id)
                    outcomes[Served.ERROR] += 1
                self.notify()  # the sender starts while the rest are prepared

        await asyncio.gather(produce(), *(work() for _ in range(workers)))
        await self._close_rounds()
        reminders = await self._remind()
        self.notify()
        # A tick that only met the full disk is not a line of its own: a line each tick.
        if outcomes and set(outcomes) != {Served.NO_ROOM}:
            log.info("daily tick: %s", tick_words(outcomes, reminders))
        return TickReport(outcomes, reminders)

    async def _adopt_step(self) -> None:
        """A wall-clock step noticed since the last tick: move what was owed with it, then
        go by the moved clock (bot/jobs/clock.py). Here, before a tick reads the time, so no
        tick straddles two timelines."""
        clock = self.clock
        if not isinstance(clock, SteadyClock) or not clock.pending:
            return
        async with clock.lock:
            step = clock.step()
            if step is None:
                return
            messages, chats = await self.svc.storage.shift_owed(step, clock())
            clock.adopt(step)
        log.info(
            "going by the moved clock now: %d messages owed and %d chats due keep the time"
            " they had left",
            messages,
            chats,
        )

    async def _serve(self, chat: ChatRecord) -> Served:
        storage = self.svc.storage
        now = self.clock()
        schedule = schedule_of(chat, self.svc.settings.default_timezone)
        assert chat.next_due_at is not None
        assert chat.next_due_day is not None
        current = Occurrence(chat.next_due_day, chat.next_due_at)
        following = next_occurrence(schedule, resume_after(current.at, now, self.grace))
        if due_state(current.at, now, self.grace) is Due.SKIP:
            if due_state(following.at, now, self.grace) is not Due.SEND:
                await storage.advance_daily(chat.chat_id, following)
                return Served.SKIPPED
            # Missed long ago (the chat was unreachable or the bot down) but today's is due.
            current = following
            following = next_occurrence(schedule, resume_after(current.at, now, self.grace))
        day = current.day.isoformat()
        if not await storage.claim_daily(chat.chat_id, day, now):
            await storage.advance_daily(chat.chat_id, following)  # already recorded that day
            return Served.ALREADY_SENT
        draft = await draft_daily_prompt(self.svc, chat, day, current.at, current.at + self.grace)
        if draft is None:
            await storage.finish_daily(chat.chat_id, day, Status.FAILED, now, following)
            return Served.NO_QUESTION
        if isinstance(draft, Waits):
            await storage.wait_daily(chat.chat_id, day, now, following)
            return Served.WAITING
        await storage.enqueue_daily(chat.chat_id, day, following, draft, now)
        return Served.QUEUED

    async def _close_rounds(self) -> None:
        """Close every group round whose deadline (stored with the round) has passed."""
        for round_ in await self.svc.storage.due_rounds(self.clock()):
            chat = await self.svc.storage.get_chat(round_.chat_id)
            await close_round(self.svc, round_, (chat.language if chat else None) or "en")

    async def _remind(self) -> int:
        """Claim every reminder instant that has come, recording reminders for streaks at risk.

        Reads only users whose instant is due (an index range), a page at a time; each page
        is claimed in one transaction, and its reminders go to the outbox, whose sender
        delivers them as it delivers prompts.
        """
        svc = self.svc
        rule = svc.storage.reminder_rule
        now = self.clock()
        recorded = 0
        after: tuple[str, int] | None = None
        while page := await svc.storage.due_reminders(now, REMINDER_PAGE, after):
            claims = []
            for due in page:
                user = due.user
                decided = claim(user.streak, user.timezone, rule, due.due_at, now)
                draft = None
                if decided.send and user.active and user.started:
                    draft = self._reminder(user, decided.day, now)
                claims.append(ReminderClaim(due, decided.next_at, decided.day.isoformat(), draft))
            recorded += await svc.storage.claim_reminders(claims, now)
            self.notify()
            last = page[-1]
            after = (last.stamp, last.user.user_id)
        return recorded

    def _reminder(self, user: UserProfile, day: date, now: datetime) -> Draft:
        svc = self.svc
        rule = svc.storage.reminder_rule
        streak = visible_streak(user.streak, day).current
        lang = user_language(user)
        text = svc.strings(lang, "reminder", streak=streak)
        # One tap starts a question: the button /quiz's feedback offers ("Next question").
        keyboard = next_keyboard(svc.strings, lang, user.level or Level.BEGINNER).to_dict()
        # Worth sending until the outbox deadline, and never after the user's day is over.
        deadline = min(
            now + timedelta(minutes=svc.settings.outbox_deadline_minutes),
            end_of_day(day, user.timezone, rule),
        )
        key = f"reminder:{user.user_id}:{day.isoformat()}"
        return Draft(Kind.REMINDER, key, user.user_id, (text,), deadline, keyboard=keyboard)

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
