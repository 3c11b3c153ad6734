"""Hints that nudge: a cue to a concept (how it begins, what it is about), not the concept.

`/hint` once named the concept outright ("think about max_batch_size"), which is the answer,
not a hint. A cue keeps the recall to the learner: the first letters of the concept's name
and, when the pack gives one, its topic.
"""

from __future__ import annotations

import re
import unicodedata

from bot.core.content import NAME_CHARS, Concept

CUE_LATIN = 4  # at most this many letters of a Latin name are shown
_GLOSS = re.compile(r"[（(].*$")  # "max_batch_size（单次最大 batch）": the gloss is the meaning


def _is_han(ch: str) -> bool:
    return unicodedata.east_asian_width(ch) == "W" and ch.isalpha()


def cue(label: str) -> str:
    """How the concept's name begins, ending in "…": `pref…`, `max_…`, `多框…`, `模…`."""
    name = _GLOSS.sub("", label).strip() or label.strip()
    word = name.split()[0] if name.split() else name
    if _is_han(word[0]):
        han = len(word) - len(word.lstrip("".join(c for c in word if _is_han(c))))
        shown = 1 if han <= 4 else 2
    else:
        shown = max(1, min(CUE_LATIN, len(word) // 3))
    return word[:shown] + "…"


def cue_of(concept: Concept) -> str:
    """The cue to a concept: to its label where that is a name, else (a label written as a
    claim, "Three steps are the minimum…") to its first alias or key term, a word or two the
    answer would say; the label when it has neither."""
    if len(concept.label) > NAME_CHARS:
        for names in (concept.aliases, *concept.terms):
            if names:
                return cue(names[0])
    return cue(concept.label)


def topic(concept: Concept) -> str:
    """The concept's topic in words (`batch-tuning` → "batch tuning"), "" if it has none."""
    return (concept.topic or "").replace("-", " ").replace("_", " ")
