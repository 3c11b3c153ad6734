"""Text normalisation for matching: one token stream for Chinese, English and identifiers.

Answers arrive in any mix of scripts and widths. Both answers and concept phrases go through
`tokenize`, so they meet in one form:
- NFKC folds full-width forms (`ＴＲＩＴＯＮ`, `，`) into half-width and compatibility forms;
- identifiers split at `_ - . /` and camelCase, so `max_queue_delay`, `max-queue-delay`,
  `maxQueueDelay` and `max queue delay` are the same three words;
- Latin words are lower-cased and lightly stemmed (batching, batches, batched -> batch);
- a run of CJK characters is one token, and a Chinese phrase matches anywhere inside a run,
  so Chinese without spaces matches phrase by phrase;
- everything else (markup, emoji, punctuation, zero-width characters) separates tokens.

Matching on whole tokens is what keeps `oom` from being found inside `room`.
"""

from __future__ import annotations

import re
import unicodedata
from itertools import compress

from bot.core.lang import LANGUAGES

# Han (incl. extension A and compatibility), kana and Hangul: one character = one token.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_BEYOND_ASCII = "\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff"  # Latin-1+, Greek, Cyrillic letters
_LOWER = "a-z" + _BEYOND_ASCII  # letters beyond ASCII count as lower-case letters
_TOKEN_RE = re.compile(
    # Most positions are spaces and punctuation: one look at the first character rejects them
    # before the alternatives are tried one by one (a third of the tokenizer's time).
    rf"(?=[{_CJK}A-Za-z0-9{_BEYOND_ASCII}])(?:"
    rf"[{_CJK}]+"
    # Lower-case words come first (the commonest token), unless they are C++ or C# below.
    rf"|(?![a-z](?:\+\+|#))[{_LOWER}]+"
    # Language names whose symbols are the name: C++, C#, F#.
    r"|[A-Za-z](?:\+\+|#)"
    # camelCase pieces: an acronym before a capitalised word, a capitalised or lower word,
    # a trailing acronym, digits.
    # An acronym's plural is one word: GPUs, LLMs, APIs (not GP + Us).
    r"|[A-Z]{2,}s(?![a-z])"
    r"|[A-Z]+(?=[A-Z][a-z])"
    rf"|[A-Z]?[{_LOWER}]+"
    r"|[A-Z]+"
    r"|[0-9]+"
    r")"
)
# Joiners and soft hyphens sit inside words: drop them. A zero-width space or BOM separates.
_ZERO_WIDTH: dict[int, str | None] = {
    **dict.fromkeys(map(ord, "\u200c\u200d\u2060\u00ad"), None),
    **dict.fromkeys(map(ord, "\u200b\ufeff"), " "),
}
_FULL_WIDTH_RE = re.compile("[\uff01-\uff5e\u3000]")


def _half_width(match: re.Match[str]) -> str:
    ch = match.group()
    return " " if ch == "\u3000" else chr(ord(ch) - 0xFEE0)


_ZERO_WIDTH_RE = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u00ad]")


