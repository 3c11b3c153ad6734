"""Phrases as they are searched for: a concept's label, aliases, parts and terms compiled into
needles of the canonical token form (bot.core.text), grouped, with their typo budgets; and
the topic words of a text."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from itertools import pairwise

from rapidfuzz.distance import OSA

from bot.core.lang import LANGUAGES, words
from bot.core.scoring.cues import has_verb, is_statement
from bot.core.text import Tokens, stem, tokenize

# Typo tolerance, per Latin word of an identifier or English phrase: words shorter than
# FUZZY_MIN_WORD must match exactly (after stemming); longer ones may be FUZZY_EDITS[0] edits
# off, and from FUZZY_LONG_WORD characters on FUZZY_EDITS[1]. A whole phrase may be off by one
# edit per FUZZY_CHARS_PER_EDIT characters, and by one at least (`damanged` for `damaged`),
# which still keeps `explicit` from matching `implicit` and `dynamo` from matching `dynamic`.
FUZZY_MIN_WORD = 5
FUZZY_LONG_WORD = 9
FUZZY_EDITS = (1, 2)
TYPO_MIN = FUZZY_MIN_WORD - FUZZY_EDITS[1]  # shorter answer words are no phrase word's typo
FUZZY_CHARS_PER_EDIT = 8

# A phrase longer than this with a verb in it is a statement, not a term.
TERM_CHARS = 6
# Function words (Latin) and characters (CJK) that are no topic of an answer.
STOP_WORDS = words("stop_words")
STOP_CHARS = words("stop_chars")
# Degree adverbs read inside a phrase before its closing adjective (see _graded).
_DEGREE_ADVERBS = tuple(w for lang in LANGUAGES for w in lang.degree_adverbs)
_GRADED_ADJECTIVES = tuple(
    sorted({w for lang in LANGUAGES for w in lang.graded_adjectives}, key=len, reverse=True)
)


@dataclass(frozen=True, slots=True)
class Phrase:
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
class Group:
    """Phrases that say one thing: needles grouped by key (the question's needle index is
    built from these), needles without a key, and the typo-tolerant phrases with their first
    word and its stem.

    Equal and hashed by identity (eq=False): an answer's matches are kept by group, and one
    group is one place in one compiled question.
    """

    by_key: dict[str, tuple[tuple[str, Phrase], ...]]
    keyless: tuple[tuple[str, Phrase], ...]
    fuzzy: tuple[tuple[Phrase, str, str], ...]
    # Every word of the typo-tolerant phrases: an answer with a typo of none of them needs
    # no near-match search of this group.
    fuzzy_words: frozenset[str] = frozenset()

    @classmethod
    def build(cls, phrases: list[Phrase]) -> Group:
        groups: dict[str, dict[str, Phrase]] = {}
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
        return {w for p, _, _ in self.fuzzy for w in p.words if max_edits(w)}


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
        if len(raw) > 1 and raw not in STOP_WORDS and not raw.isdigit()
    }
    for run in tokens.cjk_runs:
        terms.update(a + b for a, b in pairwise(run) if a not in STOP_CHARS and b not in STOP_CHARS)
    return terms


def needle(text: str) -> str:
    """How a phrase is searched for: its stems, with word edges where it starts or ends in
    Latin (`" max batch size "`, `"显存"`); "" for a phrase with no words."""
    phrase = compile_phrase(text)
    return phrase.needles[0][0] if phrase else ""


def compile_phrase(text: str) -> Phrase | None:
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
    graded = _graded(tokens)
    if graded:
        base = needles[0][0][: -len(tokens.raw[-1])]
        needles.extend((base + run, needles[0][1]) for run in graded)
    latin = [raw for raw in tokens.raw if raw.isascii()]
    if len(tokens) > 1 and len(latin) == len(tokens):
        # People also write identifiers run together: maxqueuedelay, kserve, vllm.
        joined = stem("".join(latin))
        needles.append((f" {joined} ", joined))
    letters = sum(len(raw) for raw in latin if raw.isalpha())
    fuzzable = len(latin) == len(tokens) and any(len(raw) >= FUZZY_MIN_WORD for raw in latin)
    budget = max(letters // FUZZY_CHARS_PER_EDIT, 1) if fuzzable else 0
    return Phrase(text, tuple(needles), tuple(tokens.raw), budget, is_term_phrase(text))


def _graded(tokens: Tokens) -> list[str]:
    """The phrase's last CJK run with each degree adverb before its closing adjective
    ("通信多" -> "通信比较多", "通信很多"), when a word comes before the adjective (two
    characters at least in the same run: the phrase's search key, its first two, stays)."""
    run = tokens.raw[-1]
    if not tokens.cjk[-1]:
        return []
    for adjective in _GRADED_ADJECTIVES:
        head = run[: -len(adjective)]
        if run.endswith(adjective) and (len(head) >= 2 or (len(tokens) > 1 and head == "")):
            if head.endswith(_DEGREE_ADVERBS):
                return []
            return [head + adverb + adjective for adverb in _DEGREE_ADVERBS]
    return []


def is_term_phrase(text: str) -> bool:
    """A name (`模型管理`, `max_batch_size`), not a statement (`不会阻塞`, `避免 poll 带来的
    意外变更`): statements keep their verbs when a sentence is tested for saying something."""
    if text.isascii() and not any(c.isspace() for c in text):
        # One Latin word or identifier (`write-through`, `cache-aside`, `max_batch_size`)
        # is a name, whatever words it is made of.
        return True
    return not is_statement(text) and not (len(text) > TERM_CHARS and has_verb(text))


def phrases(texts: tuple[str, ...], *, unless_in: str = "", said: bool = False) -> list[Phrase]:
    """Compile phrases, leaving out those whose every needle occurs in `unless_in`.

    `said`: the phrases are what is said of a concept (its required parts: 推荐, 用, set to),
    never blanked out as terms when a sentence is tested for saying something.
    """
    out = []
    for text in texts:
        phrase = compile_phrase(text)
        if phrase is None:
            continue
        if unless_in and all(needle in unless_in for needle, _ in phrase.needles[:1]):
            continue
        out.append(replace(phrase, is_term=False) if said else phrase)
    return out


# What no phrase runs across: a sentence end (as layout.py reads them). Commas are left
# alone: a phrase may hold one (`min(1, p/q)` is searched as `min 1 p q`).
PHRASE_BREAK_RE = re.compile(r"[。！？；!?;\n]|\.(?=\s|$|[\u3400-\u9fff])")


def place_order(place: tuple[Phrase, int, int]) -> tuple[int, int, str]:
    return place[1], -place[2], place[0].text


def max_edits(word: str) -> int:
    if len(word) < FUZZY_MIN_WORD or not word.isalpha():
        return 0
    return FUZZY_EDITS[1] if len(word) >= FUZZY_LONG_WORD else FUZZY_EDITS[0]


def edits_between(raw: str, stemmed: str, word: str) -> int:
    """Edits between an answer token and a phrase word, or -1 when too far apart."""
    if stemmed == stem(word):
        return 0
    cut = max_edits(word)
    if cut == 0 or not raw.isascii():
        return -1
    d = OSA.distance(raw, word, score_cutoff=cut)
    return d if d <= cut else -1
