"""SQL of mock interviews: the running session per chat, its steps, its items, past totals.

Each step is one transaction, conditional on the step the caller read (position and
phase): an answer handled twice (a redelivery after a crash) or two messages at once move
the session once. Opening the next question happens in the same transaction, so a restart
finds the session and the chat's open question in step.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

import aiosqlite

from bot.core.mock import End, MockSession, Phase
from bot.storage.database import iso
from bot.storage.practice import write_open_question
from bot.storage.users import UsersStore


def _session(row: aiosqlite.Row) -> MockSession:
    return MockSession(
        session_id=row["id"],
        chat_id=row["chat_id"],
        user_id=row["user_id"],
        questions=tuple(json.loads(row["questions"])),
        position=row["position"],
        phase=Phase(row["phase"]),
        follow_label=row["follow_label"],
        follow_said=row["follow_said"],
        limit_seconds=row["limit_seconds"],
        started_at=datetime.fromisoformat(row["started_at"]),
        step_at=datetime.fromisoformat(row["step_at"]),
        last_update=row["last_update"],
    )


class MockStore(UsersStore):
    async def start_mock(
        self,
        chat_id: int,
        user_id: int,
        questions: Sequence[str],
        limit_seconds: int | None,
        now: datetime,
    ) -> tuple[int, str | None] | None:
        """Start a session and open its first question, replacing any open one: the
        session's id and the question closed (None: none was open); None, and nothing
        written, if one runs in the chat already."""

        async def body(db: aiosqlite.Connection) -> tuple[int, str | None] | None:
            running = await db.execute_fetchall(
                "SELECT 1 FROM mock_sessions WHERE chat_id = ? AND ended_at IS NULL", (chat_id,)
            )
            if list(running):
                return None
            left = await db.execute_fetchall(
                "SELECT question_id FROM open_questions WHERE chat_id = ?", (chat_id,)
            )
            closed = next((row[0] for row in left), None)
            cur = await db.execute(
                "INSERT INTO mock_sessions (chat_id, user_id, questions, limit_seconds,"
                " started_at, step_at) VALUES (?, ?, ?, ?, ?, ?)",
                (chat_id, user_id, json.dumps(list(questions)), limit_seconds, iso(now), iso(now)),
            )
            await write_open_question(db, chat_id, user_id, questions[0], now)
            assert cur.lastrowid is not None
            return cur.lastrowid, closed

        return await self.atomic(body)

    async def running_mock(self, chat_id: int) -> MockSession | None:
        rows = await self._near(
            "SELECT * FROM mock_sessions WHERE chat_id = ? AND ended_at IS NULL", (chat_id,)
        )
        return _session(rows[0]) if rows else None

    async def mock_session(self, session_id: int) -> MockSession | None:
        rows = await self._near("SELECT * FROM mock_sessions WHERE id = ?", (session_id,))
        return _session(rows[0]) if rows else None

    async def mock_step(
        self,
        session: MockSession,
        now: datetime,
        *,
        answer_id: int | None = None,
        score: float | None = None,
        missed: Sequence[str] = (),
        seconds: int | None = None,
        follow_label: str | None = None,
        follow_said: str | None = None,
        update_id: int | None = None,
    ) -> bool:
        """Record the step `session` was on and move it on, in one transaction: on its
        question, the answer (`score` None: skipped, and the question closed), then the
        follow-up on `follow_label` if given, else the next question opened (or the session
        done); on a follow-up, its score (None: skipped), then the next question. False, and
        nothing written, if the session moved or ended since it was read. `update_id`: the
        update of the step, kept (handled again after a crash, it is known)."""

        async def body(db: aiosqlite.Connection) -> bool:
            cur = await db.execute(
                "UPDATE mock_sessions SET step_at = ?, last_update = ? WHERE id = ?"
                " AND position = ? AND phase = ? AND ended_at IS NULL",
                (iso(now), update_id, session.session_id, session.position, session.phase.value),
            )
            if cur.rowcount == 0:
                return False
            sid, pos = session.session_id, session.position
            if session.phase is Phase.QUESTION:
                await db.execute(
                    "INSERT OR REPLACE INTO mock_items (session_id, position, question_id,"
                    " answer_id, score, missed, seconds, follow_label)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        sid, pos, session.question_id, answer_id, score,
                        json.dumps(list(missed), ensure_ascii=False), seconds, follow_label,
                    ),
                )  # fmt: skip
                if score is None:  # skipped: the question closes unanswered
                    await db.execute(
                        "DELETE FROM open_questions WHERE chat_id = ? AND question_id = ?",
                        (session.chat_id, session.question_id),
                    )
                if follow_label is not None:
                    await db.execute(
                        "UPDATE mock_sessions SET phase = ?, follow_label = ?, follow_said = ?"
                        " WHERE id = ?",
                        (Phase.FOLLOW_UP.value, follow_label, follow_said, sid),
                    )
                    return True
            else:
                await db.execute(
                    "UPDATE mock_items SET follow_score = ?, follow_seconds = ?"
                    " WHERE session_id = ? AND position = ?",
                    (score, seconds, sid, pos),
                )
            await _next_question(db, session, now)
            return True

        return await self.atomic(body)

    async def end_mock(
        self, session: MockSession, reason: End, now: datetime, *, close: bool = True
    ) -> bool:
        """End a running session (`close`: closing its question if still open, and still
        the session's: one opened since, the daily question that waited, stays); False if
        it had ended already."""

        async def body(db: aiosqlite.Connection) -> bool:
            cur = await db.execute(
                "UPDATE mock_sessions SET ended_at = ?, end_reason = ?"
                " WHERE id = ? AND ended_at IS NULL",
                (iso(now), reason.value, session.session_id),
            )
            if cur.rowcount == 0:
                return False
            if close:
                # The session's question was opened at its last step, not after.
                await db.execute(
                    "DELETE FROM open_questions WHERE chat_id = ? AND question_id = ?"
                    " AND asked_at <= ?",
                    (session.chat_id, session.question_id, iso(session.step_at)),
                )
            return True

        return await self.atomic(body)

    async def mock_items(self, session_id: int) -> list[aiosqlite.Row]:
        """The items of a session, in order."""
        return await self._near(
            "SELECT * FROM mock_items WHERE session_id = ? ORDER BY position", (session_id,)
        )

    async def previous_mock_total(self, user_id: int, before: int) -> float | None:
        """The total of the user's last session before `before` with an answer in it (a
        skipped question counts 0); None if there was none."""
        rows = await self._near(
            "SELECT s.id, AVG(COALESCE(i.score, 0)) AS total, COUNT(i.score) AS answered"
            " FROM mock_sessions s JOIN mock_items i ON i.session_id = s.id"
            " WHERE s.user_id = ? AND s.id < ? GROUP BY s.id HAVING answered > 0"
            " ORDER BY s.id DESC LIMIT 1",
            (user_id, before),
        )
        return float(rows[0]["total"]) if rows else None

    async def last_scores(self, user_id: int) -> dict[str, float]:
        """Each question the user answered, with the score of their latest answer to it."""
        rows = await self._near(
            "SELECT question_id, score FROM answers WHERE user_id = ? ORDER BY answered_at, id",
            (user_id,),
        )
        return {r["question_id"]: r["score"] for r in rows}


async def _next_question(db: aiosqlite.Connection, session: MockSession, now: datetime) -> None:
    """Put the session's next question (opened as the chat's question), or end it, done."""
    nxt = session.position + 1
    if nxt >= len(session.questions):
        await db.execute(
            "UPDATE mock_sessions SET ended_at = ?, end_reason = ?, phase = ?,"
            " follow_label = NULL, follow_said = NULL WHERE id = ?",
            (iso(now), End.DONE.value, Phase.QUESTION.value, session.session_id),
        )
        return
    await db.execute(
        "UPDATE mock_sessions SET position = ?, phase = ?, follow_label = NULL,"
        " follow_said = NULL WHERE id = ?",
        (nxt, Phase.QUESTION.value, session.session_id),
    )
    await write_open_question(db, session.chat_id, session.user_id, session.questions[nxt], now)
