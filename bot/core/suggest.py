"""Concepts from a reference answer, with no hand-tuning: one concept per claim.

A reference answer is cut into claims: a bullet, a sentence of a paragraph, or a clause of a
long sentence; an enumeration of short items (`负责模型管理、请求路由、调度`) gives one claim per
item. Each claim's key terms are what a good answer must say:

- identifiers, command-line flags and code spans, kept whole (`max_batch_size`,
  `--max-model-len`, `main`), and names with their version (`TLS 1.3`);
- terms of the field's glossary (both languages), English terms of any case
  (`continuous batching`, `TensorRT-LLM`), and Chinese nouns;
- less the question's own words, generic words, and words most of the pack's answers share
  (the topic itself: they tell answers apart by nothing).

A gloss in parentheses is another name of the term before it (`读未提交（Read Uncommitted）`,
`round trip (1-RTT)`), not a term of its own. An answer none of whose claims names anything
is stated by its most specific words: no concept is left that no answer can state.

A claim of the form `X：…` or `X 是 …` is *about* X: X becomes the concept's subject, so the
same words said of another subject do not count. Weights come from emphasis (bold, 关键,
key) and position; examples (`如 …`, `e.g.`) weigh half. The result is a draft for a person
to review, but one that scores answers sensibly as it is.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.core.glossary import Glossary
from bot.core.lang import HAN, words
from bot.core.text import canonical, single_character, stem, tokenize

MAX_CONCEPTS = 12
MAX_ALIASES = 12
MAX_TERMS = 8
FIRST_WEIGHT = 1.5
SUBJECT_WEIGHT = 1.5
SECONDARY_WEIGHT = 0.6
_SECONDARY_RE = re.compile(
    r"^(?:代价|限制|注意|此外|另外|常见做法|补充|缺点|风险|caveat|note|also|however|but)", re.I
)
MIN_CHINESE_NOUN = 3
# A Chinese word glossed in parentheses is found by itself up to this length (`读未提交`).
MAX_GLOSSED_CHINESE = 6
# A term used in more than this share of the pack's answers names the topic, not a point.
SHARED_SHARE = 0.7

_CLAIM_SPLIT_RE = re.compile(r"(?<=[。！？；!?;])|\n+|(?<=\.)\s+(?=[A-Z\u4e00-\u9fff])")
_BULLET_RE = re.compile(r"^\s*(?:[-*•·]|\d+[.)、])\s*")
_EXAMPLE_RE = re.compile(r"^(?:如|例如|比如|譬如|像|e\.g\.|such as|for example|for instance)", re.I)
_EMPHASIS_RE = re.compile(
    r"\*\*[^*]+\*\*|关键|核心|重点|最重要|必须|务必|\b(?:key point|crucial|must)\b"
)
_HEAD_RE = re.compile(
    r"^(?P<head>[^：:，,。]{1,40}?)\s*(?:[：:]|(?:阶段|模式|方式)?(?:是|负责|用于|适合|指)|\s(?:is|are|means)\s)"
)
# One level of nesting: `有缓冲 channel（`make(chan T, n)`）：…` is about the channel.
_GLOSS_RE = re.compile(r"[（(](?:[^（()）]|[（(][^（()）]*[)）])*[)）]")
_FLAG_RE = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*[\w](?:=\S+)?")
_IDENTIFIER_RE = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[_.][A-Za-z0-9]+)+(?:/[A-Za-z0-9_.]+)*")
# One character too (`?`): a span too short to be a term still pairs its backticks.
_CODE_RE = re.compile(r"`([^`\n]{1,60})`")
# Latin runs: words joined by spaces or hyphens, as terms appear inside Chinese text. A
# number keeps its dots (`TLS 1.3`, `MySQL 5.6`, `v1.2.3`): cut there, `TLS 1` names 1.2 too.
_LATIN_WORD = r"[A-Za-z0-9+#]*(?:(?<=\d)\.\d+)*"
_LATIN_RUN_RE = re.compile(f"[A-Za-z]{_LATIN_WORD}(?:[- ][A-Za-z0-9]{_LATIN_WORD})*")
# `stack's`: the 's ends the word (it gave the term `s size grows`).
_POSSESSIVE_RE = re.compile(r"(?<=[A-Za-z])['\u2019]s\b")
_CJK_RE = re.compile(f"[{HAN}]")
# Not "i" (idioms): 始终保持, 大幅提高 say how much, they name nothing.
# Conjunctions, prepositions, particles: words that open a phrase, not a name (not
# adverbs: the tagger reads 读未提交 as 读未/d 提交/v).
_FUNCTION_TAGS = frozenset("cpu")
_NOUN_TAGS = frozenset({"n", "nz", "vn", "nt", "nl", "ng", "an", "eng", "l"})

# Words that name nothing in particular (they fit any answer in any field), and English
# function words (bot.core.lang).
GENERIC_WORDS = words("generic_words")
_EN_STOP = words("stop_words")
# English words that say how, how much or in what order, never what: an English bank's
# sentences are all Latin text, so without these its claims got `instead`, `because`,
# `larger` and `serves` as key terms. Compared as written (lower case): function words,
# adverbs, adjectives and comparatives. `serve` is listed by its forms: `serving` is a term.
_EN_GENERIC = frozenset(
    """
    between among within without instead because since while whereas whether although though
    unless until before after during through across along against around behind beyond toward
    towards upon onto once both either neither nor any some all every none nothing something
    anything everything everyone someone another own only even still yet already always never
    often sometimes again too well much many few fewer less least lot lots rather quite almost
    enough ever where whose whom whatever however therefore thus hence otherwise together
    immediately directly simply easily typically generally actually really mostly mainly fully
    partly exactly roughly usually separately eventually finally probably possibly likely
    especially automatically quickly slowly instantly later earlier next last previous above
    below out up down off away back instead e.g i.e etc yes
    large larger largest small smaller smallest big bigger biggest long longer longest short
    shorter shortest high higher highest low lower lowest fast faster fastest slow slower
    slowest worse worst great greater greatest early late latest easy easier hard harder cheap
    cheaper expensive full whole entire current separate certain possible available simple
    similar various several little able unable real true right wrong useful necessary due
    identical extra whole overall single multiple
    must shall cannot alone lists stored sorted seconds
    serve serves served users user thing version copy copies
    """.split()
)
# Words in -ly that are not adverbs (rarely, mostly, immediately are).
_LY_NOUNS = frozenset("assembly anomaly family supply reply monopoly butterfly".split())
# Verbs of any field, matched by stem (reduce, reduces, reduced, reducing): doing words that
# a claim states with its terms, not terms of their own.
_EN_GENERIC_VERBS = frozenset(
    stem(w)
    for w in """
    allow let give tell send keep go come become seem look mean show find put want try call
    say know think help cut change reduce increase decrease lower raise improve avoid add remove
    return contain include require depend happen occur start begin apply affect cause lead
    handle ensure enable prevent forbid refresh override track answer ask hold move turn bring
    explain describe compare choose decide offer select read stay match run fit drop get take
    make do lets gives kept sent took taken made got gave given says means
    """.split()
)


def generic_english(word: str) -> bool:
    """A word of English prose that names nothing (`because`, `larger`, `reduces`).

    A word in capitals (`SELECT`, `NOT NULL`'s `NOT`) is a keyword, not prose.
    """
    if len(word) >= 2 and word.isupper():
        return False
    folded = word.casefold()
    return (
        folded in _EN_STOP
        or folded in _EN_GENERIC
        or (len(folded) >= 6 and folded.endswith("ly") and folded not in _LY_NOUNS)  # adverbs
        or (folded.isascii() and folded.isalpha() and stem(folded) in _EN_GENERIC_VERBS)
    )


_NAME_LIKE_RE = re.compile(r"[-_./]|[A-Z]|\d")
# Nouns that say what kind of thing a name is: after a name they are not part of it.
_KIND_NOUNS = frozenset(
    "directive directives header headers field fields parameter parameters option options "
    "flag flags setting settings command commands function functions method methods "
    "keyword keywords attribute attributes property properties variable variables".split()
)


def _english_segments(words: list[str]) -> list[list[str]]:
    """Cut a run of English prose at the words that name nothing: what is left are names."""
    segments: list[list[str]] = [[]]
    for w in words:
        if generic_english(w) or w.casefold() in GENERIC_WORDS:
            if segments[-1]:
                segments.append([])
        else:
            segments[-1].append(w)
    return [seg for seg in segments if seg]


@dataclass
class Claim:
    text: str
    weight: float
    subject: str | None = None
    terms: list[str] = field(default_factory=list)
    # Other names of a term, glossed in parentheses after it (`读未提交（Read Uncommitted）`).
    glosses: dict[str, list[str]] = field(default_factory=dict)


def _clean(text: str) -> str:
    # Not strip("-"): a claim may open with a flag (`--max-model-len：…`).
    return _BULLET_RE.sub("", text).strip().strip("*").strip()


def split_claims(answer: str) -> list[tuple[str, float]]:
    """Cut a reference answer into claims (a bullet, or a sentence) with base weights.

    A subject is not carried from a bullet's first sentence to the next: measured on the
    graded sets, it marked more correct answers as mixed up than it caught swapped ones.
    """
    claims: list[tuple[str, float]] = []
    for line in answer.splitlines():
        for raw in _split_outside_code(line):
            piece = _clean(raw)
            if not piece:
                continue
            if piece.endswith((":", "：")) and len(piece) <= 20:
                continue  # a heading of what follows ("关键点："), not a claim
            # Emphasis is read before the bullet is cleaned off: `**X** …` opens with it.
            weight = 2.0 if _EMPHASIS_RE.search(raw) else 1.0
            piece = piece.replace("**", "").strip(" ，,。；;")
            if piece:
                claims.append((piece, 0.5 if _EXAMPLE_RE.match(piece) else weight))
    return claims


_CODE_SPAN_RE = re.compile(r"`[^`\n]+`")
_ENDS = "。！？；!?;."
_HIDDEN = str.maketrans(_ENDS, "".join(chr(0xE000 + i) for i in range(len(_ENDS))))
_SHOWN = {v: k for k, v in _HIDDEN.items()}


def _split_outside_code(line: str) -> list[str]:
    """A line cut at sentence ends, none inside a code span (`?`, `$1`, `%s`)."""
    hidden = _CODE_SPAN_RE.sub(lambda m: m.group().translate(_HIDDEN), line)
    return [piece.translate(_SHOWN) for piece in _CLAIM_SPLIT_RE.split(hidden)]


# An enumeration of examples or members of a kind, not of separate points.
_MEMBERS_RE = re.compile(
    r"如|例如|比如|譬如|像是|都属于|都是|属于|之类"
    r"|\b(?:such as|e\.g\.|like|including|for example)\b",
    re.IGNORECASE,
)


def _head(claim: str) -> str | None:
    # A gloss in parentheses belongs to the head: `FP8（W8A8，常用 E4M3）：…` is about FP8.
    m = _HEAD_RE.match(_GLOSS_RE.sub(lambda g: " " * len(g.group()), claim))
    if not m:
        return None
    head = m.group("head").strip(" -*")
    # A head is a name: short, and not a sentence of its own.
    return head if head and len(head) <= 40 and not re.search(r"[，,。]", head) else None


@dataclass
class Analyser:
    """Term extraction for one pack: glossary, Chinese word tagger, shared-word counts."""

    glossary: Glossary
    tagger: Callable[[str], Sequence[tuple[str, str]]] | None = None
    shared: frozenset[str] = frozenset()
    # In how many of the pack's answers each term appears: specific terms first.
    spread: dict[str, int] = field(default_factory=dict)

    def terms(self, text: str) -> list[str]:
        """Key terms of a piece of text, in order, longer terms absorbing shorter ones."""
        found: list[str] = []

        def add(term: str, marked: bool = False) -> None:
            term = _trim(term)
            # A flag keeps its dashes (`--max-model-len`, `-O2`); other words lose stray ones.
            term = term if _FLAG_RE.fullmatch(term) else term.strip("-")
            # `B+` of "B+ 树" is a single letter once tokenized: no pack may use it.
            if len(term) < 2 or not tokenize(term) or single_character(term):
                return
            if not marked and (term.casefold() in GENERIC_WORDS or generic_english(term)):
                return
            found.append(term)

        outside = _CODE_RE.sub(" ", text)
        for m in _CODE_RE.finditer(text):
            # The text marks it as a name (`main`, `size`): a term even if a word of any
            # field, unless the text also says it as prose ("the return value in `.value`").
            said = re.search(rf"(?<!\w){re.escape(_trim(m.group(1)))}(?!\w)", outside, re.I)
            add(m.group(1), marked=said is None)
        for m in _FLAG_RE.finditer(text):
            add(m.group())
        for m in _IDENTIFIER_RE.finditer(text):
            add(m.group())
        for term in self.glossary.find_in(text):
            add(term)
        english = not _CJK_RE.search(text)
        prose = _POSSESSIVE_RE.sub(lambda m: " " * len(m.group()), text)
        for m in _LATIN_RUN_RE.finditer(prose):
            if english:
                # English prose is one long Latin run: its names are what is left between
                # the words that name nothing (`opaque validator`, `hit ratio`).
                words = m.group().split()
                if words[0].casefold() in _KIND_NOUNS and prose[: m.start()].rstrip()[-1:] == "`":
                    words = words[1:]  # the `main` function: the name is main, said alone
                for segment in _english_segments(words):
                    if (
                        len(segment) in (2, 3)
                        and segment[-1].casefold() in _KIND_NOUNS
                        and _NAME_LIKE_RE.search(" ".join(segment[:-1]))
                    ):
                        # `the max-age directive`, `the Vary header`: the name is max-age,
                        # which answers say alone as often as with its kind (a plain word
                        # before the kind is part of the name: `request headers`).
                        add(" ".join(segment[:-1]))
                    elif len(segment) in (2, 3):
                        add(" ".join(segment))
                    else:
                        for w in segment:
                            if _technical_word(w):
                                add(w)
                continue
            words = [w for w in re.split(r"\s+", m.group()) if w.casefold() not in _EN_STOP]
            # Inside Chinese text a Latin run is a term.
            chunk = " ".join(words)
            if chunk and len(words) <= 4:
                add(chunk)
            elif words:
                for w in words:
                    if _technical_word(w):
                        add(w)
        if self.tagger is not None and _CJK_RE.search(text):
            for word, tag in self.tagger(text):
                # Two-character words are most often everyday words (收益, 利用, 文档): kept
                # when the glossary knows them, longer nouns always.
                if (
                    _CJK_RE.search(word)
                    and tag in _NOUN_TAGS
                    and (len(word) >= MIN_CHINESE_NOUN or word in self.glossary)
                ):
                    add(word)
        return _absorb(found)

    def glosses(self, text: str, terms: list[str]) -> dict[str, list[str]]:
        """Terms glossed in parentheses right after them, each with its other names.

        A gloss names the same thing: another script (`读未提交（Read Uncommitted）`), or
        an abbreviation (`MIG (Multi-Instance GPU)`, `round trip (1-RTT)`). A remark in
        parentheses (`Dijkstra (non-negative weights)`, `FP8（W8A8，常用 E4M3）`) is not.
        """
        out: dict[str, list[str]] = {}
        for m in _GLOSS_RE.finditer(text):
            inner = m.group()[1:-1].strip().strip("`").strip()
            before = text[: m.start()].rstrip().rstrip("`").rstrip()
            if (
                not inner
                or len(inner) > 40
                or re.search(r"[，,;；。:：、/]", inner)
                or (m.group()[0] == "(" and m.start() > 0 and text[m.start() - 1].isalnum())
            ):
                continue  # a remark, a list, or a call: `f(x)`, `O(1)`
            term = self._glossed(before, terms)
            if term is None or not _names_the_same(term, inner):
                continue
            if (
                inner in self.glossary
                and term in self.glossary
                and not any(_same(inner, n) for n in self.glossary.synonyms(term))
            ):
                continue  # the glossary knows both as different things: `排队（load shedding）`
            if _CJK_RE.search(term + inner) and not _PLAIN_GLOSS_RE.fullmatch(
                inner if _CJK_RE.search(term) else term + inner
            ):
                # Across scripts only plain words are a translation: `线程（receiver）` and
                # `读未提交（Read Uncommitted）` are, `（默认 1000 毫秒）`, `（MAP_SHARED）` not.
                continue
            # Its acronyms too (`RTT` of `1-RTT`), not each of its words (`Uncommitted`).
            names = [inner, *(t for t in self.terms(inner) if t.isupper() and not _same(t, inner))]
            out.setdefault(term, []).extend(names)
        return out

    def _glossed(self, before: str, terms: list[str]) -> str | None:
        """The term a gloss follows: a term of the claim ending there, or the Chinese word."""
        folded = before.casefold()
        ending = [t for t in terms if folded.endswith(t.casefold())]
        if ending:
            return max(ending, key=len)
        # Else a Chinese word standing alone: from a list mark or the claim's start
        # (`读未提交（…）、读已提交（…）`), not the end of a phrase (`的请求（…）`).
        run = re.search(f"(?:^|[、，,；;：:\\s])([{HAN}]{{2,{MAX_GLOSSED_CHINESE}}})$", before)
        if run is None:
            return None
        word = run.group(1)
        if self.tagger is not None:
            # Not the conjunction or particle opening the run: `或者预读` is 预读.
            tags = list(self.tagger(word))
            while tags and tags[0][1][:1] in _FUNCTION_TAGS:
                word = word[len(tags.pop(0)[0]) :]
        return word if len(word) >= 2 and word not in GENERIC_WORDS else None

    def keep(self, term: str, asked: str) -> bool:
        """Whether a term tells answers apart: not the question's, not the pack's topic."""
        key = canonical(tokenize(term))
        inner = key.strip()
        if inner and (key in asked or (not inner[:1].isascii() and inner in asked)):
            return False
        return term.casefold() not in self.shared


# A translation in a gloss: plain words of one script (letters, spaces, hyphens; no digits).
_PLAIN_GLOSS_RE = re.compile(f"[A-Za-z][A-Za-z -]{{0,38}}[A-Za-z]|[{HAN}]{{2,8}}")
_PAIRS = {"(": ")", "（": "）"}


def _trim(term: str) -> str:
    """A term without the punctuation around it; a parenthesis it closes stays (`O(1)`)."""
    while True:
        term = term.strip(" /.,:;“”\"'")
        opener, closer = term[:1], term[-1:]
        if opener in _PAIRS and _PAIRS[opener] == closer:
            term = term[1:-1]  # wrapped whole: `(prefill)`
        elif closer in _PAIRS.values() and term.count(closer) > sum(
            term.count(o) for o, c in _PAIRS.items() if c == closer
        ):
            term = term[:-1]
        elif opener in _PAIRS and term.count(opener) > term.count(_PAIRS[opener]):
            term = term[1:]
        else:
            return term


def _glossed_terms(terms: list[str], glosses: dict[str, list[str]]) -> list[str]:
    """A claim's terms with each gloss folded into the term it glosses, in place of it."""
    if not glosses:
        return terms
    keys = {canonical(tokenize(n)): term for term, names in glosses.items() for n in names}
    out: list[str] = []
    for t in terms:
        key = canonical(tokenize(t))
        # `RTT` inside the gloss `1-RTT` is the gloss too.
        term = next((g for k, g in keys.items() if key in k), t)
        if term not in out:
            out.append(term)
    return out + [t for t in glosses if t not in out]


def _names_of(term: str, claim: Claim, analyser: Analyser) -> list[str]:
    """Every way of saying a term: the glossary's, and the glosses the text gives it."""
    names = analyser.glossary.synonyms(term)
    for gloss in claim.glosses.get(term, []):
        names += [
            n for n in analyser.glossary.synonyms(gloss) if not any(_same(n, o) for o in names)
        ]
    return names


def _names_the_same(term: str, gloss: str) -> bool:
    """Whether a gloss is another name of the term: another script, or an abbreviation."""
    if _CJK_RE.search(term):
        # Wholly the other script: `扩容规则（Go 1.18 起）` is a remark, not a name.
        return not _CJK_RE.search(gloss)
    if _CJK_RE.search(gloss):
        return not re.search("[A-Za-z]", gloss)
    short, long = sorted((term, gloss), key=len)
    letters = re.sub(r"[^a-z]", "", short.casefold())
    initials = "".join(w[0] for w in re.findall(r"[a-z]+", long.casefold()))
    return (
        len(initials) >= 2
        and len(letters) >= 2
        and (letters.startswith(initials) or initials.startswith(letters))
    )


def _technical_word(word: str) -> bool:
    """A single English word worth a term: a name (capitals, digits) or a long word."""
    return word[:1].isupper() or any(c.isdigit() for c in word) or len(word) >= 6


def _absorb(terms: list[str]) -> list[str]:
    """Drop terms inside a longer term of the list (keep `KV cache`, not also `cache`)."""
    keys = [canonical(tokenize(t)) for t in terms]
    out: list[str] = []
    seen: set[str] = set()
    for term, key in zip(terms, keys, strict=True):
        if key in seen:
            continue
        inner = key.strip()
        if any(
            other != key
            and (
                (f" {inner} " in other)
                if inner[:1].isascii()
                else (inner in other and len(other.strip()) > len(inner))
            )
            for other in keys
        ):
            continue
        seen.add(key)
        out.append(term)
    return out


def shared_terms(analyser: Analyser, answers: Sequence[str]) -> frozenset[str]:
    """Terms that most of a pack's answers use (document frequency above SHARED_SHARE).

    Also records every term's spread in `analyser.spread`, so claims keep their most
    specific terms.
    """
    counts: Counter[str] = Counter()
    for answer in answers:
        counts.update({t.casefold() for t in analyser.terms(answer)})
    analyser.spread = dict(counts)
    if len(answers) < 4:
        return frozenset()
    limit = max(2, int(len(answers) * SHARED_SHARE))
    return frozenset(t for t, n in counts.items() if n > limit and not _looks_like_code(t))


def _looks_like_code(term: str) -> bool:
    return bool(_IDENTIFIER_RE.fullmatch(term) or _FLAG_RE.fullmatch(term))


def suggest_concepts(question: str, answer: str, analyser: Analyser) -> list[dict[str, Any]]:
    """Concepts for one question: a claim each, with subject, aliases and weight."""
    asked = canonical(tokenize(question))
    contrasted = contrast_names(question)
    claims: list[Claim] = []
    names = _names(question)
    for index, (text, weight) in enumerate(split_claims(answer)):
        found = analyser.terms(text)
        subject = _subject(text, found, asked, analyser)
        # `管道（pipe）：…`: the subject's gloss stays one of the claim's terms, so saying the
        # subject counts for the claim (folded in, os_basics lost 0.006 rho).
        glosses = {
            g: names
            for g, names in analyser.glosses(text, found).items()
            if analyser.keep(g, asked)  # else `clustered index` would go with 聚簇索引
            and not (subject and any(_same(subject, n) for n in (g, *names)))
        }
        all_terms = _glossed_terms(found, glosses)
        terms = [t for t in all_terms if analyser.keep(t, asked)]
        head = _head(text)
        if (
            head
            and any(_same(head, name) for name in contrasted)
            and not (subject and any(_same(head, a) for a in analyser.glossary.synonyms(subject)))
        ):
            subject = head  # one of the things the question contrasts, whole: not a word of it
        if subject:
            rest = [t for t in terms if not _same(t, subject)]
            if rest:
                terms = rest
            else:
                subject = None
        if subject is None and (opening := _OPENING_RE.match(text)):
            word = opening.group(1)
            if word.casefold() in names and not _technical_word(word):
                # `push adds an element on top` for "What do push and pop do?": a short word
                # the question sets beside another, opening the claim, is what the claim is
                # about (a longer or capitalised one is a term already, found as the subject).
                subject = word
        # A claim naming one of the things the question contrasts is said of it (a swap of
        # the two is then caught), though nothing heads it: weights stay the head's.
        inferred = None if subject else _contrasted(text, contrasted)
        if not terms:
            # No name left (`The bulb will light.`): its plain words are its terms, so no
            # claim is one that no answer can state.
            # (A Chinese claim is not given its plain verbs: measured, 发送/接收/就绪 as
            # terms cost k8s_serving 0.010 rho, os_basics and go 0.007. It is left out.)
            terms = _plain_words(text, asked)
        if not terms:
            continue
        if index == 0 and weight == 1.0:
            weight = FIRST_WEIGHT  # the first claim usually answers the question head-on
        elif subject and weight == 1.0 and not analyser.keep(subject, asked):
            weight = SUBJECT_WEIGHT  # a claim about a thing the question asks about
        elif _SECONDARY_RE.match(text) and weight == 1.0:
            weight = SECONDARY_WEIGHT  # a caveat or a side note
        # Items are measured without their glosses: `读未提交（Read Uncommitted）` is one.
        items = _enumeration(_GLOSS_RE.sub("", text) if glosses else text, terms)
        if items and subject is None and _MEMBERS_RE.search(text):
            # Examples or members of a kind ("GPTQ、AWQ、SmoothQuant 都属于 PTQ"): one point,
            # made by naming any of them with what they are.
            claims.append(Claim(text, min(weight, 1.0), inferred, items, glosses))
        elif items and subject is None:
            claims.extend(Claim(item, weight, None, [item], glosses) for item in items)
        else:
            claims.append(Claim(text, weight, subject or inferred, terms, glosses))
    claims = _merge_duplicates(claims)[:MAX_CONCEPTS]
    concepts: list[dict[str, Any]] = []
    labels: set[str] = set()
    for claim in claims:
        groups: list[list[str]] = []
        specific = sorted(claim.terms, key=lambda t: analyser.spread.get(t.casefold(), 0))
        for term in specific[:MAX_TERMS]:
            group = [a for a in _names_of(term, claim, analyser) if analyser.keep(a, asked)]
            # Glossary groups overlap (`矩阵乘` and `GEMM` name each other): one term counted
            # twice would let a single word earn a two-term claim.
            if group and not any(_same(a, b) for g in groups for a in group for b in g):
                groups.append(group[:MAX_ALIASES])
        if not groups:
            continue
        concept: dict[str, Any] = {"label": _label(claim.text, labels)}
        if claim.subject:
            concept["subject"] = _names_of(claim.subject, claim, analyser)[:8]
        if len(groups) == 1 and _same(claim.text, groups[0][0]):
            concept["aliases"] = groups[0]  # the claim is the term (an item of a list)
        elif len(groups) == 1:
            # A sentence for a label is no phrase of the concept: as an alias it would match
            # the reference's own words (the label cut at 60 characters) as a bare list.
            concept["terms"] = groups
        else:
            concept["terms"] = groups
        concept["weight"] = claim.weight
        concepts.append(concept)
    if not concepts:
        concepts = [_last_resort(question, answer, analyser, labels)]
    return concepts


def _last_resort(
    question: str, answer: str, analyser: Analyser, labels: set[str]
) -> dict[str, Any]:
    """The one concept of an answer none of whose claims names anything: its most specific
    words, the question's own if need be, else the answer itself as its alias. A concept
    with no alias and no term could only be stated word for word, by no one."""
    asked = canonical(tokenize(question))
    # The question's own words are dropped from every answer (the question pasted back
    # scores 0): an everyday word the question lacks ("higher" for "how would the pitch
    # change?") is the claim, before words no answer can earn.
    words = _plain_words(answer, asked, analyser.tagger)
    words = words or _plain_words(answer, asked, analyser.tagger, generic=True)
    words = words or _plain_words(answer, "", analyser.tagger)
    concept: dict[str, Any] = {"label": _label(answer, labels)}
    if words:
        concept["terms"] = [[w] for w in words[:MAX_TERMS]]
    else:
        concept["aliases"] = [" ".join(answer.split()).strip(" 。.!！")]
    concept["weight"] = 1.0
    return concept


_OPENING_RE = re.compile(r"^(?:(?:the|a|an)\s+)?([A-Za-z][A-Za-z0-9]+)\b(?![-_.('\u2019])", re.I)


_PAIRED_RE = re.compile(
    r"(?<![\w-])([A-Za-z][A-Za-z0-9]*)(?=(?:,\s*|\s+(?:and|or|vs\.?|versus)\s+)(?:(?:a|an|the)\s+)?([A-Za-z][A-Za-z0-9]*)\b)",
    re.IGNORECASE,
)


def _names(question: str) -> frozenset[str]:
    """English words a question sets side by side (`push and pop`, `TCP or UDP`)."""
    return frozenset(
        folded
        for m in _PAIRED_RE.finditer(question)
        for w in m.groups()
        if len(folded := w.casefold()) >= 2
        and folded not in GENERIC_WORDS
        and not generic_english(folded)
    )


def _plain_words(
    text: str,
    asked: str,
    tagger: Callable[[str], Sequence[tuple[str, str]]] | None = None,
    *,
    generic: bool = False,
) -> list[str]:
    """The words of a claim that are neither function words nor the question's own, longest
    first: the terms of a claim that names nothing technical. With `generic`, everyday
    words (higher, faster, more) count too.

    In Chinese, the tagger's words of two characters or more, verbs too
    (`发送和接收必须同时就绪`: 发送, 接收, 就绪): else the claim had no term at all.
    """
    out: list[str] = []
    if tagger is not None and _CJK_RE.search(text):
        for word, tag in tagger(text):
            if (
                len(word) >= 2
                and _CJK_RE.match(word)
                and tag[:1] not in _FUNCTION_TAGS
                and tag[:1] not in "dmqr"  # adverbs, numerals, measure words, pronouns
                and word not in GENERIC_WORDS
                and word not in asked
                and word not in out
            ):
                out.append(word)
    for word in _LATIN_RUN_RE.findall(text):
        for w in word.split():
            folded = w.casefold()
            if (
                len(folded) < 3
                or folded in _EN_STOP
                or (folded in _EN_GENERIC and not generic)
                or f" {stem(folded)} " in asked
                or folded in (o.casefold() for o in out)
            ):
                continue
            out.append(w)
    return sorted(out, key=len, reverse=True)[:MAX_TERMS]


def _subject(claim: str, terms: list[str], asked: str, analyser: Analyser) -> str | None:
    """What a claim is about: a technical term heading it (`X：…`, `Prefill 是 …`).

    Only names that answers set side by side count: a term the question asks about
    (`prefill 和 decode …`), or a technical name heading a `X：…` claim (a parameter, a
    metric). A Chinese word heading a bullet (`原理：`, `代价：`) is a label, not a subject.
    """
    subject = _subject_of(claim, terms, asked, analyser)
    if subject is None or _is_name(subject, asked, analyser):
        return subject
    return None  # a plain English word opening a sentence (`Files are larger …`)


def _is_name(term: str, asked: str, analyser: Analyser) -> bool:
    """Whether a Latin subject is a name answers set side by side: an acronym, an identifier,
    a term of the glossary or of the question, not a plain word that opens a sentence."""
    if not term.isascii() or term in analyser.glossary or not analyser.keep(term, asked):
        return True
    return bool(re.search(r"[-_./\d]|.[A-Z]", term))


def _subject_of(claim: str, terms: list[str], asked: str, analyser: Analyser) -> str | None:
    head = _head(claim)
    if head is not None:
        # The glossary may spell the head another way (`readinessProbe` as `readiness probe`).
        named = [
            t
            for t in terms
            if any(_same(head, a) for a in analyser.glossary.synonyms(t))
            # A Chinese head the glossary does not know is a bullet's label (`正确性：`).
            and (re.match(r"[-A-Za-z]", t) or t in analyser.glossary or not analyser.keep(t, asked))
        ]
        if named:
            return named[0]
        if (
            re.match(r"[-A-Za-z]", head)
            and not generic_english(head)  # "It is fast …" for "why is it fast?"
            and f" {canonical(tokenize(head)).strip()} " in asked
        ):
            return head  # a name the question asks about (`Canary：…`), glossary or not
    # Up to the head's end: the head has its bullet dashes stripped, a flag keeps its own.
    opening = claim[: claim.find(head) + len(head)] if head else claim[:40]
    for term in terms:
        at = opening.casefold().find(term.casefold())
        if at < 0 or (head is None and at > 2):
            continue
        technical = bool(re.match(r"[-A-Za-z]", term)) or term in analyser.glossary
        in_question = not analyser.keep(term, asked)
        if in_question and (technical or head is not None):
            return term
        if head is not None and technical and len(term) * 2 >= len(head.strip()):
            return term
        return None
    return None


# A question that sets things side by side: "A 和 B 有什么区别", "比较 A、B 和 C", "the
# difference between A and B", "compare A with B", "how does A differ from B".
_CONTRAST_CUE_RE = re.compile(
    r"区别|不同|差异|异同|对比|比较|\bdiffer\w*|\bcompar\w*|\bversus\b|\bvs\b", re.IGNORECASE
)
_CONTRAST_SPLIT_RE = re.compile(
    r"[、,，/]|和|与|跟|及|以及|还是|\b(?:and|or|with|from|between|vs|versus)\b", re.IGNORECASE
)
_CONTRAST_FILLER_RE = re.compile(
    r"^(?:(?:what|how|is|are|the|main|key|differences?|does|do|it|its|a|an|compare|"
    r"请|比较|对比|说说|谈谈|简述)\b\s*)+|(?:有什么|有何|的|各自|分别|之间|"
    r"\s+(?:differ\w*|on a graph|persistence|transactions?)$)+$",
    re.IGNORECASE,
)


_PRONOUN_RE = re.compile(r"\b(?:it|they|this|that|each)\b|它|它们|这|那", re.IGNORECASE)


def contrast_names(question: str) -> list[str]:
    """The things a question sets side by side, as it names them (`进程`, `线程`), or []."""
    for clause in re.split(r"[？?。;；:：]|\.(?!\d)", question):
        cue = _CONTRAST_CUE_RE.search(clause)
        if cue is None:
            continue
        text = clause.replace(cue.group(), " , ")
        names = []
        for part in _CONTRAST_SPLIT_RE.split(text):
            name = _CONTRAST_FILLER_RE.sub("", part.strip()).strip(" ，,。的")
            name = _CONTRAST_FILLER_RE.sub("", name).strip(" ，,。的")
            words = name.split()
            if (
                name
                and len(words) <= 4
                and len(name) <= 30
                and name.casefold() not in _EN_STOP
                and not _PRONOUN_RE.search(name)
            ):
                names.append(name)
        if len(names) >= 2:
            return names
    return []


def _contrasted(claim: str, names: list[str]) -> str | None:
    """The one thing of a contrast question a claim names (its subject), if only one."""
    if len(names) < 2:
        return None
    key = canonical(tokenize(claim))
    named = [
        n
        for n in names
        if (needle := canonical(tokenize(n))) in key or (not n.isascii() and needle.strip() in key)
    ]
    return named[0] if len(named) == 1 else None


def _same(a: str, b: str) -> bool:
    return canonical(tokenize(a)) == canonical(tokenize(b))


def _enumeration(text: str, terms: list[str]) -> list[str]:
    """Items of a list of short terms (`模型管理、请求路由、调度`), or [] if it is not one."""
    # Chinese conjunctions only: the `or` of `orchestration` is no separator (and splitting
    # at English and/or measured worse on the graded banks).
    parts = [p.strip() for p in re.split(r"[、/]|(?:和|与|及|以及)(?=\S)", text)]
    if len(parts) < 3:
        return []
    items = [t for t in terms if any(_contains(p, t) and len(p) <= len(t) + 8 for p in parts)]
    return items if len(items) >= 3 else []


def _contains(text: str, term: str) -> bool:
    """Whether text names term: a Latin term as a whole word (`PTQ` is not in `GPTQ`)."""
    if not term.isascii():
        return term in text
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(term)}(?![A-Za-z0-9])", text) is not None


def _merge_duplicates(claims: list[Claim]) -> list[Claim]:
    """Claims with the same terms about the same subject are one claim (an answer that says
    a thing twice); `MySQL 5.6 之后默认是可重复读` is not the list item `可重复读`."""
    out: list[Claim] = []
    for claim in claims:
        key = ({t.casefold() for t in claim.terms}, claim.subject)
        same = next((c for c in out if ({t.casefold() for t in c.terms}, c.subject) == key), None)
        if same is None:
            out.append(claim)
        else:
            same.weight = max(same.weight, claim.weight)
    return out


def _label(text: str, taken: set[str]) -> str:
    label = " ".join(text.split())
    if len(label) > 60:
        cut = label[:59]
        space = cut.rfind(" ")
        if label[59].isalnum() and cut[-1:].isalnum() and space >= 40:
            cut = cut[:space]  # English: at a word's end, not inside it ("an activ…")
        label = cut.rstrip() + "…"
    base, n = label, 2
    while label.casefold() in taken:
        label = f"{base} ({n})"
        n += 1
    taken.add(label.casefold())
    return label
