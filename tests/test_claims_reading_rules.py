"""Claim reading rules that the mutation run of issue 12 found untested (bot/core/scoring/).

Expected values are worked out by hand: offsets are counted in the text written in the test,
statuses follow from the rule each test states. The reference is "Reference." unless the
rule reads it.
"""

from __future__ import annotations

import pytest

from bot.core.content import Concept
from bot.core.scoring import Status, cues
from bot.core.scoring.cues import list_item_at
from bot.core.scoring.values import values_at
from tests.support.questions import question_of as _question
from tests.support.questions import statuses as _statuses

# -- a list of short terms with a denial inside one item ---------------------------------------

# 0         1         2         3
# 0123456789012345678901234567890123456
# device plugin, limits, 整数, 不能超卖, MIG。
GPU_LIST = "device plugin, limits, 整数, 不能超卖, MIG。"


@pytest.mark.parametrize(
    ("word", "item"),
    [
        pytest.param("device", (0, 13), id="first-item-from-0"),
        pytest.param("limits", (14, 21), id="middle"),
        pytest.param("不能", (26, 31), id="four-cjk-characters-are-a-term"),
        pytest.param("MIG", (32, 36), id="last-without-the-full-stop"),
    ],
)
def test_the_item_around_a_place_in_a_list_of_short_terms(word: str, item: tuple[int, int]) -> None:
    assert list_item_at(GPU_LIST, GPU_LIST.index(word)) == item


def test_the_last_item_keeps_a_trailing_capital_x() -> None:
    # Only the sentence's own end is stripped, not the letters of the last term.
    text = "device plugin, limits, 整数, 不能超卖, ONNX"
    assert list_item_at(text, text.index("ONNX")) == (32, 37)


def test_four_items_are_a_list() -> None:
    # limits 0-5, 整数 8-9, 不能超卖 12-15, MIG 18-20: an item starts after its comma.
    text = "limits, 整数, 不能超卖, MIG"
    assert list_item_at(text, text.index("MIG")) == (17, 21)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("limits, 整数, 不能超额分配, MIG", id="five-cjk-characters"),
        pytest.param("limits, 整数, never share one card, MIG", id="a-denial-of-four-words"),
    ],
)
def test_an_item_too_long_for_a_term_makes_it_no_list(text: str) -> None:
    # An item of more than four Chinese characters, or of four words (filler words apart),
    # says something: the sentence is not a list of terms (four items of "limits, 整数,
    # 不能超卖, MIG" are, see above).
    assert list_item_at(text, text.index("MIG")) is None


def test_filler_words_do_not_make_an_item_long() -> None:
    # "size of the pool": two words once `of` and `the` are left out.
    text = "limits, size of the pool, 不能超卖, MIG"
    assert list_item_at(text, text.index("MIG")) == (31, 35)


def test_three_items_are_no_list() -> None:
    text = "limits, 不能超卖, MIG"
    assert list_item_at(text, text.index("MIG")) is None


# -- the reference's polarity and direction ----------------------------------------------------


def test_a_claim_the_reference_denies_with_another_name_beside_it_is_a_denial() -> None:
    # "X and Y are not needed" denies X too (Y is a name, blanked when the denial is read):
    # an answer that denies X agrees with the reference.
    question = _question(
        Concept(label="sticky sessions"),
        Concept(label="retries"),
        answer="Sticky sessions and retries are not needed with a stateless server.",
    )
    answer = "Sticky sessions are not needed because the server is stateless."
    assert _statuses(question, answer) == {"sticky sessions": (Status.COVERED, 1.0)}


def test_a_claim_the_reference_affirms_is_said_wrongly_by_a_denial() -> None:
    question = _question(
        Concept(label="max_num_seqs caps the batch", aliases=("max_num_seqs",)),
        answer="max_num_seqs caps how many sequences run.",
    )
    assert _statuses(question, "max_num_seqs does not cap anything.") == {
        "max_num_seqs caps the batch": (Status.NEGATED, 0.0)
    }


def test_a_denied_place_in_the_reference_sets_no_direction() -> None:
    # The reference turns max_num_seqs no way it affirms ("is not raised" is denied; the
    # other place names no way): lowering it in the answer is no contradiction.
    question = _question(
        Concept(label="max_num_seqs caps the batch", aliases=("max_num_seqs",)),
        answer="max_num_seqs is not raised blindly. max_num_seqs caps how many sequences run.",
    )
    answer = "We lower the configured scheduler limit max_num_seqs when memory is tight."
    assert _statuses(question, answer) == {"max_num_seqs caps the batch": (Status.COVERED, 1.0)}


