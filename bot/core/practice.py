"""What practising hands out: a question asked (or the open one kept), the feedback on an
answer, and the progress /stats shows. Plain records, built by bot/services/practice.py and
read by the renderers (bot/render.py) and the terminal, which so need nothing above core."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING

from bot.core.content import Question
from bot.core.levels import Level
from bot.core.models import UserStats
from bot.core.streaks import StreakState

if TYPE_CHECKING:
    from bot.core.scoring import ScoreResult

__all__ = ["Asked", "Feedback", "NoPacks", "Progress", "StillOpen"]


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
    weak: list[str]
    level: Level
    level_up: Level | None
    level_average: float
    per_day: dict[date, int]  # answers per local day, from the first day the caller asked


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
