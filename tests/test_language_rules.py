"""Each language's words, read through the scorer: a denial in it is a denial, a list of terms
is a list, a sentence states. The cases are data (tests/data/rules/<language>.yaml), one file
per language, verdicts written by hand; a language added to bot/core/lang brings its file.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.core.content import Question
from bot.core.lang import LANGUAGES
from bot.core.scoring import Status, layout, score_answer

RULES = Path(__file__).parent / "data" / "rules"


def _cases() -> list[Any]:
    out = []
    for path in sorted(RULES.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        # A case reads the file's question, or one of its `other_questions` it names (a rule
        # that needs another reference answer: one that states its claim as a denial).
        questions = {
            name: Question.model_validate(q)
            for name, q in {"": data["question"], **data.get("other_questions", {})}.items()
        }
        for i, case in enumerate(data["cases"], 1):
            question = questions[case.get("question", "")]
            out.append(
                pytest.param(question, case["answer"], case["verdict"], id=f"{path.stem}-{i}")
            )
    return out


def verdict(question: Question, answer: str) -> str:
    result = score_answer(question, answer)
    if result.contradicted:
        return "negated" if result.contradicted[0].status is Status.NEGATED else "misattributed"
    if not result.covered:
        return "missed"
    return "covered" if result.covered[0].credit >= 1 else "listed"


@pytest.mark.parametrize(("question", "answer", "expected"), _cases())
def test_each_language_reads_denials_lists_and_statements(
    question: Question, answer: str, expected: str
) -> None:
    assert verdict(question, answer) == expected


def test_every_language_the_scorer_reads_has_its_rule_cases() -> None:
    assert {lang.code for lang in LANGUAGES} == {p.stem for p in RULES.glob("*.yaml")}


@pytest.mark.parametrize("lang", LANGUAGES, ids=lambda lang: lang.code)
def test_the_negation_search_starts_only_where_a_language_says_a_denial_can(lang: Any) -> None:
    # The combined search skips to the declared first characters: a denial starting with any
    # other character would be missed. Every alternative's own matches in a text of the
    # language's denials must be found by the combined search at the same places.
    texts = {
        "en": "it is not cached, no GPU, never, without it, cannot, nothing, lacks, unable, isn't",
        "zh": "不支持，没有，未开启，无需，非必须，别用，勿用，禁止",
        "ja": "再利用しません。使わない。使わず。なかった。キャッシュなし。無し。無い",
    }[lang.code]
    own = re.compile(lang.negation, re.IGNORECASE)
    combined = layout._NEGATION_RE
    assert [m.span() for m in own.finditer(texts)], "the sample holds no denial"
    assert [m.span() for m in own.finditer(texts)] == [m.span() for m in combined.finditer(texts)]


def test_the_evidence_is_the_clause_that_earned_the_verdict() -> None:
    # A learner checks a verdict against the words that earned it: the whole clause, not
    # the one word that matched.
    question = Question.model_validate(yaml.safe_load((RULES / "zh.yaml").read_text())["question"])
    stated = score_answer(question, "前缀相同的时候，KV cache 会被复用。其他的我不清楚。")
    assert [h.quote for h in stated.covered] == ["KV cache 会被复用"]
    denied = score_answer(question, "它会重新计算，不会复用 KV cache，所以更慢。")
    assert [h.quote for h in denied.contradicted] == ["不会复用 KV cache"]


def test_a_word_of_five_letters_or_more_may_carry_one_typo() -> None:
    question = Question.model_validate(
        {
            "id": "t-q1",
            "level": "beginner",
            "question": "What happens to bulb A when the switch opens?",
            "answer": "Bulb A is damaged and the circuit stays complete.",
            "concepts": [
                {"label": "damaged", "aliases": ["damaged"]},
                {"label": "dynamic", "aliases": ["dynamic", "explicit"]},
            ],
        }
    )
    assert [h.label for h in score_answer(question, "The bulb is damanged.").covered] == ["damaged"]
    # Two edits apart is another word, however long: not a typo of it.
    for other in ("It is dynamo.", "It is implicit."):
        assert score_answer(question, other).covered == [], other


# Words of a language in a scorer module: a Han or kana character, or an English word
# after a regular expression's word boundary (`\band\b`, `\b(?:than|vs)`).
_LANGUAGE_WORD_RE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]|\\b(?:\(\?:)?[A-Za-z]{2,}")


def _string_literals(path: Path) -> list[tuple[int, str]]:
    """Every string literal of a module but its docstrings, with its line."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def test_the_scorer_reads_every_word_of_a_language_from_the_language_data() -> None:
    """Adding a word or a language is a change to bot/core/lang alone: no scorer module
    holds a Chinese, Japanese or English word of its own."""
    found = [
        f"{path.name}:{line}: {text[:60]!r}"
        for path in sorted(Path("bot/core/scoring").glob("*.py"))
        for line, text in _string_literals(path)
        if _LANGUAGE_WORD_RE.search(text)
    ]
    assert found == []
