"""SQL of the daily question: schedules, due chats, one prompt per chat and day."""

from __future__ import annotations

from datetime import datetime, time

import aiosqlite

from bot.core.models import ChatKind, ChatRecord
from bot.core.outbox import Draft, Status
from bot.core.schedule import Days, Occurrence
from bot.storage.chats import CHAT_SELECT, chat_from_row, next_due_update
from bot.storage.database import Database, iso
from bot.storage.outbox import insert_draft
from bot.storage.practice import write_open_question
from bot.storage.reminders import set_zone


class DailyStore(Database):
    async def set_schedule(
        self,
        chat_id: int,
        *,
        enabled: bool,
        at: time,
        days: Days,
        zone: str | None,
        next_due: Occurrence | None,
    ) -> None:
        """Save a chat's daily question and its next occurrence, in one transaction.

        `zone` is the chat's zone (None: none of its own, the default applies). A group keeps
        its own; a private chat's zone is its user's, so it is stored on the user (their
        streak and reminders move with it), never twice.
        """
        async with self.transaction() as db:
            rows = await db.execute_fetchall("SELECT kind FROM chats WHERE chat_id = ?", (chat_id,))
            row = next(iter(rows), None)
            private = row is not None and row[0] == ChatKind.PRIVATE
            await db.execute(
                "UPDATE chats SET daily_enabled = ?, daily_time = ?, daily_days = ?,"
                " timezone = ?, next_due_at = ?, next_due_day = ? WHERE chat_id = ?",
                (
                    int(enabled),
                    at.strftime("%H:%M"),
                    days.value,
                    None if private else zone,
                    iso(next_due.at) if next_due else None,
                    next_due.day.isoformat() if next_due else None,
                    chat_id,
                ),
            )
            if private and zone is not None:
                await set_zone(db, chat_id, zone, self.reminder_rule)

    async def due_chats(
        self, now: datetime, limit: int = 500, after: tuple[str, int] | None = None
    ) -> list[ChatRecord]:
        """Subscribed, reachable chats due at `now`, oldest first, one page at a time.

        `after` is the (next_due_at, chat_id) of the previous page's last chat: keyset
        paging, so chats left due on purpose (to retry next tick) never hide the others.
        """
        last_at, last_id = after or ("", 0)
        rows = await self._all(
            CHAT_SELECT + " WHERE chats.daily_enabled = 1 AND chats.active = 1"
            " AND chats.next_due_at <= ? AND (chats.next_due_at, chats.chat_id) > (?, ?)"
            " ORDER BY chats.next_due_at, chats.chat_id LIMIT ?",
            (iso(now), last_at, last_id, limit),
        )
        return [chat_from_row(r) for r in rows]

    async def claim_daily(self, chat_id: int, local_day: str, now: datetime) -> bool:
        """Claim the chat's prompt for `local_day`; False if it was sent, failed or may be out.

        A claim left by a crash before its request started (status still 'claimed') is taken
        again. One whose request was under way ('sending') is not: it may have arrived, and a
        chat gets at most one prompt a day.
        """
        claimed = await self._write(
            "INSERT INTO daily_sends (chat_id, local_day, status, attempts, claimed_at)"
            " VALUES (?, ?, 'claimed', 1, ?) ON CONFLICT (chat_id, local_day) DO UPDATE"
            " SET attempts = daily_sends.attempts + 1, claimed_at = excluded.claimed_at"
            " WHERE daily_sends.status = 'claimed'",
            (chat_id, local_day, iso(now)),
        )
        return claimed > 0

    async def finish_daily(
        self,
        chat_id: int,
        local_day: str,
        status: Status,
        now: datetime,
        next_due: Occurrence,
        question_id: str | None = None,
    ) -> None:
        """Record the outcome for `local_day` and move the chat on to its next occurrence."""
        async with self.transaction() as db:
            await db.execute(
                "UPDATE daily_sends SET status = ?, sent_at = ?, question_id = ?"
                " WHERE chat_id = ? AND local_day = ?",
                (status.value, iso(now), question_id, chat_id, local_day),
            )
            await db.execute(*next_due_update(chat_id, next_due))

    async def daily_attempts(self, chat_id: int, local_day: str) -> int:
        """How many times the chat's prompt for `local_day` was claimed (0: never)."""
        row = await self._one(
            "SELECT attempts FROM daily_sends WHERE chat_id = ? AND local_day = ?",
            (chat_id, local_day),
        )
        return int(row[0]) if row else 0

    async def wait_daily(
        self, chat_id: int, local_day: str, now: datetime, next_due: Occurrence
    ) -> None:
        """The day's prompt waits for the question the user is on (status 'waiting'), in
        place of any older one still waiting (one waits at most), and the chat moves on to
        its next occurrence: one transaction."""
        async with self.transaction() as db:
            await db.execute(
                "UPDATE daily_sends SET status = 'expired'"
                " WHERE chat_id = ? AND status = 'waiting'",
                (chat_id,),
            )
            await db.execute(
                "UPDATE daily_sends SET status = 'waiting', sent_at = ?"
                " WHERE chat_id = ? AND local_day = ?",
                (iso(now), chat_id, local_day),
            )
            await db.execute(*next_due_update(chat_id, next_due))

    async def waiting_daily(self, chat_id: int) -> str | None:
        """The local day of the chat's prompt that waits for the question the user is on."""
        row = await self._one(
            "SELECT local_day FROM daily_sends WHERE chat_id = ? AND status = 'waiting'",
            (chat_id,),
        )
        return str(row[0]) if row else None

    async def lapse_waiting_daily(self, chat_id: int) -> None:
        """A prompt still waiting from an earlier day lapses: the daily question is that
        day's."""
        await self._write(
            "UPDATE daily_sends SET status = 'expired' WHERE chat_id = ? AND status = 'waiting'",
            (chat_id,),
        )

    async def queue_waiting_daily(self, user_id: int, draft: Draft, now: datetime) -> bool:
        """The prompt that waited for `draft.local_day`, now owed: its question opened and
        the prompt recorded in the outbox, in one transaction, so a crash neither loses nor
        doubles it. True once; False, and nothing written, if it no longer waits or another
        question is open (then it waits on)."""
        chat_id, day, question_id = draft.chat_id, draft.local_day, draft.question_id
        assert day is not None
        assert question_id is not None

        async def body(db: aiosqlite.Connection) -> bool:
            if await db.execute_fetchall(
                "SELECT 1 FROM open_questions WHERE chat_id = ?", (chat_id,)
            ) or not await db.execute_fetchall(
                "SELECT 1 FROM daily_sends WHERE chat_id = ? AND local_day = ?"
                " AND status = 'waiting'",
                (chat_id, day),
            ):
                return False
            if not await insert_draft(db, draft, now):
                return False  # that day's prompt was recorded before
            await db.execute(
                "UPDATE daily_sends SET status = 'queued', question_id = ?"
                " WHERE chat_id = ? AND local_day = ?",
                (question_id, chat_id, day),
            )
            await write_open_question(db, chat_id, user_id, question_id, now)
            return True

        return await self.atomic(body)

    async def advance_daily(self, chat_id: int, next_due: Occurrence) -> None:
        await self._write(*next_due_update(chat_id, next_due))

    async def claim_reminder(self, user_id: int, local_day: str, now: datetime) -> bool:
        """Mark the day's reminder as taken (the scheduler does it with its message, by
        `claim_reminders`, in one transaction)."""
        claimed = await self._write(
            "INSERT OR IGNORE INTO reminders_sent (user_id, local_day, sent_at) VALUES (?, ?, ?)",
            (user_id, local_day, iso(now)),
        )
        return claimed > 0
