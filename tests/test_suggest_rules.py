"""What the importer's concept suggestions are made of (bot/core/suggest.py), rule by rule.

Fast unit tests, no Chinese word tagger: each expected value is written out from the rule
stated in the module's docstrings (claims, headings, emphasis, examples, shared words).
"""

from __future__ import annotations

import pytest

from bot.core.content import Pack
from bot.core.glossary import Glossary
from bot.core.importer import import_document
from bot.core.scoring import score_answer
from bot.core.suggest import (
    Analyser,
    _enumeration,
    _head,
    contrast_names,
    shared_terms,
    split_claims,
    suggest_concepts,
)
from bot.core.text import canonical, tokenize

# -- claims -------------------------------------------------------------------------------------


def test_a_heading_of_up_to_twenty_characters_is_not_a_claim() -> None:
    assert split_claims("Points to watch for:\n- Uses more memory") == [("Uses more memory", 1.0)]
    assert split_claims("关键点：\n- 显存占用高") == [("显存占用高", 1.0)]
    # A bold heading is a heading too.
    assert split_claims("**关键点：**\n- 显存占用高") == [("显存占用高", 1.0)]
    # 21 characters: a claim of its own.
    assert split_claims("Pitfalls to look for:\n- Uses more memory") == [
        ("Pitfalls to look for:", 1.0),
        ("Uses more memory", 1.0),
    ]


def test_a_run_in_list_number_does_not_end_the_line() -> None:
    assert split_claims("Cache the prompt! 2. Batch the requests.") == [
        ("Cache the prompt!", 1.0),
        ("Batch the requests.", 1.0),
    ]


def test_emphasis_weighs_double_and_its_stars_are_dropped() -> None:
    assert split_claims("用 **KV cache** 复用前缀。") == [("用 KV cache 复用前缀", 2.0)]
    assert split_claims("用 KV cache 复用前缀。") == [("用 KV cache 复用前缀", 1.0)]
    assert split_claims("调度是关键。") == [("调度是关键", 2.0)]


def test_an_example_weighs_half() -> None:
    assert split_claims("如 vLLM 和 TGI。") == [("如 vLLM 和 TGI", 0.5)]
    assert split_claims("For example, vLLM.") == [("For example, vLLM.", 0.5)]


def test_only_punctuation_and_spaces_are_trimmed_from_a_claim() -> None:
    assert split_claims("- XLA 把计算图编译成融合内核。") == [("XLA 把计算图编译成融合内核", 1.0)]
    assert split_claims("  显存占用高；吞吐更高；") == [("显存占用高", 1.0), ("吞吐更高", 1.0)]


# -- words the whole pack shares ---------------------------------------------------------------

ANSWERS = [
    "GPU 上部署 Triton，设置 max_batch_size 和 --max-model-len。",
    "GPU 上部署 Triton，调 max_batch_size 和 --max-model-len。",
    "GPU 上部署 vLLM，调 max_batch_size 和 --max-model-len。",
    "CPU 上部署 vLLM，调 max_batch_size 和 --max-model-len。",
]


def test_a_term_in_more_than_seventy_percent_of_the_answers_is_the_topic() -> None:
    analyser = Analyser(Glossary())
    shared = shared_terms(analyser, ANSWERS)
    # 4 answers: more than max(2, int(4 * 0.7)) = 2 of them.
    assert "gpu" in shared  # 3 of 4
    assert "triton" not in shared and "vllm" not in shared  # 2 of 4
    assert "cpu" not in shared
    # Identifiers and flags name a point however often they appear.
    assert "max_batch_size" not in shared and "--max-model-len" not in shared
    assert analyser.spread["gpu"] == 3
    assert analyser.spread["triton"] == 2
    assert analyser.spread["cpu"] == 1
    assert analyser.spread["max_batch_size"] == 4


def test_fewer_than_four_answers_share_nothing() -> None:
    analyser = Analyser(Glossary())
    assert shared_terms(analyser, ANSWERS[:3]) == frozenset()
    assert analyser.spread["gpu"] == 3  # counted all the same


# -- what a claim is about: its head ------------------------------------------------------------


