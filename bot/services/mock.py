"""Mock interviews: starting a run, answering its questions and follow-ups, skipping,
stopping, and the report; shared by the private chat's handlers and the terminal.

An answer to a mock question is an ordinary answer (`Practice.answer`: scored, stored, the
streak and the review card moved in one transaction); the session then moves on in a second
transaction, conditional on the step it was on, so an update handled again after a crash
finds the answer stored and moves the session once. The reference answers are held back
until the report (bot/core/mock.py holds the rules).
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from bot.core.answers import Attempt, attempt_of
from bot.core.content import Question
from bot.core.levels import Level
from bot.core.mock import (
    End,
    FollowUp,
    MockAnswer,
    MockArgs,
    MockEnded,
    MockRow,
    MockRunning,
    MockSession,
    MockStale,
    MockStep,
    MockTurn,
    NoMockQuestions,
    Phase,
    follow_up_of,
    follow_up_question,
    is_stale,
    missed_heaviest_first,
    mock_report,
    over_limit,
    plan_mock,
    question_weight,
    topic_name,
)
from bot.core.models import UserProfile
from bot.core.packs import named
from bot.core.practice import Feedback, NoPacks, OneWord, TooShort
from bot.core.review import WEAK_WINDOW, weak_spots
from bot.services.practice import Practice

if TYPE_CHECKING:
    from bot.core.scoring import ScoreResult


class Mock:
    def __init__(self, practice: Practice) -> None:
        self.practice = practice
        self.storage = practice.storage
        self.library = practice.library

    async def start(
        self, chat_id: int, user: UserProfile, args: MockArgs, lang: str | None
    ) -> MockStep | MockRunning | NoPacks | NoMockQuestions:
        """Plan a session (`plan_mock`) and put its first question; with one running, that
        one's step instead (a stale one is closed first)."""
        running = await self._running(chat_id)
        if running is not None:
            return MockRunning(self._step(running))
        if args.pack is not None:
            pack = named(self.library, args.pack, lang) if lang else args.pack
            packs: tuple[str, ...] = (pack,)
        else:
            drawn = await self.practice.draw_from(chat_id, lang)
            if not drawn.packs:
                return NoPacks(lang or "", drawn.others)
            packs = drawn.packs
        level = args.level or user.level or Level.BEGINNER
        pool = self.library.pool(level, packs=packs)
        if not pool:
            return NoMockQuestions(level)
        recent = await self.storage.recent_answers(user.user_id, WEAK_WINDOW)
        topic_of = self.library.topic_of
        weak = frozenset(
            topic_of.get(spot.label, spot.label)
            for spot in weak_spots(((a.covered, a.missed) for a in recent), topic_of)
        )
        last = await self.storage.last_scores(user.user_id)
        planned = plan_mock(
            pool,
            args.count,
            lambda q: question_weight(q, weak, topic_of, last.get(q.id)),
            self.practice.rng,
            self.library.pack_of,
        )
        ids = [q.id for q in planned]
        now = self.practice.clock()
        started = await self.storage.start_mock(chat_id, user.user_id, ids, args.limit_seconds, now)
        running = await self.storage.running_mock(chat_id)
        if running is None:  # ended between the two (cannot happen in one chat's order)
            return NoMockQuestions(level)
        step = self._step(running)
        if started is None:
            return MockRunning(step)
        closed = self.library.question(started[1]) if started[1] is not None else None
        return replace(step, closed=closed)

    async def current(self, chat_id: int) -> MockStep | None:
        """The step of the session running in the chat (a stale one is closed: None)."""
        running = await self._running(chat_id)
        return self._step(running) if running is not None else None

    async def answer(
        self,
        chat_id: int,
        user: UserProfile,
        text: str,
        update_id: int | None = None,
        *,
        caption: bool = False,
        replied_text: str | None = None,
    ) -> MockAnswer:
        """A message in a private chat: with a session running, its question's or
        follow-up's answer; else (or when it went stale) what `Practice.answer` makes of it.
        The update that moved the session last, handled again after a crash, moves nothing:
        the step the session is on is shown again (`MockRunning`).
        """
        session = await self.storage.running_mock(chat_id)
        if session is not None and update_id is not None and session.last_update == update_id:
            return MockRunning(self._step(session))
        if session is not None and is_stale(session.step_at, self.practice.clock()):
            await self._end(session, End.STALE, close=session.phase is not Phase.QUESTION)
            outcome = await self.practice.answer(
                chat_id, user, text, update_id, caption=caption, replied_text=replied_text
            )
            items = await self.storage.mock_items(session.session_id)
            answered = sum(1 for item in items if item["score"] is not None)
            return MockStale(answered, len(session.questions), outcome)
        if session is not None and session.phase is Phase.FOLLOW_UP:
            return await self._follow_up_answer(session, text, update_id)
        if session is not None:
            # A reply to an earlier question's message answers this one: scored against the
            # one replied to, it would show that reference answer before the report.
            replied_text = None
        outcome = await self.practice.answer(
            chat_id, user, text, update_id, caption=caption, replied_text=replied_text
        )
        if session is None or not isinstance(outcome, Feedback):
            return outcome
        if outcome.question.id != session.question_id:
            return outcome  # not the session's question (cannot be: it is the open one)
        return await self._answered(session, outcome, update_id)

    async def skip(
        self, chat_id: int, update_id: int | None = None
    ) -> MockTurn | MockRunning | None:
        """/skip during a session: its question (0 points) or its follow-up; None when no
        session runs. Handled again after a crash (`update_id` moved it last), the step the
        session is on now is shown again, not skipped too."""
        session = await self._running(chat_id)
        if session is None:
            return None
        if update_id is not None and session.last_update == update_id:
            return MockRunning(self._step(session))
        now = self.practice.clock()
        seconds = self._seconds(session, now)
        if not await self.storage.mock_step(session, now, seconds=seconds, update_id=update_id):
            return await self.skip(chat_id, update_id)  # moved meanwhile: the step it is on
        return await self._turn(session, None, None, seconds)

    async def stop(self, chat_id: int) -> MockEnded | None:
        """/mock stop: the session ended, with the report of what was answered; None when
        none runs."""
        session = await self._running(chat_id)
        if session is None:
            return None
        await self._end(session, End.STOPPED)
        return await self._ended(session.session_id, len(session.questions), End.STOPPED)

    async def reference(self, user_id: int, session_id: int, position: int) -> Question | None:
        """The question at `position` of the user's session, for its reference answer; None
        if it is not theirs, not put yet, or gone from the library."""
        session = await self.storage.mock_session(session_id)
        if session is None or session.user_id != user_id:
            return None
        items = {row["position"]: row for row in await self.storage.mock_items(session_id)}
        if position not in items:
            return None
        return self.library.question(items[position]["question_id"])

    # -- the steps --------------------------------------------------------------------------

    async def _running(self, chat_id: int) -> MockSession | None:
        """The running session, closed first (None) if it went stale."""
        session = await self.storage.running_mock(chat_id)
        if session is not None and is_stale(session.step_at, self.practice.clock()):
            await self._end(session, End.STALE)
            return None
        return session

    async def _end(self, session: MockSession, reason: End, *, close: bool = True) -> None:
        await self.storage.end_mock(session, reason, self.practice.clock(), close=close)

    def _seconds(self, session: MockSession, now: datetime) -> int:
        return max(0, int((now - session.step_at).total_seconds()))

    async def _answered(
        self, session: MockSession, feedback: Feedback, update_id: int | None
    ) -> MockTurn:
        """The session's question answered (`feedback`, stored): one follow-up if a heavy
        concept was missed, else the next question."""
        now = self.practice.clock()
        seconds = self._seconds(session, now)
        result = feedback.result
        follow = follow_up_of(feedback.question, result)
        moved = await self.storage.mock_step(
            session,
            now,
            answer_id=feedback.answer_id,
            score=result.score,
            missed=missed_heaviest_first(feedback.question, result),
            seconds=seconds,
            follow_label=follow.concept.label if follow is not None else None,
            follow_said=follow.mentioned if follow is not None else None,
            update_id=update_id,
        )
        if not moved:  # handled before (a redelivery): the session is where that left it
            current = await self.storage.running_mock(session.chat_id)
            step = self._step(current) if current is not None else None
            ended = None
            if current is None:
                ended = await self._ended(session.session_id, len(session.questions), End.DONE)
            limit = over_limit(seconds, session.limit_seconds)
            return MockTurn(
                session.position, len(session.questions), result, None, seconds, limit, step, ended
            )
        return await self._turn(session, result, None, seconds)

    async def _follow_up_answer(
        self, session: MockSession, text: str, update_id: int | None
    ) -> MockAnswer:
        question = self.library.question(session.question_id)
        label = session.follow_label or ""
        asked = follow_up_question(question, label) if question is not None else None
        attempt = attempt_of(text)
        if asked is not None and attempt in (Attempt.NO_WORDS, Attempt.TOO_SHORT):
            return TooShort(asked)
        if asked is not None and attempt is Attempt.ONE_WORD:
            return OneWord(asked)
        from bot.core.scoring import score_answer  # loaded on the first answer (issue 13)

        coverage = score_answer(asked, text).coverage if asked is not None else 0.0
        now = self.practice.clock()
        seconds = self._seconds(session, now)
        moved = await self.storage.mock_step(
            session, now, score=coverage, seconds=seconds, update_id=update_id
        )
        if not moved:
            current = await self.current(session.chat_id)
            return MockTurn(
                session.position, len(session.questions), None, coverage, seconds,
                over_limit(seconds, session.limit_seconds), current, None,
            )  # fmt: skip
        return await self._turn(session, None, coverage, seconds)

    async def _turn(
        self,
        before: MockSession,
        result: ScoreResult | None,
        follow_score: float | None,
        seconds: int,
    ) -> MockTurn:
        """What follows a step of `before`: the session's next step, or its report."""
        count = len(before.questions)
        limit = over_limit(seconds, before.limit_seconds)
        current = await self.storage.running_mock(before.chat_id)
        if current is None or current.session_id != before.session_id:
            ended = await self._ended(before.session_id, count, End.DONE)
            return MockTurn(
                before.position, count, result, follow_score, seconds, limit, None, ended
            )
        step = self._step(current)
        return MockTurn(before.position, count, result, follow_score, seconds, limit, step, None)

    def _step(self, session: MockSession) -> MockStep:
        question = self.library.question(session.question_id)
        if question is None:  # its pack was removed since: shown as the first one left
            question = next(iter(self.library.questions.values()))
        found = self.library.packs[self.library.pack_of[question.id]]
        follow = None
        if session.phase is Phase.FOLLOW_UP and session.follow_label is not None:
            concept = next((c for c in question.concepts if c.label == session.follow_label), None)
            if concept is not None:
                follow = FollowUp(concept, session.follow_said)
        return MockStep(
            session.session_id,
            session.position,
            len(session.questions),
            question,
            found.title,
            session.limit_seconds,
            follow,
        )

    async def _ended(self, session_id: int, count: int, reason: End) -> MockEnded:
        session = await self.storage.mock_session(session_id)
        rows = []
        for item in await self.storage.mock_items(session_id):
            question = self.library.question(item["question_id"])
            rows.append(
                MockRow(
                    position=item["position"],
                    question_id=item["question_id"],
                    topic=topic_name(question) if question is not None else item["question_id"],
                    score=item["score"],
                    missed=tuple(json.loads(item["missed"])),
                    seconds=item["seconds"],
                    follow_label=item["follow_label"],
                    follow_score=item["follow_score"],
                )
            )
        user_id = session.user_id if session is not None else 0
        previous = await self.storage.previous_mock_total(user_id, session_id)
        limit = session.limit_seconds if session is not None else None
        return MockEnded(session_id, reason, mock_report(rows, count, previous, limit))
