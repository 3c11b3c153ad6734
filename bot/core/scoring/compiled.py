"""A question compiled for matching: its concepts' phrase groups, subjects and polarities, the
needle index over all of them, and the bounded caches of compiled questions and of answer
words looked up as typos."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from rapidfuzz.distance import OSA

from bot.core.content import Concept, Question
from bot.core.scoring.phrases import TYPO_MIN, Group, Phrase, max_edits
from bot.core.text import stem

# A concept only named in a list of terms earns this share of its weight: knowing the word
# is worth something, explaining it is worth the rest.
LIST_CREDIT = 0.3
# ... unless the question asks to name things ("有哪些参数", "which two modes").
LIST_CREDIT_ENUMERATION = 0.6
# A claim given as key terms (`terms:`) is stated when this many of them are (or all, if it
# has fewer): one term of a two-term claim earns half.
TERMS_NEEDED = 2
# What a claim said wrongly (denied, or said of another subject) costs, as a share of its


@dataclass(frozen=True, slots=True)
class CompiledConcept:
    concept: Concept
    aliases: Group  # label and aliases, less those the question itself contains
    subject: int  # index into Compiled.subjects, or -1
    requires: tuple[Group, ...]
    terms: tuple[Group, ...]  # the claim's key terms: stating `need` of them states it
    need: int
    # The reference answer denies it ("不会阻塞 core"): a denial in the answer then agrees.
    negative: bool
    # Phrases the reference names only in denials ("cannot be overcommitted" in a claim
    # whose other phrases it affirms): a denial of one of them in the answer agrees too.
    negative_phrases: frozenset[str] = frozenset()
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


class TypoMemo:
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
class Compiled:
    concepts: tuple[CompiledConcept, ...]
    subjects: tuple[Group, ...]  # the distinct subjects of the question's claims
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
    index: dict[str, tuple[tuple[Group, str, Phrase], ...]] = field(default_factory=dict)
    index_keys: frozenset[str] = frozenset()
    keyless: tuple[tuple[Group, str, Phrase], ...] = ()
    typo_memo: TypoMemo = field(default_factory=TypoMemo, compare=False)

    def indexed(self) -> Compiled:
        """This compiled question with the needle index of all its groups built."""
        groups = [g for c in self.concepts for g in (c.aliases, *c.requires, *c.terms)] + list(
            self.subjects
        )
        index: dict[str, list[tuple[Group, str, Phrase]]] = {}
        keyless: list[tuple[Group, str, Phrase]] = []
        for group in groups:
            for key, needles in group.by_key.items():
                index.setdefault(key, []).extend((group, n, p) for n, p in needles)
            keyless.extend((group, n, p) for n, p in group.keyless)
        frozen = {k: tuple(v) for k, v in index.items()}
        return replace(self, index=frozen, index_keys=frozenset(frozen), keyless=tuple(keyless))

    def typos_of(self, raw: str) -> tuple[str, ...]:
        """Phrase words that `raw` (an answer word) is a likely typo of."""
        if len(raw) < TYPO_MIN or not raw.isascii() or stem(raw) in self.fuzzy_stems:
            return ()
        edges = self.fuzzy_by_edge
        return tuple(
            word
            for word in {*edges.get(raw[0], ()), *edges.get(raw[-2:], ())}
            if abs(len(word) - len(raw)) <= (cut := max_edits(word))
            and OSA.distance(raw, word, score_cutoff=cut) <= cut
        )


# Keyed by id(): hashing a frozen pydantic model walks all its fields on every call. The
# question is kept in the value so its id cannot be reused while the entry lives.
COMPILED: dict[int, tuple[Question, Compiled]] = {}
COMPILED_MAX = 10_000
# Answer words already looked up as possible typos, per question (see TypoMemo), and one
# bound on them for the whole process: typos repeat across answers, and a bank of any size
# costs the same memory.
TYPO_MEMO_MAX = 20_000
_typo_memo_size = 0


def typo_memo_size() -> int:
    """How many answer words the typo memos of every question hold together."""
    return _typo_memo_size


def remember_typos(memo: TypoMemo, raw: str, found: tuple[str, ...]) -> None:
    global _typo_memo_size
    if _typo_memo_size >= TYPO_MEMO_MAX:
        for _, compiled in COMPILED.values():
            compiled.typo_memo.clear()
        memo.clear()  # (a question compiled outside the cache holds one too)
        _typo_memo_size = 0
    if found:
        memo.typos[raw] = found
    else:
        memo.clean.add(raw)
    _typo_memo_size += 1


def remember(question: Question, compiled: Compiled) -> None:
    """Keep a compiled question, emptying the cache (and the typo memos with it) when full."""
    global _typo_memo_size
    if len(COMPILED) >= COMPILED_MAX:
        COMPILED.clear()
        _typo_memo_size = 0  # the memos went with their questions
    COMPILED[id(question)] = (question, compiled)
