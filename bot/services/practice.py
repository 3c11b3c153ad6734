"""Practice: the steps shared by the Telegram bot, the terminal and group rounds.

Asking, hinting, skipping and answering each combine core rules (selection, scoring,
streaks) with storage, and are the same whether the user is on Telegram or in a terminal.
No Telegram and no SQL here: handlers and the CLI render what these functions return.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, date, datetime
from types import EllipsisType
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from bot.core.answers import attempt_of
from bot.core.content import Concept, Library, Question
from bot.core.levels import Level
from bot.core.models import AnswerRecord, StoredAnswer, UserProfile
from bot.core.outbox import Draft
from bot.core.packs import Drawn, draw_from, named
from bot.core.practice import (
    AnswerOutcome,
    Asked,
    Feedback,
    NoPacks,
    NothingOpen,
    NotText,
    OneWord,
    Progress,
    ReplyToClosedQuestion,
    Route,
    StillOpen,
    TooShort,
    route_answer,
)
from bot.core.progress import bank_progress, score_trend, weekly_scores
from bot.core.review import (
    LEVEL_UP_ANSWERS,
    OVERRIDES,
    WEAK_WINDOW,
    ReviewState,
    level_up,
    rating_for,
    review,
    weak_spots,
)
from bot.core.selection import pick_question
from bot.core.streaks import StreakState, at_risk, local_day, record_answer, visible_streak
from bot.core.timezones import zone_of
from bot.storage import Storage
from bot.storage.practice import ReviewUpdate

if TYPE_CHECKING:
    from bot.core.scoring import ScoreResult

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


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
        return ZoneInfo(zone_of(self.default_timezone, user=user))

    def today(self, user: UserProfile) -> datetime:
        return self.clock().astimezone(self.zone(user))

    async def draw_from(self, chat_id: int, lang: str | None) -> Drawn:
        """The packs the chat's questions come from (bot/core/packs.py): every way of
        asking without naming a pack (/quiz, the daily question, reviews; mock sessions
        later) asks this. `lang` None (no user's language): every pack followed, else all."""
        followed = await self.storage.followed_packs(chat_id)
        if lang is None:
            kept = tuple(p for p in followed if p in self.library.offered)
            return Drawn(kept or tuple(self.library.offered))
        return draw_from(self.library, followed, lang)

    async def ask(
        self,
        chat_id: int,
        user: UserProfile,
        level: Level | None,
        pack: str | None,
        lang: str | None = None,
        *,
        replacing: str | EllipsisType | None = ...,
    ) -> Asked | NoPacks | None:
        """Open the next question for the chat and log it.

        From `pack` (in `lang` where it has a translation), else from the packs `draw_from`
        names; with none of those, nothing is opened: `NoPacks`. Without an explicit level,
        a due review comes first (most overdue), then a question never answered at the
        user's level; with a level, a question at that level. Either way nothing is repeated
        while unasked questions remain. With packs in several languages, those in `lang`
        (the user's interface language) come first.

        `replacing`: the question the caller saw open (None: none), opened over only if it
        is still the open one, else None is returned and nothing opened; `...`: any.
        """
        chosen = await self.choose(chat_id, user, level, pack, lang)
        if isinstance(chosen, NoPacks):
            return chosen
        if chosen is None:
            return None
        question, exhausted = chosen
        asked = await self.ask_question(
            chat_id, user, question, exhausted=exhausted, replacing=replacing
        )
        if asked is None:
            return None
        return await self.level_done_note(user, asked)

    async def choose(
        self,
        chat_id: int,
        user: UserProfile,
        level: Level | None,
        pack: str | None,
        lang: str | None = None,
    ) -> tuple[Question, bool] | NoPacks | None:
        """The question `ask` would open (nothing written), and whether every question at
        its level was answered already; None if none fits, `NoPacks` if no pack is followed
        and none is in `lang`.

        From `pack` (in `lang` where it has a translation), else from the packs `draw_from`
        names."""
        if pack is not None:
            packs: tuple[str, ...] = (named(self.library, pack, lang) if lang else pack,)
        else:
            drawn = await self.draw_from(chat_id, lang)
            if not drawn.packs:
                return NoPacks(lang or "", drawn.others)
            packs = drawn.packs
        question = None if level else await self._due_review(user, packs)
        exhausted = False
        if question is None:
            wanted = level or user.level or Level.BEGINNER
            question, exhausted = await self._fresh(chat_id, user, wanted, packs, lang)
        return None if question is None else (question, exhausted)

    async def level_done_note(self, user: UserProfile, asked: Asked) -> Asked:
        """`asked`, with the note that its level is all answered if the user was not told
        yet: said once per user and level, not under every repeat after."""
        if not asked.exhausted:
            return asked
        told = await self.storage.claim_level_done_note(
            user.user_id, asked.question.level, self.clock()
        )
        return replace(asked, level_done_note=told)

    def asked(self, question: Question, *, exhausted: bool = False) -> Asked:
        """`question` as it is shown when asked (nothing written)."""
        found = self.library.packs[self.library.pack_of[question.id]]
        return Asked(question, found.title, False, found.language, exhausted)

    async def first_of(self, pack_id: str, user: UserProfile, lang: str | None) -> Question:
        """A pack's first question (in `lang` where it has a translation) the user has not
        answered, in file order; its very first once all are answered (a pack's link)."""
        pid = named(self.library, pack_id, lang) if lang else pack_id
        questions = self.library.packs[pid].questions
        answered = await self.storage.answered_questions(user.user_id)
        return next((q for q in questions if q.id not in answered), questions[0])

    async def ask_unless_open(
        self,
        chat_id: int,
        user: UserProfile,
        level: Level | None,
        pack: str | None,
        lang: str | None = None,
    ) -> Asked | StillOpen | NoPacks | None:
        """`ask`, unless a question is open: then that one stays open and is returned, to
        be shown again (a new question never silently replaces an open one)."""
        if (kept := await self.still_open(chat_id)) is not None:
            return kept
        asked = await self.ask(chat_id, user, level, pack, lang, replacing=None)
        return asked if asked is not None else await self.still_open(chat_id)

    async def asked_again(self, chat_id: int) -> Asked | None:
        """The chat's open question as if just asked (nothing written): a prompt that opened
        it, then stopped before it was recorded (a crash), sends that question."""
        kept = await self.still_open(chat_id)
        if kept is None:
            return None
        return Asked(kept.question, kept.pack_title, False, kept.pack_language)

    async def still_open(self, chat_id: int) -> StillOpen | None:
        """The chat's open question, as it is shown again."""
        open_ = await self.open_question(chat_id)
        if open_ is None:
            return None
        question = open_[0]
        found = self.library.packs[self.library.pack_of[question.id]]
        return StillOpen(question, found.title, found.language)

    async def ask_question(
        self,
        chat_id: int,
        user: UserProfile,
        question: Question,
        *,
        exhausted: bool = False,
        replacing: str | EllipsisType | None = ...,
    ) -> Asked | None:
        """Open this question for the chat (a shared link, or the one `ask` chose); see
        `ask` for `replacing`."""
        now = self.clock()
        closed = None
        if replacing is ...:
            replaced = await self.storage.open_question(chat_id, user.user_id, question.id, now)
        else:
            uid = user.user_id
            if not await self.storage.open_question_if(chat_id, uid, question.id, now, replacing):
                return None
            replaced = replacing is not None
            closed = self.library.question(replacing) if replacing is not None else None
        found = self.library.packs[self.library.pack_of[question.id]]
        return Asked(question, found.title, replaced, found.language, exhausted, closed=closed)

    async def open_shared(
        self, chat_id: int, user: UserProfile, question: Question
    ) -> Asked | StillOpen:
        """Open a shared question (a `/start q_<id>` link), unless another question is open:
        that one stays open and is returned, to be shown with a choice (a new question
        never silently replaces an open one). The same question open is shown again."""
        while True:
            kept = await self.still_open(chat_id)
            if kept is not None and kept.question.id != question.id:
                return kept
            if kept is not None:
                return Asked(kept.question, kept.pack_title, False, kept.pack_language)
            asked = await self.ask_question(chat_id, user, question, replacing=None)
            if asked is not None:
                return asked
            # A question was opened between the read and the write: look again.

    async def _due_review(self, user: UserProfile, packs: tuple[str, ...]) -> Question | None:
        """The most overdue review among the questions of `packs`."""
        for question_id in await self.storage.due_reviews(user.user_id, self.clock()):
            question = self.library.question(question_id)
            if question is not None and self.library.pack_of[question_id] in packs:
                return question
        return None

    async def _fresh(
        self,
        chat_id: int,
        user: UserProfile,
        level: Level,
        packs: tuple[str, ...],
        lang: str | None,
    ) -> tuple[Question | None, bool]:
        """A question of `packs` not answered yet at `level`; else a repeat, with True (all
        answered). Questions in `lang` first, among the unanswered and among the repeats
        alike."""
        pool = self.library.pool(level, packs=packs)
        answered = await self.storage.answered_questions(user.user_id)
        unseen = [q for q in pool if q.id not in answered]
        recent = await self.storage.recent_questions(chat_id)
        choices = unseen or pool
        # Questions in the user's language first, as long as one was not asked lately (one
        # skipped comes back after the others, not at once).
        asked_lately = set(recent)
        own = [
            q
            for q in choices
            if self.library.language_of(q.id) == lang and q.id not in asked_lately
        ]
        return pick_question(own or choices, recent, self.rng), bool(pool) and not unseen

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

    def question_shown_in(self, text: str) -> Question | None:
        """The question a message of the bot's shows (one a user replied to): the one whose
        text it holds, the longest if several do; None for any other message."""
        shown = [q for q in self.library.questions.values() if q.question and q.question in text]
        return max(shown, key=lambda q: len(q.question), default=None)

    def score_only(self, question: Question, text: str) -> tuple[ScoreResult, bool]:
        """An answer's score against a question that is not open: shown, never recorded;
        and whether the answer only names terms (see `Feedback.bare_list`)."""
        from bot.core.feedback import is_bare_list
        from bot.core.scoring import score_answer  # loaded on the first answer (issue 13)

        result = score_answer(question, text)
        return result, is_bare_list(text, result)

    async def open_question_id(self, chat_id: int) -> str | None:
        """The id of the chat's open question (a button under another one is stale)."""
        state = await self.storage.get_open_question(chat_id)
        return state.question_id if state is not None else None

    async def history(self, user_id: int) -> list[StoredAnswer]:
        """Every answer the user gave, for /export."""
        return await self.storage.answers_for(user_id)

    async def hint(self, chat_id: int) -> tuple[Concept, int] | None:
        """The next concept to hint at (heaviest first) and the hints used with it; None when
        no question is open or no hints are left."""
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
        return ordered[count - 1], count

    async def answer(
        self,
        chat_id: int,
        user: UserProfile,
        text: str,
        update_id: int | None = None,
        *,
        caption: bool = False,
        replied_text: str | None = None,
    ) -> AnswerOutcome:
        """What becomes of `text` sent as an answer (`route_answer` decides): scored against
        the open question, stored and the day counted (`Feedback`), or one of the outcomes
        that leave the question open.

        `caption`: the text came with a photo or file; `replied_text`: the text of the bot's
        message the answer replies to (an answer to a question closed since is scored against
        that question, and not recorded). `update_id`: the update the answer came in. Handled
        again after a crash (the inbox, bot/handlers/updates.py), an answer stored the first
        time is not scored again: its feedback is given again, as it was (the scoring is
        pure), with the streak as it is.
        """
        if update_id is not None:
            stored_before = await self.storage.answer_of_update(update_id)
            if stored_before is not None:
                again = await self._feedback_again(user, stored_before)
                return again if again is not None else NothingOpen()
        open_ = await self.open_question(chat_id)
        replied = self.question_shown_in(replied_text) if replied_text else None
        route = route_answer(
            attempt_of(text),
            caption=caption,
            open_id=open_[0].id if open_ is not None else None,
            replied_id=replied.id if replied is not None else None,
        )
        if route is Route.CLOSED_QUESTION:
            assert replied is not None
            result, bare = self.score_only(replied, text)
            return ReplyToClosedQuestion(replied, result, bare)
        if route is Route.NOT_TEXT:
            return NotText()
        if route is Route.NOTHING_OPEN or open_ is None:
            return NothingOpen()
        question, hints = open_
        if route is Route.TOO_SHORT:
            return TooShort(question)
        if route is Route.ONE_WORD:
            return OneWord(question)
        return await self._score(chat_id, user, question, hints, text, update_id)

    async def _score(
        self,
        chat_id: int,
        user: UserProfile,
        question: Question,
        hints: int,
        text: str,
        update_id: int | None,
    ) -> Feedback | NothingOpen:
        """Score `text` against the open `question`, store it, count the day."""
        from bot.core.scoring import score_answer  # loaded on the first answer (issue 13)

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
            partly=result.partly_labels,
            hints=hints,
            answered_at=now,
            local_day=day.isoformat(),
        )
        rating = rating_for(result.coverage, hints)
        # The answer, the streak and the review card: one transaction, one instant.
        stored = await self.storage.record_answer(
            record,
            lambda s: record_answer(s, day),
            review=ReviewUpdate(lambda card: review(card, rating, now), int(rating)),
            update_id=update_id,
        )
        if stored is None:  # answered twice at once: the first one counted
            return NothingOpen()
        streak, answer_id, state = stored
        assert state is not None
        return await self._feedback(
            user, question, result, hints, streak, answer_id, state.due, text
        )

    async def _feedback(
        self,
        user: UserProfile,
        question: Question,
        result: ScoreResult,
        hints: int,
        streak: StreakState,
        answer_id: int,
        due: datetime,
        text: str,
    ) -> Feedback:
        from bot.core.feedback import is_bare_list

        recent = await self.storage.recent_answers(user.user_id, LEVEL_UP_ANSWERS * 4)
        current = user.level or Level.BEGINNER
        at_level = [a.score for a in recent if a.level == current][:LEVEL_UP_ANSWERS]
        suggestion = level_up(current, at_level) if question.level == current else None
        average = sum(at_level) / len(at_level) if at_level else 0.0
        return Feedback(
            question,
            result,
            hints,
            streak,
            answer_id,
            is_bare_list(text, result),
            due,
            suggestion,
            average,
        )

    async def _feedback_again(self, user: UserProfile, stored: StoredAnswer) -> Feedback | None:
        """The feedback of an answer stored before (its update handled again); None if its
        question left the library since."""
        question = self.library.question(stored.question_id)
        if question is None:
            return None
        from bot.core.scoring import score_answer

        result = score_answer(question, stored.answer)
        card = await self.storage.get_review(user.user_id, question.id)
        due = card.due_at if card is not None else stored.answered_at
        return await self._feedback(
            user,
            question,
            result,
            stored.hints,
            user.streak,
            stored.answer_id,
            due,
            stored.answer,
        )

    async def is_own_answer(self, user_id: int, answer_id: int) -> bool:
        """Whether answer `answer_id` exists and is the user's (a rating button is theirs)."""
        row = await self.storage.answer(answer_id)
        return row is not None and row.user_id == user_id

    async def overrule(self, user_id: int, answer_id: int, choice: str) -> ReviewState | None:
        """Redo the review of answer `answer_id` with the user's own rating; None if stale."""
        rating = OVERRIDES.get(choice)
        row = await self.storage.answer(answer_id)
        if rating is None or row is None or row.user_id != user_id:
            return None
        current = await self.storage.get_review(user_id, row.question_id)
        if current is None or current.last_answer_id != answer_id:
            return None  # a later answer to the same question was reviewed since
        reviewed_at = current.reviewed_at
        state = review(current.previous_card, rating, reviewed_at)
        await self.storage.save_review(
            user_id,
            row.question_id,
            card=state.card,
            due=state.due,
            previous_card=current.previous_card,
            answer_id=answer_id,
            reviewed_at=reviewed_at,
            rating=int(rating),
        )
        return state

    async def progress(
        self, user: UserProfile, since: Callable[[date], date], lang: str | None = None
    ) -> Progress:
        """The user's progress: streak, averages, weak spots, level suggestion, daily counts,
        weekly scores and their trend, and how much of the question bank is answered.

        `since(today)` is the first day the caller wants counts for (the picture's 12 weeks).
        The bank is what the user is asked from (`draw_from` in `lang`): an English user
        following nothing is not counted the Chinese packs' questions.
        """
        today = self.today(user).date()
        summary = await self.storage.user_stats(user.user_id)
        recent = await self.storage.recent_answers(user.user_id, WEAK_WINDOW)
        weak = weak_spots(((a.covered, a.missed) for a in recent), self.library.topic_of)
        current = user.level or Level.BEGINNER
        at_level = [a.score for a in recent if a.level == current][:LEVEL_UP_ANSWERS]
        first = since(today)
        days = await self.storage.answers_per_day(user.user_id, first.isoformat())
        per_day = {date.fromisoformat(day): totals for day, totals in days.items()}
        weeks = weekly_scores(per_day, first, (today - first).days // 7 + 1)
        # The bank is what can be asked: the packs drawn from, else every offered pack.
        drawn = await self.draw_from(user.user_id, lang)
        bank = self.library.pool(packs=drawn.packs) or self.library.pool()
        answered = await self.storage.answered_questions(user.user_id) if summary.answers else set()
        return Progress(
            today=today,
            streak=visible_streak(user.streak, today),
            at_risk=at_risk(user.streak, today),
            summary=summary,
            weak_spots=weak,
            level=current,
            level_up=level_up(current, at_level),
            level_average=sum(at_level) / len(at_level) if at_level else 0.0,
            per_day={day: count for day, (count, _) in per_day.items()},
            weeks=weeks,
            trend=score_trend(weeks),
            bank=bank_progress(bank, answered),
        )

    async def answer_round(
        self,
        round_id: int,
        question: Question,
        user: UserProfile,
        *,
        first_name: str,
        message_id: int,
        text: str,
        feedback: Callable[[ScoreResult, StreakState, datetime], Draft | None] | None = None,
    ) -> tuple[ScoreResult, StreakState] | None:
        """Score a group member's answer and keep it as their latest; None if not stored.

        Not stored: the round closed, or the message is an edit of an answer the member
        has since replaced with a later one. `feedback` drafts the member's private
        feedback (given the instant of the answer), recorded with the answer.
        """
        from bot.core.scoring import score_answer  # loaded on the first answer (issue 13)

        result = score_answer(question, text)
        now = self.clock()
        day = local_day(now, self.zone(user))
        streak = await self.storage.record_round_answer(
            round_id,
            user_id=user.user_id,
            first_name=first_name,
            message_id=message_id,
            answer=text,
            score=result.score,
            covered=result.covered_labels,
            missed=result.missed_labels,
            partly=result.partly_labels,
            now=now,
            local_day=day.isoformat(),
            update_streak=lambda s: record_answer(s, day),
            feedback=None if feedback is None else (lambda s: feedback(result, s, now)),
        )
        return None if streak is None else (result, streak)

    async def close(self, chat_id: int, question_id: str | None = None) -> Question | None:
        """Close the open question without scoring (skip or reveal); return it. With
        `question_id`, only that one: None if another is open (or none)."""
        open_ = await self.open_question(chat_id)
        if open_ is None or (question_id is not None and open_[0].id != question_id):
            return None
        await self.storage.close_question(chat_id, open_[0].id)
        return open_[0]
