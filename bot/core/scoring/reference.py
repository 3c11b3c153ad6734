"""Reference compilation: a question's concepts turned into matchable phrase groups, with
what the reference answer itself says of each (denied or not, which way, which pole, only
listed, which other subjects its claim names)."""

from __future__ import annotations

import re
from dataclasses import replace

from bot.core.claims import asks_to_enumerate, denies_or_avoids, negation_in, values_at
from bot.core.content import Concept, Question
from bot.core.scoring.attribution import Attributed
from bot.core.scoring.compiled import (
    COMPILED,
    LIST_CREDIT,
    LIST_CREDIT_ENUMERATION,
    TERMS_NEEDED,
    Compiled,
    CompiledConcept,
    remember,
)
from bot.core.scoring.names import short_forms
from bot.core.scoring.phrases import Group, phrases, vocabulary
from bot.core.scoring.reading import denied
from bot.core.text import canonical, stem, tokenize


def compile_question(question: Question) -> Compiled:
    cached = COMPILED.get(id(question))
    if cached is not None and cached[0] is question:
        return cached[1]
    asked = canonical(tokenize(question.question))
    subjects: list[Group] = []
    subject_ids: dict[tuple[str, ...], int] = {}
    forms = short_forms(question)
    concepts: list[CompiledConcept] = []
    for concept in question.concepts:
        subject = -1
        if concept.subject:
            key = tuple(sorted(p.casefold() for p in concept.subject))
            if key not in subject_ids:
                subject_ids[key] = len(subjects)
                subjects.append(Group.build(phrases((*concept.subject, *forms.get(key, ())))))
            subject = subject_ids[key]
        concepts.append(
            CompiledConcept(
                concept,
                Group.build(phrases(concept.phrases, unless_in=asked)),
                subject,
                tuple(Group.build(phrases(part, said=True)) for part in concept.requires),
                terms := tuple(
                    g
                    for g in (Group.build(phrases(t, unless_in=asked)) for t in concept.terms)
                    if not g.empty
                ),
                min(TERMS_NEEDED, len(terms)),
                negative=False,
            )
        )
    words = set().union(*(c.aliases.words() for c in concepts), *(g.words() for g in subjects))
    words.update(w for c in concepts for g in (*c.requires, *c.terms) for w in g.words())
    by_edge: dict[str, list[str]] = {}
    for w in sorted(words):
        by_edge.setdefault(w[0], []).append(w)
        by_edge.setdefault(w[-2:], []).append(w)
    asked_terms = vocabulary(tokenize(question.question))
    known = {
        w
        for text in (question.question, question.answer, *all_phrases(question))
        for w in tokenize(text).latin
    }
    compiled = Compiled(
        tuple(concepts),
        tuple(subjects),
        frozenset(vocabulary(tokenize(question.answer)) - asked_terms),
        by_edge,
        frozenset(map(stem, words)),
        frozenset(known),
        question.total_weight,
        LIST_CREDIT_ENUMERATION if asks_to_enumerate(question.question) else LIST_CREDIT,
        shared_between_subjects(question),
        shared_between_claims(question),
    ).indexed()
    # The reference's own polarity: a concept it names in a denial or an avoidance ("避免重复
    # 计算") is a negative claim, and an answer that denies it agrees with it.
    reference = Attributed(question.answer, compiled)
    negative = [
        states_negatively(c.concept.label)
        if c.concept.terms and not found
        else bool(found)
        and all(
            # A place where the reference's own phrase is the denial ("不会阻塞") is one.
            negation_in(p.text) or reference.layout.is_negative(s, e, tuple(reference.term_spans))
            for p, s, e in found
        )
        for c, found in zip(concepts, [reference.find(c.aliases) for c in concepts], strict=True)
    ]
    masks = tuple(reference.spans)
    # Denials are read with the names blanked out (无状态 denies nothing), not the phrases
    # that say something: "不会阻塞 C++ core" denies C++ core.
    names = tuple(reference.term_spans)

    def claim_span(concept: Concept) -> tuple[int, int] | None:
        # An imported concept's label is its claim (maybe cut short with …): where the
        # reference says it, each of its terms has its own polarity.
        words = tokenize(concept.label.rstrip("…")).folded.split()
        if len(words) < 2:
            return None
        m = re.search(r"\s*".join(map(re.escape, words)), reference.folded)
        if m is None:
            return None
        layout = reference.layout
        return m.start(), layout.sentence_span(layout.sentence(m.end() - 1))[1]

    def term_negative(c: CompiledConcept) -> tuple[bool, ...]:
        span = claim_span(c.concept) if c.concept.terms else None
        out = []
        for g in c.terms:
            places = [(s, e) for _, s, e in reference.find(g) if span and span[0] <= s < span[1]]
            if places:
                out.append(all(reference.layout.is_negative(s, e, names) for s, e in places))
            else:
                out.append(states_negatively(c.concept.label))
        return tuple(out)

    def valued(group: Group) -> tuple[int, ...]:
        # The pole of each scale every place the reference names it agrees on (0 if not);
        # a pole denied is the other one ("do not raise max_num_seqs" keeps it low).
        seen = [
            denied(
                values_at(reference.folded, s, e, masks), reference.layout.is_negated(s, e, names)
            )
            for _, s, e in reference.find(group)
        ]
        if not seen:
            return ()
        return tuple(
            poles.pop() if len(poles := {v[i] for v in seen} - {0}) == 1 else 0
            for i in range(len(seen[0]))
        )

    def turned(group: Group) -> int:
        # The one way every place the reference names it turns it, if there is one.
        ways = {reference.layout.direction(s, e, masks) for _, s, e in reference.find(group)}
        ways.discard(0)
        return ways.pop() if len(ways) == 1 else 0

    def said_elsewhere(c: CompiledConcept) -> set[str]:
        # Phrases the reference itself, in this claim, puts nearer another subject ("a shared
        # cache keeps …, so a larger Vary list … lowers the hit ratio"): reading them by the
        # nearest subject would call the reference mixed up, so they are not read that way.
        span = claim_span(c.concept) if c.subject >= 0 else None
        if span is None:
            return set()
        return {
            p.text.casefold()
            for group in (c.aliases, *c.terms)
            for p, b, e in reference.find(group)
            if span[0] <= b < span[1]
            and (bound := reference.said_of(b, e, c.subject)) is not None
            and bound[2] != c.subject
        }

    def objects_of(c: CompiledConcept) -> frozenset[int]:
        span = claim_span(c.concept) if c.subject >= 0 else None
        if span is None:
            return frozenset()
        # Only those that open no clause of the claim: one that does ("…，decode 是
        # memory-bound") is a subject with its own claim, which a swap says of the other.
        return frozenset(
            i
            for b, e, i in reference.subject_mentions()
            if i != c.subject and span[0] <= b < span[1] and not reference._opens_clause(b)
        )

    def listed_by_reference(c: CompiledConcept) -> bool:
        # A concept the reference itself only lists (`CPU 侧：tokenizer、GC、日志`) is stated
        # by listing it: listing is all the reference asks of it.
        places = [b for group in (c.aliases, *c.terms) for _, b, _ in reference.find(group)]
        return bool(places) and not any(reference.predicates_at(b) for b in places)

    unbound = compiled.unbound.union(*(said_elsewhere(c) for c in concepts))
    # The groups stay the same objects, so the needle index stays valid.
    compiled = replace(
        compiled,
        unbound=unbound,
        concepts=tuple(
            replace(
                c,
                negative=neg,
                direction=turned(c.aliases),
                term_directions=tuple(turned(g) for g in c.terms),
                values=valued(c.aliases),
                term_values=tuple(valued(g) for g in c.terms),
                term_negative=term_negative(c),
                listed=listed_by_reference(c),
                objects=objects_of(c),
            )
            for c, neg in zip(concepts, negative, strict=True)
        ),
    )
    remember(question, compiled)
    return compiled