class Tokens:
    """A token stream as parallel lists (cheaper than one object per token).

    A token is a Latin word (lower-cased in `raw`, stemmed in `stem`), a number, or a whole
    run of CJK characters (Chinese needs no word boundaries: phrases match inside runs).
    `fstart`/`fend` are offsets in the normalised text; `span()` maps them to the original.
    """

    __slots__ = (
        "_fstart",
        "_latin_index",
        "_words",
        "cjk_runs",
        "folded",
        "latin",
        "latin_stem",
        "origin",
        "raw",
        "stem",
    )

    def __init__(self) -> None:
        self.folded = ""  # the normalised text the offsets refer to
        self.raw: list[str] = []
        self.stem: list[str] = []
        self._words: list[str] = []  # as found in `folded`, before lower-casing
        self._fstart: list[int] | None = None  # found on demand, a prefix at a time
        self.cjk_runs: list[str] = []
        self.latin: list[str] = []  # the non-CJK tokens (raw), in order
        self.latin_stem: list[str] = []  # and their stems
        self._latin_index: list[int] | None = None
        self.origin: list[int] | None = None

    def __len__(self) -> int:
        return len(self.raw)

    # Found when asked (phrases and typo searches ask; most answers never do).
    @property
    def cjk(self) -> list[bool]:
        """Whether each token is a CJK run."""
        return list(map(_IS_CJK, self.raw))

    @property
    def latin_index(self) -> list[int]:
        """Positions of the non-CJK tokens in the stream."""
        if self._latin_index is None:
            self._latin_index = list(compress(range(len(self.raw)), map(_NOT_CJK, self.raw)))
        return self._latin_index

    @property
    def fstart(self) -> list[int]:
        """Where each token starts in `folded` (found on first use)."""
        if self._words:
            self.start_of(len(self._words) - 1)
        return self._fstart or []

    @property
    def fend(self) -> list[int]:
        """Where each token ends in `folded`."""
        return [s + len(w) for s, w in zip(self.fstart, self._words, strict=True)]

    def start_of(self, index: int) -> int:
        """Where token `index` starts in `folded`. Offsets are found on demand, as far as
        asked: most answers need the place of a few named terms, not of every token."""
        starts = self._fstart
        if starts is None:
            starts = self._fstart = []
        if index >= len(starts):
            # Tokens are found left to right and every token character belongs to a token,
            # so each one is the first occurrence of its text after the previous one.
            find, words = self.folded.find, self._words
            at = starts[-1] + len(words[len(starts) - 1]) if starts else 0
            for word in words[len(starts) : index + 1]:
                at = find(word, at)
                starts.append(at)
                at += len(word)
        return starts[index]

    def end_of(self, index: int) -> int:
        """Where token `index` ends in `folded`."""
        return self.start_of(index) + len(self._words[index])

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Normalised-text offsets -> offsets in the original text."""
        if self.origin is None:
            return start, end
        return self.origin[start], self.origin[end - 1] + 1


def _stem(word: str) -> str:
    if not word.isascii() or not word.isalpha() or len(word) < 4:
        return word
    if word.endswith("ing") and len(word) >= 6:
        word = word[:-3]
    elif word.endswith("ed") and len(word) >= 5:
        word = word[:-2]
    elif word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    if word.endswith("e") and len(word) >= 4:
        word = word[:-1]
    return word


class _Stems(dict[str, str]):
    """Stems of the words seen so far: a hit is one dict lookup in C (`map(_STEMS.__getitem__,
    words)` on every answer's path), a miss computes it. Bounded: emptied when full."""

    __slots__ = ()
    LIMIT = 1 << 16

    def __missing__(self, word: str) -> str:
        if len(self) >= self.LIMIT:
            self.clear()
        found = self[word] = _stem(word)
        return found


_STEMS = _Stems()
_stems_of = _STEMS.__getitem__


def stem(word: str) -> str:
    """Fold common English inflections so batching/batches/batched/batch meet."""
    return _stems_of(word)


def _normalise(text: str) -> tuple[str, list[int] | None]:
    """NFKC + zero-width removal; return the text and, if lengths changed, an offset map."""
    # Fast path: full-width ASCII forms (Chinese punctuation ，（）： above all) fold with a
    # one-to-one table in C; full NFKC only runs if something else still needs it.
    folded = _FULL_WIDTH_RE.sub(_half_width, text)  # few matches: faster than str.translate
    if not unicodedata.is_normalized("NFKC", folded):
        folded = unicodedata.normalize("NFKC", folded)
    if _ZERO_WIDTH_RE.search(folded):
        folded = folded.translate(_ZERO_WIDTH)
    if len(folded) == len(text):
        return folded, None
    # Rare path: some character expanded or vanished. Map each output char to its source.
    out: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        piece = unicodedata.normalize("NFKC", ch).translate(_ZERO_WIDTH)
        out.append(piece)
        origin.extend([i] * len(piece))
    return "".join(out), origin


_IS_CJK = "\u3040".__le__  # every CJK run starts at or above U+3040, every other token below
_NOT_CJK = "\u3040".__gt__


def _contraction_tables() -> tuple[dict[str, str], dict[str, tuple[str, ...]]]:
    """From the language data: the word before a `n't` and the word it stands for ("isn" ->
    "is", "won" -> "will"); a form written as one word and its words ("cannot")."""
    heads: dict[str, str] = {}
    joined: dict[str, tuple[str, ...]] = {}
    for lang in LANGUAGES:
        for form, full in lang.contractions:
            parts = tuple(full.split())
            pieces = [w.lower() for w in _TOKEN_RE.findall(form)]
            if len(pieces) == 2 and pieces[1] == "t" and len(parts) == 2:
                heads[pieces[0]] = parts[0]
            elif pieces == [form] and "".join(parts) == form:
                joined[form] = parts
    return heads, joined


# "isn't divisible" is "is not divisible" to a phrase ("not divisible"), and "cannot be shared"
# is "can't be shared": both forms become the full one, and the `n't` the word `not`.
_CONTRACTED, _JOINED = _contraction_tables()


def _expand_contractions(words: list[str], raw: list[str]) -> tuple[list[str], list[str]]:
    """The tokens with each contraction read as its full form. `words` keep the text as
    written (a token's offsets are found from it); `raw` gets the full form's words."""
    out_words: list[str] = []
    out_raw: list[str] = []
    for word, low in zip(words, raw, strict=True):
        if low == "t" and out_raw and out_raw[-1] in _CONTRACTED:
            out_raw[-1] = _CONTRACTED[out_raw[-1]]
            low = "not"
        elif low in _JOINED:
            at = 0
            for part in _JOINED[low]:
                out_words.append(word[at : at + len(part)])
                out_raw.append(part)
                at += len(part)
            continue
        out_words.append(word)
        out_raw.append(low)
    return out_words, out_raw


def tokenize(text: str) -> Tokens:
    """Split text into matching tokens, keeping where each one stands."""
    folded, origin = _normalise(text)
    # The hot path of scoring: C-level maps and compress over the words, no per-token
    # objects and no Python loop (offsets are found only when asked for).
    words = _TOKEN_RE.findall(folded)
    raw = list(map(str.lower, words))  # CJK runs have no case: unchanged
    if "t" in raw or not _JOINED.keys().isdisjoint(raw):
        words, raw = _expand_contractions(words, raw)
    latin = list(filter(_NOT_CJK, raw))
    tokens = Tokens()
    tokens.folded = folded
    tokens._words = words
    tokens.raw = raw
    if len(latin) == len(raw):
        tokens.stem = tokens.latin_stem = list(map(_stems_of, raw))
    elif len(_STEMS) + len(latin) < _STEMS.LIMIT:
        # CJK runs are their own stems and are not kept in the memo: once the Latin words
        # are in it (with room for all, so none is emptied out meanwhile), one lookup
        # each with the token itself as the default gives every stem.
        tokens.latin_stem = list(map(_stems_of, latin))
        tokens.stem = list(map(_STEMS.get, raw, raw))
    else:
        tokens.latin_stem = list(map(_stems_of, latin))
        stems = raw.copy()
        for i, st in zip(tokens.latin_index, tokens.latin_stem, strict=True):
            stems[i] = st
        tokens.stem = stems
    tokens.cjk_runs = list(filter(_IS_CJK, words))
    tokens.latin = latin
    tokens.origin = origin
    return tokens


def words_of(text: str) -> list[str]:
    """The tokens of a text as `tokenize` finds them, without offsets, case or stems."""
    return _TOKEN_RE.findall(_normalise(text)[0])


def single_character(phrase: str) -> bool:
    """Whether a phrase is one Latin letter or digit once tokenized (`B+`, `C`, `x`): it
    would match inside every answer that has that letter as a word, so no concept uses it."""
    return one_latin_character(words_of(phrase))


def one_latin_character(words: list[str]) -> bool:
    """Whether a phrase's words (`words_of`) are one Latin letter or digit."""
    return len(words) == 1 and len(words[0]) == 1 and words[0].isascii()


def canonical(tokens: Tokens) -> str:
    """Join token stems as ' a b c ' so substring search respects token boundaries."""
    return " " + " ".join(tokens.stem) + " "
