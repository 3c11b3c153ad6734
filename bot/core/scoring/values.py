"""Which way a claim turns what it names: up or down, and which pole of each scale.

A tuning answer that raises what the reference lowers ("调大 --max-num-seqs" for "调小
--max-num-seqs") says the opposite with no negator in it; a swapped claim names the same term
with the other pole ("decode 是 compute-bound"). The words are language data
(`bot.core.lang`: `up`, `down`, `poles`).
"""

from __future__ import annotations

import re

from bot.core.lang import LANGUAGES, alternatives

_UP_RE = re.compile(alternatives("up"), re.IGNORECASE)
_DOWN_RE = re.compile(alternatives("down"), re.IGNORECASE)


def direction(text: str) -> int:
    """+1 when text only raises, -1 when it only lowers, else 0 (both or neither)."""
    up = _UP_RE.search(text) is not None
    down = _DOWN_RE.search(text) is not None
    return int(up) - int(down) if up != down else 0


# -- values said of a term: which way, on which scale ------------------------------------
# A claim often says which way a quantity goes ("TTFT 越好、ITL 越差", "decode 是 memory-bound",
# "吞吐大幅提高"). Each scale has two poles; the words for them are read next to the term (after
# it, or an adjective right before it: "低延迟", "higher throughput"). A swapped or false
# claim names the same term with the other pole.
SCALES = ("amount", "quality", "speed", "bound")


def _pole(scale: str, side: int) -> re.Pattern[str]:
    return re.compile(
        "|".join(p[side] for lang in LANGUAGES for p in lang.poles if p[0] == scale),
        re.IGNORECASE,
    )


_SCALES: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = tuple(
    (_pole(scale, 1), _pole(scale, 2)) for scale in SCALES
)
_VALUE_WINDOW = 16
_ATTRIBUTIVE = tuple(w for lang in LANGUAGES for w in lang.attributive_particles)
# The word right before a term: a Latin word (with its particle: "slow down") or two Han.
_PARTICLES = "|".join(rf"\s+{w}" for lang in LANGUAGES for w in lang.phrasal_particles)
_WORD_BEFORE_RE = re.compile(rf"(?:[A-Za-z]+(?:{_PARTICLES})?|[\u4e00-\u9fff]{{1,2}})$")
_VALUE_STOP_RE = re.compile(r"[、,，;；。.!?！？\n:：()（）]")
_CONJUNCTION_RE = re.compile(
    rf"\s*(?:{'|'.join(w for lang in LANGUAGES for w in lang.conjunctions)}|、|/)?\s*",
    re.IGNORECASE,
)


def _poles(text: str) -> list[int]:
    out = []
    for up, down in _SCALES:
        u = up.search(text) is not None
        d = down.search(text) is not None
        out.append(int(u) - int(d) if u != d else 0)
    return out


def values_at(
    text: str, start: int, end: int, masks: tuple[tuple[int, int], ...] = ()
) -> tuple[int, ...]:
    """Which pole of each scale the words next to [start, end) name (+1, -1 or 0)."""
    # Right before the term, an adjective or verb that takes it: 低延迟, 更高的吞吐, 降低延迟,
    # higher throughput.
    before = _VALUE_STOP_RE.split(text[max(0, start - 20) : start])[-1]
    for particle in _ATTRIBUTIVE:
        before = before.replace(particle, "")
    word = _WORD_BEFORE_RE.search(before.rstrip())
    signs = _poles(word.group()) if word else [0] * len(_SCALES)
    if all(signs):
        return tuple(signs)
    # After it: up to a stop, or to another named term that does not share the value
    # ("GPU 利用率和吞吐高" says both are high).
    following = sorted((s, e) for s, e in masks if s >= end)
    at, stop = end, min(len(text), end + _VALUE_WINDOW)
    pieces = []
    for s, e in following:
        if s >= stop:
            break
        between = text[at:s]
        if _CONJUNCTION_RE.fullmatch(between):
            stop = min(len(text), e + _VALUE_WINDOW)
            at = e
            continue
        pieces.append(between)
        at = stop = s
        break
    if at < stop:
        pieces.append(text[at:stop])
    after = "".join(pieces)
    cut = _VALUE_STOP_RE.search(after)
    after = after[: cut.start()] if cut else after
    later = _poles(after)
    return tuple(a or b for a, b in zip(signs, later, strict=True))


def clash(reference: tuple[int, ...], answer: tuple[int, ...]) -> bool:
    """Whether an answer names the other pole of a scale the reference names."""
    return any(r * a < 0 for r, a in zip(reference, answer, strict=False))
