"""The patterns written for speed find what their plain forms find.

Scoring runs a few of its patterns over every answer. Python's engine skips ahead in
C only when a pattern starts with a character or a class of them; a pattern that starts with a
look around or a word boundary is tried at every position, three to five times slower. So
some patterns are written in a faster but harder-to-read form, and a few tests run only where
a cheaper test (a set of words) says they can match. Each fast form is checked here against
its plain form, written out below as the rule reads, on every graded answer of the project
and on seeded random text made of the characters the patterns care about. A wrong rewrite
would move sentence ends (and with them which terms a claim joins) or lose a gloss, a
negator or an imperative, and answers would score differently.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
import yaml

from bot.core.scoring import cues, layout
from bot.core.text import tokenize

DATA = Path(__file__).parent / "data"

PLAIN_SENTENCE_END = re.compile(r"[。！？；!?;\n]+|\.(?=\s|$|[\u3400-\u9fff])")
PLAIN_CLAUSE_MARK = re.compile(
    r"[,，:：]|\s[-–—]\s"
    r"|\b(?:because|since|but|however|although|though|whereas|while"
    r"|so|therefore|thus|hence|which|where|otherwise|unless|instead|rather|then|and then)\b"
    r"|(?=[因由所从于但不然而否如假除以使这导并此还])(?:因为|由于|所以|因此|从而|于是|但是|但|不过|然而"
    r"|而是|而非|而不是|否则|如果|假如|除非|然后|以便|以免|使得|这样|导致|而且|并且|此外|还有)",
    re.IGNORECASE,
)
PLAIN_RELATION = re.compile(r"[:：=]\s*[^\W\d_]{2}|->|=>|→|[(（][^)）]*[^\W\d_]{2}[^)）]*[)）]")

# The characters the patterns turn on, letters and Chinese around them, and words that are
# negators, imperatives or neither.
PIECES = [
    *"。！？；!?;\n.:：=->→()（）,，、 ab中文不没非无别7_",
    " not ",
    " no ",
    " so ",
    "But ",
    " and then ",
    " instead ",
    " - ",
    " — ",
    "而不是",
    "但是",
    "还有",
    "butter",
    "no-cache",
    " never ",
    "doesn't",
    "can’t",
    " cannot ",
    " Lower ",
    " add ",
    " SET ",
    "and use",
    "then cache",
    "，调大",
    "不同",
    "无状态",
    "是不是",
    "Triton",
    "max_batch_size",
    "NoSchedule",
]


def _graded_answers() -> list[str]:
    texts = []
    for path in sorted(DATA.rglob("graded_*.yaml")):
        for answers in yaml.safe_load(path.read_text(encoding="utf-8")).values():
            texts.extend(str(a["answer"]) for a in answers)
    return texts


def _random_texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 40))) for _ in range(count)]


def _corpus() -> list[str]:
    # As scoring sees them: normalised (full-width folded), as `tokenize` leaves them.
    return [tokenize(t).folded for t in (*_graded_answers(), *_random_texts(3000, 20261202))]


CORPUS = _corpus()


def test_the_corpus_holds_what_the_patterns_look_for() -> None:
    # Not vacuous: the corpus has sentence ends of both kinds, glosses and negators.
    assert len(CORPUS) > 3500
    assert sum(1 for t in CORPUS if ". " in t) > 100
    assert sum(1 for t in CORPUS if PLAIN_RELATION.search(t)) > 500
    assert sum(1 for t in CORPUS if layout._NEGATION_RE.search(t)) > 500
    assert sum(1 for t in CORPUS if cues._IMPERATIVE_RE.search(t)) > 100


@pytest.mark.parametrize(
    ("fast", "plain"),
    [
        (layout._SENTENCE_END_RE, PLAIN_SENTENCE_END),
        (cues._RELATION_RE, PLAIN_RELATION),
    ],
    ids=["sentence-end", "relation"],
)
def test_the_fast_form_matches_the_plain_form(
    fast: re.Pattern[str], plain: re.Pattern[str]
) -> None:
    for text in CORPUS:
        assert [m.span() for m in fast.finditer(text)] == [
            m.span() for m in plain.finditer(text)
        ], text


def test_the_chinese_cues_match_their_plain_form_everywhere() -> None:
    plain = re.compile(cues._PREDICATE_PATTERN)
    for text in CORPUS:
        assert [m.span() for m in cues._PREDICATE_RE.finditer(text)] == [
            m.span() for m in plain.finditer(text)
        ], text


def _plain_clause_starts(text: str) -> tuple[list[int], set[int]]:
    """Clause starts as the rule reads: a connective opens a clause at its own start, a
    punctuation mark after itself; one of "instead, rather, 而不是, 而非" opens a denial."""
    laid = layout.Layout(text)
    starts = set(laid._sentence_starts)
    negating = set()
    for m in PLAIN_CLAUSE_MARK.finditer(text):
        word = m.group().strip().lower()
        at = m.start() if word[:1].isalnum() or "\u4e00" <= word[:1] <= "\u9fff" else m.end()
        starts.add(at)
        if word in ("instead", "rather", "而不是", "而非"):
            negating.add(at)
    return sorted(starts), negating


def test_clauses_start_where_the_plain_pattern_says() -> None:
    # With the answer's words (as scoring builds a Layout) and without them.
    opened = 0
    for text in CORPUS:
        expected = _plain_clause_starts(text)
        for words in (set(tokenize(text).latin), None):
            laid = layout.Layout(text, words)
            assert (laid._clauses(), laid._negating_clauses) == expected, text
        opened += len(expected[0]) > 1
    assert opened > 2000


def _words(text: str) -> list[str]:
    return [w.lower() for w in re.findall(r"[A-Za-z]{2,}", text)]


def test_the_first_test_for_negators_never_misses_one() -> None:
    # With the answer's own token words (as Layout gets them) and with plain letter runs
    # (as has_verb gets them).
    for text in CORPUS:
        if layout._NEGATION_RE.search(text) or layout._NEGATING_WORD_RE.search(text):
            assert layout.may_deny(text, _words(text)), text
            assert layout.may_deny(text, set(tokenize(text).latin)), text


def test_an_imperative_verb_is_always_one_of_the_words() -> None:
    for text in CORPUS:
        for m in cues._IMPERATIVE_RE.finditer(text):
            assert m.group(1).lower() in _words(text), text


def test_sentences_split_where_people_end_them() -> None:
    laid = layout.Layout("Triton 很快。It batches. v1.2 is out!! 然后呢？ok.结束")
    text = laid.text
    spans = [text[slice(*laid.sentence_span(i))] for i in range(laid.sentences)]
    assert spans == ["Triton 很快。", "It batches.", " v1.2 is out!!", " 然后呢？", "ok.", "结束"]


class _Intersects(frozenset[str]):
    """A word set every text shares a word with: the first test always says "maybe"."""

    def isdisjoint(self, other: object) -> bool:
        return False


def test_has_verb_says_what_it_says_without_its_first_tests(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The word tests only skip searches that would find nothing: with them forced to
    # "maybe", every search runs, and every text must get the same answer.
    fast = [cues.has_verb(t) for t in CORPUS]
    monkeypatch.setattr(cues, "_IMPERATIVE_VERBS", _Intersects())
    monkeypatch.setattr(cues, "may_deny", lambda text, words: True)
    assert [cues.has_verb(t) for t in CORPUS] == fast
    assert sum(fast) > 500 and len(fast) - sum(fast) > 200  # both answers are common


def test_alternatives_split_only_at_the_top_level() -> None:
    # A `|` inside a class or inside groups (nested too) is not an alternative of the whole.
    assert cues._alternatives(r"a[b|c]d|(x|(y|z))w|e") == ["a[b|c]d", "(x|(y|z))w", "e"]


def test_a_class_of_first_characters_ends_at_its_own_bracket() -> None:
    # The class is the first `]`, not a later one in a lookahead.
    assert cues._literal_first(r"[ab]c(?=[d])") == r"ac(?=[d])|bc(?=[d])"
