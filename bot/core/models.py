"""Plain records passed between storage, core and handlers (no I/O here)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time
from enum import StrEnum

from bot.core.levels import Level
from bot.core.schedule import DEFAULT_DAILY_TIME, Days
from bot.core.streaks import StreakState


@dataclass(frozen=True, slots=True)
class UserProfile:
    user_id: int
    first_name: str = ""
    language: str | None = None  # chosen with /lang; None: follow the Telegram client
    timezone: str | None = None
    level: Level | None = None
    pack: str | None = None
    reminders: bool = True
    active: bool = True
    started: bool = True  # has a private chat with the bot (False: known from groups only)
    streak: StreakState = field(default_factory=StreakState)
    telegram_language: str | None = None  # the client's language at the last contact

    @property
    def has_practised(self) -> bool:
        """Whether the user chose a level or answered something: past the welcome."""
        return self.level is not None or self.streak.last_day is not None


@dataclass(frozen=True, slots=True)
class OpenQuestion:
    chat_id: int
    user_id: int
    question_id: str
    asked_at: datetime
    hints: int = 0


@dataclass(frozen=True, slots=True)
class AnswerRecord:
    user_id: int
    chat_id: int
    question_id: str
    level: Level
    answer: str
    score: float
    covered: list[str]
    missed: list[str]  # not stated in full: partly credited ones included
    hints: int
    answered_at: datetime
    local_day: str
    # Credited only in part (listed without explaining, partly stated); also in `missed`.
    partly: list[str] = field(default_factory=list, kw_only=True)


@dataclass(frozen=True, slots=True)
class StoredAnswer(AnswerRecord):
    """An answer as stored: the record and its row id."""

    answer_id: int


@dataclass(frozen=True, slots=True)
class RecentAnswer:
    """What the learning signals read of a recent answer (level-up, weak spots)."""

    level: Level
    score: float
    covered: list[str]
    missed: list[str]


@dataclass(frozen=True, slots=True)
class ReviewRecord:
    """A question's review card for a user, as the last answer (or an overrule) left it."""

    user_id: int
    question_id: str
    card: str  # FSRS card as JSON
    due_at: datetime
    previous_card: str | None  # before the last answer (None: that was the first)
    last_answer_id: int
    reviewed_at: datetime
    rating: int


@dataclass(frozen=True, slots=True)
class LevelStats:
    level: Level
    answers: int
    average: float


@dataclass(frozen=True, slots=True)
class UserStats:
    answers: int
    questions: int
    by_level: list[LevelStats]


class ChatKind(StrEnum):
    """Telegram's chat types, as stored."""

    PRIVATE = "private"
    GROUP = "group"
    SUPERGROUP = "supergroup"
    CHANNEL = "channel"


@dataclass(frozen=True, slots=True)
class ChatRecord:
    chat_id: int
    kind: ChatKind
    title: str = ""
    timezone: str | None = None
    level: Level | None = None
    active: bool = True
    daily_enabled: bool = False
    daily_time: time = DEFAULT_DAILY_TIME  # local wall-clock time in the chat's zone
    daily_days: Days = Days.EVERY_DAY
    next_due_at: datetime | None = None
    next_due_day: date | None = None  # the local date of the prompt due at next_due_at
    round_minutes: int | None = None
    language: str | None = None


@dataclass(frozen=True, slots=True)
class RoundRecord:
    round_id: int
    chat_id: int
    question_id: str
    message_id: int | None
    opened_by: int | None
    opened_at: datetime
    closes_at: datetime
    closed_at: datetime | None
    daily: bool


@dataclass(frozen=True, slots=True)
class RoundAnswer:
    user_id: int
    first_name: str
    score: float
    covered: list[str]
    missed: list[str]
    answered_at: datetime
    partly: list[str] = field(default_factory=list)  # credited in part (also in `missed`)


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    user_id: int
    first_name: str
    total_score: float
    answers: int
    streak: StreakState
