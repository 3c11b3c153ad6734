"""SQL of practice: the open question, answers with their streak and review card, progress."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

import aiosqlite

from bot.core.levels import Level
from bot.core.models import (
    AnswerRecord,
    LevelStats,
    OpenQuestion,
    RecentAnswer,
    ReviewRecord,
    StoredAnswer,
    UserStats,
)
from bot.core.review import ReviewState
from bot.core.streaks import StreakState
from bot.storage.database import iso
from bot.storage.users import UsersStore


class RecordedAnswer(NamedTuple):
    streak: StreakState  # after this answer
    answer_id: int
    review: ReviewState | None  # the card as scheduled by this answer


@dataclass(frozen=True, slots=True)
class ReviewUpdate:
    """How an answer moves its question's review card (FSRS), given the card stored before."""

    schedule: Callable[[str | None], ReviewState]
    rating: int


async def _save_review(
    db: aiosqlite.Connection,
    user_id: int,
    question_id: str,
    state: ReviewState,
    previous_card: str | None,
    answer_id: int,
    reviewed_at: datetime,
    rating: int,
) -> None:
    await db.execute(
        "INSERT INTO reviews (user_id, question_id, card, due_at, previous_card,"
        " last_answer_id, reviewed_at, rating) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (user_id, question_id) DO UPDATE SET card = excluded.card,"
        " due_at = excluded.due_at, previous_card = excluded.previous_card,"
        " last_answer_id = excluded.last_answer_id, reviewed_at = excluded.reviewed_at,"
        " rating = excluded.rating",
        (
            user_id, question_id, state.card, iso(state.due), previous_card, answer_id,
            iso(reviewed_at), rating,
        ),
    )  # fmt: skip


def answer_values(r: AnswerRecord) -> tuple[object, ...]:
    """An answer's columns, in the order every INSERT INTO answers lists them."""
    covered = json.dumps(r.covered, ensure_ascii=False)
    missed = json.dumps(r.missed, ensure_ascii=False)
    partly = json.dumps(r.partly, ensure_ascii=False)
    return (
        r.user_id, r.chat_id, r.question_id, r.level.value, r.answer, r.score, covered,
        missed, partly, r.hints, iso(r.answered_at), r.local_day,
    )  # fmt: skip


def review_from_row(row: aiosqlite.Row) -> ReviewRecord:
    return ReviewRecord(
        user_id=row["user_id"],
        question_id=row["question_id"],
        card=row["card"],
        due_at=datetime.fromisoformat(row["due_at"]),
        previous_card=row["previous_card"],
        last_answer_id=row["last_answer_id"],
        reviewed_at=datetime.fromisoformat(row["reviewed_at"]),
        rating=row["rating"],
    )


def answer_from_row(row: aiosqlite.Row) -> StoredAnswer:
    return StoredAnswer(
        user_id=row["user_id"],
        chat_id=row["chat_id"],
        question_id=row["question_id"],
        level=Level(row["level"]),
        answer=row["answer"],
        score=row["score"],
        covered=json.loads(row["covered"]),
        missed=json.loads(row["missed"]),
        partly=json.loads(row["partly"]),
        hints=row["hints"],
        answered_at=datetime.fromisoformat(row["answered_at"]),
        local_day=row["local_day"],
        answer_id=row["id"],
    )