def test_a_head_is_the_name_before_the_colon_or_the_copula() -> None:
    assert _head("Prefill：一次处理整个 prompt") == "Prefill"
    assert _head("Decode 阶段是逐 token 生成") == "Decode"
    assert _head("XLA: compiles the graph") == "XLA"
    # A gloss in parentheses belongs to the head (a comma inside it ends nothing): FP8.
    assert _head("FP8（W8A8，常用 E4M3）：权重和激活都量化") == "FP8"
    # Emphasis stars and list dashes around it are not.
    assert _head("*Prefill*：一次处理整个 prompt") == "Prefill"
    assert _head("- Prefill -：一次处理整个 prompt") == "Prefill"


def test_a_head_of_forty_characters_is_a_name_and_dashes_alone_are_none() -> None:
    forty = "a" * 40
    assert _head(f"{forty}：下文") == forty
    assert _head("-：下文") is None
    assert _head("一次处理整个 prompt，然后逐步生成") is None


# -- the key terms of a piece of text ----------------------------------------------------------


def test_terms_lose_surrounding_punctuation_but_keep_their_letters() -> None:
    terms = Analyser(Glossary()).terms("配置 `max_batch_size:` 即可")
    assert terms[0] == "max_batch_size"
    assert Analyser(Glossary()).terms("XLA 编译计算图") == ["XLA"]


def test_a_term_wrapped_whole_in_parentheses_loses_them() -> None:
    assert Analyser(Glossary()).terms("启用 `(prefill)` 阶段") == ["prefill"]


def test_the_kind_after_a_marked_name_is_dropped_and_the_prose_after_it_kept() -> None:
    # "the `main` function": the name is main; what follows the kind is read as prose.
    terms = Analyser(Glossary()).terms("The `main` function opaque validator returns")
    assert terms == ["main", "opaque validator"]


def test_generic_words_are_not_terms() -> None:
    assert Analyser(Glossary()).terms("调 model 和 KV cache") == ["KV cache"]


def test_words_of_how_an_answer_argues_are_not_terms() -> None:
    # From an imported guide: 两件事, 差不多, 兜底 and 折中 were key terms of their claims.
    def tagger(text: str) -> list[tuple[str, str]]:
        words = ("两件事", "差不多", "兜底", "折中", "空闲", "数量级", "preStop")
        return [(w, "n") for w in words if w in text]

    analyser = Analyser(Glossary(), tagger=tagger)
    text = "删除 Pod 做两件事；成本差不多；TTFT 兜底；折中是空闲时缩容，相差几个数量级，用 preStop"
    assert analyser.terms(text) == ["Pod", "TTFT", "preStop"]


def test_in_english_text_the_words_that_name_nothing_cut_the_terms() -> None:
    # English prose is one long Latin run: what is left between generic words are the
    # terms; the generic words themselves never are.
    terms = Analyser(Glossary()).terms("Continuous batching schedules new requests at every step")
    words = {w.casefold() for t in terms for w in t.split()}
    assert "requests" in terms
    assert not {"new", "at", "every", "step"} & words
    # Inside Chinese text a Latin run of up to four words (stop words not counted) is one.
    assert Analyser(Glossary()).terms("用 the paged attention kernel 加速") == [
        "paged attention kernel"
    ]


def test_up_to_four_words_are_one_term_and_five_are_not() -> None:
    # A Latin run inside Chinese text: four words are one term; five are split, and of them
    # only words of six letters or more, capitalised or with a digit are kept.
    analyser = Analyser(Glossary())
    assert analyser.terms("用 fused paged attention kernels 加速") == [
        "fused paged attention kernels"
    ]
    assert analyser.terms("用 fused paged attention kernels today 加速") == [
        "attention",
        "kernels",
    ]


def test_a_notable_word_is_capitalised_has_a_digit_or_six_letters() -> None:
    analyser = Analyser(Glossary())
    assert analyser.terms("用 Ray runs the fp16 job on many nodes 跑") == ["Ray", "fp16"]
    assert analyser.terms("用 Ray runs each kernel on many nodes 跑") == ["Ray", "kernel"]


def test_chinese_nouns_of_two_characters_count_only_when_the_glossary_knows_them() -> None:
    def tagger(text: str) -> list[tuple[str, str]]:
        assert text == "显存收益调度器始终保持"
        return [("显存", "n"), ("收益", "n"), ("调度器", "n"), ("始终保持", "i")]

    analyser = Analyser(Glossary([["显存", "GPU memory"]]), tagger=tagger)
    assert analyser.terms("显存收益调度器始终保持") == ["显存", "调度器"]


