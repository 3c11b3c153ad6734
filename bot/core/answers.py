"""Whether a message is an attempt at an answer, before anything is scored or counted.

`x`, `ok`, `??`, `12`, `好` or `aaaa` close nothing and count toward no streak: an answer
needs a few letters of at least two different kinds. A Chinese character carries about as
much as two Latin letters, so `缓存` passes where `ok` does not.
"""

from __future__ import annotations

import unicodedata

MIN_WEIGHT = 3  # Latin letters count 1, CJK characters 2
MIN_DISTINCT = 2  # different letters or characters


def _is_cjk(ch: str) -> bool:
    # After NFKC no full-width ("F") letters are left: wide ones are the CJK scripts.
    return unicodedata.east_asian_width(ch) == "W" and ch.isalpha()


def is_substantive(text: str) -> bool:
    """True when `text` has enough real letters to be worth scoring as an answer."""
    letters = [ch.casefold() for ch in unicodedata.normalize("NFKC", text) if ch.isalpha()]
    weight = sum(2 if _is_cjk(ch) else 1 for ch in letters)
    return weight >= MIN_WEIGHT and len(set(letters)) >= MIN_DISTINCT
