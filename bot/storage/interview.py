"""SQL of the interview date: the plan row per user, the day's quota, the after-question."""

from __future__ import annotations

from datetime import date, datetime

import aiosqlite

from bot.core.interview import InterviewPlan
from bot.core.outbox import Draft
from bot.storage.database import Database, iso
from bot.storage.outbox import insert_draft


def _plan(row: aiosqlite.Row) -> InterviewPlan:
    quota_day = row["quota_day"]
    return InterviewPlan(
        day=date.fromisoformat(row["day"]),
        quota_day=date.fromisoformat(quota_day) if quota_day else None,
        quota=row["quota"],
        asked=row["asked_at"] is not None,
        outcome=row["outcome"],
    )


class InterviewStore(Database):
    async def interview_plan(self, user_id: int) -> InterviewPlan | None:
        rows = await self._near("SELECT * FROM interview_plans WHERE user_id = ?", (user_id,))
        return _plan(rows[0]) if rows else None

    async def set_interview(self, user_id: int, day: date, now: datetime) -> None:
        """Set (or move) the user's interview date: a new plan, its quota read afresh."""
        await self._write(
            "INSERT INTO interview_plans (user_id, day, set_at) VALUES (?, ?, ?)"
            " ON CONFLICT (user_id) DO UPDATE SET day = excluded.day, set_at = excluded.set_at,"
            " quota_day = NULL, quota = NULL, asked_at = NULL, outcome = NULL",
            (user_id, day.isoformat(), iso(now)),
        )

    async def clear_interview(self, user_id: int) -> bool:
        """No interview date any more; False if there was none."""
        return await self._write("DELETE FROM interview_plans WHERE user_id = ?", (user_id,)) > 0

    async def fix_quota(self, user_id: int, day: date, quota: int) -> int:
        """The day's quota: `quota` if none was fixed for `day` yet, else the one fixed first."""
        async with self.transaction() as db:
            await db.execute(
                "UPDATE interview_plans SET quota_day = ?, quota = ?"
                " WHERE user_id = ? AND quota_day IS NOT ?",
                (day.isoformat(), quota, user_id, day.isoformat()),
            )
            async with db.execute(
                "SELECT quota FROM interview_plans WHERE user_id = ?", (user_id,)
            ) as cur:
                row = await cur.fetchone()
        return int(row[0]) if row is not None and row[0] is not None else quota

    async def review_cards(self, user_id: int) -> list[tuple[str, str, datetime, int]]:
        """Every review card of the user: (question id, card JSON, due instant, last rating)."""
        rows = await self._all(
            "SELECT question_id, card, due_at, rating FROM reviews WHERE user_id = ?", (user_id,)
        )
        return [(r[0], r[1], datetime.fromisoformat(r[2]), int(r[3])) for r in rows]

    async def answered_on(self, user_id: int, local_day: str) -> set[str]:
        """The questions the user answered on a local day."""
        rows = await self._all(
            "SELECT DISTINCT question_id FROM answers WHERE user_id = ? AND local_day = ?",
            (user_id, local_day),
        )
        return {r[0] for r in rows}

    async def ask_how_it_went(self, user_id: int, draft: Draft, now: datetime) -> bool:
        """Record "how did it go?" in the outbox, once per interview date (False: asked before)."""
        async with self.transaction() as db:
            cur = await db.execute(
                "UPDATE interview_plans SET asked_at = ? WHERE user_id = ? AND asked_at IS NULL",
                (iso(now), user_id),
            )
            if cur.rowcount == 0:
                return False
            await insert_draft(db, draft, now)
        return True

    async def record_how_it_went(self, user_id: int, day: date, outcome: str) -> bool:
        """The user's tap: how the interview of `day` went; False if that date is not theirs
        any more (cleared, or another set since)."""
        changed = await self._write(
            "UPDATE interview_plans SET outcome = ? WHERE user_id = ? AND day = ?",
            (outcome, user_id, day.isoformat()),
        )
        return changed > 0
