"""An English bank imported as it is: its key terms are the field's terms, not English prose.

The two banks in tests/data/ (HTTP caching, database indexing: Markdown Q&A, paragraph and
bullet answers) were written for this test. Every suggested alias is checked against words
that name nothing in any field (function words, comparatives, common verbs), and each
question's own reference answer must score full marks against the imported draft.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from bot.core.content import Pack, Question, parse_pack
from bot.core.glossary import load_glossary
from bot.core.importer import import_document
from bot.core.scoring import score_answer
from tests.conftest import CONTENT

DATA = Path(__file__).parent / "data"

# Words of these two documents (and of the trial's report) that say how, how much or in
# what order, never what.
GENERIC = set(
    """
    instead because between larger reduces serves whether before within already together
    immediately becomes keeping returns lowers shorter nothing changes changed only allows
    lets gives tells sends answers keeps select forbids overrides alone cannot rarely often
    much faster cheaper must also still every each stay reads matches sorted stored lists
    works take takes put used run
    """.split()
)

# Terms a reviewer would want, per question: read off each reference answer by hand (the
# question's own words, like B-tree in "What is a B-tree index", never count).
EXPECTED = {
    "http_caching.md": {
        "q1": {"freshness lifetime", "browsers"},
        "q2": {"revalidate", "origin server"},
        "q3": {"If-None-Match", "304", "bandwidth"},
        "q4": {"If-Modified-Since", "timestamp validator", "static files"},
        "q5": {"Accept-Encoding", "hit ratio", "request headers"},
        "q6": {"max-age", "latency", "stale response"},
    },
    "db_indexing.md": {
        "q1": {"range queries", "ORDER BY", "balanced pages"},
        "q2": {"leftmost prefix rule", "range column"},
        "q3": {"read-heavy workloads"},
        "q4": {"INSERT", "UPDATE", "DELETE", "write amplification", "query planner"},
        "q5": {"sequential scan", "cost estimate", "ANALYZE"},
    },
}


def _pack(name: str) -> Pack:
    glossary = load_glossary([CONTENT / "glossary"])
    text = (DATA / name).read_text(encoding="utf-8")
    raw, _ = import_document(text, "bank", glossary=glossary, source_name=name)
    return parse_pack(yaml.safe_dump(raw, allow_unicode=True), name)


def _aliases(question: Question) -> list[str]:
    return [
        a
        for c in question.concepts
        for a in (*c.aliases, *c.subject, *(t for group in c.terms for t in group))
    ]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_an_english_bank_suggests_technical_terms_and_no_generic_words(name: str) -> None:
    pack = _pack(name)
    assert pack.language == "en"
    assert [q.id for q in pack.questions] == [f"bank-{q}" for q in EXPECTED[name]]
    for question in pack.questions:
        aliases = _aliases(question)
        words = {w.casefold() for a in aliases for w in re.findall(r"[A-Za-z]+", a)}
        assert not words & GENERIC, (question.id, sorted(words & GENERIC), aliases)
        expected = EXPECTED[name][question.id.removeprefix("bank-")]
        assert expected <= set(aliases), (question.id, sorted(expected - set(aliases)))


def test_a_directive_named_before_a_noun_is_a_term_of_its_own() -> None:
    # "The max-age directive gives …": max-age is the term, so an answer saying "max-age"
    # alone earns it (and "max-age directive" still contains it).
    (first, *_) = _pack("http_caching.md").questions
    assert "max-age" in _aliases(first)


@pytest.mark.parametrize(
    ("name", "qid"),
    [
        pytest.param(
            name,
            qid,
            id=f"{name}:{qid}",
        )
        for name in sorted(EXPECTED)
        for qid in EXPECTED[name]
    ],
)
def test_each_reference_answer_scores_full_marks_on_the_imported_bank(name: str, qid: str) -> None:
    question = next(q for q in _pack(name).questions if q.id == f"bank-{qid}")
    assert score_answer(question, question.answer).score == 1.0


def test_a_plain_word_opening_a_sentence_is_no_subject() -> None:
    # "Files are larger and recovery is slower": `Files` opens the sentence like a name,
    # but it is a plain word; as a subject it claimed every "file" of the answer, so the
    # AOF claim ("an append-only file that logs every write command") read as said of it.
    path = DATA / "heldout" / "redis_caching.md"
    glossary = load_glossary([CONTENT / "glossary"])
    raw, _ = import_document(path.read_text(encoding="utf-8"), "bank", glossary=glossary)
    q4 = next(q for q in Pack.model_validate(raw).questions if q.id == "bank-q4")
    subjects = {s for c in q4.concepts for s in c.subject}
    assert {"RDB", "AOF"} <= subjects
    assert not {"Files", "file", "durability"} & subjects
    # And so RDB said to do AOF's job is caught.
    swapped = score_answer(
        q4, "RDB appends every write command to a log that is replayed on restart."
    )
    assert any(h.label.startswith("AOF") for h in swapped.contradicted)


def test_a_claim_that_names_nothing_technical_is_still_stated_by_its_plain_words() -> None:
    # A short science answer: no identifier, no capital, no word of six letters. Its claim
    # had no term at all, so even the reference's own words scored 0.
    doc = (
        "**Q1: What will happen to the motor and the lamp when she closes the switch?**\n\n"
        "The bulb will light and the fan will spin.\n"
    )
    raw, _ = import_document(doc, "bank", glossary=load_glossary([CONTENT / "glossary"]))
    question = Pack.model_validate(raw).questions[0]
    assert all(c.aliases or c.terms for c in question.concepts)
    assert score_answer(question, "The fan will spin, and the bulb will light up.").score >= 0.9
    assert score_answer(question, question.question).score == 0.0
