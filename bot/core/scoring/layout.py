"""Where a claim stands in an answer: sentences, clauses, and whether a place is denied.

Keyword matching finds *where* a concept is named; this module says how the text around that
place is laid out and whether it denies what it names. It works on the normalised text of
`bot.core.text` (full-width folded), by character offset, in two nested units:

- a **sentence** ends at 。！？；!?; a line break, or a full stop before a space: a claim's
  parts (a subject and what is said of it) must stand in one sentence;
- a **clause** is a sentence cut further at commas, colons and connectives (because, but,
  so, 因为, 但是, 所以 …): negation reaches to the end of its clause and no further.

Whether a sentence says anything at all is `bot.core.scoring.cues`; which way it turns a
quantity, `bot.core.scoring.values`. The words all three read by are language data
(`bot.core.lang`). Cues are word lists, not a parser: they are cheap (scoring runs thousands
of answers a second) and they fail soft, towards crediting the answer.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from itertools import chain

from bot.core.lang import LANGUAGES, alternatives, words
from bot.core.scoring.values import direction

# A run of 。！？；!?; and line breaks, or a full stop before a space, the end or Chinese.
# Written to start with one character class (the `.` told apart by a look back): the
# engine then skips to candidate characters in C instead of trying the pattern at every
# position (5x faster; runs on every answer). tests/test_claims_regexes.py checks it
# against the plain form `[。！？；!?;\n]+|\.(?=\s|$|[\u3400-\u9fff])`.
_SENTENCE_END_RE = re.compile(
    r"[。！？；!?;\n.](?:(?<=\.)(?=\s|$|[\u3400-\u9fff])|(?<!\.)[。！？；!?;\n]*)"
)
# What opens a clause: punctuation or a Chinese connective (the first pattern), a dash
# between spaces (the second), or an English connective (the third). Plainly one pattern,
#   [,，:：]|\s[-–—]\s|\b(?:because|…|and then)\b|(?:因为|…|还有)
# split in three for speed (no match of one can overlap one of another, so together they
# find the same; tests/test_claims_regexes.py checks it): each of the first two starts
# with a character or a class, so the engine skips to those in C; the third, whose first
# letters are cased, runs only when one of its words is in the text.
_CLAUSE_CONNECTIVES_CJK = "|".join(
    w for lang in LANGUAGES for w in lang.clause_connectives if not w.isascii()
)
_CLAUSE_MARK_RE = re.compile(r",|，|:|：|" + _CLAUSE_CONNECTIVES_CJK)
_CLAUSE_DASH_RE = re.compile(r"\s[-–—]\s")
# Connectives that open a new clause (negation stops before them).
_CONNECTIVES_LATIN = [w for lang in LANGUAGES for w in lang.clause_connectives if w.isascii()]
_CLAUSE_WORD_RE = re.compile(
    rf"\b(?=[{''.join(sorted({c for w in _CONNECTIVES_LATIN for c in w[0] + w[0].upper()}))}])"
    rf"(?:{'|'.join(_CONNECTIVES_LATIN)})\b",
    re.IGNORECASE,
)
_CONNECTIVE_WORDS = frozenset(w for w in _CONNECTIVES_LATIN if " " not in w)
# Clauses opened by these deny what they say: "X instead of Y", "用 X 而不是 Y".
_NEGATING_OPENERS = tuple(w for lang in LANGUAGES for w in lang.negating_openers)
# A-不-A asks, it does not deny: 是不是, 能不能, 要不要.
_QUESTION_NEGATORS = "".join(lang.question_negators for lang in LANGUAGES)
_A_NOT_A_RE = re.compile(rf"([\u4e00-\u9fff])[{_QUESTION_NEGATORS}]\1")
_NEGATING_WORD_RE = re.compile(
    "|".join(rf"\b{w}\b" for w in _NEGATING_OPENERS if w.isascii()), re.IGNORECASE
)
# How far after a term (characters) a negator still denies it: "X is not", "X 并不".
_NEGATION_REACH = 10
# A term list denied as a whole ("KL 散度和 percentile 都不是", "X and Y are not") reaches
# back to its first item: the reach is measured after the other items (named terms, which
# are blanked) and the words joining them.
_CONJUNCTIONS_CJK = [w for lang in LANGUAGES for w in lang.conjunctions if not w.isascii()]
_CONJUNCTIONS_LATIN = [w for lang in LANGUAGES for w in lang.conjunctions if w.isascii()]
_ARTICLES = [w for lang in LANGUAGES for w in lang.articles]
_LIST_TAIL_RE = re.compile(
    rf"(?:\s*(?:{'|'.join(_CONJUNCTIONS_CJK)}|、|,|，|/"
    rf"|\b(?:{'|'.join(_CONJUNCTIONS_LATIN)})(?:\s+(?:{'|'.join(_ARTICLES)}))?\b)\s{{2,}})+",
    re.IGNORECASE,
)
# A term that opens a clause of time ("收到 SIGTERM 后不接新请求", "OOM 之后不要重试"): what
# follows is the main clause, and a negator there denies its own verb, not the term.
_TIME_CLAUSE_AFTER_RE = re.compile(rf"\s*(?:{alternatives('time_clause_after')})")
# A term as the subject of a denied English verb: "<term> (mode) is not", "… isn't".
_DENIED_VERB_RE = re.compile(alternatives("denied_after"), re.IGNORECASE)

# Negators of every language (see bot.core.lang). The lookahead names every first character:
# the engine then tries the alternatives only where one could start (this runs on every
# answer).
_NEGATION_FIRST = "".join(lang.negation_first for lang in LANGUAGES)
_NEGATION_RE = re.compile(
    f"(?=[{_NEGATION_FIRST}])(?:{alternatives('negation')})",
    re.IGNORECASE,
)


# A negator followed, before the term, by a word that closes its reach (a condition or a
# clause of time: "分支不一致就会串行"), or inside a modifier of the term ("没算完的小份"),
# denies something else.
_NEGATION_CLOSER_RE = re.compile(alternatives("negation_closers") or "(?!)")
_NEGATED_MODIFIER_RE = re.compile(alternatives("negated_modifier") or "(?!)")


# A condition opened before its negator ("when there aren't enough GPUs let the cluster add
# nodes"): the condition's first negator denies the words of its own phrase, this many at
# most before the term ("if it doesn't reuse", "if it isn't fully reused"), not the main
# clause the comma-less condition runs into.
_CONDITION_OPENER_RE = re.compile(alternatives("condition_openers") or "(?!)", re.IGNORECASE)
_CONDITION_REACH_WORDS = 2

# A clause of purpose or result ("so that an old duplicate SYN can't open a connection"): its
# negator says what a risk is kept from. An answer saying so states the claim; a reference
# saying so states it as an avoidance.
_PURPOSE_CLAUSE_RE = re.compile(alternatives("purpose_clause_openers") or "(?!)", re.IGNORECASE)


def _in_purpose_clause(text: str, stop: int) -> bool:
    """Whether text[:stop] opens a clause of purpose before any negator ("so that X can't",
    "保证 X 不被替换"; not "不保证 X")."""
    opener = _PURPOSE_CLAUSE_RE.search(text, 0, stop)
    return opener is not None and _NEGATION_RE.search(text, 0, opener.start()) is None


def _denied_before(text: str, stop: int) -> bool:
    """Whether a negator in text[:stop] reaches the term at `stop`."""
    openers = [m.end() for m in _CONDITION_OPENER_RE.finditer(text, 0, stop)]
    previous = -1  # where the last negator ended
    for found in _NEGATION_RE.finditer(text, 0, stop):
        after = found.end()
        in_condition = any(previous < at <= found.start() for at in openers)
        previous = after
        if _NEGATION_CLOSER_RE.search(text, after, stop) is not None:
            continue
        if _NEGATED_MODIFIER_RE.match(text, after, stop) is not None:
            continue
        if in_condition and len(text[after:stop].split()) > _CONDITION_REACH_WORDS:
            continue
        return True
    return False


# The first test for negators, by script: any CJK negator character, any English word.
_CJK_NEGATOR_RE = re.compile(f"[{''.join(c for c in _NEGATION_FIRST if not c.isascii())}]")
_EN_NEGATORS = words("negator_words")


def may_deny(text: str, words: Iterable[str]) -> bool:
    """A first test for negators: a CJK negator character, an English negator among the
    text's Latin `words` (lower-cased), or an `n't`. It may say yes where `_NEGATION_RE`
    finds nothing (`NoSchedule` holds the word "no"), never no where it finds one: each of
    its English negators is a whole word, and the text is normalised (NFKC has folded the
    letters that match ASCII ones only case-insensitively)."""
    return (
        _CJK_NEGATOR_RE.search(text) is not None
        or not _EN_NEGATORS.isdisjoint(words)
        or "n't" in text
        or "n’t" in text
    )


# Saying one does not know ("具体怎么调度的我不太清楚", "not sure how") denies nothing of
# the claim and states nothing of it: the clause earns no credit and costs none.
# Each holds a negator, so only texts with one are searched.
_UNSURE_RE = re.compile(alternatives("unsure"), re.IGNORECASE)


class Layout:
    """Sentence and clause boundaries of a (normalised) text, by character offset."""

    __slots__ = (
        "_clause_starts",
        "_negated",
        "_negating_clauses",
        "_sentence_starts",
        "_words",
        "has_negator",
        "text",
    )

    def __init__(self, text: str, words: frozenset[str] | set[str] | None = None) -> None:
        """`words`, when given, are the text's Latin words, lower-cased: a cheaper first
        test for English negators than a search of the whole text."""
        self.text = text
        self._words = words
        self._sentence_starts = [0, *(m.end() for m in _SENTENCE_END_RE.finditer(text))]
        # Most answers deny nothing: one search spares them every per-clause negation test.
        if words is None:
            self.has_negator = _NEGATION_RE.search(text) is not None or (
                _NEGATING_WORD_RE.search(text) is not None
            )
        else:
            # The cheap test may say yes where the searches would not (`NoSchedule` holds
            # the word "no"), never no where they would say yes: they confirm a yes.
            self.has_negator = may_deny(text, words) and (
                _NEGATION_RE.search(text) is not None or _NEGATING_WORD_RE.search(text) is not None
            )
        self._clause_starts: list[int] | None = None  # built on the first clause question
        self._negating_clauses: set[int] = set()
        self._negated: dict[int, bool] = {}  # place -> denied (masks are per answer)

    def _clauses(self) -> list[int]:
        if self._clause_starts is not None:
            return self._clause_starts
        text = self.text
        starts = set(self._sentence_starts)
        negating: set[int] = set()
        marks = chain(_CLAUSE_MARK_RE.finditer(text), _CLAUSE_DASH_RE.finditer(text))
        if self._words is None or not _CONNECTIVE_WORDS.isdisjoint(self._words):
            marks = chain(marks, _CLAUSE_WORD_RE.finditer(text))
        for m in marks:
            word = m.group().strip().lower()
            # A connective opens a clause at its own start (it belongs to what follows);
            # punctuation opens one after itself (a Han character is alphanumeric too).
            at = m.start() if word[:1].isalnum() else m.end()
            starts.add(at)
            if word in _NEGATING_OPENERS:
                negating.add(at)
        self._clause_starts = sorted(starts)
        self._negating_clauses = negating
        return self._clause_starts

    def is_question(self, pos: int) -> bool:
        """Whether the sentence at `pos` asks (ends with a question mark): it states nothing."""
        start, end = self.sentence_span(self.sentence(pos))
        ending = self.text[start:end].rstrip()
        return ending.endswith(("?", "？"))

    def is_unsure(self, pos: int) -> bool:
        """Whether the clause at `pos` says the writer does not know (see _UNSURE_RE)."""
        if not self.has_negator:
            return False
        c_start, c_end = self.clause_span(pos)
        return _UNSURE_RE.search(self.text, c_start, c_end) is not None

    @property
    def sentences(self) -> int:
        return len(self._sentence_starts)

    def sentence(self, pos: int) -> int:
        """Index of the sentence holding offset `pos`."""
        return bisect_right(self._sentence_starts, pos) - 1

    def sentence_span(self, index: int) -> tuple[int, int]:
        starts = self._sentence_starts
        end = starts[index + 1] if index + 1 < len(starts) else len(self.text)
        return starts[index], end

    def clause_span(self, pos: int) -> tuple[int, int]:
        starts = self._clauses()
        i = bisect_right(starts, pos) - 1
        end = starts[i + 1] if i + 1 < len(starts) else len(self.text)
        return starts[i], end

    def is_negative(self, start: int, end: int, masks: tuple[tuple[int, int], ...] = ()) -> bool:
        """Whether the clause around [start, end) denies or avoids it (the reference's side:
        a claim it states as a denial or an avoidance may be stated either way)."""
        if self.is_negated(start, end, masks):
            return True
        c_start, c_end = self.clause_span(start)
        clause = masked(self.text, c_start, c_end, masks)
        if _AVOIDING_RE.search(clause) is not None:
            return True
        return _in_purpose_clause(clause, len(clause)) and negation_in(clause)

    def is_negated(self, start: int, end: int, masks: tuple[tuple[int, int], ...] = ()) -> bool:
        """Whether the clause around [start, end) denies it (the span itself not counted).

        A negator before the term in its clause denies it ("不支持 ensemble", "no KV cache");
        one after it only when close ("ensemble 不支持", "is not supported"): in "queue
        duration means batches are not filling" the denial is of the filling. Cached per
        place: within one answer the masks are every term it names.
        """
        found = self._negated.get(start)
        if found is None:
            if not self.has_negator:
                return False
            c_start, c_end = self.clause_span(start)
            if c_start in self._negating_clauses:
                found = True
            else:
                stop = max(c_end, end)
                text = masked(self.text, c_start, stop, ((start, end), *masks))
                # A-不-A asks, it does not deny: 是不是, 能不能, 要不要 (found in the text as
                # written: in 靠不靠前 the second 靠 may be a masked term's).
                for asked in _A_NOT_A_RE.finditer(self.text, c_start, stop):
                    at = asked.start() - c_start + 1
                    text = text[:at] + " " + text[at + 1 :]
                split = end - c_start
                after = text[split:]
                tail = _LIST_TAIL_RE.match(after)
                if tail is not None:
                    after = after[tail.end() :]
                # Close after it: ten characters ("ensemble 不支持", "X is not"), or the term as
                # an English subject of a denied verb ("explicit mode is not recommended",
                # "X isn't"), not a denial further on ("X means batches are not filling").
                found = _denied_before(text, start - c_start) or (
                    _TIME_CLAUSE_AFTER_RE.match(after) is None
                    and (
                        _NEGATION_RE.search(after[:_NEGATION_REACH]) is not None
                        or _DENIED_VERB_RE.match(after) is not None
                    )
                )
                if found and _in_purpose_clause(text, start - c_start):
                    found = False
            self._negated[start] = found
        return found

    def direction(self, start: int, end: int, masks: tuple[tuple[int, int], ...] = ()) -> int:
        """Which way the clause around [start, end) turns what it names: +1 up (调大, raise),
        -1 down (调小, lower), 0 neither, both, or denied (a denial is judged as one)."""
        c_start, c_end = self.clause_span(start)
        if self.is_negated(start, end, masks):
            return 0
        return direction(masked(self.text, c_start, max(c_end, end), ((start, end), *masks)))


def masked(text: str, start: int, end: int, spans: tuple[tuple[int, int], ...]) -> str:
    """text[start:end] with the given spans blanked out."""
    inside = sorted((max(s, start), min(e, end)) for s, e in spans if s < end and start < e)
    if not inside:
        return text[start:end]
    pieces = []
    at = start
    for s, e in inside:
        if s > at:
            pieces.append(text[at:s])
        if e > at:
            pieces.append(" " * (e - max(s, at)))
            at = e
    pieces.append(text[at:end])
    return "".join(pieces)


# The strongest cues: copulas, auxiliaries and function words that no term contains. A

# Words that put a claim in the negative without a negator: the reference saying "避免重复
# 计算" agrees with an answer saying "不用再算一遍".
_AVOIDING_RE = re.compile(alternatives("avoiding"), re.IGNORECASE)


def denies_or_avoids(text: str) -> bool:
    """Whether a claim is stated as a denial or an avoidance ("没有显存隔离", "避免重复计算")."""
    return _NEGATION_RE.search(text) is not None or _AVOIDING_RE.search(text) is not None


def negation_in(text: str) -> bool:
    """Whether a piece of text contains a negator."""
    return _NEGATION_RE.search(text) is not None
