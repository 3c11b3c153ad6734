"""An answer read against one compiled question: its tokens, where each phrase is named
(exactly, or within its typo budget), and what its sentences say around a place (denied,
turned, predicating)."""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate, chain, compress

from bot.core.lang import LANGUAGES
from bot.core.scoring.compiled import Compiled, remember_typos
from bot.core.scoring.cues import PREDICATE_WORDS, list_item_at, predicates
from bot.core.scoring.layout import Layout, masked
from bot.core.scoring.phrases import (
    PHRASE_BREAK_RE,
    Group,
    Phrase,
    answer_terms,
    edits_between,
    place_order,
)
from bot.core.text import canonical, stem, tokenize

_PLUS_ONE = (1).__add__


# Where a command-line flag starts: `--kv-cache-dtype`, `-O2`.
_FLAG_START_RE = re.compile(r"(?<![\w-])--?(?=[A-Za-z])")


_NEGATING_PREFIXES = tuple(p for lang in LANGUAGES for p in lang.negating_prefixes)


def _opposite(folded: str, begin: int, phrase: str) -> bool:
    """Whether the name found at `begin` is its own opposite there: `uniform` in
    "non-uniform" (unless the phrase names the opposite itself)."""
    return any(
        folded[max(0, begin - len(p)) : begin].lower() == p and not phrase.lower().startswith(p)
        for p in _NEGATING_PREFIXES
    )


class Reading:
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

    def __init__(self, text: str, compiled: Compiled) -> None:
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
        self._found: dict[Group, list[tuple[Phrase, int, int]]] | None = None
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

    def find(self, group: Group) -> list[tuple[Phrase, int, int]]:
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
        found: dict[Group, list[tuple[Phrase, int, int]]] = {}
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
                    (
                        PHRASE_BREAK_RE.search(folded, begin, end) is None
                        or PHRASE_BREAK_RE.search(phrase.text) is not None
                    )
                    and not (
                        # Nor one that runs into the next command-line flag ("fp8 kv cache" in
                        # "--quantization fp8 --kv-cache-dtype"), unless it holds one itself.
                        _FLAG_START_RE.search(folded, begin + 1, end) is not None
                        and _FLAG_START_RE.search(phrase.text) is None
                    )
                    and not _opposite(folded, begin, phrase.text)
                ):
                    found.setdefault(group, []).append((phrase, begin, end))
                    self._note(phrase, begin, end)
                at = canon.find(needle, at + 1)
        for places in found.values():
            # By position, so the same answer always reports the same match (set order
            # changes with the hash seed of each process).
            if len(places) > 1:
                places.sort(key=place_order)

    def _note(self, phrase: Phrase, begin: int, end: int) -> None:
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
                remember_typos(memo, raw, found)
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

    def find_fuzzy(self, phrase: Phrase) -> tuple[int, int] | None:
        words = phrase.words
        n = len(words)
        raws, stems = self.tokens.raw, self.tokens.stem
        for i in self._starts(words[0]):
            if i + n > len(raws):
                break
            used = 0
            for j in range(n):
                edits = edits_between(raws[i + j], stems[i + j], words[j])
                used += edits
                if edits < 0 or used > phrase.fuzzy_budget:
                    break
            else:
                return self.tokens.start_of(i), self.tokens.end_of(i + n - 1)
        return None

    # -- reading what is said --------------------------------------------------------------

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
            found = predicates(blanked)
            if not found:
                # A term that is the sentence's only verb still says the claim ("a draft
                # model proposes k tokens", where `proposes` is an alias); a list stays a
                # list (its verbs must be statements: see cues.has_verb).
                verbs = [(b, e) for b, e in self.term_spans if self._verb_at(b, e)]
                if verbs:
                    rest = tuple(span for span in self.term_spans if span not in verbs)
                    found = predicates(masked(self.folded, s_start, s_end, rest))
            self.predicating[index] = found
        if found and layout.has_negator:
            item = list_item_at(blanked, pos - s_start)
            if item is not None:
                return predicates(blanked[item[0] : item[1]])
        return found

    def _verb_at(self, begin: int, end: int) -> bool:
        """Whether the word at [begin, end) (to its end: `propose` matches "proposes") is a
        verb of the predicate cues."""
        folded = self.folded
        while end < len(folded) and folded[end].isalpha():
            end += 1
        return folded[begin:end] in PREDICATE_WORDS

    def says_anything(self) -> bool:
        """Whether any sentence of the answer predicates (for the relevance share)."""
        layout = self.layout
        return any(self.predicates_at(layout.sentence_span(i)[0]) for i in range(layout.sentences))


def denied(values: tuple[int, ...], negated: bool) -> tuple[int, ...]:
    """The poles named in a denial read the other way: "not high" is low."""
    return tuple(-v for v in values) if negated else values
