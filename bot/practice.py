"""Practice sessions: the steps shared by the Telegram bot and the terminal.

Asking, hinting, skipping and answering each combine core rules (selection, scoring,
streaks) with storage, and are the same whether the user is on Telegram or in a terminal.
No Telegram and no SQL here: handlers and the CLI render what these functions return.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from bot.core.content import Library, Question
from bot.core.levels import Level
from bot.core.models import AnswerRecord, UserProfile
from bot.core.scoring import ScoreResult, score_answer
from bot.core.selection import pick_question
from bot.core.streaks import StreakState, local_day, record_answer
from bot.storage import Storage

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class Asked:
    question: Question
    pack_title: str
    replaced: bool  # an unanswered question was open and is now closed


@dataclass(frozen=True, slots=True)
class Feedback:
    question: Question
    result: ScoreResult
    hints: int
    streak: StreakState


class Practice:
    def __init__(
        self,
        storage: Storage,
        library: Library,
        *,
        default_timezone: str = "UTC",
        clock: Clock = utc_now,
        rng: random.Random | None = None,
    ) -> None:
        self.storage = storage
        self.library = library
        self.default_timezone = default_timezone
        self.clock = clock
        self.rng = rng or random.Random()

    def zone(self, user: UserProfile) -> ZoneInfo:
        return ZoneInfo(user.timezone or self.default_timezone)

    def today(self, user: UserProfile) -> datetime:
        return self.clock().astimezone(self.zone(user))

    async def ask(
        self, chat_id: int, user: UserProfile, level: Level | None, pack: str | None
    ) -> Asked | None:
        """Open a new question for the chat at `level` (or the user's), none repeated early."""
        level = level or user.level or Level.BEGINNER
        pool = self.library.pool(level, pack or user.pack)
        if not pool and pack is None and user.pack:
            pool = self.library.pool(level)  # the saved pack has no such level: use all
        recent = await self.storage.recent_questions(chat_id)
        question = pick_question(pool, recent, self.rng)
        if question is None:
            return None
        previous = await self.storage.get_open_question(chat_id)
        await self.storage.open_question(chat_id, user.user_id, question.id, self.clock())
        pack_id = self.library.pack_of[question.id]
        return Asked(question, self.library.packs[pack_id].title, previous is not None)

    async def open_question(self, chat_id: int) -> tuple[Question, int] | None:
        """The chat's open question and hints used, if it is still in the library."""
        state = await self.storage.get_open_question(chat_id)
        if state is None:
            return None
        question = self.library.question(state.question_id)
        if question is None:  # the pack was removed since: nothing to answer any more
            await self.storage.close_question(chat_id)
            return None
        return question, state.hints

    async def hint(self, chat_id: int) -> tuple[str, int] | None:
        """Reveal the next concept (heaviest first); None when no question or no hints left."""
        open_ = await self.open_question(chat_id)
        if open_ is None:
            return None
        question, used = open_
        ordered = sorted(question.concepts, key=lambda c: -c.weight)
        if used >= len(ordered):
            return None
        count = await self.storage.add_hint(chat_id, question.id)
        if count is None:
            return None
        return ordered[count - 1].label, count

    async def answer(self, chat_id: int, user: UserProfile, text: str) -> Feedback | None:
        """Score `text` against the open question, store it, count the day. None if none open."""
        open_ = await self.open_question(chat_id)
        if open_ is None:
            return None
        question, hints = open_
        result = score_answer(question, text)
        now = self.clock()
        day = local_day(now, self.zone(user))
        record = AnswerRecord(
            user_id=user.user_id,
            chat_id=chat_id,
            question_id=question.id,
            level=question.level,
            answer=text,
            score=result.score,
            covered=result.covered_labels,
            missed=result.missed_labels,
            hints=hints,
            answered_at=now,
            local_day=day.isoformat(),
        )
        streak = await self.storage.record_answer(record, lambda s: record_answer(s, day))
        if streak is None:  # answered twice at once: the first one counted
            return None
        return Feedback(question, result, hints, streak)

    async def close(self, chat_id: int) -> Question | None:
        """Close the open question without scoring (skip or reveal); return it."""
        open_ = await self.open_question(chat_id)
        if open_ is None:
            return None
        await self.storage.close_question(chat_id, open_[0].id)
        return open_[0]