def test_an_english_term_inside_a_longer_question_word_is_still_kept() -> None:
    analyser = Analyser(Glossary())
    asked = canonical(tokenize("What is microbatching?"))
    assert analyser.keep("batch", asked) is True
    assert analyser.keep("microbatching", asked) is False


def test_a_term_is_absorbed_by_a_longer_one_only_whole_words() -> None:
    analyser = Analyser(Glossary())
    assert analyser.terms("KV cache 和 cache 命中") == ["KV cache"]
    assert analyser.terms("microbatching 和 batch 不同") == ["microbatching", "batch"]


def test_a_chinese_term_inside_a_longer_chinese_term_is_absorbed() -> None:
    def tagger(text: str) -> list[tuple[str, str]]:
        return [("动态批处理", "n"), ("提高", "v"), ("批处理", "n"), ("吞吐量", "n")]

    analyser = Analyser(Glossary(), tagger=tagger)
    assert analyser.terms("动态批处理提高批处理吞吐量") == ["动态批处理", "吞吐量"]


def test_a_possessive_ends_a_term_and_leaves_no_stray_s() -> None:
    # "The stack's size" gave the term `s size grows`: the 's belongs to the word before it.
    analyser = Analyser(Glossary())
    assert analyser.terms("Java's HashMap") == ["Java", "HashMap"]
    assert analyser.terms("用 Java's HashMap 实现") == ["Java", "HashMap"]
    # A glossary term spelled with a possessive is still found whole.
    glossary = Glossary([["Dijkstra's algorithm", "迪杰斯特拉算法"]])
    assert Analyser(glossary).terms("Run Dijkstra's algorithm") == ["Dijkstra's algorithm"]


def test_a_term_keeps_a_parenthesis_it_closes() -> None:
    # "Both run in O(1)." gave `O(1`: only a parenthesis the term does not open is trimmed.
    analyser = Analyser(Glossary([["O(1)", "constant time"]]))
    assert analyser.terms("Both run in O(1).") == ["O(1)"]
    assert analyser.terms("Both run in `f(x)`.") == ["f(x)"]


def test_a_version_number_is_one_word_of_its_name() -> None:
    # "TLS 1.3" gave `TLS 1` and "MySQL 5.6" `MySQL 5`: no break inside a number.
    analyser = Analyser(Glossary())
    assert "TLS 1.3" in analyser.terms("TLS 1.3 removed RSA key exchange")
    assert analyser.terms("MySQL 5.6 之后默认开启") == ["MySQL 5.6"]
    assert analyser.terms("升级到 Python 3.11 以后") == ["Python 3.11"]
    assert analyser.terms("从 v1.2.3 开始") == ["v1.2.3"]
    # A sentence still ends at a full stop after a number.
    assert [c for c, _ in split_claims("Use TLS 1.3. It is faster.")] == [
        "Use TLS 1.3.",
        "It is faster.",
    ]


def test_a_code_span_is_a_key_term_even_a_word_of_any_field() -> None:
    # `main` is a word of any field in prose ("the main reason"); in a code span it is a
    # name. A word the text also says as prose is not made one by a code span.
    analyser = Analyser(Glossary())
    assert "main" in analyser.terms("Execution begins in the `main` function")
    assert "value" not in analyser.terms("carrying the return value in `.value`")


def test_a_kind_noun_after_a_code_span_is_not_a_term() -> None:
    # "the `main` function" made `function` a term: it says what kind of name main is,
    # as `directive` does in "the max-age directive".
    analyser = Analyser(Glossary())
    assert analyser.terms("Execution begins in the `main` function") == ["main", "Execution"]
    assert analyser.terms("Send the `max-age` directive") == ["max-age"]


def test_a_one_character_code_span_keeps_the_backticks_paired() -> None:
    # `?` was too short to be a span, so "`, `" was read as one and `or` became a term.
    terms = Analyser(Glossary()).terms("placeholders (`?`, `$1`, `%s` or `:name`) apart")
    assert terms == ["name", "placeholders"]


def test_no_claim_ends_inside_a_code_span() -> None:
    assert split_claims("Send (`?`, `$1` or `:name`) apart. Then bind.") == [
        ("Send (`?`, `$1` or `:name`) apart.", 1.0),
        ("Then bind.", 1.0),
    ]


