"""Keyword-coverage scoring: which of a question's concepts an answer covers, and where.

`score_answer(question, text)` is pure and total: any string in, a `ScoreResult` out, score in
[0, 1]. A concept is covered when any of its phrases appears as a run of whole tokens (see
`bot.core.text`); long English words and identifiers also match with small typos.

The score is the covered share of the concepts' weights (`coverage`), plus a small share of
the *uncovered* remainder for using the reference answer's vocabulary (`relevance`, at most
`RELEVANCE_SHARE` of the gap). Full coverage is 100%; with no concept covered, an on-topic
answer still ranks above an off-topic one, as a person grading would rank them. Both parts
only grow when text is added, so adding to an answer never lowers its score.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate, pairwise

from rapidfuzz.distance import OSA

from bot.core.content import Concept, Question
from bot.core.text import Tokens, canonical, stem, tokenize

# Typo tolerance, per Latin word of an identifier or English phrase: words shorter than
# FUZZY_MIN_WORD must match exactly (after stemming); longer ones may be FUZZY_EDITS[0] edits
# off, and from FUZZY_LONG_WORD characters on FUZZY_EDITS[1]. A whole phrase may be off by at
# most one edit per FUZZY_CHARS_PER_EDIT characters, and phrases shorter than that never fuzz,
# which keeps `explicit` from matching `implicit` and `dynamo` from matching `dynamic`.
FUZZY_MIN_WORD = 5
FUZZY_LONG_WORD = 9
FUZZY_EDITS = (1, 2)
FUZZY_CHARS_PER_EDIT = 8

RELEVANCE_SHARE = 0.15
# Words that carry no topic: left out of the reference vocabulary.
_STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "from",
        "with",
        "as",
        "and",
        "or",
        "not",
        "no",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "which",
        "who",
        "what",
        "when",
        "how",
        "why",
        "can",
        "could",
        "will",
        "would",
        "should",
        "may",
        "might",
        "do",
        "does",
        "did",
        "so",
        "if",
        "then",
        "than",
        "into",
        "over",
        "under",
        "about",
        "also",
        "just",
        "very",
        "more",
        "most",
        "such",
        "their",
        "they",
        "them",
        "there",
        "here",
        "we",
        "you",
        "your",
        "our",
        "i",
        "me",
        "my",
        "he",
        "she",
        "his",
        "her",
        "has",
        "have",
        "had",
    ]
)
_STOP_CHARS = frozenset(
    "的了是在和与或把被就也都而及等这那个一不有为以会可能要让从到对其中之它们我你他"
)


@dataclass(frozen=True, slots=True)
class ConceptHit:
    """A covered concept: the phrase that matched and where in the answer it stands."""

    label: str
    weight: float
    phrase: str
    start: int
    end: int
    text: str
    exact: bool


@dataclass(frozen=True, slots=True)
class ScoreResult:
    question_id: str
    score: float
    coverage: float
    relevance: float
    covered: list[ConceptHit]
    missed: list[Concept]

    @property
    def covered_labels(self) -> list[str]:
        return [h.label for h in self.covered]

    @property
    def missed_labels(self) -> list[str]:
        return [c.label for c in self.missed]

    def summary(self) -> dict[str, object]:
        """The JSON shape of `interview-bot score`."""
        return {
            "question_id": self.question_id,
            "score": round(self.score, 4),
            "coverage": round(self.coverage, 4),
            "covered": self.covered_labels,
            "missed": self.missed_labels,
            "matches": [
                {"concept": h.label, "phrase": h.phrase, "start": h.start, "end": h.end}
                for h in self.covered
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


@dataclass(frozen=True, slots=True)
class _CompiledConcept:
    concept: Concept
    # For the hot loop: needles grouped by key (one C-level set intersection with the
    # answer's keys picks the groups worth searching), needles without a key, and the
    # typo-tolerant phrases with their first word and its stem.
    keys: frozenset[str]
    rank: dict[str, int]  # a key's place in the concept's phrase order
    by_key: dict[str, tuple[tuple[str, _Phrase], ...]]
    keyless: tuple[tuple[str, _Phrase], ...]
    fuzzy: tuple[tuple[_Phrase, str, str], ...]

    @classmethod
    def build(cls, concept: Concept) -> _CompiledConcept:
        phrases = [p for p in map(_compile_phrase, concept.phrases) if p is not None]
        groups: dict[str, dict[str, _Phrase]] = {}
        for phrase in phrases:
            for needle, key in phrase.needles:
                groups.setdefault(key, {}).setdefault(needle, phrase)
        by_key = {k: tuple(g.items()) for k, g in groups.items() if k}
        keyless = tuple(groups.get("", {}).items())
        fuzzy = tuple((p, p.words[0], stem(p.words[0])) for p in phrases if p.fuzzy_budget)
        rank = {k: i for i, k in enumerate(by_key)}
        return cls(concept, frozenset(by_key), rank, by_key, keyless, fuzzy)


@dataclass(frozen=True, slots=True)
class _Compiled:
    concepts: tuple[_CompiledConcept, ...]
    vocabulary: frozenset[str]  # topic words and CJK bigrams of the reference answer
    # Words of typo-tolerant phrases by first letter and by last two letters: an answer word
    # that is none of them exactly is compared with those sharing its start or its end (one
    # or two typos in a long word leave one of them intact).
    fuzzy_by_edge: dict[str, list[str]]
    fuzzy_stems: frozenset[str]
    # Answer word -> phrase words it is a typo of. Answers reuse words, so this is mostly hits;
    # words known to be nobody's typo are also kept in a set, so whole answers are screened
    # with one C-level set difference.
    typo_memo: dict[str, tuple[str, ...]]
    no_typo: set[str]

    def typos_of(self, raw: str) -> tuple[str, ...]:
        """Phrase words that `raw` (an answer word) is a likely typo of."""
        found = self.typo_memo.get(raw)
        if found is not None:
            return found
        found = ()
        if (
            len(raw) >= FUZZY_MIN_WORD - FUZZY_EDITS[1]
            and raw.isascii()
            and stem(raw) not in self.fuzzy_stems
        ):
            edges = self.fuzzy_by_edge
            found = tuple(
                word
                for word in {*edges.get(raw[0], ()), *edges.get(raw[-2:], ())}
                if abs(len(word) - len(raw)) <= (cut := _max_edits(word))
                and OSA.distance(raw, word, score_cutoff=cut) <= cut
            )
        if len(self.typo_memo) >= _TYPO_MEMO_MAX:
            self.typo_memo.clear()
            self.no_typo.clear()
        self.typo_memo[raw] = found
        if not found:
            self.no_typo.add(raw)
        return found


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
    return _Phrase(text, tuple(needles), tuple(tokens.raw), budget)


# Keyed by id(): hashing a frozen pydantic model walks all its fields on every call. The
# question is kept in the value so its id cannot be reused while the entry lives.
_COMPILED: dict[int, tuple[Question, _Compiled]] = {}
_COMPILED_MAX = 10_000
_TYPO_MEMO_MAX = 50_000


def _compile(question: Question) -> _Compiled:
    cached = _COMPILED.get(id(question))
    if cached is not None and cached[0] is question:
        return cached[1]
    concepts = tuple(_CompiledConcept.build(c) for c in question.concepts)
    words = {w for c in concepts for p, _, _ in c.fuzzy for w in p.words if _max_edits(w)}
    by_edge: dict[str, list[str]] = {}
    for w in sorted(words):
        by_edge.setdefault(w[0], []).append(w)
        by_edge.setdefault(w[-2:], []).append(w)
    compiled = _Compiled(
        concepts,
        frozenset(vocabulary(tokenize(question.answer))),
        by_edge,
        frozenset(map(stem, words)),
        {},
        set(),
    )
    if len(_COMPILED) >= _COMPILED_MAX:
        _COMPILED.clear()
    _COMPILED[id(question)] = (question, compiled)
    return compiled


class _Answer:
    """An answer prepared for matching: tokens, the canonical string and its offsets."""

    __slots__ = ("canon", "keys", "positions", "starts", "text", "tokens", "typos")

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.canon = canonical(self.tokens)
        stems = self.tokens.stem
        # Latin stems and CJK bigrams: what needles are keyed by, and the answer's vocabulary.
        self.keys = answer_terms(self.tokens)
        # Offset of each token in `canon`: 1, then each stem's length plus its space.
        self.starts = list(accumulate([1] + [len(st) + 1 for st in stems[:-1]])) if stems else []
        # Built on the first typo-tolerant search only (most answers never need one).
        self.typos: dict[str, set[str]] | None = None
        self.positions: dict[str, list[int]] | None = None

    def locate(self, at: int, needle: str) -> tuple[int, int]:
        """Where in the original text the needle found at canonical offset `at` stands."""
        tokens, starts = self.tokens, self.starts
        if needle.startswith(" "):  # starts at a word: the token after the space
            first = bisect_right(starts, at + 1) - 1
            begin = tokens.fstart[first]
        else:  # starts inside a CJK run, maybe not at its beginning
            first = bisect_right(starts, at) - 1
            begin = tokens.fstart[first] + (at - starts[first])
        stop = at + len(needle) - (1 if needle.endswith(" ") else 0)  # exclusive
        last = bisect_right(starts, stop - 1) - 1
        if needle.endswith(" "):
            end = tokens.fend[last]
        else:
            end = tokens.fstart[last] + (stop - starts[last])
        return tokens.span(begin, end)

    def index_typos(self, compiled: _Compiled) -> None:
        """Map answer words that look like typos of phrase words to those words."""
        self.typos = {}
        for raw in set(self.tokens.latin) - compiled.no_typo:
            for word in compiled.typos_of(raw):
                self.typos.setdefault(word, set()).add(raw)

    def _starts(self, word: str) -> list[int]:
        """Positions of answer tokens that may stand for `word`: same stem, or a typo of it."""
        target = stem(word)
        typos = self.typos.get(word, ()) if self.typos else ()
        if target not in self.keys and not typos:
            return []
        if self.positions is None:  # Latin words only: typo-tolerant phrases are all Latin
            self.positions = {}
            tokens = self.tokens
            for i in tokens.latin_index:
                raw, st = tokens.raw[i], tokens.stem[i]
                self.positions.setdefault(st, []).append(i)
                if raw != st:
                    self.positions.setdefault(raw, []).append(i)
        found = set(self.positions.get(target, ()))
        for typo in typos:
            found.update(self.positions.get(typo, ()))
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
                return self.tokens.span(self.tokens.fstart[i], self.tokens.fend[i + n - 1])
        return None


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
    """Score an answer by the weighted share of the question's concepts it covers."""
    answer = _Answer(text)
    compiled = _compile(question)
    covered: list[ConceptHit] = []
    missed: list[Concept] = []
    gained = 0.0
    for item in compiled.concepts:
        hit = _match_concept(answer, item, compiled) if answer.tokens else None
        if hit is None:
            missed.append(item.concept)
        else:
            covered.append(hit)
            gained += item.concept.weight
    total = question.total_weight
    coverage = min(1.0, max(0.0, gained / total)) if total > 0 else 0.0
    relevance = 0.0
    if compiled.vocabulary and answer.tokens:
        shared = compiled.vocabulary & answer.keys
        relevance = len(shared) / len(compiled.vocabulary)
    score = min(1.0, coverage + (1.0 - coverage) * RELEVANCE_SHARE * relevance)
    return ScoreResult(
        question_id=question.id,
        score=score,
        coverage=coverage,
        relevance=relevance,
        covered=covered,
        missed=missed,
    )


