"""The score: every concept judged, a subject given another claim's meaning marked, and the
credited weights totalled with the small share for the reference's vocabulary."""

from __future__ import annotations

from dataclasses import replace

from bot.core.content import Concept, Question
from bot.core.scoring.judging import Judged
from bot.core.scoring.records import RANK, ConceptHit, ScoreResult, Status
from bot.core.scoring.reference import compile_question
from bot.core.text import tokenize

RELEVANCE_SHARE = 0.15
# What a claim said wrongly (denied, or said of another subject) costs, as a share of its
# weight: a grader marks a false statement down, not just uncredited.
CONTRADICTION_COST = 0.6


def score_answer(question: Question, text: str) -> ScoreResult:
    """Score an answer by the weighted share of the question's concepts it states."""
    compiled = compile_question(question)
    reading = Judged(text, compiled)
    covered: list[ConceptHit] = []
    listed: list[ConceptHit] = []
    contradicted: list[ConceptHit] = []
    missed: list[Concept] = []
    gained = 0.0
    # Find every named term first: the bare-list and negation tests blank them all out.
    found = [reading.find(item.aliases) for item in compiled.concepts]
    found_terms = [[reading.find(g) for g in item.terms] for item in compiled.concepts]
    if compiled.subjects and (any(found) or any(map(any, found_terms))):
        reading.subject_mentions()
    hits = [
        (
            item,
            best_hit(
                reading.judge(item, places, item.direction, None, item.values) if places else None,
                reading.judge_terms(item, term_places) if any(term_places) else None,
            ),
        )
        for item, places, term_places in zip(compiled.concepts, found, found_terms, strict=True)
    ]
    # A subject given another claim's meaning ("max_batch_size 是请求最多等多久") is said
    # wrongly too, when the answer only named it otherwise.
    given = {
        h.said_of_subject: item
        for item, h in hits
        if h is not None and h.status is Status.MISATTRIBUTED and h.said_of_subject >= 0
    }
    if given:
        hits = [
            (
                item,
                replace(
                    hit,
                    status=Status.MISATTRIBUTED,
                    credit=0.0,
                    said_of=given[item.subject].concept.label,
                )
                if hit is not None and hit.named_only and item.subject in given
                else hit,
            )
            for item, hit in hits
        ]
    for item, hit in hits:
        if hit is None or hit.credit == 0:
            missed.append(item.concept)
            if hit is not None:
                # A false claim is worse than silence: it cancels a true one.
                contradicted.append(hit)
                gained -= item.concept.weight * CONTRADICTION_COST
            continue
        (covered if hit.credit >= 1 else listed).append(hit)
        gained += item.concept.weight * hit.credit
    total = compiled.total_weight
    coverage = min(1.0, max(0.0, gained / total)) if total > 0 else 0.0
    relevance = 0.0
    shared = compiled.vocabulary & reading.keys if reading.tokens else frozenset()
    if shared and not contradicted and (covered or reading.says_anything()):
        relevance = len(shared) / len(compiled.vocabulary)
    score = min(1.0, coverage + (1.0 - coverage) * RELEVANCE_SHARE * relevance)
    return ScoreResult(
        question_id=question.id,
        score=score,
        coverage=coverage,
        relevance=relevance,
        covered=covered + listed,
        missed=missed,
        contradicted=contradicted,
    )


def best_hit(a: ConceptHit | None, b: ConceptHit | None) -> ConceptHit | None:
    if a is None or b is None:
        return a or b
    return a if (a.credit, RANK[a.status]) >= (b.credit, RANK[b.status]) else b


def is_answerable(text: str) -> bool:
    """Whether a message has any words to score (not only emoji, punctuation or markup)."""
    return bool(tokenize(text))