def test_a_short_word_the_question_sets_beside_another_is_the_subject_it_opens() -> None:
    # "push adds an element on top" kept only `element`: push (four letters) was no
    # term, so nothing tied the claim to push and the swapped answer scored 1.0.
    doc = "## Q1: What do push and pop do on a stack?\n"
    doc += "push adds an element on top; pop removes the top element.\n"
    raw, _ = import_document(doc, "ds", glossary=Glossary(), source_name="ds.md")
    question = Pack.model_validate(raw).questions[0]
    assert [c.subject for c in question.concepts] == [("push",), ("pop",)]
    right = score_answer(question, "push adds an element on top, and pop removes the top element.")
    swapped = score_answer(
        question, "pop adds an element on top, and push removes the top element."
    )
    assert right.score >= 0.9
    assert swapped.score <= 0.2 + 1e-9  # a gamed answer: at most 0.20


def test_a_claim_naming_nothing_is_held_by_its_words_not_the_questions() -> None:
    # No term at all: the answer's own words (the tagger's), not the question's.
    def tagger(text: str) -> list[tuple[str, str]]:
        words = [("发送", "v"), ("和", "c"), ("接收", "v"), ("必须", "d"), ("就绪", "v")]
        return [(w, t) for w, t in words if w in text]

    analyser = Analyser(Glossary(), tagger=tagger)
    concepts = suggest_concepts("发送和接收有什么要求？", "发送和接收必须同时就绪", analyser)
    assert [c.get("terms") for c in concepts] == [[["就绪"]]]


def test_a_claim_whose_only_new_word_is_an_everyday_one_is_held_by_that_word() -> None:
    # Every name of the reference is the question's (string, pitch, tighter), and the
    # question's words are dropped from every answer: only "higher" can say it.
    doc = (
        "## Beginner\n\n**Q1: How would the pitch change if Darla pulled the string tighter?**"
        "\n\nWhen the string is tighter, the pitch will be higher.\n"
    )
    raw, _ = import_document(doc, "sound", glossary=Glossary(), source_name="sound.md")
    question = Pack.model_validate(raw).questions[0]
    assert score_answer(question, question.answer).score >= 0.9
    assert score_answer(question, "The pitch gets higher.").score >= 0.9
    assert score_answer(question, "The pitch will be lower.").score < 0.3


def test_a_claim_naming_nothing_is_held_by_its_own_words_among_many_of_the_questions() -> None:
    # Nine words of the question said again, two of the answer's own (`one`, `bowl`): the
    # question's, however many, are no terms and crowd none of the answer's out.
    asked = ["milk", "eggs", "flour", "sugar", "salt", "honey", "cream", "oats", "nuts"]
    question = f"What do the {', '.join(asked[:-1])} and {asked[-1]} go into?"
    answer = f"the {', '.join(asked[:-1])} and {asked[-1]} go into one bowl"
    concepts = suggest_concepts(question, answer, Analyser(Glossary()))
    terms = {t for c in concepts for group in c.get("terms", []) for t in group}
    assert terms == {"one", "bowl"}


# -- glosses in parentheses ---------------------------------------------------------------------


def test_a_gloss_in_parentheses_is_another_name_of_its_term_not_a_term_of_its_own() -> None:
    # `1-RTT` was a third required term of "one round trip (1-RTT)"; it names the round trip.
    concepts = suggest_concepts(
        "What changed in TLS 1.3?",
        "The handshake takes one round trip (1-RTT).",
        Analyser(Glossary()),
    )
    assert concepts[0]["terms"] == [["handshake"], ["round trip", "1-RTT", "RTT"]]


def test_a_remark_in_parentheses_is_no_gloss() -> None:
    # Not an abbreviation nor the other script: what it says is a term of its own.
    analyser = Analyser(Glossary())
    concepts = suggest_concepts(
        "How do you find shortest paths?",
        "Shortest paths need Dijkstra (non-negative weights).",
        analyser,
    )
    assert concepts[0]["terms"] == [["Dijkstra"], ["non-negative weights"]]
    assert analyser.glosses("扩容规则（Go 1.18 起）：翻倍", ["扩容规则"]) == {}
    assert analyser.glosses("FP8（W8A8，常用 E4M3）：量化", ["FP8"]) == {}
    # An abbreviation is a gloss, either way round.
    text = "MIG (Multi-Instance GPU) splits a GPU"
    assert analyser.glosses(text, analyser.terms(text)) == {"MIG": ["Multi-Instance GPU"]}


