"""Reference compilation: a question's concepts turned into matchable phrase groups, with
what the reference answer itself says of each (denied or not, which way, which pole, only
listed, which other subjects its claim names)."""

from __future__ import annotations

import re
from dataclasses import replace

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
from bot.core.scoring.cues import asks_to_enumerate
from bot.core.scoring.layout import denies_or_avoids, negation_in
from bot.core.scoring.names import short_forms
from bot.core.scoring.phrases import Group, phrases, vocabulary
from bot.core.scoring.reading import denied
from bot.core.scoring.values import values_at
from bot.core.text import canonical, stem, tokenize


def compile_question(question: Question) -> Compiled:
    """A question compiled for matching (cached per question object)."""
    cached = COMPILED.get(id(question))
    if cached is not None and cached[0] is question:
        return cached[1]
    compiled = _matchable(question)
    reference = ReferenceReading(question.answer, compiled)
    concepts = compiled.concepts
    unbound = compiled.unbound.union(*(reference.said_elsewhere(c) for c in concepts))
    # The groups stay the same objects, so the needle index stays valid.
    compiled = replace(
        compiled,
        unbound=unbound,
        concepts=tuple(
            replace(
                c,
                negative=reference.negative(c),
                negative_phrases=reference.negative_phrases(c),
                direction=reference.turned(c.aliases),
                term_directions=tuple(reference.turned(g) for g in c.terms),
                values=reference.valued(c.aliases),
                term_values=tuple(reference.valued(g) for g in c.terms),
                term_negative=reference.term_negative(c),
                listed=reference.listed(c),
                objects=reference.objects_of(c),
            )
            for c in concepts
        ),
    )
    remember(question, compiled)
    return compiled


def _matchable(question: Question) -> Compiled:
    """The question's phrase groups, subjects and needle index, before its reference is read."""
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
    return Compiled(
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


class ReferenceReading(Attributed):
    """The reference answer read against its own question: what it says of each concept
    (denied or not, which way, which pole, only listed, which other subjects its claim
    names), which an answer must then say the same way."""

    __slots__ = ()

    @property
    def masks(self) -> tuple[tuple[int, int], ...]:
        return tuple(self.spans)

    @property
    def names(self) -> tuple[tuple[int, int], ...]:
        # Denials are read with the names blanked out (无状态 denies nothing), not the
        # phrases that say something: "不会阻塞 C++ core" denies C++ core.
        return tuple(self.term_spans)

    def negative(self, c: CompiledConcept) -> bool:
        """The reference's own polarity: a concept it names in a denial or an avoidance
        ("避免重复计算") is a negative claim, and an answer that denies it agrees with it."""
        found = self.find(c.aliases)
        if c.concept.terms and not found:
            return states_negatively(c.concept.label)
        return bool(found) and all(
            # A place where the reference's own phrase is the denial ("不会阻塞") is one.
            negation_in(p.text) or self.layout.is_negative(s, e, self.names)
            for p, s, e in found
        )

    def negative_phrases(self, c: CompiledConcept) -> frozenset[str]:
        """The phrases of a concept the reference names, each in denials only: "whole GPUs,
        and GPUs cannot be overcommitted" states its claim's `overcommitted` as a denial. A
        subject's claim counts only the places its sentence says of that subject: elsewhere
        a denial is as often the contrast with another ("CPU 超过 limit 不会被杀" after the
        memory limit's claim of being killed)."""
        seen: dict[str, bool] = {}
        for p, s, e in self.find(c.aliases):
            if c.subject >= 0 and not self._said_in_sentence_of(s, e, c.subject):
                continue
            key = p.text.casefold()
            here = negation_in(p.text) or self.layout.is_negative(s, e, self.names)
            seen[key] = seen.get(key, True) and here
        return frozenset(key for key, negative in seen.items() if negative)

    def _said_in_sentence_of(self, start: int, end: int, subject: int) -> bool:
        bound = self.said_of(start, end, subject)
        layout = self.layout
        return (
            bound is not None
            and bound[2] == subject
            and layout.sentence(bound[0]) == layout.sentence(start)
        )

    def claim_span(self, concept: Concept) -> tuple[int, int] | None:
        """Where the reference says an imported concept's claim (its label, maybe cut short
        with …): there each of its terms has its own polarity."""
        words = tokenize(concept.label.rstrip("…")).folded.split()
        if len(words) < 2:
            return None
        m = re.search(r"\s*".join(map(re.escape, words)), self.folded)
        if m is None:
            return None
        layout = self.layout
        return m.start(), layout.sentence_span(layout.sentence(m.end() - 1))[1]

    def term_negative(self, c: CompiledConcept) -> tuple[bool, ...]:
        """Whether the reference denies each of a claim's terms."""
        span = self.claim_span(c.concept) if c.concept.terms else None
        out = []
        for g in c.terms:
            places = [(s, e) for _, s, e in self.find(g) if span and span[0] <= s < span[1]]
            if places:
                out.append(all(self.layout.is_negative(s, e, self.names) for s, e in places))
            else:
                out.append(states_negatively(c.concept.label))
        return tuple(out)

    def valued(self, group: Group) -> tuple[int, ...]:
        """The pole of each scale every place the reference names it agrees on (0 if not);
        a pole denied is the other one ("do not raise max_num_seqs" keeps it low)."""
        masks, names = self.masks, self.names
        seen = [
            denied(values_at(self.folded, s, e, masks), self.layout.is_negated(s, e, names))
            for _, s, e in self.find(group)
        ]
        if not seen:
            return ()
        return tuple(
            poles.pop() if len(poles := {v[i] for v in seen} - {0}) == 1 else 0
            for i in range(len(seen[0]))
        )

    def turned(self, group: Group) -> int:
        """The one way every place the reference names it turns it, if there is one."""
        masks = self.masks
        ways = {self.layout.direction(s, e, masks) for _, s, e in self.find(group)}
        ways.discard(0)
        return ways.pop() if len(ways) == 1 else 0

    def said_elsewhere(self, c: CompiledConcept) -> set[str]:
        """Phrases the reference itself, in this claim, puts nearer another subject ("a
        shared cache keeps …, so a larger Vary list … lowers the hit ratio"): reading them by
        the nearest subject would call the reference mixed up, so they are not read that way."""
        span = self.claim_span(c.concept) if c.subject >= 0 else None
        if span is None:
            return set()
        return {
            p.text.casefold()
            for group in (c.aliases, *c.terms)
            for p, b, e in self.find(group)
            if span[0] <= b < span[1]
            and (bound := self.said_of(b, e, c.subject)) is not None
            and bound[2] != c.subject
        }

    def objects_of(self, c: CompiledConcept) -> frozenset[int]:
        """Other subjects the claim names as objects. Only those that open no clause of the
        claim: one that does ("…，decode 是 memory-bound") is a subject with its own claim,
        which a swap says of the other."""
        span = self.claim_span(c.concept) if c.subject >= 0 else None
        if span is None:
            return frozenset()
        return frozenset(
            i
            for b, e, i in self.subject_mentions()
            if i != c.subject and span[0] <= b < span[1] and not self._opens_clause(b)
        )

    def listed(self, c: CompiledConcept) -> bool:
        """A concept the reference itself only lists (`CPU 侧：tokenizer、GC、日志`) is
        stated by listing it: listing is all the reference asks of it."""
        places = [b for group in (c.aliases, *c.terms) for _, b, _ in self.find(group)]
        return bool(places) and not any(self.predicates_at(b) for b in places)


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
