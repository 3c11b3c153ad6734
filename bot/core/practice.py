"""What practising hands out: a question asked (or the open one kept), the outcome of a
message sent as an answer, and the progress /stats shows. Plain records, built by
bot/services/practice.py and read by the renderers (bot/render.py), the handlers and the
terminal, which so need nothing above core; and `route_answer`, the rule that decides what
becomes of an answer before anything is scored."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from enum import StrEnum
from typing import TYPE_CHECKING

from bot.core.answers import Attempt
from bot.core.content import Question
from bot.core.levels import Level
from bot.core.models import UserStats
from bot.core.progress import LevelProgress, Trend, WeekScore
from bot.core.review import WeakSpot
from bot.core.streaks import StreakState

if TYPE_CHECKING:
    from bot.core.scoring import ScoreResult

__all__ = [
    "AnswerOutcome",
    "Asked",
    "Feedback",
    "NoPacks",
    "NotText",
    "NothingOpen",
    "OneWord",
    "Progress",
    "ReplyToClosedQuestion",
    "Route",
    "StillOpen",
    "TooShort",
    "route_answer",
]


@dataclass(frozen=True, slots=True)
class Asked:
    question: Question
    pack_title: str
    replaced: bool  # an unanswered question was open and is now closed
    pack_language: str = ""  # the language of the pack's questions and answers (zh, en…)
    exhausted: bool = False  # a fresh question was wanted, but all at the level were answered
    level_done_note: bool = False  # exhausted, and the user not yet told (once per level)
    closed: Question | None = None  # the open question it replaced, when the caller named it


@dataclass(frozen=True, slots=True)
class StillOpen:
    """A new question was wanted while one is open: that one stays, to be shown again."""

    question: Question
    pack_title: str
    pack_language: str


@dataclass(frozen=True, slots=True)
class NoPacks:
    """No pack is followed and none is in the user's language: nothing is asked, the packs
    in other languages are offered (bot/core/packs.py)."""

    language: str
    others: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Progress:
    """Everything /stats shows, computed from storage by the core rules."""

    today: date
    streak: StreakState  # as it stands today (0 once missed days exceed the freezes)
    at_risk: bool
    summary: UserStats
    weak_spots: list[WeakSpot]  # the three weakest concepts, most missed first
    level: Level
    level_up: Level | None
    level_average: float
    per_day: dict[date, int]  # answers per local day, from the first day the caller asked
    weeks: list[WeekScore] = field(default_factory=list)  # the same days, week by week
    trend: Trend | None = None  # None: answers in fewer than two of those weeks
    bank: list[LevelProgress] = field(default_factory=list)  # questions answered, per level

    @property
    def weak(self) -> list[str]:
        return [spot.label for spot in self.weak_spots]


@dataclass(frozen=True, slots=True)
class Feedback:
    question: Question
    result: ScoreResult
    hints: int
    streak: StreakState
    answer_id: int
    bare_list: bool  # the answer only names terms (feedback says nothing was "mixed up")
    next_review: datetime
    level_up: Level | None  # a suggestion, shown when recent answers at the level are strong
    level_average: float  # the recent average at the user's level behind that suggestion


# -- what becomes of an answer -------------------------------------------------------------
#
# `Practice.answer` returns one of these; `Feedback` is the scored one. The handler and the
# terminal only render them: every rule about what is scored lives here and in answers.py.


@dataclass(frozen=True, slots=True)
class NothingOpen:
    """No question is open (or it was answered a moment ago by another message)."""


@dataclass(frozen=True, slots=True)
class NotText:
    """A caption (a photo or file) with no question to answer, or too short to be an
    answer: answers are text."""


@dataclass(frozen=True, slots=True)
class TooShort:
    """Too short to be an attempt (`x`, `ok`): the question stays open, the day uncounted."""

    question: Question


@dataclass(frozen=True, slots=True)
class OneWord:
    """One word (`缓存`, `cache`) says too little to score: the question stays open."""

    question: Question


@dataclass(frozen=True, slots=True)
class ReplyToClosedQuestion:
    """A reply to the message of a question closed since (a newer one is open, or none):
    scored against the question it answers, for the user to see, and not recorded."""

    question: Question
    result: ScoreResult
    bare_list: bool


AnswerOutcome = Feedback | NothingOpen | NotText | TooShort | OneWord | ReplyToClosedQuestion


class Route(StrEnum):
    """Where an answer goes, decided before it is scored."""

    NOT_TEXT = "not-text"
    NOTHING_OPEN = "nothing-open"
    TOO_SHORT = "too-short"
    ONE_WORD = "one-word"
    CLOSED_QUESTION = "closed-question"  # score against the question replied to, not kept
    SCORE = "score"  # score against the open question and record it


def route_answer(
    attempt: Attempt, *, caption: bool, open_id: str | None, replied_id: str | None
) -> Route:
    """Where a private answer goes.

    `caption`: the text is a photo's or file's caption; `open_id`: the chat's open question;
    `replied_id`: the question shown in the bot's message the answer replies to, if any.
    """
    if caption and open_id is None:
        return Route.NOT_TEXT  # a photo, not an answer
    if attempt in (Attempt.NO_WORDS, Attempt.TOO_SHORT):
        if caption:
            return Route.NOT_TEXT
        return Route.TOO_SHORT if open_id is not None else Route.NOTHING_OPEN
    if attempt is Attempt.ONE_WORD and open_id is not None:
        return Route.ONE_WORD
    if replied_id is not None and replied_id != open_id:
        # Scored against the question it was written for, never the one open now.
        return Route.CLOSED_QUESTION
    return Route.SCORE if open_id is not None else Route.NOTHING_OPEN