def test_a_chinese_term_glossed_in_english_keeps_both_as_one_terms_names() -> None:
    # No glossary knows them: the Chinese terms were dropped (the tagger reads 读未提交 as
    # 读未 + 提交), so an answer in Chinese earned nothing.
    doc = (
        "初级\nQ1：事务的隔离级别有哪些？\n参考答案：读未提交（Read Uncommitted）、"
        "读已提交（Read Committed）、可重复读（Repeatable Read）和串行化（Serializable）。\n"
    )
    raw, _ = import_document(doc, "db", glossary=Glossary())
    assert [c["aliases"] for c in raw["questions"][0]["concepts"]] == [
        ["读未提交", "Read Uncommitted"],
        ["读已提交", "Read Committed"],
        ["可重复读", "Repeatable Read"],
        ["串行化", "Serializable"],
    ]
    question = Pack.model_validate(raw).questions[0]
    assert score_answer(question, "有读未提交、读已提交、可重复读和串行化四种。").score >= 0.9


# -- concepts ------------------------------------------------------------------------------------


def _weights(question: str, answer: str) -> list[tuple[str, float]]:
    concepts = suggest_concepts(question, answer, Analyser(Glossary()))
    return [(c["label"], c["weight"]) for c in concepts]


def test_concept_weights_first_claim_asked_subject_caveat_and_plain() -> None:
    answer = (
        "batch 越大 throughput 越高。\n"  # first: 1.5
        "Prefill 处理整个 prompt。\n"  # about a subject the question asks about: 1.5
        "Decode 逐 token 生成。\n"
        "代价：KV cache 占用显存。\n"  # a caveat: 0.6
        "FP8：权重 W8A8。\n"  # about a subject the question does not ask about: 1.0
        "GEMM 算术强度高。"  # plain: 1.0
    )
    assert _weights("prefill 和 decode 有什么区别？", answer) == [
        ("batch 越大 throughput 越高", 1.5),
        ("Prefill 处理整个 prompt", 1.5),
        ("Decode 逐 token 生成", 1.5),
        ("代价：KV cache 占用显存", 0.6),
        ("FP8：权重 W8A8", 1.0),
        ("GEMM 算术强度高", 1.0),
    ]


def test_an_enumeration_is_a_concept_per_item_and_members_of_a_kind_are_one() -> None:
    assert _weights("问题？", "负责 routing、batching、scheduling。") == [
        ("routing", 1.5),
        ("batching", 1.5),
        ("scheduling", 1.5),
    ]
    concepts = suggest_concepts(
        "问题？", "GPTQ、AWQ、SmoothQuant 属于 INT4。", Analyser(Glossary())
    )
    assert concepts == [
        {
            "label": "GPTQ、AWQ、SmoothQuant 属于 INT4",
            "terms": [["GPTQ"], ["AWQ"], ["SmoothQuant"]],
            "weight": 1.0,
        }
    ]


def test_a_claim_made_twice_is_one_concept_with_the_higher_weight() -> None:
    answer = "GEMM 算术强度高。\nbatch 越大越好。\n很重要的是 **GEMM**。"
    assert _weights("问题？", answer) == [("GEMM 算术强度高", 2.0), ("batch 越大越好", 1.0)]


def test_a_claim_about_a_subject_is_not_merged_into_an_item_with_its_terms() -> None:
    # "MySQL 5.6 之后默认是可重复读" has the list item's one term, 可重复读, but says it
    # of MySQL 5.6: merged into the item, the point (the default level) was lost.
    levels = ["读未提交", "read uncommitted", "读已提交", "read committed"]
    levels += ["可重复读", "repeatable read", "串行化", "serializable"]
    glossary = Glossary([levels[i : i + 2] for i in range(0, 8, 2)])
    concepts = suggest_concepts(
        "事务的隔离级别有哪些？",
        "读未提交、读已提交、可重复读和串行化。\nMySQL 5.6 之后默认是可重复读。",
        Analyser(glossary),
    )
    assert [c.get("subject") for c in concepts] == [None, None, None, None, ["MySQL 5.6"]]
    assert concepts[-1]["terms"] == [["可重复读", "repeatable read"]]


