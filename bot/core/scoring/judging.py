"""The verdict on each concept: covered, listed, partly stated, denied or said of another
subject, from the places the answer names it; and a claim given as key terms, credited by
the share of them it states."""

from __future__ import annotations

from dataclasses import replace

from bot.core.scoring.attribution import Attributed
from bot.core.scoring.compiled import CompiledConcept
from bot.core.scoring.phrases import Phrase
from bot.core.scoring.reading import denied
from bot.core.scoring.records import RANK, ConceptHit, Status
from bot.core.scoring.values import clash, values_at

_CONTRADICTING = frozenset({Status.MISATTRIBUTED, Status.NEGATED})
# Stripped from a quote's ends: spaces, separators, and the punctuation a clause ends at.
_QUOTE_EDGES = " \t\n,，;；:：。.、!！?？-–—"


class Judged(Attributed):
    """A reading that judges how the answer dealt with each concept it named."""

    __slots__ = ()

    def judge(
        self,
        item: CompiledConcept,
        found: list[tuple[Phrase, int, int]],
        direction: int = 0,
        negative: bool | None = None,
        values: tuple[int, ...] = (),
    ) -> ConceptHit | None:
        """The most favourable reading of the places the concept is named, or None."""
        best: ConceptHit | None = None
        # A place that says it wrongly, and whether any credited place says more than the
        # subject's own name (`max_batch_size` names its subject, it states nothing of it).
        wrong: ConceptHit | None = None
        stated = False
        for phrase, start, end in found:
            if self.says_nothing_at(item, start, end):
                continue
            negative_here = (
                negative
                if negative is not None
                else item.negative or phrase.text.casefold() in item.negative_phrases
            )
            verdict = self.verdict_at(item, phrase, start, end, direction, negative_here, values)
            if verdict is None:
                continue
            status, bound = verdict
            contradicts = status in _CONTRADICTING
            if best is None or RANK[status] > RANK[best.status] or (contradicts and not wrong):
                hit = self.hit(item, phrase, start, end, status, bound)
                if contradicts and wrong is None:
                    wrong = hit
                if best is None or RANK[status] > RANK[best.status]:
                    best = hit
            if not contradicts and not self._own_name(item, start, end):
                stated = True
                if status is Status.COVERED:
                    break
        # Named right but said wrong: "max_batch_size 是请求最多等多久" names max_batch_size
        # and gives it another parameter's meaning.
        if wrong is not None and not stated:
            return wrong
        if best is not None and not stated and best.credit > 0 and item.subject >= 0:
            return replace(best, named_only=True)
        return best

    def says_nothing_at(self, item: CompiledConcept, start: int, end: int) -> bool:
        """A place that neither states nor denies the concept: a required part said in
        another sentence, a word inside another subject's name (训练 in 量化感知训练), "not
        sure" ("怎么调度的我不太清楚"), or a question asked back ("how do keys expire?")."""
        if item.requires and not all(
            self._in_sentence(group, start, item.subject) for group in item.requires
        ):
            return True
        if item.subject >= 0 and self._inside_name(start, end, other_than=item.subject):
            return True
        return self.layout.is_unsure(start) or self.layout.is_question(start)

    def verdict_at(
        self,
        item: CompiledConcept,
        phrase: Phrase,
        start: int,
        end: int,
        direction: int,
        negative: bool,
        values: tuple[int, ...],
    ) -> tuple[Status, tuple[int, int, int] | None] | None:
        """What the answer does with the concept at one place, and the subject it said it of
        when that is another one; None when the place states neither it nor its opposite."""
        bound = (
            self.said_of(start, end, item.subject)
            if item.subject >= 0 and phrase.text.casefold() not in self.compiled.unbound
            else None
        )
        # The other pole of a scale the reference names here ("ITL 越好" for "ITL 越差").
        # The answer's pole, turned round where it denies it, as the reference's is.
        opposite = any(values) and clash(
            values,
            denied(values_at(self.folded, start, end, tuple(self.spans)), self.negated(start, end)),
        )
        other = bound is not None and bound[2] != item.subject and bound[2] not in item.objects
        if opposite and bound is None and item.subject >= 0:
            # The other pole of a subject's claim with no subject named: of this subject it
            # is the opposite, of a sibling the contrast; in neither reading is this
            # subject's claim stated ("GPU 利用率高" for "静态批处理的 GPU 利用率低").
            return None
        if other and not opposite:
            return Status.MISATTRIBUTED, bound
        if (
            (not negative and self.negated(start, end))
            or self.turned_back(start, end, direction)
            # The other pole said of this subject, or of nothing in a claim that has none.
            # Said of a sibling it is the contrast put the other way round ("continuous
            # batching 的 GPU 利用率高" for "static batching 的 GPU 利用率低").
            or (opposite and not other)
        ):
            return Status.NEGATED, None
        if not self.predicates_at(start) and not item.listed:
            return Status.LISTED, None
        return Status.COVERED, None

    def hit(
        self,
        item: CompiledConcept,
        phrase: Phrase,
        start: int,
        end: int,
        status: Status,
        bound: tuple[int, int, int] | None,
    ) -> ConceptHit:
        """The record of one place: where, what it earned, and the clause that earned it."""
        o_start, o_end = self.tokens.span(start, end)
        c_start, c_end = self.tokens.span(*self._clause_around(start, end))
        return ConceptHit(
            label=item.concept.label,
            weight=item.concept.weight,
            phrase=phrase.text,
            start=o_start,
            end=o_end,
            text=self.text[o_start:o_end],
            status=status,
            said_of=self.folded[bound[0] : bound[1]] if bound else "",
            credit=self.compiled.list_credit
            if status is Status.LISTED
            else float(status is Status.COVERED),
            said_of_subject=bound[2] if bound else -1,
            quote=self.text[c_start:c_end].strip(_QUOTE_EDGES),
        )

    def _clause_around(self, start: int, end: int) -> tuple[int, int]:
        """The clause holding [start, end): what a learner reads to check the verdict."""
        c_start, c_end = self.layout.clause_span(start)
        return min(c_start, start), max(c_end, end)

    def judge_terms(
        self, item: CompiledConcept, found: list[list[tuple[Phrase, int, int]]]
    ) -> ConceptHit | None:
        """A claim given as key terms: credit for the share of them it states."""
        hits = [
            h
            for h in (
                self.judge(item, places, way, neg, vals)
                for places, way, neg, vals in zip(
                    found, item.term_directions, item.term_negative, item.term_values, strict=True
                )
                if places
            )
            if h
        ]
        if not hits:
            return None
        hits.sort(key=lambda h: (-h.credit, -RANK[h.status]))
        if item.subject < 0:
            # The same for a claim without a subject: when each term only it has is denied
            # or turned ("并不能减少显存" for "一是显存"), the terms it shares with other
            # claims (`INT4`, `权重`) do not state it.
            telling = [h for h in hits if h.phrase.casefold() not in self.compiled.shared_terms]
            if telling and all(h.credit == 0 for h in telling):
                return telling[0]
        if item.subject >= 0:
            # Terms the claims of several subjects share (`调度`, `显存`) tell nothing about
            # whose claim this is: when each term that does tell is said wrongly (of another
            # subject, or denied), the claim is said wrongly, whatever the shared ones earn.
            telling = [h for h in hits if h.phrase.casefold() not in self.compiled.unbound]
            if telling and all(h.credit == 0 for h in telling):
                return telling[0]
        # Stated terms add up; a listed term earns its share of the best place only: listing
        # two terms of a claim does not half-state it.
        top = hits[: item.need]
        earned = (top[0].credit + sum(h.credit for h in top[1:] if h.credit >= 1)) / item.need
        best = hits[0]
        return replace(best, credit=min(1.0, earned))