def test_an_alias_that_says_something_states_the_claim_in_a_short_sentence() -> None:
    # 会阻塞 has a verb of its own: "它会阻塞。" says it, it does not only name it.
    question = _question(
        Concept(label="同步调用会阻塞", aliases=("会阻塞",)), question="同步调用有什么问题？"
    )
    assert _statuses(question, "它会阻塞。") == {"同步调用会阻塞": (Status.COVERED, 1.0)}


# -- denials -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param("Prefix caching doesn’t help here.", id="curly-apostrophe-phones-type"),
        pytest.param("Prefix caching doesn't help here.", id="straight-apostrophe"),
        pytest.param("The prefix caching is not enabled.", id="is-not-after-the-term"),
    ],
)
def test_a_denial_of_a_claim_the_reference_affirms(answer: str) -> None:
    question = _question(Concept(label="prefix caching"))
    assert _statuses(question, answer) == {"prefix caching": (Status.NEGATED, 0.0)}


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param("KL 散度和 percentile 都不是校准方法。", id="zh-和-都不是"),
        pytest.param("KL 散度、percentile 都不能用来校准。", id="zh-顿号-都不能"),
        pytest.param(
            "KL divergence and the percentile method are not calibration methods at all.",
            id="en-and-are-not",
        ),
    ],
)
def test_a_list_of_terms_denied_as_a_whole_denies_its_first_item(answer: str) -> None:
    # The denial stands more than ten characters after the first item, but only the other
    # named item and the word joining them come between.
    question = _question(
        Concept(label="KL 散度", aliases=("KL divergence",)),
        Concept(label="percentile", aliases=("percentile method",)),
        question="量化校准有哪些方法？",
    )
    assert _statuses(question, answer) == {
        "KL 散度": (Status.NEGATED, 0.0),
        "percentile": (Status.NEGATED, 0.0),
    }


def test_a_denial_further_on_than_the_list_does_not_reach_back() -> None:
    # Words that are not a named item come between: the denial is of the later verb.
    question = _question(Concept(label="Follower"), question="Raft 怎么选主？")
    answer = "Follower 在随机的选举超时内收不到心跳就发起选举。"
    assert _statuses(question, answer) == {"Follower": (Status.COVERED, 1.0)}


@pytest.mark.parametrize(
    ("answer", "denied", "stated"),
    [
        pytest.param(
            "Use continuous batching rather than static batching.",
            "static batching",
            "continuous batching",
            id="rather-than",
        ),
        pytest.param(
            "Use continuous batching instead of static batching.",
            "static batching",
            "continuous batching",
            id="instead-of",
        ),
        pytest.param("用连续批处理而不是静态批处理。", "静态批处理", "连续批处理", id="而不是"),
    ],
)
def test_what_a_rather_than_clause_names_is_denied(answer: str, denied: str, stated: str) -> None:
    question = _question(Concept(label=denied), Concept(label=stated), question="怎么提高利用率？")
    assert _statuses(question, answer) == {
        stated: (Status.COVERED, 1.0),
        denied: (Status.NEGATED, 0.0),
    }


def test_a_question_asked_back_on_its_own_line_states_nothing() -> None:
    question = _question(
        Concept(label="TTL expiry", aliases=("TTL",)), question="How do keys leave the cache?"
    )
    assert _statuses(question, "How does the TTL expire?\nEviction is LRU.") == {}


# -- bare lists and statements -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "status"),
    [
        pytest.param(
            "PagedAttention, KV cache. Batching is fast.",
            (Status.LISTED, 0.3),
            id="the-next-sentence-predicates-not-this-one",
        ),
        pytest.param(
            "PagedAttention, KV cache. Batching is fast",
            (Status.LISTED, 0.3),
            id="the-next-sentence-without-a-full-stop",
        ),
        pytest.param(
            "PagedAttention, tail latency spikes.",
            (Status.COVERED, 1.0),
            id="an-item-of-three-words-is-a-statement",
        ),
        pytest.param(
            "PagedAttention for shared prompts, chat histories, repeated tools.",
            (Status.COVERED, 1.0),
            id="six-words-in-three-items-are-prose",
        ),
        pytest.param(
            "Redis, PagedAttention, eviction, writes.",
            (Status.LISTED, 0.3),
            id="in-a-list-of-four-a-verb-form-is-a-noun",
        ),
        pytest.param(
            "Redis, PagedAttention, hit of the key, writes.",
            (Status.LISTED, 0.3),
            id="filler-words-keep-an-item-short",
        ),
    ],
)
def test_a_sentence_lists_or_states(answer: str, status: tuple[Status, float]) -> None:
    question = _question(Concept(label="PagedAttention"))
    assert _statuses(question, answer) == {"PagedAttention": status}


