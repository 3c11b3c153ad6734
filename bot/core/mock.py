"""Mock interviews (/mock): the rules of a run of questions put one at a time.

What /mock's words ask for (`parse_mock_args`), which questions a run puts and in what order
(`plan_mock`: weak topics favoured, not two on one topic in a row), when an answer earns one
follow-up and on which concept (`follow_up_of`), when a silent run is stale, and what the
report at the end says (`mock_report`). Plain values in and out: the session's state is
kept by bot/storage/mock.py, its steps by bot/services/mock.py.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING

from bot.core.content import NAME_CHARS, Concept, Question
from bot.core.levels import Level, parse_level
from bot.core.practice import AnswerOutcome

if TYPE_CHECKING:
    from bot.core.scoring import ScoreResult

DEFAULT_COUNT = 5
MIN_COUNT = 1
MAX_COUNT = 10  # a run longer than an interview's hour tires more than it teaches
MAX_LIMIT_MINUTES = 60
STALE_AFTER = timedelta(hours=24)  # a run silent this long is over, not resumed
HEAVY_WEIGHT = 1.5  # a missed concept at least this heavy earns a follow-up

_STOP_WORDS = frozenset({"stop", "end", "quit", "结束", "停止", "退出"})
_COUNT = re.compile(r"(\d{1,3})(?:道题|道|题|个|questions?|q)?")
_LIMIT = re.compile(r"(\d{1,3})(min|mins|minutes?|m|分钟|分)")


class Phase(StrEnum):
    """Where a running session is: on its question, or on that question's follow-up."""

    QUESTION = "question"
    FOLLOW_UP = "follow-up"


class End(StrEnum):
    """Why a session ended."""

    DONE = "done"  # every question put
    STOPPED = "stopped"  # /mock stop
    STALE = "stale"  # 24 h of silence, found by the next message


@dataclass(frozen=True, slots=True)
class MockArgs:
    """What `/mock [count] [level] [pack] [limit]` or `/mock stop` asks for; `problem`
    names the string key of a refusal, `word` the word refused."""

    count: int = DEFAULT_COUNT
    level: Level | None = None
    pack: str | None = None
    limit_seconds: int | None = None
    stop: bool = False
    problem: str | None = None
    word: str = ""


def duration(seconds: int) -> str:
    """How long an answer took: `m:ss` (`0:42`, `12:05`), `h:mm:ss` from an hour on (an
    answer sent the next day is `20:00:00`, not `1200:00`)."""
    minutes, secs = divmod(max(seconds, 0), 60)
    if minutes < 60:
        return f"{minutes}:{secs:02d}"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}"


def parse_mock_args(
    args: Iterable[str], packs: Mapping[str, str], drafts: Iterable[str] = ()
) -> MockArgs:
    """The one reader of /mock's words, each kind at most once, in any order and case: a
    count (1..10; `8`, `8题`), a level (`advanced`, `高级`), a pack (`packs`: the words that
    name one, case-folded, to its id), a time limit per answer (`3min`, `3分钟`); or `stop`
    alone. Full-width digits read as digits."""
    words = [unicodedata.normalize("NFKC", w).strip() for w in args]
    words = [w for w in words if w]
    if len(words) == 1 and words[0].casefold() in _STOP_WORDS:
        return MockArgs(stop=True)
    unready = {p.casefold() for p in drafts}
    count: int | None = None
    level: Level | None = None
    pack: str | None = None
    limit: int | None = None
    for word in words:
        folded = word.casefold()
        if (m := _LIMIT.fullmatch(folded)) is not None:
            minutes = int(m.group(1))
            if limit is not None or not 1 <= minutes <= MAX_LIMIT_MINUTES:
                return MockArgs(problem="mock_bad_limit", word=word)
            limit = minutes * 60
        elif (m := _COUNT.fullmatch(folded)) is not None:
            number = int(m.group(1))
            if count is not None or not MIN_COUNT <= number <= MAX_COUNT:
                return MockArgs(problem="mock_bad_count", word=word)
            count = number
        elif (found := parse_level(word)) is not None:
            if level is not None:
                return MockArgs(problem="mock_bad_args", word=word)
            level = found
        elif folded in packs:
            if pack is not None:
                return MockArgs(problem="mock_bad_args", word=word)
            pack = packs[folded]
        elif folded in unready:
            return MockArgs(problem="pack_draft", word=word)
        elif folded in _STOP_WORDS:  # `stop` with something else: say what it takes
            return MockArgs(problem="mock_bad_args", word=word)
        else:
            return MockArgs(problem="mock_bad_word", word=word)
    return MockArgs(count or DEFAULT_COUNT, level, pack, limit)