class PracticeStore(UsersStore):
    async def open_question(
        self, chat_id: int, user_id: int, question_id: str, now: datetime
    ) -> bool:
        """Make `question_id` the chat's open question and log it as asked; True if it
        replaced one still open."""

        async def body(db: aiosqlite.Connection) -> bool:
            before = await db.execute_fetchall(
                "SELECT 1 FROM open_questions WHERE chat_id = ?", (chat_id,)
            )
            await write_open_question(db, chat_id, user_id, question_id, now)
            return bool(list(before))

        return await self.atomic(body)  # one round trip to the database thread

    async def open_question_if(
        self, chat_id: int, user_id: int, question_id: str, now: datetime, current: str | None
    ) -> bool:
        """Make `question_id` the chat's open question only if the open one is still `current`
        (None: none is open), and log it as asked; False, and nothing written, otherwise.

        What the caller read a moment ago decides, not what is open when the write comes: a
        question opened in between (the daily one, a /quiz) is never replaced unseen.
        """

        async def body(db: aiosqlite.Connection) -> bool:
            rows = await db.execute_fetchall(
                "SELECT question_id FROM open_questions WHERE chat_id = ?", (chat_id,)
            )
            found = next(iter(rows), None)
            if (found[0] if found else None) != current:
                return False
            await write_open_question(db, chat_id, user_id, question_id, now)
            return True

        return await self.atomic(body)

    async def get_open_question(self, chat_id: int) -> OpenQuestion | None:
        rows = await self._near("SELECT * FROM open_questions WHERE chat_id = ?", (chat_id,))
        if not rows:
            return None
        row = rows[0]
        return OpenQuestion(
            chat_id=row["chat_id"],
            user_id=row["user_id"],
            question_id=row["question_id"],
            asked_at=datetime.fromisoformat(row["asked_at"]),
            hints=row["hints"],
        )

    async def add_hint(self, chat_id: int, question_id: str) -> int | None:
        """Count one more hint on the open question; None if it is no longer open."""
        async with (
            self.transaction() as db,
            db.execute(
                "UPDATE open_questions SET hints = hints + 1 WHERE chat_id = ? AND question_id = ?"
                " RETURNING hints",
                (chat_id, question_id),
            ) as cur,
        ):
            row = await cur.fetchone()
        return int(row[0]) if row else None

    async def close_question(self, chat_id: int, question_id: str | None = None) -> bool:
        """Close the open question (only if it is still `question_id`, when given)."""
        async with self.transaction() as db:
            if question_id is None:
                cur = await db.execute("DELETE FROM open_questions WHERE chat_id = ?", (chat_id,))
            else:
                cur = await db.execute(
                    "DELETE FROM open_questions WHERE chat_id = ? AND question_id = ?",
                    (chat_id, question_id),
                )
            return cur.rowcount > 0

    async def recent_questions(self, chat_id: int, limit: int = 200) -> list[str]:
        """Question ids asked in a chat, newest first, each once."""
        rows = await self._near(
            "SELECT question_id, MAX(id) AS last FROM asked WHERE chat_id = ?"
            " GROUP BY question_id ORDER BY last DESC LIMIT ?",
            (chat_id, limit),
        )
        return [r["question_id"] for r in rows]

    async def record_answer(
        self,
        record: AnswerRecord,
        update_streak: Callable[[StreakState], StreakState],
        *,
        review: ReviewUpdate | None = None,
        update_id: int | None = None,
    ) -> RecordedAnswer | None:
        """Store an answer, move the streak and the review card in one transaction; None if the
        question closed meanwhile.

        The answer only counts if `record.question_id` is still the chat's open question, and
        closes it: a double-sent answer is scored once. `review` schedules
        the question's card from the one stored before, reviewed at `record.answered_at`.
        `update_id`: the update the answer came in (`answer_of_update` finds it again).
        """

        async def body(db: aiosqlite.Connection) -> RecordedAnswer | None:
            cur = await db.execute(
                "DELETE FROM open_questions WHERE chat_id = ? AND question_id = ?",
                (record.chat_id, record.question_id),
            )
            if cur.rowcount == 0:
                return None
            cur = await db.execute(
                "INSERT INTO answers (user_id, chat_id, question_id, level, answer, score,"
                " covered, missed, partly, hints, answered_at, local_day, update_id)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (*answer_values(record), update_id),
            )
            answer_id = cur.lastrowid
            assert answer_id is not None
            new = await self._move_streak(db, record.user_id, update_streak)
            state = None
            if review is not None:
                rows = await db.execute_fetchall(
                    "SELECT card FROM reviews WHERE user_id = ? AND question_id = ?",
                    (record.user_id, record.question_id),
                )
                row = next(iter(rows), None)
                before = row[0] if row else None
                state = review.schedule(before)
                await _save_review(
                    db, record.user_id, record.question_id, state, before, answer_id,
                    record.answered_at, review.rating,
                )  # fmt: skip
            return RecordedAnswer(new, answer_id, state)

        # Eight statements, one round trip to the database thread (issue 13).
        return await self.atomic(body)

    async def add_answers(self, records: Iterable[AnswerRecord]) -> None:
        """Store past answers in one transaction (imports, benchmarks): no streak, no review."""
        async with self.transaction() as db:
            await db.executemany(
                "INSERT INTO answers (user_id, chat_id, question_id, level, answer, score,"
                " covered, missed, partly, hints, answered_at, local_day)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [answer_values(r) for r in records],
            )

    async def get_review(self, user_id: int, question_id: str) -> ReviewRecord | None:
        row = await self._one(
            "SELECT * FROM reviews WHERE user_id = ? AND question_id = ?", (user_id, question_id)
        )
        return review_from_row(row) if row else None

    async def save_review(
        self,
        user_id: int,
        question_id: str,
        *,
        card: str,
        due: datetime,
        previous_card: str | None,
        answer_id: int,
        reviewed_at: datetime,
        rating: int,
    ) -> None:
        async with self.transaction() as db:
            await _save_review(
                db, user_id, question_id, ReviewState(card, due), previous_card, answer_id,
                reviewed_at, rating,
            )  # fmt: skip

    async def due_reviews(self, user_id: int, now: datetime) -> list[str]:
        """Question ids whose review is due, most overdue first."""
        rows = await self._near(
            "SELECT question_id FROM reviews WHERE user_id = ? AND due_at <= ? ORDER BY due_at",
            (user_id, iso(now)),
        )
        return [r[0] for r in rows]

    async def claim_level_done_note(self, user_id: int, level: Level, now: datetime) -> bool:
        """True the first time the user is to be told every question at `level` was
        answered; False ever after (once per user and level)."""
        changed = await self._write(
            "INSERT OR IGNORE INTO level_done_notes (user_id, level, told_at) VALUES (?, ?, ?)",
            (user_id, level.value, iso(now)),
        )
        return changed > 0

    async def answered_questions(self, user_id: int) -> set[str]:
        rows = await self._near(
            "SELECT DISTINCT question_id FROM answers WHERE user_id = ?", (user_id,)
        )
        return {r[0] for r in rows}

    async def recent_answers(self, user_id: int, limit: int = 50) -> list[RecentAnswer]:
        """Newest first: level, score, covered and missed labels."""
        rows = await self._near(
            "SELECT level, score, covered, missed FROM answers WHERE user_id = ?"
            " ORDER BY answered_at DESC, id DESC LIMIT ?",
            (user_id, limit),
        )
        return [
            RecentAnswer(
                Level(r["level"]), r["score"], json.loads(r["covered"]), json.loads(r["missed"])
            )
            for r in rows
        ]

    async def answers_per_day(self, user_id: int, since_day: str) -> dict[str, tuple[int, float]]:
        """Local day -> (answers, sum of their scores), from `since_day` on."""
        rows = await self._all(
            "SELECT local_day, COUNT(*), SUM(score) FROM answers"
            " WHERE user_id = ? AND local_day >= ? GROUP BY local_day",
            (user_id, since_day),
        )
        return {r[0]: (r[1], r[2]) for r in rows}

    async def user_stats(self, user_id: int) -> UserStats:
        """Answers, distinct questions and per-level averages: one pass over an index.

        Grouped by level and question, so the rows returned are bounded by the question bank,
        not by how many answers the user has written.
        """
        rows = await self._all(
            "SELECT level, question_id, COUNT(*) AS n, SUM(score) AS total FROM answers"
            " WHERE user_id = ? GROUP BY level, question_id",
            (user_id,),
        )
        counts: dict[str, int] = {}
        sums: dict[str, float] = {}
        for r in rows:
            counts[r["level"]] = counts.get(r["level"], 0) + r["n"]
            sums[r["level"]] = sums.get(r["level"], 0.0) + r["total"]
        return UserStats(
            answers=sum(counts.values()),
            questions=len({r["question_id"] for r in rows}),
            by_level=[
                LevelStats(lv, counts[lv.value], sums[lv.value] / counts[lv.value])
                for lv in Level
                if lv.value in counts
            ],
        )

    async def answer(self, answer_id: int) -> StoredAnswer | None:
        row = await self._one("SELECT * FROM answers WHERE id = ?", (answer_id,))
        return answer_from_row(row) if row else None

    async def answer_of_update(self, update_id: int) -> StoredAnswer | None:
        """The answer that came in update `update_id`, if one was stored."""
        rows = await self._near("SELECT * FROM answers WHERE update_id = ?", (update_id,))
        return answer_from_row(rows[0]) if rows else None

    async def answers_for(self, user_id: int) -> list[StoredAnswer]:
        """A user's answers, oldest first (for export)."""
        rows = await self._all(
            "SELECT * FROM answers WHERE user_id = ? ORDER BY answered_at, id", (user_id,)
        )
        return [answer_from_row(r) for r in rows]


async def write_open_question(
    db: aiosqlite.Connection, chat_id: int, user_id: int, question_id: str, now: datetime
) -> None:
    """Make `question_id` the chat's open question (hints back to 0) and log it as asked."""
    await db.execute(
        "INSERT INTO open_questions (chat_id, user_id, question_id, asked_at, hints)"
        " VALUES (?, ?, ?, ?, 0) ON CONFLICT (chat_id) DO UPDATE SET"
        " user_id = excluded.user_id, question_id = excluded.question_id,"
        " asked_at = excluded.asked_at, hints = 0",
        (chat_id, user_id, question_id, iso(now)),
    )
    await db.execute(
        "INSERT OR REPLACE INTO asked (chat_id, question_id, asked_at) VALUES (?, ?, ?)",
        (chat_id, question_id, iso(now)),
    )
