"""Whether a message is an attempt at an answer, before anything is scored or counted.

`x`, `ok`, `??`, `12`, `好` or `aaaa` close nothing and count toward no streak: an answer
needs a few letters of at least two different kinds. A Chinese character carries about as
much as two Latin letters, so `缓存` passes where `ok` does not. One word (`缓存`, `cache`)
is an attempt, but says too little to score: it is refused too, the question kept open.
`attempt_of` puts the three rules together, for private answers and group rounds alike.
"""

from __future__ import annotations

import unicodedata
from enum import StrEnum


class Attempt(StrEnum):
    """What a message is, as an answer, before it is scored."""

    NO_WORDS = "no-words"  # nothing to score: emoji, punctuation, markup
    TOO_SHORT = "too-short"  # `x`, `ok`, `12`: not an attempt (`is_substantive`)
    ONE_WORD = "one-word"  # `缓存`, `cache`: an attempt, too little to score (`is_one_word`)
    ANSWER = "answer"  # worth scoring


def attempt_of(text: str) -> Attempt:
    """Which of `Attempt` a message is."""
    from bot.core.scoring import is_answerable  # the tokenizer loads on the first answer

    if not is_answerable(text):
        return Attempt.NO_WORDS
    if not is_substantive(text):
        return Attempt.TOO_SHORT
    if is_one_word(text):
        return Attempt.ONE_WORD
    return Attempt.ANSWER


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


# The most Han characters one word takes (缓存, 批处理, 不知道); a longer run is read as a
# phrase (动态批处理 names one thing, but it is rarely all an answer says).
ONE_WORD_HAN = 4


def is_one_word(text: str) -> bool:
    """True when `text` is a single word or token (`缓存`, `cache`, `idk`, `max_batch_size`):
    something to say in a sentence or two before it is worth scoring.

    Words are runs of letters, digits, `_` and `-`; a run of Han characters counts as one word
    up to `ONE_WORD_HAN` characters.
    """
    words: list[str] = []
    current = ""
    for ch in unicodedata.normalize("NFKC", text):
        if ch.isalnum() or ch in "_-":
            if current and _is_cjk(ch) != _is_cjk(current[-1]):
                words.append(current)  # 用Redis: two words, though no space between
                current = ""
            current += ch
        elif current:
            words.append(current)
            current = ""
    if current:
        words.append(current)
    words = [w for w in words if any(c.isalpha() for c in w)]
    if len(words) != 1:
        return False
    (word,) = words
    return not _is_cjk(word[0]) or len(word) <= ONE_WORD_HAN