def all_phrases(question: Question) -> list[str]:
    """Every phrase of the question's concepts: labels, aliases, subjects, parts, terms."""
    return [
        p
        for c in question.concepts
        for p in (
            c.label,
            *c.aliases,
            *c.subject,
            *(q for part in c.requires for q in part),
            *(q for part in c.terms for q in part),
        )
    ]


def states_negatively(claim: str) -> bool:
    """Whether a claim (a concept given as key terms: its label is the claim) is a denial."""
    return denies_or_avoids(claim)


def shared_between_subjects(question: Question) -> frozenset[str]:
    subjects_of: dict[str, set[tuple[str, ...]]] = {}
    for concept in question.concepts:
        if not concept.subject:
            continue
        key = tuple(sorted(p.casefold() for p in concept.subject))
        for phrase in (*concept.phrases, *(p for part in concept.terms for p in part)):
            subjects_of.setdefault(phrase.casefold(), set()).add(key)
    return frozenset(p for p, keys in subjects_of.items() if len(keys) > 1)


def shared_between_claims(question: Question) -> frozenset[str]:
    claims_of: dict[str, int] = {}
    for concept in question.concepts:
        for phrase in {p.casefold() for part in concept.terms for p in part}:
            claims_of[phrase] = claims_of.get(phrase, 0) + 1
    return frozenset(p for p, n in claims_of.items() if n > 1)