def _match_concept(
    answer: _Answer, item: _CompiledConcept, compiled: _Compiled
) -> ConceptHit | None:
    keys, canon = answer.keys, answer.canon
    present = item.keys & keys
    # In the author's phrase order, so the same answer always reports the same match (set
    # order changes with the hash seed of each process).
    for key in sorted(present, key=item.rank.__getitem__) if len(present) > 1 else present:
        for needle, phrase in item.by_key[key]:
            at = canon.find(needle)
            if at >= 0:
                return _hit(answer, item.concept, phrase, answer.locate(at, needle), exact=True)
    for needle, phrase in item.keyless:
        at = canon.find(needle)
        if at >= 0:
            return _hit(answer, item.concept, phrase, answer.locate(at, needle), exact=True)
    if not item.fuzzy:
        return None
    if answer.typos is None:
        answer.index_typos(compiled)
    typos = answer.typos or {}
    for phrase, first_word, first_stem in item.fuzzy:
        if first_stem in keys or first_word in typos:
            found = answer.find_fuzzy(phrase)
            if found is not None:
                return _hit(answer, item.concept, phrase, found, exact=False)
    return None


def _hit(
    answer: _Answer, concept: Concept, phrase: _Phrase, span: tuple[int, int], *, exact: bool
) -> ConceptHit:
    start, end = span
    return ConceptHit(
        label=concept.label,
        weight=concept.weight,
        phrase=phrase.text,
        start=start,
        end=end,
        text=answer.text[start:end],
        exact=exact,
    )


def is_answerable(text: str) -> bool:
    """Whether a message has any words to score (not only emoji, punctuation or markup)."""
    return bool(tokenize(text))
