"""What the importer's concept suggestions are made of (bot/core/suggest.py), rule by rule.

Fast unit tests, no Chinese word tagger: each expected value is written out from the rule
stated in the module's docstrings (claims, headings, emphasis, examples, shared words).
"""

from __future__ import annotations

from bot.core.glossary import Glossary
from bot.core.suggest import Analyser, shared_terms, split_claims

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
