"""How well the scorer agrees with a person's grades: the figures `content eval` prints.

A graded file maps question ids to answers a person graded before any scoring:

    triton-q1:
      - grade: 3          # any numeric scale; higher is better
        kind: term-list   # optional: what sort of answer it is (excellent-en, negated, ...)
        answer: ...

Agreement is measured two ways: Spearman's ρ over all answers (rank correlation, ties
averaged), and same-question pairwise order (of two answers to one question with different
grades, how often the better one scores higher; equal scores count half). Pairwise order is
what a learner feels: a better answer must not score lower than a worse one.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from statistics import fmean
from typing import Any

from bot.core.content import Question
from bot.core.scoring import score_answer

# Kinds of answers that game a keyword score: they must score low whatever their words.
GAMING_KINDS = frozenset({"term-list", "negated", "swapped", "question-echo"})
# Kinds of answers that must score well: correct, said briefly or in the other language.
STRONG_KINDS = frozenset({"short-correct", "excellent-en"})


class GradedError(ValueError):
    """A graded-answers file that cannot be read; the message says where."""


@dataclass(frozen=True, slots=True)
class Graded:
    question_id: str
    grade: float
    answer: str
    kind: str = ""


@dataclass(frozen=True, slots=True)
class Scored:
    item: Graded
    score: float


@dataclass(frozen=True, slots=True)
class Agreement:
    """The figures of one graded set against the scorer."""

    count: int
    spearman: float
    pairwise: float
    pairs: int
    mean_by_grade: dict[float, float]
    mean_by_kind: dict[str, float]
    worst: list[tuple[Scored, Scored]]  # pairs ordered against the grades, worst first
    scored: list[Scored]

    def mean_of(self, kinds: frozenset[str]) -> float | None:
        values = [s.score for s in self.scored if s.item.kind in kinds]
        return fmean(values) if values else None


def parse_graded(data: Any, source: str = "graded answers") -> list[Graded]:
    """Read the YAML structure of a graded file; raise GradedError naming what is wrong."""
    if not isinstance(data, Mapping) or not data:
        raise GradedError(f"{source}: expected a mapping of question ids to lists of answers")
    items: list[Graded] = []
    for qid, answers in data.items():
        if not isinstance(answers, list):
            raise GradedError(f"{source}: {qid}: expected a list of answers")
        for i, entry in enumerate(answers, 1):
            where = f"{source}: {qid} answer {i}"
            if not isinstance(entry, Mapping) or "grade" not in entry or "answer" not in entry:
                raise GradedError(f"{where}: needs 'grade' and 'answer'")
            grade = entry["grade"]
            if isinstance(grade, bool) or not isinstance(grade, int | float):
                raise GradedError(f"{where}: grade must be a number, not {grade!r}")
            items.append(
                Graded(str(qid), float(grade), str(entry["answer"]), str(entry.get("kind", "")))
            )
    return items


def ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties given the mean of the ranks they span."""
    order = sorted(range(len(values)), key=values.__getitem__)
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Spearman's rank correlation (Pearson's r of the ranks); 0 when either is constant."""
    rx, ry = ranks(xs), ranks(ys)
    mx, my = fmean(rx), fmean(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    vx = sum((a - mx) ** 2 for a in rx)
    vy = sum((b - my) ** 2 for b in ry)
    return cov / (vx * vy) ** 0.5 if vx and vy else 0.0


def agreement(
    questions: Mapping[str, Question], graded: Sequence[Graded], *, worst: int = 5
) -> Agreement:
    """Score every graded answer and measure how the scores agree with the grades."""
    missing = sorted({g.question_id for g in graded} - set(questions))
    if missing:
        raise GradedError(f"no question with id {', '.join(missing)} in the pack")
    scored = [Scored(g, score_answer(questions[g.question_id], g.answer).score) for g in graded]
    rho = spearman([s.item.grade for s in scored], [s.score for s in scored])
    by_question: dict[str, list[Scored]] = defaultdict(list)
    for s in scored:
        by_question[s.item.question_id].append(s)
    agree = 0.0
    pairs = 0
    wrong: list[tuple[float, Scored, Scored]] = []
    for answers in by_question.values():
        for a, b in combinations(answers, 2):
            if a.item.grade == b.item.grade:
                continue
            better, worse = (a, b) if a.item.grade > b.item.grade else (b, a)
            pairs += 1
            if better.score > worse.score:
                agree += 1
            elif better.score == worse.score:
                agree += 0.5
            else:
                wrong.append((worse.score - better.score, better, worse))
    by_grade: dict[float, list[float]] = defaultdict(list)
    by_kind: dict[str, list[float]] = defaultdict(list)
    for s in scored:
        by_grade[s.item.grade].append(s.score)
        if s.item.kind:
            by_kind[s.item.kind].append(s.score)
    wrong.sort(key=lambda w: -w[0])
    return Agreement(
        count=len(scored),
        spearman=rho,
        pairwise=agree / pairs if pairs else 1.0,
        pairs=pairs,
        mean_by_grade={g: fmean(v) for g, v in sorted(by_grade.items(), reverse=True)},
        mean_by_kind={k: fmean(v) for k, v in sorted(by_kind.items())},
        worst=[(b, w) for _, b, w in wrong[:worst]],
        scored=scored,
    )


def report(result: Agreement) -> str:
    """The text `content eval` prints."""

    def clip(text: str, n: int = 70) -> str:
        flat = " ".join(text.split())
        return flat if len(flat) <= n else flat[: n - 1] + "…"

    lines = [
        f"answers: {result.count}   same-question pairs: {result.pairs}",
        f"Spearman rho: {result.spearman:.3f}",
        f"pairwise order: {result.pairwise:.3f}",
        "mean score by grade:",
        *(f"  grade {g:g}: {m:.2f}" for g, m in result.mean_by_grade.items()),
    ]
    if result.mean_by_kind:
        lines.append("mean score by kind:")
        lines.extend(f"  {k}: {m:.2f}" for k, m in result.mean_by_kind.items())
        for name, kinds in (("gaming", GAMING_KINDS), ("strong", STRONG_KINDS)):
            mean = result.mean_of(kinds)
            if mean is not None:
                lines.append(f"  ({name}: {', '.join(sorted(kinds))}): {mean:.2f}")
    if result.worst:
        lines.append("worst disagreements (better answer scored lower):")
        for better, worse in result.worst:
            lines.append(
                f"  {better.item.question_id}: grade {better.item.grade:g} scored "
                f"{better.score:.2f} < grade {worse.item.grade:g} scored {worse.score:.2f}"
            )
            lines.append(f"    better: {clip(better.item.answer)}")
            lines.append(f"    worse:  {clip(worse.item.answer)}")
    return "\n".join(lines)
