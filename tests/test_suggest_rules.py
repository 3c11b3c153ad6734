"""What the importer's concept suggestions are made of (bot/core/suggest.py), rule by rule.

Fast unit tests, no Chinese word tagger: each expected value is written out from the rule
stated in the module's docstrings (claims, headings, emphasis, examples, shared words).
"""

from __future__ import annotations

from bot.core.glossary import Glossary
from bot.core.suggest import Analyser, _head, shared_terms, split_claims, suggest_concepts
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


def test_generic_words_are_not_terms() -> None:
    assert Analyser(Glossary()).terms("调 model 和 KV cache") == ["KV cache"]


def test_in_english_text_long_runs_keep_only_their_notable_words() -> None:
    # More than four words: capitalised, with a digit, or of six letters or more.
    terms = Analyser(Glossary()).terms("Continuous batching schedules new requests at every step")
    assert terms == ["Continuous", "batching", "schedules", "requests"]
    # Up to four words (stop words not counted): one term.
    assert Analyser(Glossary()).terms("用 the paged attention kernel 加速") == [
        "paged attention kernel"
    ]


def test_up_to_four_words_are_one_term_and_five_are_not() -> None:
    analyser = Analyser(Glossary())
    assert analyser.terms("fused paged attention kernels") == ["fused paged attention kernels"]
    # Five: "Use" is generic; of the rest only words of six letters or more.
    assert analyser.terms("Use fused paged attention kernels") == ["attention", "kernels"]


def test_a_notable_word_is_capitalised_has_a_digit_or_six_letters() -> None:
    analyser = Analyser(Glossary())
    assert analyser.terms("Ray runs the fp16 job on many nodes") == ["Ray", "fp16"]
    assert analyser.terms("Ray runs each kernel on many nodes") == ["Ray", "kernel"]


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


def test_labels_cut_at_sixty_characters_are_numbered_when_they_collide() -> None:
    prefix = "批" * 60
    answer = f"{prefix} GPTQ\n{prefix} AWQ\n{prefix} SmoothQuant"
    label = "批" * 59 + "…"
    assert _weights("问题？", answer) == [
        (label, 1.5),
        (f"{label} (2)", 1.0),
        (f"{label} (3)", 1.0),
    ]


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


def test_an_answer_with_no_terms_is_one_concept_without_aliases() -> None:
    concepts = suggest_concepts("问题？", "这是一个很普通的回答。", Analyser(Glossary()))
    assert concepts == [{"label": "这是一个很普通的回答。", "aliases": [], "weight": 1.0}]
