"""The importer's suggested concepts (bot/core/suggest.py, suggest_concepts): the subject
of a claim headed by a glossary term, and a list item that is a term on its own.

Written for survivors of the mutation run; the subject is the glossary's group for the
word heading the claim, the items are read off the list by eye.
"""

from __future__ import annotations

from bot.core.glossary import Glossary
from bot.core.suggest import Analyser, suggest_concepts

ANSWER = "Canary：先把新版本发给 5% 的用户，观察 error rate。\nRollback：出错时立即切回旧版本。"


def test_a_plain_word_heading_a_claim_is_its_subject_when_the_glossary_knows_it() -> None:
    # "Canary" is a plain capitalised word; the glossary lists it, so it names the claim's
    # subject (any of the group's spellings) and error rate is the claim's term.
    glossary = Glossary([["canary", "canary release", "金丝雀发布"]])
    question = "How do you roll out a new version safely?"
    first = suggest_concepts(question, ANSWER, Analyser(glossary))[0]
    assert first["subject"] == ["canary", "canary release", "金丝雀发布"]
    assert first["terms"] == [["error rate"]]


def test_without_the_glossary_the_plain_word_is_one_of_the_claims_terms() -> None:
    question = "How do you roll out a new version safely?"
    first = suggest_concepts(question, ANSWER, Analyser(Glossary()))[0]
    assert "subject" not in first
    assert first["terms"] == [["Canary"], ["error rate"]]


def test_a_list_item_that_is_one_term_is_a_concept_with_that_name_as_its_alias() -> None:
    # Each bullet names one optimisation and nothing else: naming it is the point. The first
    # claim weighs 1.5, the others 1.0.
    answer = "- PagedAttention\n- Continuous batching\n- Prefix caching"
    concepts = suggest_concepts("Which optimisations does vLLM have?", answer, Analyser(Glossary()))
    assert concepts == [
        {"label": "PagedAttention", "aliases": ["PagedAttention"], "weight": 1.5},
        {"label": "Continuous batching", "aliases": ["Continuous batching"], "weight": 1.0},
        {"label": "Prefix caching", "aliases": ["Prefix caching"], "weight": 1.0},
    ]
