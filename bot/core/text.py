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
from functools import lru_cache

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


_SPAN = re.Match.span

_ZERO_WIDTH_RE = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u00ad]")


class Tokens:
    """A token stream as parallel lists (cheaper than one object per token).

    A token is a Latin word (lower-cased in `raw`, stemmed in `stem`), a number, or a whole
    run of CJK characters (Chinese needs no word boundaries: phrases match inside runs).
    `fstart`/`fend` are offsets in the normalised text; `span()` maps them to the original.
    """

    __slots__ = (
        "cjk",
        "cjk_runs",
        "fend",
        "folded",
        "fstart",
        "latin",
        "latin_index",
        "latin_stem",
        "origin",
        "raw",
        "stem",
    )

    def __init__(self) -> None:
        self.folded = ""  # the normalised text the offsets refer to
        self.raw: list[str] = []
        self.stem: list[str] = []
        self.fstart: list[int] = []
        self.fend: list[int] = []
        self.cjk: list[bool] = []
        self.cjk_runs: list[str] = []
        self.latin: list[str] = []  # the non-CJK tokens (raw), in order
        self.latin_stem: list[str] = []  # and their stems
        self.latin_index: list[int] = []  # and their positions in the stream
        self.origin: list[int] | None = None

    def __len__(self) -> int:
        return len(self.raw)

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Normalised-text offsets -> offsets in the original text."""
        if self.origin is None:
            return start, end
        return self.origin[start], self.origin[end - 1] + 1


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """Fold common English inflections so batching/batches/batched/batch meet."""
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


@lru_cache(maxsize=1 << 16)
def _word_forms(word: str) -> tuple[str, str]:
    """A word as matched: (lower-cased, stemmed). Cached: answers reuse their words."""
    lowered = word.lower()
    return lowered, stem(lowered)


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


def tokenize(text: str) -> Tokens:
    """Split text into matching tokens, keeping where each one stands."""
    folded, origin = _normalise(text)
    # The hot path of scoring: list comprehensions and C-level maps over the matches, no
    # per-token objects.
    matches = list(_TOKEN_RE.finditer(folded))
    words = [m.group() for m in matches]
    # Every CJK run starts at or above U+3040 and every other token below it.
    cjk = [w >= "\u3040" for w in words]
    raw = list(map(str.lower, words))  # CJK runs have no case: unchanged
    latin_index = [i for i, c in enumerate(cjk) if not c]
    latin = [raw[i] for i in latin_index]
    latin_stem = list(map(stem, latin))
    stems = raw.copy()
    for i, st in zip(latin_index, latin_stem, strict=True):
        stems[i] = st
    tokens = Tokens()
    tokens.folded = folded
    tokens.raw = raw
    tokens.cjk = cjk
    tokens.stem = stems
    tokens.fstart = [m.start() for m in matches]
    tokens.fend = [m.end() for m in matches]
    tokens.cjk_runs = [w for w, c in zip(words, cjk, strict=True) if c]
    tokens.latin = latin
    tokens.latin_stem = latin_stem
    tokens.latin_index = latin_index
    tokens.origin = origin
    return tokens


def canonical(tokens: Tokens) -> str:
    """Join token stems as ' a b c ' so substring search respects token boundaries."""
    return " " + " ".join(tokens.stem) + " "
