"""Whether a sentence says anything: verbs, copulas and relation marks, or a bare list of terms.

A sentence **predicates** when it has a verb, a copula or a relation mark (`X：…`, `A -> B`, a
gloss in parentheses) outside the terms it names. A sentence that only names terms
(`PagedAttention, KV cache, 显存碎片`) lists them without saying anything of them. The cue
words are language data (`bot.core.lang`); this module composes them into patterns once, at
import.
"""

from __future__ import annotations

import re

from bot.core.lang import HAN, KANA, LANGUAGES, alternatives, words
from bot.core.scoring.layout import _NEGATION_RE, may_deny


def _alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of a pattern (a `|` inside a group or a class stays)."""
    out, depth, in_class, start = [], 0, False, 0
    for i, ch in enumerate(pattern):
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            out.append(pattern[start:i])
            start = i + 1
    out.append(pattern[start:])
    return out


def _literal_first(pattern: str) -> str:
    """Rewrite an alternation of CJK words so that each alternative starts with a literal
    character, for speed: the engine then collects the first characters and skips to them
    in C, where otherwise it tries the whole pattern at every position (3x slower; a
    lookahead of the first characters in front does not help, as it hides them too).

    A look back before a word moves after its first character (`(?<![性功])能` becomes
    `能(?<![性功]能)`); a class of first characters becomes one alternative each (`[两二]种`
    becomes `两种|二种`). The matches are the same, at the same places.
    """
    out: list[str] = []
    for alternative in _alternatives(pattern):
        behind = re.match(r"\(\?<([!=])\[([^\]]*)\]\)", alternative)
        if behind:
            first, rest = alternative[behind.end()], alternative[behind.end() + 1 :]
            out.append(f"{first}(?<{behind[1]}[{behind[2]}]{first}){rest}")
        elif alternative.startswith("["):
            close = alternative.index("]")
            out.extend(ch + alternative[close + 1 :] for ch in alternative[1:close])
        else:
            out.append(alternative)
    return "|".join(out)


# Predicate cues (bot.core.lang): for scripts without spaces a pattern of verbs, copulas and
# particles; for English, words (auxiliaries, common verbs, connectives).
_PREDICATE_PATTERN = alternatives("predicates")
_PREDICATE_RE = re.compile(_literal_first(_PREDICATE_PATTERN))
_EN_PREDICATES = PREDICATE_WORDS = words("predicate_words")
# Advice opens with a verb: "Lower max-num-seqs, add GPUs, watch preemptions".
_IMPERATIVE_VERBS = words("imperative_verbs")
_IMPERATIVE_RE = re.compile(
    rf"(?:^|[,;:，；：]|\b(?:{'|'.join(w for lang in LANGUAGES for w in lang.advice_openers)})\b)"
    rf"\s*({'|'.join(sorted(_IMPERATIVE_VERBS))})\b"
    # A verb right before a comma is a list's noun (`cache, Redis, TTL`), not advice.
    r"(?![,;:，；：]|\s*$)",
    re.IGNORECASE,
)
# Imperatives that open a name as often as advice (`batch size`, `cache hit`, `split point`).
_NOUN_VERBS = words("noun_verbs")
# A gloss or a relation: "X：说明", "A -> B", "X (what it does)".
# A gloss has words in it: `min(1, p/q)` is a formula in a list, not a gloss.
# Plainly `[:：=]\s*[^\W\d_]{2}|->|=>|→|[(（][^)）]*[^\W\d_]{2}[^)）]*[)）]`; written to start with
# one character class (each alternative told apart by a look back), so that the engine
# skips to those characters in C (see _literal_first). tests/test_claims_regexes.py checks
# the two forms agree.
_RELATION_RE = re.compile(
    r"[:：=\-→(（](?:(?<=[:：=])\s*[^\W\d_]{2}|(?<=-)>|(?<==)>|(?<=→)"
    r"|(?<=[(（])[^)）]*[^\W\d_]{2}[^)）]*[)）])"
)
_LATIN_WORD_RE = re.compile(r"[A-Za-z]{2,}")
_ITEM_SPLIT_RE = re.compile(
    r"[,，、/;；\n]"
    + "".join(
        rf"|\b{w}\b" if w.isascii() else f"|{w}"
        for w in sorted(
            {w for lang in LANGUAGES for w in lang.conjunctions}, key=lambda w: (-len(w), w)
        )
    )
)
# Items of a term list are short: with this many Chinese characters or words left once the
# named terms are blanked, an item is a statement.
_TERM_ITEM_CJK = 8
_LIST_ITEM_CJK = 4
_TERM_ITEM_WORDS = 3
_CJK_CHAR_RE = re.compile(f"[{KANA}{HAN}]")
# Past this many unmatched Latin words a sentence is prose even without a listed verb.
_PROSE_WORDS = 6
_CLAUSE_WORDS = 4
_LIST_ITEMS = 4
_LIST_ITEM_RE = re.compile(r"[,，、;；\n]")
_SENTENCE_END_CHARS = " 。.!?！？;；\n"  # what may end a sentence (stripped before items)
_FILLER = words("filler_words")


_STATEMENT_RE = re.compile(alternatives("statement"))
_EN_STATEMENT = words("statement_words")


def is_statement(phrase: str) -> bool:
    """Whether a concept phrase says something itself (a copula, an auxiliary, a negator)."""
    if _STATEMENT_RE.search(phrase) or _NEGATION_RE.search(phrase):
        return True
    return any(w.lower() in _EN_STATEMENT for w in _LATIN_WORD_RE.findall(phrase))


def has_verb(text: str) -> bool:
    """Whether text has a verb, copula, negator or relation mark (the cue lists above)."""
    if _RELATION_RE.search(text) or _PREDICATE_RE.search(text):
        return True
    words = [w.lower() for w in _LATIN_WORD_RE.findall(text)]
    if may_deny(text, words) and _NEGATION_RE.search(text):
        return True
    # A list of short items (`thundering herd, hot key expiry, delete after write, CDC`) is a
    # list even with a connective inside a name; only an auxiliary makes it a statement.
    listed = _is_list(text)
    # An imperative's verb is a whole word of the text: a set test spares most texts the
    # search, which tries the pattern at every position (of normalised text: NFKC has
    # folded the odd letters that match ASCII ones only case-insensitively, `ſ` and `K`).
    if not _IMPERATIVE_VERBS.isdisjoint(words) and any(
        # (`SET EX` in capitals is a command's name, not advice; in a list, `batch size` and
        # `cache hit` are names too: those verbs are nouns as often)
        not m.group(1).isupper() and not (listed and m.group(1).lower() in _NOUN_VERBS)
        for m in _IMPERATIVE_RE.finditer(text)
    ):
        return True
    cues = _EN_STATEMENT if listed else _EN_PREDICATES
    if any(w in cues for w in words):
        return True
    # Many words are prose, unless they are a list: prose has an item as long as a clause.
    return sum(w not in _FILLER for w in words) >= _PROSE_WORDS and not listed


def predicates(text: str) -> bool:
    """Whether a sentence says something: `text` has its named terms blanked out.

    A sentence predicates when what is left has a verb, copula, negator or relation mark,
    or when one of its comma-separated items is too long to be a term (telegraphic
    statements like "26.08 修复 dynamic batcher 饥饿问题，新增日志回调 API" name no verb
    we list). Items are measured once the named terms are blanked: a long identifier is
    still one term, and a list of them is still a list.
    """
    if has_verb(text):
        return True
    return any(_long_item(item) for item in _ITEM_SPLIT_RE.split(text))


def _long_item(item: str) -> bool:
    """Too much left of a list item to be one term: many Chinese characters or many words."""
    cjk = len(_CJK_CHAR_RE.findall(item))
    chunks = [c for c in _CJK_CHAR_RE.sub(" ", item).split() if c.lower() not in _FILLER]
    return cjk >= _TERM_ITEM_CJK or len(chunks) >= _TERM_ITEM_WORDS


def list_item_at(text: str, pos: int) -> tuple[int, int] | None:
    """The item around `pos` when `text` is a list of short terms whose only statements are
    denials inside items (`device plugin, limits, 整数, 不能超卖, MIG`), else None: such an
    item says something of itself, not of the names listed beside it."""
    body = text.rstrip(_SENTENCE_END_CHARS)  # the sentence's own end is no separator
    items = _LIST_ITEM_RE.split(body)
    if len(items) < _LIST_ITEMS or not all(
        len(_CJK_CHAR_RE.findall(i)) <= _LIST_ITEM_CJK
        and sum(w.lower() not in _FILLER for w in _LATIN_WORD_RE.findall(i)) < _CLAUSE_WORDS
        for i in items
    ):
        return None
    if predicates(", ".join(i for i in items if _NEGATION_RE.search(i) is None)):
        return None
    start = 0
    for m in _LIST_ITEM_RE.finditer(body):
        if m.start() >= pos:
            return start, m.start()
        start = m.end()
    return start, len(body)


def _is_list(text: str) -> bool:
    """Many comma-separated items, none as long as a clause (in Latin words)."""
    # The sentence's own end is no separator: "a, b, c" is the same list with a line break
    # or a semicolon after it (found by the property test that adding text never lowers a
    # score: "WE，preferred," said something, "WE，preferred,\n" did not).
    items = _LIST_ITEM_RE.split(text.rstrip(_SENTENCE_END_CHARS))
    return len(items) >= _LIST_ITEMS and all(
        sum(w.lower() not in _FILLER for w in _LATIN_WORD_RE.findall(i)) < _CLAUSE_WORDS
        for i in items
    )


_ENUMERATION_RE = re.compile(alternatives("enumeration"), re.IGNORECASE)


def asks_to_enumerate(question: str) -> bool:
    """Whether a question asks to name things (`有哪些参数`, `which two modes`): then naming
    them is half the answer, and a bare list earns more than a list nobody asked for."""
    return _ENUMERATION_RE.search(question) is not None
