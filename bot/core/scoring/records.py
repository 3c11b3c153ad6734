"""What scoring hands out: each concept's verdict (`Status`), where it was named and how it was
credited (`ConceptHit`), and the answer's total (`ScoreResult`)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bot.core.content import Concept


class Status(StrEnum):
    """How an answer dealt with a concept it named."""

    COVERED = "covered"  # stated: full credit
    LISTED = "listed"  # only named in a bare list of terms: LIST_CREDIT
    NEGATED = "negated"  # denied where the reference affirms it: no credit
    MISATTRIBUTED = "misattributed"  # said of another subject of the question: no credit


# When a concept is named several times, the most favourable reading is kept.
RANK = {Status.COVERED: 3, Status.LISTED: 2, Status.MISATTRIBUTED: 1, Status.NEGATED: 0}


@dataclass(frozen=True, slots=True)
class ConceptHit:
    """A place where a concept was named, what the answer did with it, and its credit."""

    label: str
    weight: float
    phrase: str
    start: int
    end: int
    text: str
    status: Status = Status.COVERED
    # For MISATTRIBUTED: the subject the answer said it of (as the answer wrote it).
    said_of: str = ""
    # Share of the concept's weight earned: 1 when stated; less when only listed, or when
    # only some of a claim's key terms were stated.
    credit: float = 1.0
    # Internal: which subject (index) a MISATTRIBUTED place was said of, and whether a
    # credited hit only named its own subject (stated nothing of it).
    said_of_subject: int = -1
    named_only: bool = False
    # The clause around the place, as the answer wrote it: the evidence a learner checks.
    quote: str = ""

    @property
    def partial(self) -> bool:
        return 0 < self.credit < 1


@dataclass(frozen=True, slots=True)
class ScoreResult:
    question_id: str
    score: float
    coverage: float
    relevance: float
    covered: list[ConceptHit]  # credited: COVERED, then LISTED (partial credit)
    missed: list[Concept]  # everything not credited, contradicted ones included
    contradicted: list[ConceptHit]  # NEGATED or MISATTRIBUTED: named, but said wrongly

    @property
    def covered_labels(self) -> list[str]:
        """Concepts stated in full (what a learner has shown they know)."""
        return [h.label for h in self.covered if h.credit >= 1]

    @property
    def partly_labels(self) -> list[str]:
        """Concepts credited only in part (listed without explaining, or partly stated)."""
        full = set(self.covered_labels)
        return [h.label for h in self.covered if h.credit < 1 and h.label not in full]

    @property
    def missed_labels(self) -> list[str]:
        """Concepts not stated in full: missed, only listed, or contradicted."""
        full = set(self.covered_labels)
        return [c.label for c in self.missed] + [
            h.label for h in self.covered if h.label not in full
        ]

    def summary(self) -> dict[str, object]:
        """The JSON shape of `interview-bot score`."""
        return {
            "question_id": self.question_id,
            "score": round(self.score, 4),
            "coverage": round(self.coverage, 4),
            "covered": self.covered_labels,
            "partly": [h.label for h in self.covered if h.credit < 1],
            "contradicted": {h.label: h.status.value for h in self.contradicted},
            "missed": [c.label for c in self.missed],
            "matches": [
                {
                    "concept": h.label,
                    "status": h.status.value,
                    "credit": round(h.credit, 3),
                    "phrase": h.phrase,
                    "start": h.start,
                    "end": h.end,
                    "quote": h.quote,
                }
                for h in (*self.covered, *self.contradicted)
            ],
        }
