"""SQL of the evening reminders: each user's next reminder instant, read and claimed by index.

`users.remind_at` (migration 009) is the instant a user's streak may next be at risk at the
reminder hour; the scheduler reads only users whose instant has come (`due_reminders`) and
claims them a page at a time (`claim_reminders`): the instant moves on, and the reminder is
recorded in the outbox once per local day, in one transaction. Every write that changes
what the instant depends on (an answer, the zone, the reminder setting) recomputes it
inside its own transaction (`reset_reminder`), and an answer withdraws a reminder not yet
sent: a user who answered today gets none.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any

import aiosqlite

from bot.core.models import UserProfile
from bot.core.outbox import Draft, Kind
from bot.core.reminders import ReminderRule, first_reminder
from bot.core.streaks import StreakState
from bot.storage.database import iso
from bot.storage.outbox import insert_draft


@dataclass(frozen=True, slots=True)
class DueReminder:
    user: UserProfile
    due_at: datetime
    stamp: str  # the stored instant: the claim only holds if it is unchanged


@dataclass(frozen=True, slots=True)
class ReminderClaim:
    due: DueReminder
    next_at: datetime | None  # the instant that replaces the claimed one
    local_day: str  # the reminder's once-a-day key
    draft: Draft | None  # the reminder to record, or None (not at risk, not the hour yet)


@dataclass(frozen=True, slots=True)
class StreakRow:
    """What a user's reminder instant is computed from."""

    streak: StreakState
    zone: str | None  # the user's stored zone (None: the default)
    reminders: bool


async def read_streak(db: aiosqlite.Connection, user_id: int) -> StreakRow | None:
    """The user's streak, zone and reminder setting, read inside the caller's transaction."""
    # One round trip to the database thread (a cursor's execute, fetch and close are three).
    rows = await db.execute_fetchall(
        "SELECT timezone, reminders, streak_current, streak_best, streak_last_day,"
        " streak_freezes FROM users WHERE user_id = ?",
        (user_id,),
    )
    row = next(iter(rows), None)
    if row is None:
        return None
    last = row["streak_last_day"]
    streak = StreakState(
        current=row["streak_current"],
        best=row["streak_best"],
        last_day=date.fromisoformat(last) if last else None,
        freezes=row["streak_freezes"],
    )
    return StreakRow(streak, row["timezone"], bool(row["reminders"]))


def reminder_of(row: StreakRow, rule: ReminderRule) -> datetime | None:
    """The reminder instant a user's streak row gives (None: reminders off or no streak)."""
    return first_reminder(row.streak, row.zone, rule) if row.reminders else None


async def reset_reminder(db: aiosqlite.Connection, user_id: int, rule: ReminderRule) -> None:
    """Recompute the user's reminder instant inside the caller's transaction."""
    row = await read_streak(db, user_id)
    if row is None:
        return
    at = reminder_of(row, rule)
    await db.execute(
        "UPDATE users SET remind_at = ? WHERE user_id = ?",
        (iso(at) if at else None, user_id),
    )


async def set_zone(db: aiosqlite.Connection, user_id: int, zone: str, rule: ReminderRule) -> None:
    """Store the user's time zone inside the caller's transaction; their reminder instant
    moves with it."""
    cur = await db.execute(
        "UPDATE users SET timezone = ? WHERE user_id = ? AND timezone IS NOT ?",
        (zone, user_id, zone),
    )
    if cur.rowcount > 0:
        await reset_reminder(db, user_id, rule)


async def withdraw_reminders(db: aiosqlite.Connection, user_id: int, reason: str) -> None:
    """The user answered (or turned reminders off): a reminder recorded but not yet on its
    way is not sent.

    Also one a sender has claimed but not sent: the sender checks the row is still claimed
    right before its request leaves (`outbox_on_wire`).
    """
    await db.execute(
        "UPDATE outbox SET status = 'expired', owner = NULL, finished_at = ?, last_error = ?"
        " WHERE chat_id = ? AND kind = ? AND status IN ('pending', 'claimed')",
        (iso(datetime.now(UTC)), reason, user_id, Kind.REMINDER.value),
    )


class ReminderStore:
    """The reminder half of `Storage` (mixed into it); a module of its own so it can move."""

    if TYPE_CHECKING:
        reminder_rule: ReminderRule

        def transaction(self) -> Any: ...

        async def _all(self, sql: str, params: Any = ()) -> list[aiosqlite.Row]: ...

        @staticmethod
        def _user(row: aiosqlite.Row) -> UserProfile: ...

    async def due_reminders(
        self, now: datetime, limit: int = 200, after: tuple[str, int] | None = None
    ) -> list[DueReminder]:
        """Users whose reminder instant has come, oldest first, one page at a time.

        `after` is the (stamp, user_id) of the previous page's last user: keyset paging, so
        a tick reads each due user once, whatever its claims did.
        """
        last_at, last_id = after or ("", 0)
        rows = await self._all(
            "SELECT * FROM users WHERE remind_at IS NOT NULL AND remind_at <= ?"
            " AND (remind_at, user_id) > (?, ?) ORDER BY remind_at, user_id LIMIT ?",
            (iso(now), last_at, last_id, limit),
        )
        return [
            DueReminder(self._user(r), datetime.fromisoformat(r["remind_at"]), r["remind_at"])
            for r in rows
        ]

    async def claim_reminders(self, claims: list[ReminderClaim], now: datetime) -> int:
        """Move each claimed instant on and record the reminders, once per user and local
        day, in one transaction; returns how many reminders were recorded.

        A claim whose user changed meanwhile (an answer, a new zone: the stored instant or
        the last answer day differs from what was read) is dropped: that change already
        set the right instant.
        """
        recorded = 0
        async with self.transaction() as db:
            for c in claims:
                streak = c.due.user.streak
                cur = await db.execute(
                    "UPDATE users SET remind_at = ? WHERE user_id = ? AND remind_at = ?"
                    " AND streak_last_day IS ?",
                    (
                        iso(c.next_at) if c.next_at else None,
                        c.due.user.user_id,
                        c.due.stamp,
                        streak.last_day.isoformat() if streak.last_day else None,
                    ),
                )
                if cur.rowcount == 0 or c.draft is None:
                    continue
                cur = await db.execute(
                    "INSERT OR IGNORE INTO reminders_sent (user_id, local_day, sent_at)"
                    " VALUES (?, ?, ?)",
                    (c.due.user.user_id, c.local_day, iso(now)),
                )
                if cur.rowcount > 0 and await insert_draft(db, c.draft, now):
                    recorded += 1
        return recorded

    async def reminder_instant(self, user_id: int) -> datetime | None:
        """The user's stored next reminder instant (for tests and the operator)."""
        rows = await self._all("SELECT remind_at FROM users WHERE user_id = ?", (user_id,))
        if not rows or rows[0][0] is None:
            return None
        return datetime.fromisoformat(rows[0][0])
