"""Authoring checks: what a pack's author should fix before learners meet it.

`content check` validates a pack (errors) and then prints these warnings, each naming the
question and the concept. None of them stops a pack from loading; each is a way the score
would mislead:

- an alias that is in the question text (it never counts: pasting the question back must
  earn nothing, so the concept is harder to state than the author thinks);
- a one-word alias that is also a piece of an identifier in the question or answer
  (`preferred` inside `preferred_batch_size`), so naming the identifier states it;
- an alias shared by two concepts of one question (one phrase earns both);
- an alias that is part of its own concept's subject when that is an identifier (`queue
  delay` for a claim about `max_queue_delay_microseconds`): naming the parameter would state
  the claim, so a claim said of the wrong parameter could not be told from the right one;
- a concept with no alias and no key term: only its whole label, word for word, states it;
- a concept no answer can ever earn: every phrase of it is a word of the question, which
  the scorer drops;
- an alias or key term that names nothing in particular (`data`, `问题`, `方法`) in a
  concept bound to no subject: any on-topic sentence would state the claim; a concept all
  of whose phrases are made of such words (`数据处理`, `the data`) is named once;
- a reference answer that scores under `REFERENCE_FLOOR` against its own concepts (with the
  concepts it misses), and a concept the reference does not state in full (the reference
  should score 100%);
- a draft pack (`draft: true`, written by `content import`) not yet reviewed;
- levels out of balance (`level_warnings`, advice: `--strict` does not fail on it): a pack
  of `BALANCE_MIN` questions or more with a level empty, or more than half of its
  questions at one level;
- the same question asked twice in other words, in one pack or across packs
  (`duplicate_warnings`, measured in `bot.core.duplicates`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from bot.core.content import Concept, Pack, Question
from bot.core.duplicates import near_duplicates
from bot.core.lang import CJK, words
from bot.core.levels import Level
from bot.core.scoring import needle, score_answer
from bot.core.text import canonical, tokenize

_IDENTIFIER_RE = re.compile(
    r"\b[A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)+|\b[a-z]+[A-Z][A-Za-z0-9]+"
)


# Words that name nothing in particular in any field (bot.core.lang).
_GENERIC = words("generic_words") | words("stop_words")
# A run of Chinese made only of such words (数据处理, 相关问题) names nothing either.
_CJK_GENERIC = sorted((w for w in _GENERIC if re.match(f"[{CJK}]", w)), key=len, reverse=True)
_GENERIC_RUN = re.compile(
    f"(?:{'|'.join(map(re.escape, _CJK_GENERIC))}|[{''.join(sorted(words('stop_chars')))}])+"
)
# A reference answer must score this much against its own concepts: it is what a learner
# is shown as the answer that earns full marks.
REFERENCE_FLOOR = 0.9
# Levels are weighed in packs of this many questions or more (two a level): a smaller pack
# cannot fill three levels, and need not.
BALANCE_MIN = 6
# A label longer than this (in tokens) is a sentence: no answer says it word for word.
_SENTENCE_TOKENS = 4


def _phrases(concept: Concept) -> list[str]:
    return [*concept.phrases, *(p for part in concept.terms for p in part)]


def names_nothing(phrase: str) -> bool:
    """Whether every word of a phrase is one that names nothing in particular (`data`, `the
    data`, `数据处理`): stated by any sentence on the topic."""
    tokens = tokenize(phrase)
    return bool(tokens) and all(
        _GENERIC_RUN.fullmatch(raw) is not None
        if re.match(f"[{CJK}]", raw)
        else raw in _GENERIC or stemmed in _GENERIC
        for raw, stemmed in zip(tokens.raw, tokens.stem, strict=True)
    )


def _never_earned(concept: Concept, asked: str) -> bool:
    """Whether the scorer can never credit the concept: every phrase it is stated by has no
    words or is in the question (pasting the question back must earn nothing, so the scorer
    drops those)."""
    return all(not needle(p) or needle(p) in asked for p in _phrases(concept))


def question_warnings(question: Question) -> list[str]:
    """Warnings for one question, each starting with its id."""
    out: list[str] = []
    asked = canonical(tokenize(question.question))
    identifiers = {
        m.group()
        for m in _IDENTIFIER_RE.finditer(f"{question.question}\n{question.answer}")
        if len(tokenize(m.group())) > 1
    }
    owners: dict[str, list[str]] = {}
    written: dict[str, str] = {}  # needle -> the alias as the author wrote it
    for concept in question.concepts:
        label = tokenize(concept.label)
        sentence = len(label) > _SENTENCE_TOKENS or sum(map(len, label.cjk_runs)) > 12
        if not concept.aliases and not concept.terms and sentence:
            out.append(
                f"{question.id}: concept {concept.label!r} has no alias and no key term: "
                "only its whole label, word for word, states it"
            )
        never = _never_earned(concept, asked)
        if never:
            out.append(
                f"{question.id}: concept {concept.label!r} can never be earned: every alias "
                "and key term is a word of the question, which the score drops; add one the "
                "question does not use"
            )
        # Bound to a subject or to required parts, a plain word says something of them
        # (`old` said of `platform`); alone it says nothing.
        free = not concept.subject and not concept.requires
        every = free and all(map(names_nothing, _phrases(concept)))
        if every:
            out.append(
                f"{question.id}: concept {concept.label!r}: every word that states it "
                f"({', '.join(map(repr, _phrases(concept)))}) names nothing in particular, so "
                "any on-topic sentence states it; give it a term of its own"
            )
        for phrase in _phrases(concept):
            if not tokenize(phrase):
                continue
            # One such word among specific ones is named alone (a phrase of several words,
            # `other models`, may well be what a claim says).
            if free and not every and phrase.casefold() in _GENERIC and phrase != concept.label:
                out.append(
                    f"{question.id}: concept {concept.label!r}: {phrase!r} names nothing in "
                    "particular, so any on-topic sentence states the claim"
                )
            # With required parts, or as one of two key terms, a shared phrase earns nothing
            # alone.
            alone = phrase in concept.phrases or len(concept.terms) < 2
            if not concept.requires and alone:
                owners.setdefault(needle(phrase), []).append(concept.label)
                written.setdefault(needle(phrase), phrase)
            if not never and phrase != concept.label and needle(phrase) in asked:
                out.append(
                    f"{question.id}: concept {concept.label!r}: alias {phrase!r} is in the "
                    "question text, so it never counts"
                )
            # Only identifiers: a subject spelled in words may well be named by its claim
            # (`iteration-level scheduling` is what continuous batching does).
            inside_subject = [
                subject
                for subject in concept.subject
                if _IDENTIFIER_RE.fullmatch(subject.lstrip("-"))
                and phrase not in concept.subject
                and needle(phrase) in canonical(tokenize(subject))
            ]
            if inside_subject:
                out.append(
                    f"{question.id}: concept {concept.label!r}: alias {phrase!r} is part of "
                    f"its subject {inside_subject[0]!r}, so naming the subject states the claim"
                )
            tokens = tokenize(phrase)
            if len(tokens) == 1 and not tokens.cjk[0]:
                # Harmless when the identifier names this same concept.
                own = {needle(p) for p in _phrases(concept)}
                inside = sorted(
                    i
                    for i in identifiers
                    if tokens.stem[0] in tokenize(i).stem and needle(i) not in own
                )
                if inside:
                    out.append(
                        f"{question.id}: concept {concept.label!r}: one-word alias {phrase!r} "
                        f"also matches inside {inside[0]!r}"
                    )
    for key, labels in owners.items():
        distinct = sorted(set(labels))
        if len(distinct) > 1:
            out.append(
                f"{question.id}: alias {written[key]!r} belongs to {len(distinct)} concepts "
                f"({', '.join(repr(x) for x in distinct)}): one phrase earns them all"
            )
    out.extend(_reference_warnings(question))
    return out


def _reference_warnings(question: Question) -> list[str]:
    """The reference answer scored against its own concepts: it must earn full marks."""
    result = score_answer(question, question.answer)
    if result.score < REFERENCE_FLOOR:
        partly = set(result.partly_labels)
        missed = ", ".join(
            repr(label) + (" (only in part)" if label in partly else "")
            for label in result.missed_labels
        )
        return [
            f"{question.id}: the reference answer scores {result.score:.0%} against its own "
            f"concepts (under {REFERENCE_FLOOR:.0%}); it misses {missed}: say them in the "
            "answer, or give them the aliases the answer uses"
        ]
    full = set(result.covered_labels)
    return [
        f"{question.id}: concept {concept.label!r}: the reference answer does not state "
        "it (the reference should score 100%)"
        for concept in question.concepts
        if concept.label not in full
    ]


def level_warnings(pack: Pack) -> list[str]:
    """A pack whose levels are out of balance: a learner at one level soon runs out.

    Advice, not a fault: a pack may be meant for one level, so `--strict` does not fail on it.
    """
    count = Counter(q.level for q in pack.questions)
    total = len(pack.questions)
    if total < BALANCE_MIN:
        return []
    spread = ", ".join(f"{count[lv]} {lv.value}" for lv in Level)
    empty = [lv.value for lv in Level if not count[lv]]
    if empty:
        return [
            f"pack {pack.id} has no {' or '.join(empty)} question ({spread}): a learner at "
            "that level gets nothing from it; add some, or move some there"
        ]
    level, most = count.most_common(1)[0]
    if most * 2 > total:
        return [
            f"pack {pack.id} has {most} of its {total} questions at {level.value} ({spread}): "
            "learners at the other levels soon run out; add to them, or move some there"
        ]
    return []


def pack_warnings(pack: Pack) -> list[str]:
    """Every authoring warning of a pack."""
    out = (
        [f"pack {pack.id} is a draft (draft: true): review its concepts, then remove that line"]
        if pack.draft
        else []
    )
    for question in pack.questions:
        out.extend(question_warnings(question))
    return out


def duplicate_warnings(packs: Sequence[tuple[str, Pack]]) -> list[str]:
    """The same question asked twice in other words, within or across packs, each warning
    starting with the file (`packs`: each pack with the file it came from)."""
    out = []
    for dup in near_duplicates([pack for _, pack in packs]):
        # Named at the later question: the one that asks again.
        (i, first), (j, second) = dup.first, dup.second
        where = "in this pack" if i == j else f"in {packs[i][0]}"
        out.append(
            f"{packs[j][0]}: {second.id}: asks what {first.id} ({where}) asks, in other words "
            f"({dup.similarity:.0%} of their topic words shared: {', '.join(dup.shared)}): "
            "drop one, or make them ask different things"
        )
    return out