def topics_of(question: Question) -> frozenset[str]:
    """The topics a question is on (its concepts' topics, where the pack sets them)."""
    return frozenset(c.topic for c in question.concepts if c.topic)


def topic_name(question: Question) -> str:
    """What a question is about, in a word or two for the report: its heaviest concept's
    label where that is short, else that concept's topic, else the question's own words.
    (Packs that write concepts as claims, "Three steps are the minimum for both sides to
    …", would name the row with a cut claim the row's missed list repeats below it.)"""
    heaviest = max(question.concepts, key=lambda c: c.weight)
    if len(heaviest.label) <= NAME_CHARS:
        return heaviest.label
    return heaviest.topic or question.question


def concept_name(concept: Concept) -> str | None:
    """A concept named in a word or two, for a follow-up to ask about: its label where that
    is short, else its subject, first alias or first key term (a pack that writes concepts
    as claims would have the follow-up quote a whole sentence); None if it has none."""
    if len(concept.label) <= NAME_CHARS:
        return concept.label
    for names in (concept.subject, concept.aliases, *concept.terms):
        if names:
            return names[0]
    return None


def question_weight(
    question: Question, weak: frozenset[str], topic_of: Mapping[str, str], last: float | None
) -> float:
    """How strongly a question is favoured when a run is drawn: 1, plus 2 when one of its
    concepts is a weak spot of the user's (`weak`: topics or labels, as `weak_spots` counts
    them), plus what its last score fell short of (`last`: None if never answered)."""
    weight = 1.0
    if any(topic_of.get(c.label, c.label) in weak for c in question.concepts):
        weight += 2.0
    if last is not None:
        weight += 1.0 - last
    return weight


def plan_mock(
    pool: Sequence[Question],
    count: int,
    weight: Callable[[Question], float],
    rng: random.Random,
    pack_of: Mapping[str, str] | None = None,
) -> list[Question]:
    """Up to `count` questions of `pool`, drawn by `weight` (no repeats), ordered as an
    interviewer would: never two sharing a topic in a row, and the packs taking turns
    (`pack_of`), where the questions drawn allow it."""
    left = list(pool)
    drawn: list[Question] = []
    while left and len(drawn) < count:
        chosen = rng.choices(left, weights=[weight(q) for q in left])[0]
        left.remove(chosen)
        drawn.append(chosen)
    pack_of = pack_of or {}
    ordered: list[Question] = []
    while drawn:
        before = ordered[-1] if ordered else None

        def rank(q: Question, before: Question | None = before) -> tuple[bool, int, bool]:
            # Never the previous one's topic where another is left; among the rest, the
            # topic most of those left share first (else they bunch up at the end, as in
            # arranging "aab" as "aba"); then another pack than the previous one's.
            same_topic = before is not None and bool(topics_of(q) & topics_of(before))
            crowd = sum(1 for other in drawn if topics_of(other) & topics_of(q))
            same_pack = before is not None and pack_of.get(q.id) == pack_of.get(before.id)
            return (same_topic, -crowd, same_pack)

        nxt = min(drawn, key=rank)  # the first drawn among the best ranked
        drawn.remove(nxt)
        ordered.append(nxt)
    return ordered


@dataclass(frozen=True, slots=True)
class FollowUp:
    """One follow-up: the concept asked about, and the one the answer covered, if any."""

    concept: Concept
    mentioned: str | None  # the label of the heaviest concept the answer stated in full


def follow_up_of(question: Question, result: ScoreResult) -> FollowUp | None:
    """The follow-up an answer earns: on the heaviest concept it did not state in full, when
    that one weighs at least `HEAVY_WEIGHT`; None when nothing heavy was missed."""
    full = set(result.covered_labels)
    heavy = [c for c in question.concepts if c.label not in full and c.weight >= HEAVY_WEIGHT]
    if not heavy:
        return None
    concept = max(heavy, key=lambda c: c.weight)  # the first of the heaviest, in pack order
    said = [c for c in question.concepts if c.label in full]
    mentioned = max(said, key=lambda c: c.weight).label if said else None
    return FollowUp(concept, mentioned)


def follow_up_question(question: Question, label: str) -> Question | None:
    """The question a follow-up answer is scored against: `question` with only the concept
    `label` (None if the pack no longer has it)."""
    concept = next((c for c in question.concepts if c.label == label), None)
    if concept is None:
        return None
    return question.model_copy(update={"concepts": (concept,)})


