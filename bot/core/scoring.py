"""Keyword-coverage scoring: which of a question's concepts an answer *states*, and where.

`score_answer(question, text)` is pure and total: any string in, a `ScoreResult` out, score in
[0, 1]. A concept is named when one of its phrases appears as a run of whole tokens (see
`bot.core.text`; long English words and identifiers also match with small typos). Naming is
not stating: `bot.core.claims` reads the text around each place a concept is named, and the
concept counts as

- **covered** (full weight) when it is named in a sentence that says something of it, not
  denied, and said of the right subject;
- **listed** (`LIST_CREDIT` of its weight) when it is only named in a bare list of terms;
- **contradicted** (no credit) when every place denies it ("Triton 不支持 ensemble", "does not
  need a KV cache") while the reference does not, or says it of another subject of the
  question ("prefill 是 memory-bound，decode 是 compute-bound" for "prefill is compute-bound").

Words of the question itself never count: an alias found in the question text is dropped, so
pasting the question back scores nothing.

The score is the credited share of the concepts' weights (`coverage`), plus a small share of
the *uncovered* remainder for using the reference answer's vocabulary beyond the question's
(`relevance`, at most `RELEVANCE_SHARE` of the gap, and none for an answer that predicates
nothing). Full coverage is 100%; with no concept covered, an on-topic answer still ranks above
an off-topic one, as a person grading would rank them.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field, replace
from enum import StrEnum
from itertools import accumulate, chain, compress, pairwise

from rapidfuzz.distance import OSA

from bot.core.claims import (
    Layout,
    asks_to_enumerate,
    clash,
    denies_or_avoids,
    has_verb,
    is_statement,
    list_item_at,
    masked,
    negation_in,
    predicates,
    values_at,
)
from bot.core.content import Concept, Question
from bot.core.lang import words
from bot.core.text import Tokens, canonical, stem, tokenize

_PLUS_ONE = (1).__add__

# Typo tolerance, per Latin word of an identifier or English phrase: words shorter than
# FUZZY_MIN_WORD must match exactly (after stemming); longer ones may be FUZZY_EDITS[0] edits
# off, and from FUZZY_LONG_WORD characters on FUZZY_EDITS[1]. A whole phrase may be off by at
# most one edit per FUZZY_CHARS_PER_EDIT characters, and phrases shorter than that never fuzz,
# which keeps `explicit` from matching `implicit` and `dynamo` from matching `dynamic`.
FUZZY_MIN_WORD = 5
FUZZY_LONG_WORD = 9
FUZZY_EDITS = (1, 2)
_TYPO_MIN = FUZZY_MIN_WORD - FUZZY_EDITS[1]  # shorter answer words are no phrase word's typo
FUZZY_CHARS_PER_EDIT = 8

RELEVANCE_SHARE = 0.15
# A phrase longer than this with a verb in it is a statement, not a term.
TERM_CHARS = 6
# A concept only named in a list of terms earns this share of its weight: knowing the word
# is worth something, explaining it is worth the rest.
LIST_CREDIT = 0.3
# ... unless the question asks to name things ("有哪些参数", "which two modes").
LIST_CREDIT_ENUMERATION = 0.6
# A claim given as key terms (`terms:`) is stated when this many of them are (or all, if it
# has fewer): one term of a two-term claim earns half.
TERMS_NEEDED = 2
# What a claim said wrongly (denied, or said of another subject) costs, as a share of its
# weight: a grader marks a false statement down, not just uncredited.
CONTRADICTION_COST = 0.6
# Function words (Latin) and characters (CJK) that are no topic of an answer.
_STOP_WORDS = words("stop_words")
_STOP_CHARS = words("stop_chars")


class Status(StrEnum):
    """How an answer dealt with a concept it named."""

    COVERED = "covered"  # stated: full credit
    LISTED = "listed"  # only named in a bare list of terms: LIST_CREDIT
    NEGATED = "negated"  # denied where the reference affirms it: no credit
    MISATTRIBUTED = "misattributed"  # said of another subject of the question: no credit


# When a concept is named several times, the most favourable reading is kept.
_RANK = {Status.COVERED: 3, Status.LISTED: 2, Status.MISATTRIBUTED: 1, Status.NEGATED: 0}


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
                }
                for h in (*self.covered, *self.contradicted)
            ],
        }


@dataclass(frozen=True, slots=True)
class _Phrase:
    text: str
    # (needle, key) for substring search in the answer's canonical string. Latin ends carry a
    # space (whole words only); CJK ends do not (a phrase may sit inside a run). The key (first
    # stem, or first CJK bigram; "" = none) must be among the answer's keys for a match.
    needles: tuple[tuple[str, str], ...]
    words: tuple[str, ...]  # raw lower-case tokens, for the typo-tolerant pass
    fuzzy_budget: int  # total edits allowed; 0 = exact only
    # A name, not a statement: blanked out when a sentence is tested for saying something.
    # A phrase with a verb of its own ("不会阻塞", "platform 是早期的写法") stays, so a
    # sentence that contains it still predicates.
    is_term: bool = True


@dataclass(frozen=True, slots=True, eq=False)
class _Group:
    """Phrases that say one thing: needles grouped by key (the question's needle index is
    built from these), needles without a key, and the typo-tolerant phrases with their first
    word and its stem.

    Equal and hashed by identity (eq=False): an answer's matches are kept by group, and one
    group is one place in one compiled question.
    """

    by_key: dict[str, tuple[tuple[str, _Phrase], ...]]
    keyless: tuple[tuple[str, _Phrase], ...]
    fuzzy: tuple[tuple[_Phrase, str, str], ...]
    # Every word of the typo-tolerant phrases: an answer with a typo of none of them needs
    # no near-match search of this group.
    fuzzy_words: frozenset[str] = frozenset()

    @classmethod
    def build(cls, phrases: list[_Phrase]) -> _Group:
        groups: dict[str, dict[str, _Phrase]] = {}
        for phrase in phrases:
            for needle, key in phrase.needles:
                groups.setdefault(key, {}).setdefault(needle, phrase)
        by_key = {k: tuple(g.items()) for k, g in groups.items() if k}
        keyless = tuple(groups.get("", {}).items())
        fuzzy = tuple((p, p.words[0], stem(p.words[0])) for p in phrases if p.fuzzy_budget)
        return cls(by_key, keyless, fuzzy, frozenset(w for p, _, _ in fuzzy for w in p.words))

    @property
    def empty(self) -> bool:
        return not (self.by_key or self.keyless or self.fuzzy)

    def words(self) -> set[str]:
        return {w for p, _, _ in self.fuzzy for w in p.words if _max_edits(w)}


@dataclass(frozen=True, slots=True)
class _CompiledConcept:
    concept: Concept
    aliases: _Group  # label and aliases, less those the question itself contains
    subject: int  # index into _Compiled.subjects, or -1
    requires: tuple[_Group, ...]
    terms: tuple[_Group, ...]  # the claim's key terms: stating `need` of them states it
    need: int
    # The reference answer denies it ("不会阻塞 core"): a denial in the answer then agrees.
    negative: bool
    # Which way the reference turns what the aliases / each term name (+1 up, -1 down, 0
    # neither): an answer turning it the other way says the opposite.
    direction: int = 0
    term_directions: tuple[int, ...] = ()
    # The pole of each scale the reference names next to the aliases / each term.
    values: tuple[int, ...] = ()
    term_values: tuple[tuple[int, ...], ...] = ()
    term_negative: tuple[bool, ...] = ()  # ... and whether it denies each term
    listed: bool = False  # the reference only names it in a list (no predicate around)
    # Other subjects the reference's own claim names as objects ("…把 batch 限制在这个点附近"
    # in a claim of throughput): a term said of one of them is said as the claim says it.
    objects: frozenset[int] = frozenset()


class _TypoMemo:
    """One question's looked-up answer words: those that are no phrase word's typo
    (`clean`: a set, so a set difference in C skips them) and those that are (`typos`)."""

    __slots__ = ("clean", "typos")

    def __init__(self) -> None:
        self.clean: set[str] = set()
        self.typos: dict[str, tuple[str, ...]] = {}

    def clear(self) -> None:
        self.clean.clear()
        self.typos.clear()


@dataclass(frozen=True, slots=True)
class _Compiled:
    concepts: tuple[_CompiledConcept, ...]
    subjects: tuple[_Group, ...]  # the distinct subjects of the question's claims
    vocabulary: frozenset[str]  # topic words and CJK bigrams of the reference, not the question
    # Words of typo-tolerant phrases by first letter and by last two letters: an answer word
    # that is none of them exactly is compared with those sharing its start or its end (one
    # or two typos in a long word leave one of them intact).
    fuzzy_by_edge: dict[str, list[str]]
    fuzzy_stems: frozenset[str]
    # Latin words the question's own texts use (question, reference, phrases): an answer
    # word among them is a word of the field spelled right, never a typo of another one
    # (`batch` is not `watch` mistyped, nor `contiguous` a typo of `continuous`).
    known_words: frozenset[str]
    total_weight: float
    list_credit: float = LIST_CREDIT
    # Phrases that claims about different subjects share (`调度` said of static and of
    # continuous batching): they tell nothing about which subject a claim is of.
    unbound: frozenset[str] = frozenset()
    # Term phrases two or more claims share (`延迟`, `token`): they tell nothing of which
    # claim an answer states.
    shared_terms: frozenset[str] = frozenset()
    # Every needle of every group, by key: one set intersection with the answer's keys picks
    # the needles worth searching for the whole question at once. (group, needle, phrase)
    index: dict[str, tuple[tuple[_Group, str, _Phrase], ...]] = field(default_factory=dict)
    index_keys: frozenset[str] = frozenset()
    keyless: tuple[tuple[_Group, str, _Phrase], ...] = ()
    typo_memo: _TypoMemo = field(default_factory=_TypoMemo, compare=False)

    def indexed(self) -> _Compiled:
        """This compiled question with the needle index of all its groups built."""
        groups = [g for c in self.concepts for g in (c.aliases, *c.requires, *c.terms)] + list(
            self.subjects
        )
        index: dict[str, list[tuple[_Group, str, _Phrase]]] = {}
        keyless: list[tuple[_Group, str, _Phrase]] = []
        for group in groups:
            for key, needles in group.by_key.items():
                index.setdefault(key, []).extend((group, n, p) for n, p in needles)
            keyless.extend((group, n, p) for n, p in group.keyless)
        frozen = {k: tuple(v) for k, v in index.items()}
        return replace(self, index=frozen, index_keys=frozenset(frozen), keyless=tuple(keyless))

    def typos_of(self, raw: str) -> tuple[str, ...]:
        """Phrase words that `raw` (an answer word) is a likely typo of."""
        if len(raw) < _TYPO_MIN or not raw.isascii() or stem(raw) in self.fuzzy_stems:
            return ()
        edges = self.fuzzy_by_edge
        return tuple(
            word
            for word in {*edges.get(raw[0], ()), *edges.get(raw[-2:], ())}
            if abs(len(word) - len(raw)) <= (cut := _max_edits(word))
            and OSA.distance(raw, word, score_cutoff=cut) <= cut
        )


def answer_terms(tokens: Tokens) -> set[str]:
    """All Latin stems and CJK bigrams of an answer, built in C (map, set).

    Unfiltered: it is only intersected with a reference `vocabulary`, which has no stop words.
    """
    terms = set(tokens.latin_stem)
    for run in tokens.cjk_runs:
        terms.update(map(str.__add__, run, run[1:]))
    return terms


def vocabulary(tokens: Tokens) -> set[str]:
    """Topic terms of a token stream: non-stop Latin stems and CJK character bigrams."""
    terms = {
        stem(raw)
        for raw in tokens.latin
        if len(raw) > 1 and raw not in _STOP_WORDS and not raw.isdigit()
    }
    for run in tokens.cjk_runs:
        terms.update(
            a + b for a, b in pairwise(run) if a not in _STOP_CHARS and b not in _STOP_CHARS
        )
    return terms


def needle(text: str) -> str:
    """How a phrase is searched for: its stems, with word edges where it starts or ends in
    Latin (`" max batch size "`, `"显存"`); "" for a phrase with no words."""
    phrase = _compile_phrase(text)
    return phrase.needles[0][0] if phrase else ""


def _compile_phrase(text: str) -> _Phrase | None:
    tokens = tokenize(text)
    if not tokens:
        return None
    lead = "" if tokens.cjk[0] else " "
    tail = "" if tokens.cjk[-1] else " "
    # The key: a word every match must contain (the first stem), or the first two characters
    # of a leading CJK run; answers are screened by their keys before any search.
    first = tokens.stem[0]
    key = first[:2] if tokens.cjk[0] else first
    needles = [
        (lead + " ".join(tokens.stem) + tail, key if len(key) > 1 or not tokens.cjk[0] else "")
    ]
    latin = [raw for raw in tokens.raw if raw.isascii()]
    if len(tokens) > 1 and len(latin) == len(tokens):
        # People also write identifiers run together: maxqueuedelay, kserve, vllm.
        joined = stem("".join(latin))
        needles.append((f" {joined} ", joined))
    letters = sum(len(raw) for raw in latin if raw.isalpha())
    fuzzable = len(latin) == len(tokens) and any(len(raw) >= FUZZY_MIN_WORD for raw in latin)
    budget = letters // FUZZY_CHARS_PER_EDIT if fuzzable else 0
    return _Phrase(text, tuple(needles), tuple(tokens.raw), budget, _is_term(text))


def _is_term(text: str) -> bool:
    """A name (`模型管理`, `max_batch_size`), not a statement (`不会阻塞`, `避免 poll 带来的
    意外变更`): statements keep their verbs when a sentence is tested for saying something."""
    if text.isascii() and not any(c.isspace() for c in text):
        # One Latin word or identifier (`write-through`, `cache-aside`, `max_batch_size`)
        # is a name, whatever words it is made of.
        return True
    return not is_statement(text) and not (len(text) > TERM_CHARS and has_verb(text))


def _phrases(texts: tuple[str, ...], *, unless_in: str = "", said: bool = False) -> list[_Phrase]:
    """Compile phrases, leaving out those whose every needle occurs in `unless_in`.

    `said`: the phrases are what is said of a concept (its required parts: 推荐, 用, set to),
    never blanked out as terms when a sentence is tested for saying something.
    """
    out = []
    for text in texts:
        phrase = _compile_phrase(text)
        if phrase is None:
            continue
        if unless_in and all(needle in unless_in for needle, _ in phrase.needles[:1]):
            continue
        out.append(replace(phrase, is_term=False) if said else phrase)
    return out


# Keyed by id(): hashing a frozen pydantic model walks all its fields on every call. The
# question is kept in the value so its id cannot be reused while the entry lives.
_COMPILED: dict[int, tuple[Question, _Compiled]] = {}
_COMPILED_MAX = 10_000
# Answer words already looked up as possible typos, per question (see _TypoMemo), and one
# bound on them for the whole process: typos repeat across answers, and a bank of any size
# costs the same memory.
_TYPO_MEMO_MAX = 20_000
_typo_memo_size = 0


def typo_memo_size() -> int:
    """How many answer words the typo memos of every question hold together."""
    return _typo_memo_size


def _remember_typos(memo: _TypoMemo, raw: str, found: tuple[str, ...]) -> None:
    global _typo_memo_size
    if _typo_memo_size >= _TYPO_MEMO_MAX:
        for _, compiled in _COMPILED.values():
            compiled.typo_memo.clear()
        memo.clear()  # (a question compiled outside the cache holds one too)
        _typo_memo_size = 0
    if found:
        memo.typos[raw] = found
    else:
        memo.clean.add(raw)
    _typo_memo_size += 1


def _compile(question: Question) -> _Compiled:
    cached = _COMPILED.get(id(question))
    if cached is not None and cached[0] is question:
        return cached[1]
    asked = canonical(tokenize(question.question))
    subjects: list[_Group] = []
    subject_ids: dict[tuple[str, ...], int] = {}
    short_forms = _short_forms(question)
    concepts: list[_CompiledConcept] = []
    for concept in question.concepts:
        subject = -1
        if concept.subject:
            key = tuple(sorted(p.casefold() for p in concept.subject))
            if key not in subject_ids:
                subject_ids[key] = len(subjects)
                subjects.append(
                    _Group.build(_phrases((*concept.subject, *short_forms.get(key, ()))))
                )
            subject = subject_ids[key]
        concepts.append(
            _CompiledConcept(
                concept,
                _Group.build(_phrases(concept.phrases, unless_in=asked)),
                subject,
                tuple(_Group.build(_phrases(part, said=True)) for part in concept.requires),
                terms := tuple(
                    g
                    for g in (_Group.build(_phrases(t, unless_in=asked)) for t in concept.terms)
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
        for text in (question.question, question.answer, *_all_phrases(question))
        for w in tokenize(text).latin
    }
    compiled = _Compiled(
        tuple(concepts),
        tuple(subjects),
        frozenset(vocabulary(tokenize(question.answer)) - asked_terms),
        by_edge,
        frozenset(map(stem, words)),
        frozenset(known),
        question.total_weight,
        LIST_CREDIT_ENUMERATION if asks_to_enumerate(question.question) else LIST_CREDIT,
        _shared_between_subjects(question),
        _shared_between_claims(question),
    ).indexed()
    # The reference's own polarity: a concept it names in a denial or an avoidance ("避免重复
    # 计算") is a negative claim, and an answer that denies it agrees with it.
    reference = _Reading(question.answer, compiled)
    negative = [
        _states_negatively(c.concept.label)
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

    def term_negative(c: _CompiledConcept) -> tuple[bool, ...]:
        span = claim_span(c.concept) if c.concept.terms else None
        out = []
        for g in c.terms:
            places = [(s, e) for _, s, e in reference.find(g) if span and span[0] <= s < span[1]]
            if places:
                out.append(all(reference.layout.is_negative(s, e, names) for s, e in places))
            else:
                out.append(_states_negatively(c.concept.label))
        return tuple(out)

    def valued(group: _Group) -> tuple[int, ...]:
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

    def turned(group: _Group) -> int:
        # The one way every place the reference names it turns it, if there is one.
        ways = {reference.layout.direction(s, e, masks) for _, s, e in reference.find(group)}
        ways.discard(0)
        return ways.pop() if len(ways) == 1 else 0

    def said_elsewhere(c: _CompiledConcept) -> set[str]:
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

    def objects_of(c: _CompiledConcept) -> frozenset[int]:
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

    def listed_by_reference(c: _CompiledConcept) -> bool:
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
    if len(_COMPILED) >= _COMPILED_MAX:
        global _typo_memo_size
        _COMPILED.clear()
        _typo_memo_size = 0  # the memos went with their questions
    _COMPILED[id(question)] = (question, compiled)
    return compiled


_CLAUSE_OPENING_RE = re.compile(
    r"[\s\W]*(?:(?:而|但|但是|对于|对|至于|其中|and|but|while|whereas|so|for|with|the|a|an)\s*)*",
    re.IGNORECASE,
)
# What a comparison is measured against is not what it is said of: `动态范围比 INT8 大` says
# the dynamic range of the clause's topic is larger, not INT8's.
# How far before a subject the words that make it a comparand may start ("compared with "
# is 14 characters; a phone may type two spaces).
_COMPARAND_REACH = 24
_COMPARAND_BEFORE_RE = re.compile(
    r"(?:比|相比|相比于|相较于|相对于|不如|than|compared\s+(?:to|with)|vs\.?|versus)\s*$",
    re.IGNORECASE,
)
_COMPARAND_AFTER_RE = re.compile(r"\s*(?:相比|相比较|比较|比起来|来说更)")


# Word parts, function words, common adjectives and verbs: what is left of `intra-layer`,
# `post-training`, `small model` or `maximum batch size` names nothing.
_NOT_NAMES = _STOP_WORDS | frozenset(
    """intra inter post multi non self over under small smaller smallest large larger largest
    big bigger main cheap cheaper fast faster slow slower high higher low lower maximum minimum
    max min default new old first last other single multiple simple full half total overall
    good better best basic general common normal special""".split()
)
# The same for Chinese: adjectives (…的) and verbs that name a phase or a kind (生成阶段,
# 计算密集) without naming a thing.
_NOT_CJK_NAMES = frozenset(
    """生成 计算 处理 执行 运行 推理 训练 加载 调度 读取 写入 大的 小的 新的 旧的 快的 慢的
    高的 低的 主要 默认 普通 简单 单个 多个 全部 部分""".split()
)


def _short_forms(question: Question) -> dict[tuple[str, ...], tuple[str, ...]]:
    """Shorter names of subjects set side by side: what is left of a name once the words
    its siblings share are dropped (`readiness probe` / `liveness probe` are said
    `readiness` / `liveness`; `静态批处理` / `连续批处理` are said `静态` / `连续`).

    What is left must be a name: not a word the siblings' names use too, nor one the question
    uses outside the full names (`nvidia` in "NVIDIA Dynamo-Triton 和 NVIDIA Dynamo"), nor a
    common adjective or verb (`small` of small model, `生成` of 生成阶段 would turn every
    "small batch" or "生成 KV cache" into a subject).
    """
    keyed: dict[tuple[str, ...], tuple[str, ...]] = {}
    for concept in question.concepts:
        if concept.subject:
            keyed.setdefault(tuple(sorted(p.casefold() for p in concept.subject)), concept.subject)
    if len(keyed) < 2:
        return {}
    words = {k: {w for p in v for w in tokenize(p).latin if w.isalpha()} for k, v in keyed.items()}
    runs = {k: [r for p in v for r in tokenize(p).cjk_runs] for k, v in keyed.items()}
    # The question with every subject's full names taken out: a short form still found in
    # it is used there for more than one subject (`NVIDIA Dynamo-Triton 和 NVIDIA Dynamo`).
    rest = canonical(tokenize(question.question))
    for name in sorted((n for v in keyed.values() for n in v), key=len, reverse=True):
        rest = rest.replace(canonical(tokenize(name)).strip(), " ")
    out: dict[tuple[str, ...], tuple[str, ...]] = {}
    for key, names in keyed.items():
        others_words = set().union(*(w for k, w in words.items() if k != key))
        others_runs = [r for k, rs in runs.items() if k != key for r in rs]
        forms: list[str] = []
        for name in names:
            tokens = tokenize(name)
            if tokens.cjk_runs and len(tokens) == 1:
                run = tokens.cjk_runs[0]
                for other in others_runs:
                    common = 0  # the head they share: the longest common ending
                    while common < min(len(run), len(other)) and (
                        run[-1 - common] == other[-1 - common]
                    ):
                        common += 1
                    short = run[: len(run) - common]
                    if (
                        common
                        and len(short) >= 2
                        and short not in _NOT_CJK_NAMES
                        and not short.endswith("的")
                    ):
                        forms.append(short)
            elif tokens.latin and not tokens.cjk_runs:
                # The head noun siblings share is the last word: `readiness probe`.
                latin = tokens.latin
                cut = len(latin)
                while cut > 0 and latin[cut - 1] in others_words:
                    cut -= 1
                kept = latin[:cut]
                if (
                    0 < cut < len(latin)
                    and len(kept) <= 2
                    and all(
                        len(w) >= 4
                        and w.isalpha()
                        and w not in _NOT_NAMES
                        # a word the siblings' names use tells them apart from nothing
                        and w not in others_words
                        for w in kept
                    )
                ):
                    forms.append(" ".join(kept))
        usable = [f for f in dict.fromkeys(forms) if canonical(tokenize(f)).strip() not in rest]
        if usable:
            out[key] = tuple(usable)
    return out


def _all_phrases(question: Question) -> list[str]:
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


def _states_negatively(claim: str) -> bool:
    """Whether a claim (a concept given as key terms: its label is the claim) is a denial."""
    return denies_or_avoids(claim)


def _shared_between_subjects(question: Question) -> frozenset[str]:
    subjects_of: dict[str, set[tuple[str, ...]]] = {}
    for concept in question.concepts:
        if not concept.subject:
            continue
        key = tuple(sorted(p.casefold() for p in concept.subject))
        for phrase in (*concept.phrases, *(p for part in concept.terms for p in part)):
            subjects_of.setdefault(phrase.casefold(), set()).add(key)
    return frozenset(p for p, keys in subjects_of.items() if len(keys) > 1)


def _shared_between_claims(question: Question) -> frozenset[str]:
    claims_of: dict[str, int] = {}
    for concept in question.concepts:
        for phrase in {p.casefold() for part in concept.terms for p in part}:
            claims_of[phrase] = claims_of.get(phrase, 0) + 1
    return frozenset(p for p, n in claims_of.items() if n > 1)


class _Reading:
    """An answer prepared for matching against one question: tokens, offsets, layout."""

    __slots__ = (
        "_found",
        "_layout",
        "_starts_at",
        "_subjects",
        "canon",
        "compiled",
        "folded",
        "keys",
        "predicating",
        "spans",
        "term_spans",
        "text",
        "tokens",
        "typos",
    )

    def __init__(self, text: str, compiled: _Compiled) -> None:
        self.text = text
        self.compiled = compiled
        self.tokens = tokenize(text)
        self.folded = self.tokens.folded
        self.canon = canonical(self.tokens)
        # Latin stems and CJK bigrams: what needles are keyed by, and the answer's vocabulary.
        self.keys = answer_terms(self.tokens)
        self._starts_at: list[int] | None = None  # see `starts`
        # Built on first use only (most answers never need a typo search).
        self.typos: dict[str, set[str]] | None = None
        self._layout: Layout | None = None
        self._subjects: list[tuple[int, int, int]] | None = None
        # What the search found for each group, exactly or (once asked) with typos.
        self._found: dict[_Group, list[tuple[_Phrase, int, int]]] | None = None
        self.spans: list[tuple[int, int]] = []  # every place a phrase was named (folded)
        self.term_spans: list[tuple[int, int]] = []  # ... of those that are only names
        self.predicating: dict[int, bool] = {}  # sentence index -> says something

    def starts(self) -> list[int]:
        """Offset of each token in `canon`: 1, then each stem's length plus its space. Found
        on the first match (maps and accumulate run in C)."""
        if self._starts_at is None:
            stems = self.tokens.stem
            self._starts_at = (
                list(accumulate(map(_PLUS_ONE, map(len, stems[:-1])), initial=1)) if stems else []
            )
        return self._starts_at

    @property
    def layout(self) -> Layout:
        if self._layout is None:
            self._layout = Layout(self.folded, set(self.tokens.latin))
        return self._layout

    # -- finding phrases -------------------------------------------------------------------

    def locate(self, at: int, needle: str) -> tuple[int, int]:
        """Where in the folded text the needle found at canonical offset `at` stands."""
        tokens, starts = self.tokens, self.starts()
        if needle.startswith(" "):  # starts at a word: the token after the space
            first = bisect_right(starts, at + 1) - 1
            begin = tokens.start_of(first)
        else:  # starts inside a CJK run, maybe not at its beginning
            first = bisect_right(starts, at) - 1
            begin = tokens.start_of(first) + (at - starts[first])
        stop = at + len(needle) - (1 if needle.endswith(" ") else 0)  # exclusive
        last = bisect_right(starts, stop - 1) - 1
        if needle.endswith(" "):
            end = tokens.end_of(last)
        else:
            end = tokens.start_of(last) + (stop - starts[last])
        return begin, end

    def find(self, group: _Group) -> list[tuple[_Phrase, int, int]]:
        """Every place a phrase of the group is named: (phrase, folded start, folded end)."""
        if self._found is None:
            self._search_all()
        assert self._found is not None
        found = self._found.get(group)
        if found is not None:  # found by the exact search, or looked for before
            return found
        found = self._found[group] = []
        if group.fuzzy:
            if self.typos is None:
                self.index_typos()
            # A near match needs a typo of one of the phrase's words in the answer: without
            # one, the exact search would have found it.
            typos = self.typos
            if typos and not group.fuzzy_words.isdisjoint(typos):
                for phrase, _, _ in group.fuzzy:
                    if any(w in typos for w in phrase.words):
                        span = self.find_fuzzy(phrase)
                        if span is not None:
                            found.append((phrase, *span))
                            self._note(phrase, *span)
        return found

    def _search_all(self) -> None:
        """Search every needle of the question whose key the answer has, once."""
        compiled, canon = self.compiled, self.canon
        found: dict[_Group, list[tuple[_Phrase, int, int]]] = {}
        self._found = found
        if not self.tokens:
            return
        index = compiled.index
        needles = chain.from_iterable(map(index.__getitem__, compiled.index_keys & self.keys))
        folded = self.folded
        for group, needle, phrase in chain(needles, compiled.keyless):
            at = canon.find(needle)
            while at >= 0:
                begin, end = self.locate(at, needle)
                # The canonical text has no punctuation: a phrase of several words found
                # across a sentence end ("…static. Batching…") is not named, unless the
                # phrase has one itself.
                if (
                    _PHRASE_BREAK_RE.search(folded, begin, end) is None
                    or _PHRASE_BREAK_RE.search(phrase.text) is not None
                ):
                    found.setdefault(group, []).append((phrase, begin, end))
                    self._note(phrase, begin, end)
                at = canon.find(needle, at + 1)
        for places in found.values():
            # By position, so the same answer always reports the same match (set order
            # changes with the hash seed of each process).
            if len(places) > 1:
                places.sort(key=_place_order)

    def _note(self, phrase: _Phrase, begin: int, end: int) -> None:
        self.spans.append((begin, end))
        if phrase.is_term:
            self.term_spans.append((begin, end))

    def index_typos(self) -> None:
        """Map answer words that look like typos of phrase words to those words."""
        self.typos = {}
        compiled = self.compiled
        memo = compiled.typo_memo
        # Words of the question's own texts are spelled right, and most other words were
        # looked up before and are no typo: one set difference in C skips both.
        for raw in set(self.tokens.latin).difference(compiled.known_words, memo.clean):
            found = memo.typos.get(raw)
            if found is None:
                found = compiled.typos_of(raw)
                _remember_typos(memo, raw, found)
            for word in found:
                self.typos.setdefault(word, set()).add(raw)

    def _starts(self, word: str) -> list[int]:
        """Positions of answer tokens that may stand for `word`: same stem, or a typo of it."""
        target = stem(word)
        typos = self.typos.get(word, ()) if self.typos else ()
        if target not in self.keys and not typos:
            return []
        # Tokens whose stem or own form is the word's stem or one of its typos (two scans
        # in C; typo-tolerant phrases are all Latin, so no Chinese run is one of these).
        wanted = {target, *typos}
        tokens = self.tokens
        where = range(len(tokens.raw))
        found = set(compress(where, map(wanted.__contains__, tokens.stem)))
        found.update(compress(where, map(wanted.__contains__, tokens.raw)))
        return sorted(found)

    def find_fuzzy(self, phrase: _Phrase) -> tuple[int, int] | None:
        words = phrase.words
        n = len(words)
        raws, stems = self.tokens.raw, self.tokens.stem
        for i in self._starts(words[0]):
            if i + n > len(raws):
                break
            used = 0
            for j in range(n):
                edits = _edits(raws[i + j], stems[i + j], words[j])
                used += edits
                if edits < 0 or used > phrase.fuzzy_budget:
                    break
            else:
                return self.tokens.start_of(i), self.tokens.end_of(i + n - 1)
        return None

    # -- reading what is said --------------------------------------------------------------

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

        Nearest within its clause (either side), else the last one before it in its sentence,
        else the first after it in its sentence, else the last one before its sentence (a
        pronoun's antecedent); None when the answer names no subject around it.
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
        # ("归入 NVIDIA Dynamo 平台"). Nothing further: a subject after the claim, or in an
        # earlier sentence, guessed wrong more often than right on the graded answers.
        topics = [m for m in mentions if self._opens_clause(m[0])]
        before = [m for m in topics if s_start <= m[0] and m[1] <= start]
        return before[-1] if before else None

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

    def negated(self, start: int, end: int) -> bool:
        """Whether the clause around a named term denies it (named terms are not negators:
        无状态 "stateless" or an alias like 不阻塞 deny nothing)."""
        return self.layout.is_negated(start, end, tuple(self.term_spans))

    def turned_back(self, start: int, end: int, direction: int) -> bool:
        """Whether the answer turns what it names the other way from the reference."""
        if not direction:
            return False
        return self.layout.direction(start, end, tuple(self.spans)) == -direction

    def predicates_at(self, pos: int) -> bool:
        """Whether the sentence at `pos` (in a list of terms with a denial in it, the item
        at `pos`) says something beyond naming terms."""
        layout = self.layout
        index = layout.sentence(pos)
        found = self.predicating.get(index)
        if found is not None and not (found and layout.has_negator):
            return found
        s_start, s_end = layout.sentence_span(index)
        blanked = masked(self.folded, s_start, s_end, tuple(self.term_spans))
        if found is None:
            found = self.predicating[index] = predicates(blanked)
        if found and layout.has_negator:
            item = list_item_at(blanked, pos - s_start)
            if item is not None:
                return predicates(blanked[item[0] : item[1]])
        return found

    def says_anything(self) -> bool:
        """Whether any sentence of the answer predicates (for the relevance share)."""
        layout = self.layout
        return any(self.predicates_at(layout.sentence_span(i)[0]) for i in range(layout.sentences))

    def judge(
        self,
        item: _CompiledConcept,
        found: list[tuple[_Phrase, int, int]],
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
        if negative is None:
            negative = item.negative
        for phrase, start, end in found:
            status, said_of, said_of_subject = Status.COVERED, "", -1
            if item.requires and not all(
                self._in_sentence(group, start, item.subject) for group in item.requires
            ):
                continue
            if item.subject >= 0 and self._inside_name(start, end, other_than=item.subject):
                continue  # part of another subject's name (训练 in 量化感知训练): says nothing
            if self.layout.is_unsure(start):
                continue  # "怎么调度的我不太清楚": neither stated nor denied
            if self.layout.is_question(start):
                continue  # a question asked back ("how do keys expire?") states nothing
            bound = (
                self.said_of(start, end, item.subject)
                if item.subject >= 0 and phrase.text.casefold() not in self.compiled.unbound
                else None
            )
            # The other pole of a scale the reference names here ("ITL 越好" for "ITL 越差").
            # The answer's pole, turned round where it denies it, as the reference's is.
            opposite = any(values) and clash(
                values,
                denied(
                    values_at(self.folded, start, end, tuple(self.spans)),
                    self.negated(start, end),
                ),
            )
            other = bound is not None and bound[2] != item.subject and bound[2] not in item.objects
            if opposite and bound is None and item.subject >= 0:
                # The other pole of a subject's claim with no subject named: of this subject
                # it is the opposite, of a sibling the contrast; in neither reading is this
                # subject's claim stated ("GPU 利用率高" for "静态批处理的 GPU 利用率低").
                continue
            if bound is not None and other and not opposite:
                status, said_of = Status.MISATTRIBUTED, self.folded[bound[0] : bound[1]]
                said_of_subject = bound[2]
            elif (
                (not negative and self.negated(start, end))
                or self.turned_back(start, end, direction)
                # The other pole said of this subject, or of nothing in a claim that has none.
                # Said of a sibling it is the contrast put the other way round ("continuous
                # batching 的 GPU 利用率高" for "static batching 的 GPU 利用率低").
                or (opposite and not other)
            ):
                status = Status.NEGATED
            elif not self.predicates_at(start) and not item.listed:
                status = Status.LISTED
            contradicts = status is Status.MISATTRIBUTED or status is Status.NEGATED
            named = not contradicts and self._own_name(item, start, end)
            if best is None or _RANK[status] > _RANK[best.status] or (contradicts and not wrong):
                o_start, o_end = self.tokens.span(start, end)
                hit = ConceptHit(
                    label=item.concept.label,
                    weight=item.concept.weight,
                    phrase=phrase.text,
                    start=o_start,
                    end=o_end,
                    text=self.text[o_start:o_end],
                    status=status,
                    said_of=said_of,
                    credit=self.compiled.list_credit
                    if status is Status.LISTED
                    else float(status is Status.COVERED),
                    said_of_subject=said_of_subject,
                )
                if contradicts and wrong is None:
                    wrong = hit
                if best is None or _RANK[status] > _RANK[best.status]:
                    best = hit
            if not contradicts and not named:
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

    def _own_name(self, item: _CompiledConcept, start: int, end: int) -> bool:
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

    def judge_terms(
        self, item: _CompiledConcept, found: list[list[tuple[_Phrase, int, int]]]
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
        hits.sort(key=lambda h: (-h.credit, -_RANK[h.status]))
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

    def _in_sentence(self, group: _Group, pos: int, subject: int) -> bool:
        """Whether a required part is said in the sentence at `pos`, and of this subject."""
        sentence = self.layout.sentence(pos)
        for _, b, e in self.find(group):
            if self.layout.sentence(b) != sentence:
                continue
            bound = self.said_of(b, e, subject) if subject >= 0 else None
            if bound is None or bound[2] == subject:
                return True
        return False


# What no phrase runs across: a sentence end (as claims.py reads them). Commas are left
# alone: a phrase may hold one (`min(1, p/q)` is searched as `min 1 p q`).
_PHRASE_BREAK_RE = re.compile(r"[。！？；!?;\n]|\.(?=\s|$|[\u3400-\u9fff])")


def denied(values: tuple[int, ...], negated: bool) -> tuple[int, ...]:
    """The poles named in a denial read the other way: "not high" is low."""
    return tuple(-v for v in values) if negated else values


def _place_order(place: tuple[_Phrase, int, int]) -> tuple[int, int, str]:
    return place[1], -place[2], place[0].text


def _max_edits(word: str) -> int:
    if len(word) < FUZZY_MIN_WORD or not word.isalpha():
        return 0
    return FUZZY_EDITS[1] if len(word) >= FUZZY_LONG_WORD else FUZZY_EDITS[0]


def _edits(raw: str, stemmed: str, word: str) -> int:
    """Edits between an answer token and a phrase word, or -1 when too far apart."""
    if stemmed == stem(word):
        return 0
    cut = _max_edits(word)
    if cut == 0 or not raw.isascii():
        return -1
    d = OSA.distance(raw, word, score_cutoff=cut)
    return d if d <= cut else -1


def score_answer(question: Question, text: str) -> ScoreResult:
    """Score an answer by the weighted share of the question's concepts it states."""
    compiled = _compile(question)
    reading = _Reading(text, compiled)
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
            _best(
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


def _best(a: ConceptHit | None, b: ConceptHit | None) -> ConceptHit | None:
    if a is None or b is None:
        return a or b
    return a if (a.credit, _RANK[a.status]) >= (b.credit, _RANK[b.status]) else b


def is_answerable(text: str) -> bool:
    """Whether a message has any words to score (not only emoji, punctuation or markup)."""
    return bool(tokenize(text))
