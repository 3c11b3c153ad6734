"""SQL of users: profiles, settings, streaks, forgetting a user, an unreachable chat."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import date
from typing import Any

import aiosqlite

from bot.core.levels import Level
from bot.core.models import (
    UserProfile,
)
from bot.core.schedule import Occurrence
from bot.core.streaks import StreakState
from bot.storage.chats import next_due_update
from bot.storage.database import Database, iso, now_iso
from bot.storage.outbox import fail_open_rows
from bot.storage.reminders import (
    read_streak,
    reminder_of,
    reset_reminder,
    set_zone,
    withdraw_reminders,
)

_USER_FIELDS = {"first_name", "language", "timezone", "level", "pack", "reminders", "active"}


class UsersStore(Database):
    @staticmethod
    def _user(row: aiosqlite.Row) -> UserProfile:
        last = row["streak_last_day"]
        return UserProfile(
            user_id=row["user_id"],
            first_name=row["first_name"],
            language=row["language"],
            telegram_language=row["telegram_language"],
            timezone=row["timezone"],
            level=Level(row["level"]) if row["level"] else None,
            pack=row["pack"],
            reminders=bool(row["reminders"]),
            active=bool(row["active"]),
            started=bool(row["started"]),
            streak=StreakState(
                current=row["streak_current"],
                best=row["streak_best"],
                last_day=date.fromisoformat(last) if last else None,
                freezes=row["streak_freezes"],
            ),
        )

    async def get_user(self, user_id: int) -> UserProfile | None:
        rows = await self._near("SELECT * FROM users WHERE user_id = ?", (user_id,))
        return self._user(rows[0]) if rows else None

    async def ensure_user(
        self,
        user_id: int,
        first_name: str = "",
        telegram_language: str | None = None,
        *,
        private: bool = True,
    ) -> UserProfile:
        """Return the user, creating them on first contact.

        `telegram_language`: the interface language the user's client reports, kept current
        (the language chosen with /lang is a separate setting and is never overwritten).

        `private`: the contact is in a private chat, so the user can be messaged there (and a
        returning user who had blocked the bot is active again). Group members are stored
        too, for their streaks and the leaderboard, but are not messaged until they start.
        """
        row = await self._write_one(  # the row as written: one round trip, not two
            "INSERT INTO users"
            " (user_id, first_name, telegram_language, created_at, started, active)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET"
            " first_name = excluded.first_name,"
            " telegram_language = COALESCE(excluded.telegram_language, users.telegram_language),"
            " started = MAX(users.started, excluded.started),"
            " active = CASE WHEN excluded.started = 1 THEN 1 ELSE users.active END"
            " RETURNING *",
            (user_id, first_name[:64], telegram_language, now_iso(), int(private), int(private)),
        )
        assert row is not None
        return self._user(row)

    async def update_user(self, user_id: int, **fields: Any) -> None:
        """Change settings columns (level, language, timezone, pack, reminders, active)."""
        unknown = set(fields) - _USER_FIELDS
        if unknown:
            raise ValueError(f"not user settings: {sorted(unknown)}")
        if not fields:
            return
        # Column names come from the fixed whitelist above, never from input.
        assignments = ", ".join(f"{name} = ?" for name in fields)
        values = [v.value if isinstance(v, Level) else v for v in fields.values()]
        sql = f"UPDATE users SET {assignments} WHERE user_id = ?"  # noqa: S608
        if not {"timezone", "reminders"} & fields.keys():
            await self._write(sql, (*values, user_id))
            return
        async with self.transaction() as db:  # the reminder instant moves with the zone
            await db.execute(sql, (*values, user_id))
            await reset_reminder(db, user_id, self.reminder_rule)
            if "reminders" in fields and not fields["reminders"]:
                await withdraw_reminders(db, user_id, "reminders turned off")

    async def move_zone(self, user_id: int, zone: str, next_due: Occurrence | None) -> None:
        """The user's time zone changes, in one transaction: their reminder instant moves,
        and their private chat's next daily question (`next_due`, computed in the new zone;
        None: no daily question there). The private chat has no zone of its own to move:
        its zone is the user's (see `chats.CHAT_SELECT`)."""
        async with self.transaction() as db:
            await set_zone(db, user_id, zone, self.reminder_rule)
            if next_due is not None:
                await db.execute(*next_due_update(user_id, next_due))

    async def open_forget(self, user_id: int, token: str) -> None:
        """A new /forget confirmation: `token` is the only one that deletes from now on."""
        await self._write("UPDATE users SET forget_token = ? WHERE user_id = ?", (token, user_id))

    async def cancel_forget(self, user_id: int, token: str) -> bool:
        """Cancel the confirmation `token`; False if it was not the open one."""
        changed = await self._write(
            "UPDATE users SET forget_token = NULL WHERE user_id = ? AND forget_token = ?",
            (user_id, token),
        )
        return changed > 0

    async def forget_user(self, user_id: int, token: str | None = None) -> bool:
        """Delete everything stored about a user, private chat and group answers included.

        With `token`, only if it is the user's open /forget confirmation (not cancelled, not
        replaced by a newer one, not used): False, and nothing deleted, otherwise.
        Answers, open questions and review cards go with the user row (foreign keys).
        """
        async with self.transaction() as db:
            if token is not None:
                cursor = await db.execute(
                    "SELECT 1 FROM users WHERE user_id = ? AND forget_token = ?",
                    (user_id, token),
                )
                if await cursor.fetchone() is None:
                    return False
            for sql in (
                "DELETE FROM asked WHERE chat_id = ?",
                "DELETE FROM daily_sends WHERE chat_id = ?",
                "DELETE FROM outbox WHERE chat_id = ?",
                "DELETE FROM reminders_sent WHERE user_id = ?",
                "DELETE FROM round_answers WHERE user_id = ?",
                "DELETE FROM group_totals WHERE user_id = ?",
                "DELETE FROM followed_packs WHERE chat_id = ?",
                "DELETE FROM pack_offers WHERE chat_id = ?",
                "DELETE FROM chats WHERE chat_id = ?",
                "DELETE FROM users WHERE user_id = ?",
            ):
                await db.execute(sql, (user_id,))
        return True

    async def mark_unreachable(self, chat_id: int) -> None:
        """The one rule for a chat that cannot be reached (blocked, kicked, deleted).

        Nothing more is sent there and what waits for it is dropped; its settings, the daily
        question included, are kept, so when the user comes back (unblocks, /start, adds the
        bot again) everything resumes as it was, whichever path noticed the block.
        """
        async with self.transaction() as db:
            await db.execute("UPDATE users SET active = 0 WHERE user_id = ?", (chat_id,))
            await db.execute("UPDATE chats SET active = 0 WHERE chat_id = ?", (chat_id,))
            await fail_open_rows(db, chat_id, "unreachable")

    async def _move_streak(
        self,
        db: aiosqlite.Connection,
        user_id: int,
        update_streak: Callable[[StreakState], StreakState],
    ) -> StreakState:
        row = await read_streak(db, user_id)
        if row is None:
            raise LookupError(f"user {user_id} does not exist")
        new = update_streak(row.streak)
        # An answer: the next reminder moves to the evening after it (bot/storage/reminders.py),
        # and one recorded but not yet sent is withdrawn.
        remind_at = reminder_of(replace(row, streak=new), self.reminder_rule)
        await db.execute(
            "UPDATE users SET streak_current = ?, streak_best = ?, streak_last_day = ?,"
            " streak_freezes = ?, remind_at = ? WHERE user_id = ?",
            (
                new.current,
                new.best,
                new.last_day.isoformat() if new.last_day else None,
                new.freezes,
                iso(remind_at) if remind_at else None,
                user_id,
            ),
        )
        await withdraw_reminders(db, user_id, "answered before it was sent")
        return new
