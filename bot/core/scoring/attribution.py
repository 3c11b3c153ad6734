"""Whose claim: which subject of the question a place in the answer is said of (the nearest
in its clause, else a topic earlier in its sentence or, with a pronoun, before its ";"), and
whether a place is part of a subject's own name."""

from __future__ import annotations

import re

from bot.core.lang import LANGUAGES, alternatives
from bot.core.scoring.compiled import CompiledConcept
from bot.core.scoring.phrases import Group
from bot.core.scoring.reading import Reading

# Words that open a clause before its topic: "而 X …", "but for X …".
_CLAUSE_OPENING_RE = re.compile(
    rf"[\s\W]*(?:(?:{'|'.join(w for lang in LANGUAGES for w in lang.topic_openers)})\s*)*",
    re.IGNORECASE,
)
# What a comparison is measured against is not what it is said of: `动态范围比 INT8 大` says
# the dynamic range of the clause's topic is larger, not INT8's.
# How far before a subject the words that make it a comparand may start ("compared with "
# is 14 characters; a phone may type two spaces).
_COMPARAND_REACH = 24
_COMPARAND_BEFORE_RE = re.compile(rf"(?:{alternatives('comparand_before')})\s*$", re.IGNORECASE)
_COMPARAND_AFTER_RE = re.compile(rf"\s*(?:{alternatives('comparand_after')})")
# A sentence opened by its purpose ("to see the timeline, use nsys").
_PURPOSE_OPENING_RE = re.compile(
    rf"\s*(?:{'|'.join(w for lang in LANGUAGES for w in lang.purpose_openers)})(?![a-z])",
    re.IGNORECASE,
)
# Marks that set the items of a list side by side (see _in_item).
_ITEM_SEPARATORS = tuple(dict.fromkeys(s for lang in LANGUAGES for s in lang.item_separators))
# A sentence after a ";" that opens with a pronoun goes on with the topic before it.
_PRONOUN_OPENING_RE = re.compile(
    rf"\s*(?:{'|'.join(w for lang in LANGUAGES for w in lang.pronouns)})(?![a-z])",
    re.IGNORECASE,
)