def test_labels_cut_at_sixty_characters_are_numbered_when_they_collide() -> None:
    prefix = "批" * 60
    answer = f"{prefix} GPTQ\n{prefix} AWQ\n{prefix} SmoothQuant"
    label = "批" * 59 + "…"
    assert _weights("问题？", answer) == [
        (label, 1.5),
        (f"{label} (2)", 1.0),
        (f"{label} (3)", 1.0),
    ]


def test_an_english_label_is_cut_at_a_word_end() -> None:
    answer = (
        "Expired keys are removed lazily when accessed, and an active expiration cycle"
        " samples random keys ten times per second."
    )
    (concept,) = suggest_concepts("How do keys expire?", answer, Analyser(Glossary()))
    assert concept["label"] == "Expired keys are removed lazily when accessed, and an…"
    # A word ending exactly at the cut is kept whole, and Chinese is cut anywhere (above).
    exact = "a" * 52 + " bcdefg" + " tail words here"
    (concept,) = suggest_concepts("Q?", exact, Analyser(Glossary()))
    assert concept["label"] == "a" * 52 + " bcdefg…"


def test_a_pronoun_the_question_uses_is_no_subject() -> None:
    # "why is it fast?" has `it`; "It is fast because …" is not a claim about a thing named It.
    answer = "Redis is an in-memory store. It is fast because data lives in RAM."
    concepts = suggest_concepts("What is Redis and why is it fast?", answer, Analyser(Glossary()))
    assert [c.get("subject") for c in concepts] == [["Redis"], None]


def test_an_item_longer_than_its_term_by_more_than_eight_ends_the_enumeration() -> None:
    # "负责处理全部请求 routing": 16 characters, routing's 7 + 9.
    concepts = suggest_concepts(
        "问题？", "负责处理全部请求 routing、batching、scheduling。", Analyser(Glossary())
    )
    assert [c.get("terms") for c in concepts] == [[["routing"], ["batching"], ["scheduling"]]]


def test_a_chinese_label_heading_a_claim_is_not_its_subject() -> None:
    answer = "GEMM 算术强度高。\n代价：KV cache 占用 GPU 显存。"
    concepts = suggest_concepts("问题？", answer, Analyser(Glossary()))
    assert concepts[1] == {
        "label": "代价：KV cache 占用 GPU 显存",
        "terms": [["KV cache"], ["GPU"]],
        "weight": 0.6,
    }


def test_an_answer_naming_nothing_is_one_concept_stated_by_its_own_words() -> None:
    # It was one concept with no alias and no term: no answer could earn it. Its most
    # specific words are its terms (the tagger's, in Chinese); with none, the answer itself.
    def tagger(text: str) -> list[tuple[str, str]]:
        return [("这", "r"), ("是", "v"), ("一个", "m"), ("很", "d"), ("普通", "a")]

    analyser = Analyser(Glossary(), tagger=tagger)
    concepts = suggest_concepts("问题？", "这是一个很普通的回答。", analyser)
    assert concepts == [{"label": "这是一个很普通的回答。", "terms": [["普通"]], "weight": 1.0}]
    concepts = suggest_concepts("问题？", "这是一个很普通的回答。", Analyser(Glossary()))
    assert concepts == [
        {"label": "这是一个很普通的回答。", "aliases": ["这是一个很普通的回答"], "weight": 1.0}
    ]
    # The question's own words, if they are all it has.
    concepts = suggest_concepts(
        "Why does the bulb light?", "The bulb lights.", Analyser(Glossary())
    )
    assert concepts[0]["terms"] == [["lights"], ["bulb"]]


def test_labels_are_whole_up_to_sixty_characters_and_cut_without_a_trailing_space() -> None:
    answer = "\n".join(
        ["批" * 55 + " GEMM", "批" * 56 + " GPTQ", "批" * 58 + " AWQ"]  # 60, 61, 62 characters
    )
    assert [label for label, _ in _weights("问题？", answer)] == [
        "批" * 55 + " GEMM",
        "批" * 56 + "…",  # not inside GPTQ
        "批" * 58 + "…",
    ]


def test_the_most_specific_terms_come_first() -> None:
    analyser = Analyser(Glossary())
    analyser.spread = {"gpu": 1}  # GEMM: in no other answer
    concepts = suggest_concepts("问题？", "GPU 上跑 GEMM。", analyser)
    assert concepts[0]["terms"] == [["GEMM"], ["GPU"]]