@pytest.mark.parametrize(
    ("answer", "status"),
    [
        pytest.param("显存、带宽、延迟。", (Status.LISTED, 0.3), id="two-character-items"),
        pytest.param(
            "显存、尾部延迟抖动明显。",
            (Status.COVERED, 1.0),
            id="an-item-of-8-characters-says-something",
        ),
    ],
)
def test_a_chinese_sentence_lists_or_states(answer: str, status: tuple[Status, float]) -> None:
    question = _question(Concept(label="显存"), question="瓶颈在哪？")
    assert _statuses(question, answer) == {"显存": status}


# -- the value named next to a term --------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "term", "expected"),
    [
        pytest.param("更高的吞吐", "吞吐", (1, 0, 0, 0), id="adjective-with-的"),
        pytest.param("Higher throughput", "throughput", (1, 0, 0, 0), id="capitalised-adjective"),
    ],
)
def test_the_pole_named_right_before_a_term(
    text: str, term: str, expected: tuple[int, ...]
) -> None:
    start = text.index(term)
    assert values_at(text, start, start + len(term)) == expected


def test_an_adjective_denied_before_de_is_not_its_pole() -> None:
    # 不好的体验 is no "better" experience (the 的 is dropped before 不好 is read as one word).
    text = "不好的体验"
    start = text.index("体验")
    assert values_at(text, start, start + 2)[1] != 1


def test_a_value_after_three_coordinated_terms_reaches_the_first() -> None:
    # "TTFT 和 ITL 和 end-to-end latency 都更低": all three are lower, the first included,
    # though the value stands more than 16 characters after the second.
    text = "TTFT 和 ITL 和 end-to-end latency 都更低"
    spans = [(text.index(t), text.index(t) + len(t)) for t in ("TTFT", "ITL", "end-to-end latency")]
    assert values_at(text, *spans[0], tuple(spans)) == (-1, 0, 0, 0)


def test_a_negator_alone_makes_a_statement() -> None:
    # No verb, copula or relation mark left: the denial itself says something.
    assert cues.has_verb("not yet") is True
    assert cues.has_verb("PagedAttention, KV cache") is False


def test_the_end_of_a_sentence_adds_no_item_to_a_list() -> None:
    # Three short items are not a list however the sentence ends; four are.
    assert cues._is_list("TTL, CDC, Redis;") is False
    assert cues._is_list("TTL, CDC, Redis\n") is False
    assert cues._is_list("TTL, CDC, Redis, jitter;") is True


def test_an_item_of_four_words_is_a_clause_not_a_term() -> None:
    # "cache stampede on hot keys": four words that are not fillers ("on" is one).
    assert cues._is_list("cache stampede on hot keys, TTL, CDC, Redis") is False
    assert cues._is_list("cache stampede on keys, TTL, CDC, Redis") is True


def test_a_phrase_does_not_run_into_the_next_command_line_flag() -> None:
    # "fp8 kv cache" is in "--quantization fp8 --kv-cache-dtype auto" word for word, but
    # the fp8 is the weights' and the KV cache's type is another flag's value.
    question = _question(
        Concept(label="an FP8 KV cache", aliases=("FP8 KV cache",)),
        answer="Use an FP8 KV cache: it halves the cache.",
    )
    answer = "Run it with --quantization fp8 --kv-cache-dtype auto to keep it simple."
    assert _statuses(question, answer) == {}
    # A phrase holding a flag itself still matches across it.
    flagged = _question(
        Concept(label="the flag", aliases=("--kv-cache-dtype fp8",)),
        answer="Set --kv-cache-dtype fp8.",
    )
    assert _statuses(flagged, "Set --kv-cache-dtype fp8 on vLLM.") == {
        "the flag": (Status.COVERED, 1.0)
    }


def test_a_name_with_a_negating_prefix_is_not_the_name() -> None:
    # "non-uniform" says the opposite of "uniform".
    question = _question(
        Concept(label="a uniform grid", aliases=("uniform",)),
        answer="INT8 is a uniform grid of values.",
    )
    assert _statuses(question, "INT8 spaces its values on a non-uniform grid.") == {}
    assert _statuses(question, "INT8 spaces its values on a uniform grid.") == {
        "a uniform grid": (Status.COVERED, 1.0)
    }
