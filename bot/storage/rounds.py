"""SQL of group rounds: opening, answers (the latest counts), closing, the leaderboard."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from datetime import date, datetime

import aiosqlite

from bot.core.levels import Level
from bot.core.models import (
    LeaderboardRow,
    RoundAnswer,
    RoundRecord,
)
from bot.core.outbox import Draft
from bot.core.streaks import StreakState
from bot.storage.database import iso
from bot.storage.outbox import insert_draft
from bot.storage.users import UsersStore


def round_from_row(row: aiosqlite.Row) -> RoundRecord:
    return RoundRecord(
        round_id=row["id"],
        chat_id=row["chat_id"],
        question_id=row["question_id"],
        message_id=row["message_id"],
        opened_by=row["opened_by"],
        opened_at=datetime.fromisoformat(row["opened_at"]),
        closes_at=datetime.fromisoformat(row["closes_at"]),
        closed_at=datetime.fromisoformat(row["closed_at"]) if row["closed_at"] else None,
        daily=bool(row["daily"]),
    )


class RoundsStore(UsersStore):
    async def open_round(
        self,
        chat_id: int,
        question_id: str,
        opened_by: int | None,
        now: datetime,
        closes: datetime,
        *,
        daily: bool,
    ) -> int | None:
        """Open a round; None if the group already has one open."""
        async with self.transaction() as db:
            try:
                cur = await db.execute(
                    "INSERT INTO rounds (chat_id, question_id, opened_by, opened_at,"
                    " closes_at, daily) VALUES (?, ?, ?, ?, ?, ?)",
                    (chat_id, question_id, opened_by, iso(now), iso(closes), int(daily)),
                )
            except sqlite3.IntegrityError:
                return None
            await db.execute(
                "INSERT OR REPLACE INTO asked (chat_id, question_id, asked_at) VALUES (?, ?, ?)",
                (chat_id, question_id, iso(now)),
            )
            return cur.lastrowid

    async def set_round_message(self, round_id: int, message_id: int) -> None:
        await self._write("UPDATE rounds SET message_id = ? WHERE id = ?", (message_id, round_id))

    async def cancel_round(self, round_id: int) -> None:
        """The question could not be posted: the round never happened."""
        async with self.transaction() as db:
            await db.execute("DELETE FROM rounds WHERE id = ?", (round_id,))

    async def open_round_of(self, chat_id: int) -> RoundRecord | None:
        row = await self._one(
            "SELECT * FROM rounds WHERE chat_id = ? AND closed_at IS NULL", (chat_id,)
        )
        return round_from_row(row) if row else None

    async def round_by_message(self, chat_id: int, message_id: int) -> RoundRecord | None:
        row = await self._one(
            "SELECT * FROM rounds WHERE chat_id = ? AND message_id = ?", (chat_id, message_id)
        )
        return round_from_row(row) if row else None

    async def record_round_answer(
        self,
        round_id: int,
        *,
        user_id: int,
        first_name: str,
        message_id: int,
        answer: str,
        score: float,
        covered: list[str],
        missed: list[str],
        now: datetime,
        local_day: str,
        update_streak: Callable[[StreakState], StreakState],
        feedback: Callable[[StreakState], Draft | None] | None = None,
        partly: Sequence[str] = (),  # credited in part (also in `missed`)
    ) -> StreakState | None:
        """Keep the member's latest answer while the round is open; None if nothing was stored.

        A later message, or an edit of the current one, replaces the answer; an edit of an
        older message does not (None: the round closed, or the edit was of a replaced answer).
        The member's personal streak counts the day. `feedback` drafts the member's private
        feedback, recorded with the answer (so a crash cannot keep one without the other).
        """
        async with self.transaction() as db:
            # One round trip to the database thread (a cursor's execute, fetch and close: 3).
            rows = await db.execute_fetchall(
                "SELECT closed_at FROM rounds WHERE id = ?", (round_id,)
            )
            row = next(iter(rows), None)
            if row is None or row[0] is not None:
                return None
            cursor = await db.execute(
                "INSERT INTO round_answers (round_id, user_id, first_name, message_id, answer,"
                " score, covered, missed, partly, answered_at, local_day)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (round_id, user_id) DO UPDATE SET"
                " first_name = excluded.first_name, message_id = excluded.message_id,"
                " answer = excluded.answer, score = excluded.score, covered = excluded.covered,"
                " missed = excluded.missed, partly = excluded.partly,"
                " answered_at = excluded.answered_at"
                " WHERE excluded.message_id >= round_answers.message_id",
                (
                    round_id,
                    user_id,
                    first_name[:64],
                    message_id,
                    answer,
                    score,
                    json.dumps(covered, ensure_ascii=False),
                    json.dumps(missed, ensure_ascii=False),
                    json.dumps(list(partly), ensure_ascii=False),
                    iso(now),
                    local_day,
                ),
            )
            if cursor.rowcount == 0:  # an edit of an answer a later message replaced
                return None
            streak = await self._move_streak(db, user_id, update_streak)
            draft = feedback(streak) if feedback is not None else None
            if draft is not None:
                await insert_draft(db, draft, now)
            return streak

    async def close_round(
        self,
        round_id: int,
        now: datetime,
        level: Level,
        announce: Callable[[list[RoundAnswer]], Draft | None] | None = None,
    ) -> list[RoundAnswer] | None:
        """Close the round (once: None if someone else closed it) and return its answers.

        Each member's final answer also goes into the answer history. `announce` drafts the
        ranking, recorded in the same transaction: a closed round always owes its results.
        """
        async with self.transaction() as db:
            cur = await db.execute(
                "UPDATE rounds SET closed_at = ? WHERE id = ? AND closed_at IS NULL",
                (iso(now), round_id),
            )
            if cur.rowcount == 0:
                return None
            async with db.execute(
                "SELECT ra.*, r.chat_id, r.question_id FROM round_answers ra"
                " JOIN rounds r ON r.id = ra.round_id WHERE ra.round_id = ?",
                (round_id,),
            ) as cur:
                rows = list(await cur.fetchall())
            for r in rows:
                await db.execute(
                    "INSERT INTO answers (user_id, chat_id, question_id, level, answer, score,"
                    " covered, missed, partly, hints, answered_at, local_day)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)",
                    (
                        r["user_id"],
                        r["chat_id"],
                        r["question_id"],
                        level.value,
                        r["answer"],
                        r["score"],
                        r["covered"],
                        r["missed"],
                        r["partly"],
                        r["answered_at"],
                        r["local_day"],
                    ),
                )
            # The all-time leaderboard's running totals move in the same transaction.
            await db.execute(
                "INSERT INTO group_totals (chat_id, user_id, first_name, total, answers)"
                " SELECT r.chat_id, ra.user_id, ra.first_name, ra.score, 1"
                " FROM round_answers ra JOIN rounds r ON r.id = ra.round_id"
                " WHERE ra.round_id = ?"
                " ON CONFLICT (chat_id, user_id) DO UPDATE SET"
                " first_name = excluded.first_name, total = group_totals.total + excluded.total,"
                " answers = group_totals.answers + 1",
                (round_id,),
            )
            answers = [
                RoundAnswer(
                    user_id=r["user_id"],
                    first_name=r["first_name"],
                    score=r["score"],
                    covered=json.loads(r["covered"]),
                    missed=json.loads(r["missed"]),
                    answered_at=datetime.fromisoformat(r["answered_at"]),
                    partly=json.loads(r["partly"]),
                )
                for r in rows
            ]
            draft = announce(answers) if announce is not None else None
            if draft is not None:
                await insert_draft(db, draft, now)
        return answers

    async def due_rounds(self, now: datetime) -> list[RoundRecord]:
        rows = await self._all(
            "SELECT * FROM rounds WHERE closed_at IS NULL AND closes_at <= ? ORDER BY closes_at",
            (iso(now),),
        )
        return [round_from_row(r) for r in rows]

    async def leaderboard(
        self, chat_id: int, since: datetime | None, limit: int = 10
    ) -> list[LeaderboardRow]:
        """Members by points (score x 100 per closed round), then answers; `since` = this week.

        All time (`since` None) reads the running totals; a week reads that week's rounds.
        """
        if since is None:
            rows = await self._all(
                "SELECT g.user_id, g.first_name AS name, g.total, g.answers AS n,"
                " u.streak_current, u.streak_last_day, u.streak_freezes"
                " FROM group_totals g LEFT JOIN users u ON u.user_id = g.user_id"
                " WHERE g.chat_id = ? ORDER BY g.total DESC, g.answers DESC, g.user_id LIMIT ?",
                (chat_id, limit),
            )
        else:
            rows = await self._all(
                "SELECT ra.user_id, MAX(ra.first_name) AS name, SUM(ra.score) AS total,"
                " COUNT(*) AS n, u.streak_current, u.streak_last_day, u.streak_freezes"
                " FROM rounds r JOIN round_answers ra ON ra.round_id = r.id"
                " LEFT JOIN users u ON u.user_id = ra.user_id"
                " WHERE r.chat_id = ? AND r.closed_at >= ?"
                " GROUP BY ra.user_id, u.streak_current, u.streak_last_day, u.streak_freezes"
                " ORDER BY total DESC, n DESC, ra.user_id LIMIT ?",
                (chat_id, iso(since), limit),
            )
        return [
            LeaderboardRow(
                user_id=r["user_id"],
                first_name=r["name"],
                total_score=r["total"],
                answers=r["n"],
                streak=StreakState(
                    current=r["streak_current"] or 0,
                    last_day=date.fromisoformat(r["streak_last_day"])
                    if r["streak_last_day"]
                    else None,
                    freezes=r["streak_freezes"] or 0,
                ),
            )
            for r in rows
        ]