def test_a_subject_lists_at_most_eight_ways_of_saying_it() -> None:
    names = ["Prefill", "预填充", "prefill stage", "prefill phase", "prompt processing"]
    names += ["context phase", "context encoding", "首次前向", "预填充阶段", "prompt phase"]
    concepts = suggest_concepts(
        "prefill 和 decode 有什么区别？",
        "GEMM 很多。\nPrefill 处理整个 prompt。",
        Analyser(Glossary([names])),
    )
    assert concepts[1]["subject"] == names[:8]


def _subject_of(claim: str, question: str, analyser: Analyser | None = None) -> object:
    concepts = suggest_concepts(question, f"TopK 采样。\n{claim}", analyser or Analyser(Glossary()))
    return concepts[1].get("subject")


def test_a_subject_opening_a_claim_is_within_its_first_three_characters() -> None:
    # A question that contrasts nothing: in one that does, a claim naming one of the things
    # contrasted is said of it wherever it names it (the test below).
    question = "prefill 和 decode 各做什么？"
    assert _subject_of("prefill 里 GEMM 很多", question) == ["prefill"]
    assert _subject_of("在 prefill 里 GEMM 很多", question) == ["prefill"]  # at 2
    assert _subject_of("所有 prefill 里 GEMM 很多", question) is None  # at 3
    # Named twice: where it first stands counts.
    assert _subject_of("Prefill 比 Prefill 之后更吃 GEMM", question) == ["Prefill"]
    # An identifier found first but further in does not hide the subject at the start.
    assert _subject_of("Prefill 的 max_batch_size", question) == ["Prefill"]


def test_a_head_the_question_names_is_the_subject_as_written() -> None:
    assert _subject_of("canary 发布：新版本先承接少量 traffic", "如何做 canary 发布？") == [
        "canary 发布"
    ]
    # A Chinese head the question names is a label unless it is a term.
    assert _subject_of("调度器：负责 batching 和 preemption", "调度器 的作用？") is None


def test_a_chinese_word_opening_a_claim_is_a_subject_only_if_the_glossary_knows_it() -> None:
    def tagger(text: str) -> list[tuple[str, str]]:
        return [("调度器", "n")] if text.startswith("调度器") else []

    analyser = Analyser(Glossary(), tagger=tagger)
    assert _subject_of("调度器里 GEMM 很多", "调度器 的作用？", analyser) is None
    known = Analyser(Glossary([["调度器", "scheduler"]]), tagger=tagger)
    assert _subject_of("调度器里 GEMM 很多", "调度器 的作用？", known) == ["调度器", "scheduler"]


def test_a_technical_term_is_the_subject_of_a_head_at_most_twice_its_length() -> None:
    question = "问题？"
    assert _subject_of("GEMM 矩阵乘：算术强度高的 batch", question) == ["GEMM"]  # 8 = 2 x 4
    assert _subject_of("GEMM 矩阵乘法：算术强度高的 batch", question) is None  # 9
    # A head found again later: the opening ends at its first occurrence.
    assert _subject_of("代价：GPU 显存和 KV cache 的代价", question) is None


# Found by the mutation run (2026-12-02): each was a bug a reviewer of an imported pack sees.


def test_a_word_holding_or_is_not_cut_in_a_list() -> None:
    # `orchestration` holds "or": the list is still three items.
    assert _enumeration(
        "负责 routing、batching、orchestration", ["routing", "batching", "orchestration"]
    ) == [
        "routing",
        "batching",
        "orchestration",
    ]


def test_a_member_of_a_list_is_a_whole_word() -> None:
    # PTQ is not one of the members named in "GPTQ、AWQ、SmoothQuant".
    items = _enumeration("例如 GPTQ、AWQ、SmoothQuant", ["PTQ", "GPTQ", "AWQ", "SmoothQuant"])
    assert items == ["GPTQ", "AWQ", "SmoothQuant"]


def test_a_bullet_that_opens_in_bold_is_emphasised() -> None:
    assert split_claims("- **KV cache** 放在显存里。\n- 用 prefix caching 复用。") == [
        ("KV cache 放在显存里", 2.0),
        ("用 prefix caching 复用", 1.0),
    ]


def test_a_single_dash_flag_keeps_its_dash() -> None:
    assert Analyser(Glossary()).terms("编译时加 -O2 和 --max-model-len 参数") == [
        "-O2",
        "--max-model-len",
    ]