def missed_heaviest_first(question: Question, result: ScoreResult) -> list[str]:
    """The concepts an answer did not state in full, heaviest first (as feedback names
    them), in the pack's order among equals."""
    missed = set(result.missed_labels)
    ordered = sorted(question.concepts, key=lambda c: -c.weight)
    return [c.label for c in ordered if c.label in missed]


def is_stale(step_at: datetime, now: datetime) -> bool:
    """Whether a session whose last step (a question or follow-up put) was at `step_at` is
    over: nothing stale is resumed a day later."""
    return now - step_at >= STALE_AFTER


def over_limit(seconds: int, limit_seconds: int | None) -> bool:
    return limit_seconds is not None and seconds > limit_seconds


@dataclass(frozen=True, slots=True)
class MockRow:
    """One question of a session as the report shows it. `score` None: skipped."""

    position: int
    question_id: str
    topic: str
    score: float | None
    missed: tuple[str, ...]
    seconds: int | None
    follow_label: str | None = None
    follow_score: float | None = None  # None: no follow-up answered (skipped or none)


@dataclass(frozen=True, slots=True)
class MockReport:
    rows: tuple[MockRow, ...]  # the questions put, in order
    count: int  # the questions planned
    total: float  # the average score of the questions put (a skipped one counts 0)
    best: str | None  # the topic of the best answer (None: fewer than two answers apart)
    weakest: str | None
    previous: float | None  # the total of the user's previous mock with an answer
    limit_seconds: int | None


def mock_report(
    rows: Sequence[MockRow], count: int, previous: float | None, limit_seconds: int | None
) -> MockReport:
    """The report of a session: its rows, the total, the best and weakest topics (when two
    answers differ), the previous mock's total to compare with."""
    scores = [row.score or 0.0 for row in rows]
    total = sum(scores) / len(scores) if scores else 0.0
    answered = [row for row in rows if row.score is not None]
    best = weakest = None
    if len(answered) >= 2:
        top = max(answered, key=lambda r: r.score or 0.0)
        low = min(answered, key=lambda r: r.score or 0.0)
        if (top.score or 0.0) > (low.score or 0.0):
            best, weakest = top.topic, low.topic
    return MockReport(tuple(rows), count, total, best, weakest, previous, limit_seconds)


@dataclass(frozen=True, slots=True)
class MockSession:
    """A session as stored: its plan, where it is, and since when."""

    session_id: int
    chat_id: int
    user_id: int
    questions: tuple[str, ...]
    position: int
    phase: Phase
    follow_label: str | None
    follow_said: str | None
    limit_seconds: int | None
    started_at: datetime
    step_at: datetime
    last_update: int | None = None  # the update that moved it last (a redelivery: not again)

    @property
    def question_id(self) -> str:
        return self.questions[self.position]


# -- what a step of a session comes to (bot/services/mock.py returns these) ---------------


@dataclass(frozen=True, slots=True)
class MockStep:
    """What the session asks now: its question, or that question's follow-up."""

    session_id: int
    position: int  # 0-based
    count: int
    question: Question
    pack_title: str
    limit_seconds: int | None
    follow_up: FollowUp | None = None  # set: the follow-up on this question is asked
    closed: Question | None = None  # the question left open that starting the session closed


@dataclass(frozen=True, slots=True)
class MockEnded:
    """A session over (done, stopped): its report, and the questions by position."""

    session_id: int
    reason: End
    report: MockReport


@dataclass(frozen=True, slots=True)
class MockTurn:
    """An answer (or a skip) during a session, and what comes next: the next step, or the
    report. The reference answer is not in it: it waits for the report's buttons."""

    position: int  # of the question answered, 0-based
    count: int
    result: ScoreResult | None  # of the question's answer; None: a follow-up or a skip
    follow_score: float | None  # of a follow-up's answer (its one concept's coverage)
    seconds: int
    over_limit: bool
    next: MockStep | None
    ended: MockEnded | None


@dataclass(frozen=True, slots=True)
class MockStale:
    """The session had been silent 24 h: it was closed. `outcome`: the message as an
    ordinary answer (the question it was on stays open for it; after a follow-up nothing
    is open)."""

    answered: int
    count: int
    outcome: AnswerOutcome


@dataclass(frozen=True, slots=True)
class MockRunning:
    """/mock with a session running: the step it is on, shown again."""

    step: MockStep


@dataclass(frozen=True, slots=True)
class NoMockQuestions:
    """No question at the level in the packs asked for."""

    level: Level


MockAnswer = MockTurn | MockRunning | MockStale | AnswerOutcome
