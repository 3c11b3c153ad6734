"""The importer's suggested concepts (bot/core/suggest.py, suggest_concepts): the subject
of a claim headed by a glossary term, a list item that is a term on its own, and where a
long English label is cut.

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


def _first_label(answer: str) -> str:
    return suggest_concepts("How are requests admitted?", answer, Analyser(Glossary()))[0]["label"]


def test_a_label_is_not_cut_after_the_first_letter_of_a_word() -> None:
    # The 59th character is the b of "blocks", right after a space: the word is left out
    # whole, not kept as "free b…".
    answer = "The scheduler admits requests while the KV cache has free blocks a lot of the time."
    assert answer[57:60] == " bl"
    assert _first_label(answer) == "The scheduler admits requests while the KV cache has free…"


def test_a_label_is_cut_at_a_space_forty_characters_in() -> None:
    # The last space before the cut is the 41st character; the word after it runs past 59.
    answer = "Evictions in node drains are capped by a PodDisruptionBudget object."
    assert answer.rfind(" ", 0, 59) == 40
    assert _first_label(answer) == "Evictions in node drains are capped by a…"
