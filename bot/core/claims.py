"""The shape of what an answer says: sentences, clauses, negation and bare term lists.

Keyword matching finds *where* a concept is named; this module says whether the text around
that place states it. It works on the normalised text of `bot.core.text` (full-width folded),
by character offset, in three nested units:

- a **sentence** ends at 。！？；!?; a line break, or a full stop before a space: a claim's
  parts (a subject and what is said of it) must stand in one sentence;
- a **clause** is a sentence cut further at commas, colons and connectives (because, but,
  so, 因为, 但是, 所以 …): negation reaches to the end of its clause and no further;
- a sentence **predicates** when it has a verb, a copula or a relation mark (`X：…`,
  `A -> B`, a gloss in parentheses) outside the terms it names. A sentence that only names
  terms (`PagedAttention, KV cache, 显存碎片`) lists them without saying anything of them.

Cues are word lists, not a parser: they are cheap (scoring runs thousands of answers a
second) and they fail soft, towards crediting the answer.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from itertools import chain

from bot.core.lang import HAN, KANA, LANGUAGES, alternatives, words

# A run of 。！？；!?; and line breaks, or a full stop before a space, the end or Chinese.
# Written to start with one character class (the `.` told apart by a look back): the
# engine then skips to candidate characters in C instead of trying the pattern at every
# position (5x faster; runs on every answer). tests/test_claims_regexes.py checks it
# against the plain form `[。！？；!?;\n]+|\.(?=\s|$|[\u3400-\u9fff])`.
_SENTENCE_END_RE = re.compile(
    r"[。！？；!?;\n.](?:(?<=\.)(?=\s|$|[\u3400-\u9fff])|(?<!\.)[。！？；!?;\n]*)"
)
# What opens a clause: punctuation or a Chinese connective (the first pattern), a dash
# between spaces (the second), or an English connective (the third). Plainly one pattern,
#   [,，:：]|\s[-–—]\s|\b(?:because|…|and then)\b|(?:因为|…|还有)
# split in three for speed (no match of one can overlap one of another, so together they
# find the same; tests/test_claims_regexes.py checks it): each of the first two starts
# with a character or a class, so the engine skips to those in C; the third, whose first
# letters are cased, runs only when one of its words is in the text.
_CLAUSE_CONNECTIVES_CJK = "|".join(
    w for lang in LANGUAGES for w in lang.clause_connectives if not w.isascii()
)
_CLAUSE_MARK_RE = re.compile(r",|，|:|：|" + _CLAUSE_CONNECTIVES_CJK)
_CLAUSE_DASH_RE = re.compile(r"\s[-–—]\s")
# Connectives that open a new clause (negation stops before them).
_CONNECTIVES_LATIN = [w for lang in LANGUAGES for w in lang.clause_connectives if w.isascii()]
_CLAUSE_WORD_RE = re.compile(
    rf"\b(?=[{''.join(sorted({c for w in _CONNECTIVES_LATIN for c in w[0] + w[0].upper()}))}])"
    rf"(?:{'|'.join(_CONNECTIVES_LATIN)})\b",
    re.IGNORECASE,
)
_CONNECTIVE_WORDS = frozenset(w for w in _CONNECTIVES_LATIN if " " not in w)
# Clauses opened by these deny what they say: "X instead of Y", "用 X 而不是 Y".
_NEGATING_OPENERS = tuple(w for lang in LANGUAGES for w in lang.negating_openers)
_A_NOT_A_RE = re.compile(r"([\u4e00-\u9fff])[不没]\1")
_NEGATING_WORD_RE = re.compile(
    "|".join(rf"\b{w}\b" for w in _NEGATING_OPENERS if w.isascii()), re.IGNORECASE
)
# How far after a term (characters) a negator still denies it: "X is not", "X 并不".
_NEGATION_REACH = 10
# A term list denied as a whole ("KL 散度和 percentile 都不是", "X and Y are not") reaches
# back to its first item: the reach is measured after the other items (named terms, which
# are blanked) and the words joining them.
_LIST_TAIL_RE = re.compile(
    r"(?:\s*(?:和|与|及|以及|、|或者?|,|，|/|\b(?:and|or)(?:\s+(?:the|a|an))?\b)\s{2,})+",
    re.IGNORECASE,
)
# A term that opens a clause of time ("收到 SIGTERM 后不接新请求", "OOM 之后不要重试"): what
# follows is the main clause, and a negator there denies its own verb, not the term.
_TIME_CLAUSE_AFTER_RE = re.compile(r"\s*(?:之后|以后|后(?![端台续缀面者])|的时候|之前|以前)")
# A term as the subject of a denied English verb: "<term> (mode) is not", "… isn't".
_DENIED_VERB_RE = re.compile(
    r"(?:\s+[A-Za-z]+)?\s+(?:(?:is|are|was|were|does|do|did|has|have|had|should|must|can|could"
    r"|will|would|may|might)\s+(?:not|never)\b|[A-Za-z]+n[’']t\b)",
    re.IGNORECASE,
)

# Negators of every language (see bot.core.lang). The lookahead names every first character:
# the engine then tries the alternatives only where one could start (this runs on every
# answer).
_NEGATION_FIRST = "".join(lang.negation_first for lang in LANGUAGES)
_NEGATION_RE = re.compile(
    f"(?=[{_NEGATION_FIRST}])(?:{alternatives('negation')})",
    re.IGNORECASE,
)


# The first test for negators, by script: any CJK negator character, any English word.
_CJK_NEGATOR_RE = re.compile(f"[{''.join(c for c in _NEGATION_FIRST if not c.isascii())}]")
_EN_NEGATORS = words("negator_words")


def may_deny(text: str, words: Iterable[str]) -> bool:
    """A first test for negators: a CJK negator character, an English negator among the
    text's Latin `words` (lower-cased), or an `n't`. It may say yes where `_NEGATION_RE`
    finds nothing (`NoSchedule` holds the word "no"), never no where it finds one: each of
    its English negators is a whole word, and the text is normalised (NFKC has folded the
    letters that match ASCII ones only case-insensitively)."""
    return (
        _CJK_NEGATOR_RE.search(text) is not None
        or not _EN_NEGATORS.isdisjoint(words)
        or "n't" in text
        or "n’t" in text
    )


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
_EN_PREDICATES = words("predicate_words")
# Advice opens with a verb: "Lower max-num-seqs, add GPUs, watch preemptions".
_IMPERATIVE_VERBS = words("imperative_verbs")
_IMPERATIVE_RE = re.compile(
    rf"(?:^|[,;:，；：]|\b(?:and|then)\b)\s*({'|'.join(sorted(_IMPERATIVE_VERBS))})\b"
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
_ITEM_SPLIT_RE = re.compile(r"[,，、/;；\n]|\band\b|\bor\b|和|与|及")
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
_FILLER = frozenset("a an the of in on at for to and or with its it this that as by from".split())


# Saying one does not know ("具体怎么调度的我不太清楚", "not sure how") denies nothing of
# the claim and states nothing of it: the clause earns no credit and costs none.
# Each holds a negator, so only texts with one are searched.
_UNSURE_RE = re.compile(alternatives("unsure"), re.IGNORECASE)


class Layout:
    """Sentence and clause boundaries of a (normalised) text, by character offset."""

    __slots__ = (
        "_clause_starts",
        "_negated",
        "_negating_clauses",
        "_sentence_starts",
        "_words",
        "has_negator",
        "text",
    )

    def __init__(self, text: str, words: frozenset[str] | set[str] | None = None) -> None:
        """`words`, when given, are the text's Latin words, lower-cased: a cheaper first
        test for English negators than a search of the whole text."""
        self.text = text
        self._words = words
        self._sentence_starts = [0, *(m.end() for m in _SENTENCE_END_RE.finditer(text))]
        # Most answers deny nothing: one search spares them every per-clause negation test.
        if words is None:
            self.has_negator = _NEGATION_RE.search(text) is not None or (
                _NEGATING_WORD_RE.search(text) is not None
            )
        else:
            # The cheap test may say yes where the searches would not (`NoSchedule` holds
            # the word "no"), never no where they would say yes: they confirm a yes.
            self.has_negator = may_deny(text, words) and (
                _NEGATION_RE.search(text) is not None or _NEGATING_WORD_RE.search(text) is not None
            )
        self._clause_starts: list[int] | None = None  # built on the first clause question
        self._negating_clauses: set[int] = set()
        self._negated: dict[int, bool] = {}  # place -> denied (masks are per answer)

    def _clauses(self) -> list[int]:
        if self._clause_starts is not None:
            return self._clause_starts
        text = self.text
        starts = set(self._sentence_starts)
        negating: set[int] = set()
        marks = chain(_CLAUSE_MARK_RE.finditer(text), _CLAUSE_DASH_RE.finditer(text))
        if self._words is None or not _CONNECTIVE_WORDS.isdisjoint(self._words):
            marks = chain(marks, _CLAUSE_WORD_RE.finditer(text))
        for m in marks:
            word = m.group().strip().lower()
            # A connective opens a clause at its own start (it belongs to what follows);
            # punctuation opens one after itself.
            at = m.start() if word[:1].isalnum() or "\u4e00" <= word[:1] <= "\u9fff" else m.end()
            starts.add(at)
            if word in _NEGATING_OPENERS:
                negating.add(at)
        self._clause_starts = sorted(starts)
        self._negating_clauses = negating
        return self._clause_starts

    def is_question(self, pos: int) -> bool:
        """Whether the sentence at `pos` asks (ends with a question mark): it states nothing."""
        start, end = self.sentence_span(self.sentence(pos))
        ending = self.text[start:end].rstrip()
        return ending.endswith(("?", "？"))

    def is_unsure(self, pos: int) -> bool:
        """Whether the clause at `pos` says the writer does not know (see _UNSURE_RE)."""
        if not self.has_negator:
            return False
        c_start, c_end = self.clause_span(pos)
        return _UNSURE_RE.search(self.text, c_start, c_end) is not None

    @property
    def sentences(self) -> int:
        return len(self._sentence_starts)

    def sentence(self, pos: int) -> int:
        """Index of the sentence holding offset `pos`."""
        return bisect_right(self._sentence_starts, pos) - 1

    def sentence_span(self, index: int) -> tuple[int, int]:
        starts = self._sentence_starts
        end = starts[index + 1] if index + 1 < len(starts) else len(self.text)
        return starts[index], end

    def clause_span(self, pos: int) -> tuple[int, int]:
        starts = self._clauses()
        i = bisect_right(starts, pos) - 1
        end = starts[i + 1] if i + 1 < len(starts) else len(self.text)
        return starts[i], end

    def is_negative(self, start: int, end: int, masks: tuple[tuple[int, int], ...] = ()) -> bool:
        """Whether the clause around [start, end) denies or avoids it (the reference's side:
        a claim it states as a denial or an avoidance may be stated either way)."""
        if self.is_negated(start, end, masks):
            return True
        c_start, c_end = self.clause_span(start)
        return _AVOIDING_RE.search(masked(self.text, c_start, c_end, masks)) is not None

    def is_negated(self, start: int, end: int, masks: tuple[tuple[int, int], ...] = ()) -> bool:
        """Whether the clause around [start, end) denies it (the span itself not counted).

        A negator before the term in its clause denies it ("不支持 ensemble", "no KV cache");
        one after it only when close ("ensemble 不支持", "is not supported"): in "queue
        duration means batches are not filling" the denial is of the filling. Cached per
        place: within one answer the masks are every term it names.
        """
        found = self._negated.get(start)
        if found is None:
            if not self.has_negator:
                return False
            c_start, c_end = self.clause_span(start)
            if c_start in self._negating_clauses:
                found = True
            else:
                text = masked(self.text, c_start, max(c_end, end), ((start, end), *masks))
                # A-不-A asks, it does not deny: 是不是, 能不能, 要不要.
                text = _A_NOT_A_RE.sub("   ", text)
                split = end - c_start
                after = text[split:]
                tail = _LIST_TAIL_RE.match(after)
                if tail is not None:
                    after = after[tail.end() :]
                # Close after it: ten characters ("ensemble 不支持", "X is not"), or the term as
                # an English subject of a denied verb ("explicit mode is not recommended",
                # "X isn't"), not a denial further on ("X means batches are not filling").
                found = _NEGATION_RE.search(text[: start - c_start]) is not None or (
                    _TIME_CLAUSE_AFTER_RE.match(after) is None
                    and (
                        _NEGATION_RE.search(after[:_NEGATION_REACH]) is not None
                        or _DENIED_VERB_RE.match(after) is not None
                    )
                )
            self._negated[start] = found
        return found

    def direction(self, start: int, end: int, masks: tuple[tuple[int, int], ...] = ()) -> int:
        """Which way the clause around [start, end) turns what it names: +1 up (调大, raise),
        -1 down (调小, lower), 0 neither, both, or denied (a denial is judged as one)."""
        c_start, c_end = self.clause_span(start)
        if self.is_negated(start, end, masks):
            return 0
        return direction(masked(self.text, c_start, max(c_end, end), ((start, end), *masks)))


def masked(text: str, start: int, end: int, spans: tuple[tuple[int, int], ...]) -> str:
    """text[start:end] with the given spans blanked out."""
    inside = sorted((max(s, start), min(e, end)) for s, e in spans if s < end and start < e)
    if not inside:
        return text[start:end]
    pieces = []
    at = start
    for s, e in inside:
        if s > at:
            pieces.append(text[at:s])
        if e > at:
            pieces.append(" " * (e - max(s, at)))
            at = e
    pieces.append(text[at:end])
    return "".join(pieces)


# The strongest cues: copulas, auxiliaries and function words that no term contains. A
# phrase with one of these is a statement, not a name (`不会阻塞`, `platform 是早期的写法`).
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


# Words that put a claim in the negative without a negator: the reference saying "避免重复
# 计算" agrees with an answer saying "不用再算一遍".
_AVOIDING_RE = re.compile(alternatives("avoiding"), re.IGNORECASE)


def denies_or_avoids(text: str) -> bool:
    """Whether a claim is stated as a denial or an avoidance ("没有显存隔离", "避免重复计算")."""
    return _NEGATION_RE.search(text) is not None or _AVOIDING_RE.search(text) is not None


def negation_in(text: str) -> bool:
    """Whether a piece of text contains a negator."""
    return _NEGATION_RE.search(text) is not None


# Which way a claim turns a setting or a quantity. A tuning answer that raises what the
# reference lowers ("调大 --max-num-seqs" for "调小 --max-num-seqs") says the opposite
# with no negator in it.
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
_SCALES: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = tuple(
    (re.compile(up, re.IGNORECASE), re.compile(down, re.IGNORECASE))
    for up, down in (
        # amount: high/low, large/small, more/less, rise/fall. The lookarounds skip words
        # that only contain the character (高级, 提高 is listed whole, 大模型, 最多, 多个).
        (
            r"(?<!提)(?<!最)高(?![级可效阶优频])|(?<!最)大(?![模量规部多致概家型于])"
            r"|(?<![不至最])多(?![个种样卡机节])|增加|增大|提高|提升|上升|变大|变高|变多|加大"
            r"|扩大|升高|翻倍"
            r"|\b(?:higher|high|larger|large|bigger|big|more|increas\w*|rais(?:e|es|ed|ing)"
            r"|grows?|grew|boosts?|boosted)\b",
            r"(?<!降)低(?![级])|(?<![最大])小(?![时模组型])|(?<![不至最])少(?!量)|减少|减小|降低"
            r"|下降|变小|变低|变少|缩小|缩短|减半|节省|省"
            r"|\b(?:lower|low|smaller|small|less|fewer|decreas\w*|reduc\w*|shrinks?|cuts?"
            r"|saves?|saving)\b",
        ),
        # quality: better/worse
        (
            r"(?<![不])好(?!处|几)|更优|\b(?:better|improv\w*)\b",
            r"(?<![不])差(?!异|别|距)|变差|劣化|恶化|\b(?:worse|degrad\w*|hurts?)\b",
        ),
        # speed
        (
            r"(?<![不])快(?!照)|加速|\b(?:faster|fast|speeds? up|accelerat\w*)\b",
            r"(?<![不])慢|变慢|\b(?:slower|slow|slows? down)\b",
        ),
        # what bounds it
        (
            r"compute[- ]bound|计算密集|算力瓶颈|瓶颈在算力|受限于算力",
            r"memory[- ]bound|memory-bandwidth-bound|bandwidth[- ]bound|访存密集|带宽瓶颈"
            r"|瓶颈在带宽|受限于(?:显存)?带宽",
        ),
    )
)
_VALUE_WINDOW = 16
_VALUE_STOP_RE = re.compile(r"[、,，;；。.!?！？\n:：()（）]")
_CONJUNCTION_RE = re.compile(r"\s*(?:和|与|及|或|、|and|or|/)?\s*", re.IGNORECASE)


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
    before = before.replace("的", "").rstrip()
    word = re.search(r"(?:[A-Za-z]+(?:\s+down|\s+up)?|[\u4e00-\u9fff]{1,2})$", before)
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