def test_a_chinese_head_that_is_a_term_but_no_name_is_a_label() -> None:
    # From the LLM guide: `正确性：这种 rejection sampling 保证…` is about rejection sampling;
    # 正确性 heads the bullet as a label would, and the glossary does not know it.
    def tagger(text: str) -> list[tuple[str, str]]:
        return [("正确性", "n")] if text.startswith("正确性") else []

    claim = "正确性：rejection sampling 保证分布相同"
    assert _subject_of(claim, "问题？", Analyser(Glossary(), tagger=tagger)) is None
    known = Analyser(Glossary([["正确性", "correctness"]]), tagger=tagger)
    assert _subject_of(claim, "问题？", known) == ["正确性", "correctness"]


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("进程和线程有什么区别？为什么线程切换通常比进程切换开销小？", ["进程", "线程"]),
        ("select、poll 和 epoll 有什么区别？", ["select", "poll", "epoll"]),
        (
            "What are the main differences between TCP and UDP? When would you choose UDP?",
            ["TCP", "UDP"],
        ),
        ("Compare RDB and AOF persistence. Which would you use for a cache?", ["RDB", "AOF"]),
        (
            "How does cache-aside differ from write-through caching?",
            ["cache-aside", "write-through caching"],
        ),
        # A pronoun names nothing, and a version's dot ends no sentence.
        ("什么是 goodput？它和 throughput 有什么区别？", []),
        ("How does TLS 1.3 differ from TLS 1.2?", ["TLS 1.3", "TLS 1.2"]),
        ("What is a B+ tree?", []),
        # A name of up to four words is a name; five words are a phrase.
        (
            "Compare the process control block with the thread local storage area.",
            ["process control block", "thread local storage area"],
        ),
        ("Compare TCP with the way a packet finds its route.", []),
    ],
)
def test_a_question_that_sets_things_side_by_side_names_them(
    question: str, names: list[str]
) -> None:
    assert contrast_names(question) == names


def test_a_claim_about_one_of_the_things_contrasted_is_said_of_it() -> None:
    # The import set no subject for "定义：进程是…" (its head is 定义). Inferred from the
    # question, it is said of 进程: the same words said of 线程 are a swap, not a statement.
    doc = (
        "初级\nQ1：进程和线程有什么区别？\n参考答案：\n"
        "定义：进程是资源分配的基本单位，拥有独立的虚拟地址空间。\n"
        "线程是 CPU 调度的基本单位，多个线程共享地址空间。\n"
    )
    raw, _ = import_document(doc, "os", glossary=Glossary())
    question = Pack.model_validate(raw).questions[0]
    assert [c.subject[:1] for c in question.concepts] == [("进程",), ("线程",)]
    right = score_answer(
        question, "进程是资源分配的单位，有独立的虚拟地址空间；线程是 CPU 调度的单位。"
    )
    swapped = score_answer(
        question, "线程是资源分配的单位，有独立的虚拟地址空间；进程是 CPU 调度的单位。"
    )
    assert right.score >= 0.9
    assert swapped.score <= 0.2


def test_a_head_that_is_a_thing_contrasted_is_the_subject_whole() -> None:
    # The import made `缓冲` (a glossary word inside the head) the subject of
    # "无缓冲 channel：…": a swap of the two channels then passed as a statement.
    doc = (
        "初级\nQ1：无缓冲 channel 和有缓冲 channel 有什么区别？\n参考答案：\n"
        "- 无缓冲 channel：发送和接收必须同时就绪，是同步交接。\n"
        "- 有缓冲 channel：缓冲区满了发送才阻塞，可以解耦生产者和消费者。\n"
    )
    glossary = Glossary([["缓冲", "buffer"], ["同步", "synchronous"]])
    raw, _ = import_document(doc, "go", glossary=glossary)
    question = Pack.model_validate(raw).questions[0]
    assert [c.subject[:1] for c in question.concepts] == [("无缓冲 channel",), ("有缓冲 channel",)]
    right = score_answer(
        question,
        "无缓冲 channel 发送和接收必须同时就绪，是同步交接；有缓冲 channel 缓冲区满了发送才阻塞，"
        "可以解耦生产者和消费者。",
    )
    swapped = score_answer(
        question,
        "有缓冲 channel 发送和接收必须同时就绪，是同步交接；无缓冲 channel 缓冲区满了发送才阻塞，"
        "可以解耦生产者和消费者。",
    )
    assert right.score >= 0.9
    assert swapped.score <= 0.2