class Attributed(Reading):
    """A reading that also says whose claim each place is."""

    __slots__ = ()

    def subject_mentions(self) -> list[tuple[int, int, int]]:
        """Every place a subject of the question is named: (start, end, subject index)."""
        if self._subjects is None:
            found = sorted(
                {
                    (b, e, i)
                    for i, group in enumerate(self.compiled.subjects)
                    for _, b, e in self.find(group)
                }
            )
            # `Dynamo` inside `Dynamo-Triton` names Dynamo-Triton: drop mentions that sit
            # inside a longer mention of another subject.
            self._subjects = [
                m
                for m in found
                if not any(
                    o[2] != m[2] and o[0] <= m[0] and m[1] <= o[1] and o[1] - o[0] > m[1] - m[0]
                    for o in found
                )
            ]
        return self._subjects

    def said_of(self, start: int, end: int, subject: int) -> tuple[int, int, int] | None:
        """The subject a claim named at [start, end) is said of: the nearest one around it.

        Nearest within its clause (either side), else the last topic before it in its
        sentence, else (in a sentence opened by its purpose: "to see the timeline, use nsys")
        the first subject after it there, else the topic before a ";" that a pronoun goes on
        with; None when the answer names no subject around it.
        """
        mentions = self.subject_mentions()
        if not mentions:
            return None
        inside = [m for m in mentions if m[0] < end and start < m[1]]
        if inside:
            own = [m for m in inside if m[2] == subject]
            if own:
                return own[0]
            # The term is itself the name of another subject: it is not said of that one.
            mentions = [m for m in mentions if m not in inside]
        layout = self.layout
        c_start, c_end = layout.clause_span(start)
        s_start, _ = layout.sentence_span(layout.sentence(start))
        in_clause = [
            m
            for m in mentions
            if c_start <= m[0] and m[1] <= c_end and not self._comparand(m[0], m[1])
        ]
        if in_clause:
            in_clause = self._in_item(in_clause, start, end, (c_start, c_end))
            # Topic first: the nearest subject before it in its clause ("X（gloss）、Y（…）"
            # glosses X), else the nearest after it.
            before_it = [m for m in in_clause if m[1] <= start]
            nearest = (
                max(m[1] for m in before_it)
                if before_it
                else min(m[0] for m in in_clause if m[0] >= end)
            )
            # Names two subjects share (vLLM is an engine and a backend) count for this one.
            at = [m for m in in_clause if (m[1] if before_it else m[0]) == nearest]
            return next((m for m in at if m[2] == subject), at[0])
        # Outside its own clause, a claim is said of a clause's topic: a subject that opens a
        # clause before it in its sentence ("…，decode 是 …"), not one named as an object
        # ("归入 NVIDIA Dynamo 平台").
        topics = [m for m in mentions if self._opens_clause(m[0])]
        before = [m for m in topics if s_start <= m[0] and m[1] <= start]
        if before:
            return before[-1]
        if _PURPOSE_OPENING_RE.match(self.folded, s_start):
            _, s_end = layout.sentence_span(layout.sentence(start))
            after = [m for m in mentions if end <= m[0] and m[1] <= s_end]
            if after:
                return after[0]
        return self._said_of_beyond(start, s_start, topics)

    def _said_of_beyond(
        self, start: int, s_start: int, topics: list[tuple[int, int, int]]
    ) -> tuple[int, int, int] | None:
        """With no subject before it in its sentence: the last topic of the sentence before,
        when a ";" and a pronoun go on with it ("ncu is for kernels; it shows …"). A
        subject after the claim, or further back, is not guessed at: on the graded answers
        that guessed wrong more often than right."""
        if (
            s_start == 0
            or self.folded[s_start - 1] != ";"
            or _PRONOUN_OPENING_RE.match(self.folded, s_start) is None
        ):
            return None
        layout = self.layout
        p_start, _ = layout.sentence_span(layout.sentence(s_start - 1))
        earlier = [m for m in topics if p_start <= m[0] and m[1] <= s_start]
        return earlier[-1] if earlier else None

    def _in_item(
        self, mentions: list[tuple[int, int, int]], start: int, end: int, clause: tuple[int, int]
    ) -> list[tuple[int, int, int]]:
        """The mentions in the item (of a list set side by side with 、) that holds [start,
        end), when it has any: "节点内 TP、跨节点 PP" says 跨节点 of PP. Else all of them."""
        folded, (c_start, c_end) = self.folded, clause
        i_start = max(
            (folded.rfind(sep, c_start, start) + len(sep) for sep in _ITEM_SEPARATORS),
            default=c_start,
        )
        found = [at for sep in _ITEM_SEPARATORS if (at := folded.find(sep, end, c_end)) >= 0]
        i_end = min(found, default=c_end)
        own = [m for m in mentions if max(c_start, i_start) <= m[0] and m[1] <= i_end]
        return own or mentions

    def _comparand(self, start: int, end: int) -> bool:
        """Whether the subject named at [start, end) is what something is compared with."""
        folded = self.folded
        return (
            _COMPARAND_BEFORE_RE.search(folded, max(0, start - _COMPARAND_REACH), start) is not None
            or _COMPARAND_AFTER_RE.match(folded, end) is not None
        )

    def _opens_clause(self, pos: int) -> bool:
        c_start, _ = self.layout.clause_span(pos)
        return _CLAUSE_OPENING_RE.fullmatch(self.folded[c_start:pos]) is not None

    def _own_name(self, item: CompiledConcept, start: int, end: int) -> bool:
        """Whether [start, end) lies inside a mention of the concept's own subject."""
        if item.subject < 0:
            return False
        return any(
            m[2] == item.subject and m[0] <= start and end <= m[1] for m in self.subject_mentions()
        )

    def _inside_name(self, start: int, end: int, other_than: int) -> bool:
        """Whether [start, end) lies strictly inside a longer mention of another subject
        (and of no mention of `other_than` at the same place)."""
        mentions = self.subject_mentions()
        inside = [
            m for m in mentions if m[0] <= start and end <= m[1] and m[1] - m[0] > end - start
        ]
        return (
            bool(inside)
            and all(m[2] != other_than for m in inside)
            and not any(m[2] == other_than and m[0] <= start and end <= m[1] for m in mentions)
        )

    def _in_sentence(self, group: Group, pos: int, subject: int) -> bool:
        """Whether a required part is said in the sentence at `pos`, and of this subject."""
        sentence = self.layout.sentence(pos)
        for _, b, e in self.find(group):
            if self.layout.sentence(b) != sentence:
                continue
            bound = self.said_of(b, e, subject) if subject >= 0 else None
            if bound is None or bound[2] == subject:
                return True
        return False
