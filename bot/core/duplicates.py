"""Near-duplicate questions: the same question asked twice, in other words, in one pack or
across packs (`content check` warns; the bot never reads this module).

Two questions are compared by their topic words: Latin words by stem, Chinese by the words
jieba cuts it into, less function words, generic words and the words that only frame a
question (`什么`, `有哪些`, `difference`, `explain`: language data, `question_words`). What
is left is what a question is about, and two questions about the same things are one
question: their Jaccard similarity (shared words / all words) is at least `SIMILAR`, with at
least `SHARED` words in common (two short questions sharing one name and its qualifier,
"what is X" / "what are X's parameters", are different questions).

The thresholds are measured on the shipped packs, the drafts and the banks in tests/data
(260 questions, 32,662 pairs; a bank and the pack made from it counted once): two questions
of one pack reach 0.40 (`Dynamic Batching 的核心参数有哪些？` / `Dynamic Batching、Sequence
Batching、Ensemble 分别适合什么场景？`, two words shared), of different packs 0.39; the three
questions asked again in another bank, in other words, 0.50 to 0.71, all above. Words are
compared as written: a question asked once in Chinese terms and once in English ones
(`动态批处理` / `dynamic batching`) is not found, and "what is X" next to "which parameters
does X take" is taken for one question when X is three words long.

A translation (`translates:`) asks its original's questions by design: the two packs, and
two translations of one original, are not compared.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from bot.core.content import Pack, Question
from bot.core.lang import words
from bot.core.text import tokenize

SIMILAR = 0.5
SHARED = 3

# Words that say nothing of what a question is about.
_FRAME = words("stop_words") | words("generic_words") | words("question_words")


@dataclass(frozen=True, slots=True)
class Duplicate:
    """Two questions that ask the same thing: where each is (pack index, question), the topic
    words they share and their similarity."""

    first: tuple[int, Question]
    second: tuple[int, Question]
    shared: tuple[str, ...]
    similarity: float


def topic_words(text: str) -> dict[str, str]:
    """What a question is about: its Latin stems and Chinese words, less the frame, each
    with the word as the question wrote it (`queu` -> `queue`)."""
    import rjieba  # only `content check` compares questions: kept off the bot's start-up

    tokens = tokenize(text)
    out: dict[str, str] = {}
    for raw, stemmed in zip(tokens.raw, tokens.stem, strict=True):
        if raw >= "\u3040":  # a CJK run: cut into words
            # A single character is a particle or a part of a word far more often than a
            # topic (时, 上, 做, 新).
            out.update((w, w) for w in rjieba.cut(raw) if len(w) > 1 and w not in _FRAME)
        elif (len(raw) > 1 or raw.isdigit()) and raw not in _FRAME and stemmed not in _FRAME:
            out.setdefault(stemmed, raw)
    return out


def _related(a: Pack, b: Pack) -> bool:
    """A translation and its original, or two translations of one original."""
    if a.translates == b.id or b.translates == a.id:
        return True
    return a.translates is not None and a.translates == b.translates


def near_duplicates(packs: Sequence[Pack]) -> list[Duplicate]:
    """Every pair of questions, within or across `packs`, that asks the same thing."""
    items = [(i, q) for i, pack in enumerate(packs) for q in pack.questions]
    written = [topic_words(q.question) for _, q in items]
    found = [frozenset(w) for w in written]
    # Only pairs that share a word can be similar: count shared words through an index.
    holders: dict[str, list[int]] = {}
    for n, topic in enumerate(found):
        for word in topic:
            holders.setdefault(word, []).append(n)
    shared: dict[tuple[int, int], int] = {}
    for ns in holders.values():
        for pair in combinations(ns, 2):
            shared[pair] = shared.get(pair, 0) + 1
    out = []
    for (m, n), count in sorted(shared.items()):
        if count < SHARED:
            continue
        (i, first), (j, second) = items[m], items[n]
        if i != j and _related(packs[i], packs[j]):
            continue
        similarity = count / len(found[m] | found[n])
        if similarity >= SIMILAR:
            common = tuple(sorted(written[n][w] for w in found[m] & found[n]))
            out.append(Duplicate((i, first), (j, second), common, similarity))
    return out
