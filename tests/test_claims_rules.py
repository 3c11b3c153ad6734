"""Claim cues used by the scorer (bot/core/scoring/): denials, avoidance, statements.

Each expected value follows from the cue lists the module documents: negators (没有, not),
avoidance (避免, prevents), copulas and auxiliaries (is, does).
"""

from __future__ import annotations

from bot.core.scoring.cues import has_verb, is_statement
from bot.core.scoring.layout import Layout, denies_or_avoids


def test_a_claim_stated_as_a_denial_or_an_avoidance() -> None:
    assert denies_or_avoids("没有显存隔离") is True  # a negator, no avoidance
    assert denies_or_avoids("避免重复计算") is True  # avoidance, no negator
    assert denies_or_avoids("prevents recomputation") is True
    assert denies_or_avoids("共享显存") is False


def test_a_phrase_with_a_copula_says_something_and_a_name_does_not() -> None:
    assert is_statement("KV cache is shared") is True
    assert is_statement("max batch size") is False


def test_a_connective_opens_its_clause_and_a_comma_opens_one_after_itself() -> None:
    text = "A is fast, but B is slow"
    layout = Layout(text)
    assert layout.clause_span(5) == (0, 10)  # up to the space after the comma
    assert layout.clause_span(10) == (10, 11)
    assert layout.clause_span(16) == (11, len(text))  # "but" belongs to what follows


def test_in_a_list_of_terms_a_verb_that_is_also_a_noun_names_a_thing() -> None:
    # From a graded term list: `batch size` there is a name, not the advice "batch the size".
    assert has_verb("Key/Value, attention, 自回归, 显存, 序列长度, batch size, GQA") is False
    assert has_verb("prefix caching, cache hit, hash, system prompt, TTFT") is False
    # Verbs that are only verbs are still advice in a list ...
    assert has_verb("OOM, preemption, add GPUs, KV cache, max-num-seqs") is True
    # ... and outside a list the same word opens advice.
    assert has_verb("If latency is fine, batch requests together") is True


def test_an_additive_connective_ends_the_reach_of_a_denial() -> None:
    # "does not lower latency, and there are bubbles": the bubbles are not denied.
    for text in ("PP 不降延迟还有 bubble", "PP 不降延迟而且有 bubble", "不降延迟，此外有 bubble"):
        at = text.index("bubble")
        assert Layout(text).is_negated(at, at + len("bubble")) is False, text
    text = "PP 不降延迟也没有 bubble"
    at = text.index("bubble")
    assert Layout(text).is_negated(at, at + len("bubble")) is True


def test_a_question_in_the_a_not_a_form_denies_nothing() -> None:
    for text in ("先看有没有别的进程占显存", "先看是不是别的进程占显存"):
        at = text.index("显存")
        assert Layout(text).is_negated(at, at + 2) is False, text
    text = "先看别的进程没有占显存"
    assert Layout(text).is_negated(text.index("显存"), text.index("显存") + 2) is True


def test_a_negator_after_a_clause_of_time_denies_its_own_verb_not_the_term() -> None:
    # From a graded answer (grade 4, scored 0): stopping new requests after SIGTERM is the
    # reference's claim, not a denial that SIGTERM is sent.
    for text in (
        "收到 SIGTERM 后不接新请求",
        "SIGTERM 之后不再接收新请求",
        "OOM 以后不要马上重试",
        "发布的时候不要一次下线太多副本",
    ):
        term = text.split()[0] if " " in text else "发布"
        at = text.index(term)
        assert Layout(text).is_negated(at, at + len(term)) is False, text
    # Denied where it stands: nothing of time between the term and the negator, or the
    # negator before it, or 后 as part of a word (后端, "backend").
    for text, term in (
        ("SIGTERM 不会发送", "SIGTERM"),
        ("不会收到 SIGTERM 后再退出", "SIGTERM"),
        ("vLLM 后端不支持 LoRA", "vLLM"),
    ):
        at = text.index(term)
        assert Layout(text).is_negated(at, at + len(term)) is True, text


def test_the_one_character_verbs_add_and_put_on_make_a_statement() -> None:
    # From a graded answer (grade 4, scored 0.14): "打 NoSchedule 的 taint", "加 toleration"
    # are the reference's advice, not a list of its terms.
    assert has_verb("GPU 节点打 NoSchedule 的 taint") is True
    assert has_verb("推理 Pod 加 toleration") is True
    # Inside nouns they are no verb: a list of such nouns is still a list.
    assert has_verb("加速, 加密, 加权, 打包, 打分, 追加, 附加") is False
