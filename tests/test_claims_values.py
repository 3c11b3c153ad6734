"""Swapped claims: the other pole of a scale, a sibling's short name, the terms that tell.

Each answer here is the kind that fooled the scorer on the graded banks (tests/data), written
small enough to check by hand: which concept is stated, which said wrongly, and why.
"""

from __future__ import annotations

import pytest

from bot.core.content import Concept, Question
from bot.core.glossary import Glossary
from bot.core.levels import Level
from bot.core.scoring import Status, score_answer
from bot.core.scoring.values import clash, values_at
from bot.core.suggest import Analyser, suggest_concepts


def statuses(question: Question, answer: str) -> dict[str, Status]:
    result = score_answer(question, answer)
    return {h.label: h.status for h in (*result.covered, *result.contradicted)}


def value(text: str, term: str) -> tuple[int, ...]:
    start = text.index(term)
    return values_at(text, start, start + len(term))


# Scales, in order: amount (high/low, more/less, raise/lower), quality (better/worse),
# speed (faster/slower), what bounds it (compute-bound/memory-bound).
@pytest.mark.parametrize(
    ("text", "term", "expected"),
    [
        pytest.param("TTFT 越好、ITL 越差", "TTFT", (0, 1, 0, 0), id="zh-after"),
        pytest.param("TTFT 越好、ITL 越差", "ITL", (0, -1, 0, 0), id="zh-after-stops-at-、"),
        pytest.param("低延迟和高吞吐", "延迟", (-1, 0, 0, 0), id="zh-adjective-before"),
        pytest.param("低延迟和高吞吐", "吞吐", (1, 0, 0, 0), id="zh-adjective-before-2"),
        pytest.param("降低 TTFT、提高吞吐", "TTFT", (-1, 0, 0, 0), id="zh-verb-before"),
        pytest.param("decode 阶段是 memory-bound，权重", "decode 阶段", (0, 0, 0, -1), id="bound"),
        pytest.param("higher throughput and lower latency", "latency", (-1, 0, 0, 0), id="en-adj"),
        pytest.param("latency is much lower here", "latency", (-1, 0, 0, 0), id="en-after"),
        pytest.param("the grace period is lowered", "grace period", (-1, 0, 0, 0), id="en-lowered"),
        pytest.param("a grace period is longer", "grace period", (1, 0, 0, 0), id="en-longer"),
        pytest.param("a timeout is shorter", "timeout", (-1, 0, 0, 0), id="en-shorter"),
        pytest.param("the batch is greater", "batch", (1, 0, 0, 0), id="en-greater"),
        pytest.param("prefill 更快", "prefill", (0, 0, 1, 0), id="speed"),
        pytest.param("权重放在显存里", "权重", (0, 0, 0, 0), id="no-value"),
    ],
)
def test_the_pole_named_next_to_a_term(text: str, term: str, expected: tuple[int, ...]) -> None:
    assert value(text, term) == expected


def test_a_value_shared_by_coordinated_terms_reaches_both() -> None:
    text = "这样 GPU 利用率和吞吐高很多"
    gpu, throughput = text.index("GPU 利用率"), text.index("吞吐")
    masks = ((gpu, gpu + len("GPU 利用率")), (throughput, throughput + 2))
    assert values_at(text, gpu, gpu + len("GPU 利用率"), masks) == (1, 0, 0, 0)


def test_a_clash_needs_the_same_scale_named_both_ways() -> None:
    assert clash((0, 1, 0, 0), (0, -1, 0, 0))
    assert not clash((0, 1, 0, 0), (-1, 0, 0, 0))  # "越好" and "越低" are other scales
    assert not clash((0, 0, 0, 0), (0, -1, 0, 0))


BUDGET = Question(
    id="budget",
    level=Level.ADVANCED,
    question="chunked prefill 的 token 预算怎么影响延迟？",
    answer="token 预算越大，TTFT 越好、ITL 越差。",
    concepts=(Concept(label="token 预算越大，TTFT 越好、ITL 越差", terms=(("TTFT",), ("ITL",))),),
)


def test_the_reference_put_the_other_way_round_says_the_opposite() -> None:
    label = "token 预算越大，TTFT 越好、ITL 越差"
    assert statuses(BUDGET, "预算调大以后 TTFT 越好，ITL 越差。") == {label: Status.COVERED}
    swapped = score_answer(BUDGET, "预算调大以后 ITL 越好，TTFT 越差。")
    assert [h.status for h in swapped.contradicted] == [Status.NEGATED]
    assert swapped.score == 0


BATCHING = Question(
    id="batching",
    level=Level.INTERMEDIATE,
    question="continuous batching 和 static batching 有什么区别？",
    answer=(
        "Static batching 以批为单位调度，要等最长的序列结束，GPU 利用率低。"
        "Continuous batching 每个迭代都重新调度，已完成的序列立即退出。"
    ),
    concepts=(
        Concept(
            label="Static batching 要等最长的序列，GPU 利用率低",
            subject=("static batching", "静态批处理"),
            terms=(("GPU 利用率",), ("最长",)),
        ),
        Concept(
            label="Continuous batching 每个迭代重新调度",
            subject=("continuous batching", "连续批处理"),
            terms=(("迭代",), ("退出",)),
        ),
    ),
)


def test_the_contrast_said_from_the_other_side_is_not_a_swap() -> None:
    # The reference: static batching's GPU utilisation is low. Said of continuous batching
    # as high, it is the same contrast; said of continuous batching as low, it is swapped.
    right = score_answer(BATCHING, "continuous batching 的 GPU 利用率高，因为每个迭代都会调度。")
    assert right.contradicted == []
    wrong = statuses(BATCHING, "continuous batching 的 GPU 利用率低，要等最长的序列结束。")
    assert wrong["Static batching 要等最长的序列，GPU 利用率低"] is Status.MISATTRIBUTED


def test_a_sibling_is_known_by_the_word_that_sets_it_apart() -> None:
    # People drop the head noun siblings share: "static" for static batching, "连续" for 连续批处理.
    right = statuses(BATCHING, "static 要等最长的序列跑完。连续的那种每个迭代让完成的序列退出。")
    assert set(right.values()) == {Status.COVERED}
    swapped = statuses(BATCHING, "static 每个迭代都让完成的序列退出。")
    assert swapped["Continuous batching 每个迭代重新调度"] is Status.MISATTRIBUTED


QUANT = Question(
    id="fp8",
    level=Level.INTERMEDIATE,
    question="FP8 的 E4M3 和 E5M2 各用在哪里？",
    answer="E4M3：最大值约 448，精度更高，用于推理。E5M2：最大值约 57344，主要用于训练的梯度。",
    concepts=(
        Concept(
            label="E4M3 精度更高，用于推理",
            subject=("E4M3",),
            terms=(("最大值",), ("推理", "inference")),
        ),
        Concept(
            label="E5M2 用于训练的梯度",
            subject=("E5M2",),
            terms=(("最大值",), ("梯度", "gradient")),
        ),
    ),
)


def test_terms_both_subjects_share_do_not_save_a_swapped_claim() -> None:
    # 最大值 is said of both: it tells nothing about whose claim this is. The terms that do
    # tell (推理, 梯度) are each said of the other subject, so both claims are swapped.
    result = score_answer(QUANT, "E5M2 的最大值约 448，用于推理；E4M3 的最大值大，用于梯度。")
    assert {h.status for h in result.contradicted} == {Status.MISATTRIBUTED}
    assert result.score == 0
    right = score_answer(QUANT, "E4M3 最大值 448，用于推理；E5M2 最大值更大，存训练梯度。")
    assert right.score == pytest.approx(1.0)


def test_a_subject_in_an_earlier_sentence_is_not_guessed() -> None:
    # A claim with no subject in its sentence is not taken to be about the last one named.
    answer = "E5M2 先不说。用于推理的那种最大值约 448。"
    assert statuses(QUANT, answer)["E4M3 精度更高，用于推理"] is Status.COVERED


def test_examples_of_a_kind_are_one_point() -> None:
    analyser = Analyser(Glossary())
    concepts = suggest_concepts(
        "PTQ 和 QAT 有什么区别？",
        "PTQ 在训练完成后直接量化，只需少量校准数据。GPTQ、AWQ、SmoothQuant 都属于 PTQ。",
        analyser,
    )
    examples = [c for c in concepts if "GPTQ" in c["label"]]
    assert len(examples) == 1
    assert examples[0]["terms"] == [["GPTQ"], ["AWQ"], ["SmoothQuant"]]
    assert examples[0]["weight"] == 1.0


KNOBS = Question(
    id="knobs",
    level=Level.BEGINNER,
    question="Dynamic Batching 的核心参数有哪些？",
    answer=(
        "- max_batch_size：单次推理最大 batch。\n- max_queue_delay_microseconds：请求最大等待时间。"
    ),
    concepts=(
        Concept(
            label="max_batch_size（单次最大 batch）",
            subject=("max_batch_size",),
            aliases=("max_batch_size", "最大 batch", "单次推理"),
        ),
        Concept(
            label="max_queue_delay_microseconds（最大等待）",
            subject=("max_queue_delay_microseconds",),
            aliases=("max_queue_delay_microseconds", "等待时间", "等多久"),
        ),
    ),
)


def test_a_name_given_another_ones_meaning_is_a_swap() -> None:
    # Naming both parameters is right; giving each the other's meaning is not.
    swapped = score_answer(
        KNOBS,
        "max_batch_size 是请求最多能等多久，max_queue_delay_microseconds 是单次推理的最大 batch。",
    )
    assert {h.status for h in swapped.contradicted} == {Status.MISATTRIBUTED}
    assert swapped.score == 0
    # Names alone are a list: partial credit, nothing contradicted.
    listed = score_answer(KNOBS, "max_batch_size, max_queue_delay_microseconds")
    assert listed.contradicted == []
    assert 0 < listed.score < 1


def test_one_name_given_the_others_meaning_is_wrong_for_both() -> None:
    # Only one sentence, and only max_batch_size named: the answer says nothing true of
    # max_batch_size, and puts max_queue_delay's meaning on the wrong parameter.
    result = score_answer(KNOBS, "max_batch_size 是请求最多能等多久。")
    assert result.covered == []
    wrong = {h.label: h for h in result.contradicted}
    assert set(wrong) == {KNOBS.concepts[0].label, KNOBS.concepts[1].label}
    assert {h.status for h in wrong.values()} == {Status.MISATTRIBUTED}
    # The note on max_batch_size names the meaning it was mixed up with.
    assert wrong[KNOBS.concepts[0].label].said_of == KNOBS.concepts[1].label
    assert result.score == 0
    # Said of its own meaning, the same name is covered: the rule is about the swap.
    right = score_answer(KNOBS, "max_batch_size 是单次推理的最大 batch。")
    assert [h.label for h in right.covered] == [KNOBS.concepts[0].label]


def test_a_gloss_belongs_to_the_name_before_it() -> None:
    answer = "主要有 max_queue_delay_microseconds（请求最多等多久）、max_batch_size（最大 batch）。"
    assert set(statuses(KNOBS, answer).values()) == {Status.COVERED}


QAT = Question(
    id="qat",
    level=Level.BEGINNER,
    question="PTQ 和 QAT 有什么区别？",
    answer="PTQ：训练完成后直接量化。QAT：在训练中插入 fake quantization。",
    concepts=(
        Concept(
            label="PTQ 在训练后量化",
            subject=("PTQ", "训练后量化"),
            terms=(("训练",), ("直接量化",)),
        ),
        Concept(
            label="QAT 在训练中插入 fake quantization",
            subject=("QAT", "量化感知训练"),
            terms=(("fake quantization", "伪量化"), ("训练中",)),
        ),
    ),
)


def test_a_term_inside_another_subjects_name_says_nothing_of_it() -> None:
    # 训练 inside 量化感知训练 names QAT; it does not say PTQ's 训练 of QAT.
    result = score_answer(QAT, "PTQ 是训练后量化，QAT 是量化感知训练。")
    assert result.contradicted == []


ENGINES = Question(
    id="engines",
    level=Level.BEGINNER,
    question="Triton 和 vLLM 有什么区别？",
    answer="vLLM 是推理引擎，解决单个模型怎么跑得快；vLLM 可以作为 Triton 的 backend 接入。",
    concepts=(
        Concept(label="vLLM 是推理引擎", subject=("vLLM", "SGLang"), aliases=("推理引擎",)),
        Concept(label="引擎解决单模型跑得快", subject=("vLLM", "推理引擎"), aliases=("跑得快",)),
    ),
)


def test_a_name_two_subjects_share_counts_for_either() -> None:
    assert set(statuses(ENGINES, "vLLM 是负责把模型跑得快的推理引擎。").values()) == {
        Status.COVERED
    }


def test_a_denial_the_reference_says_in_its_own_phrase_agrees() -> None:
    # The reference names the claim with a denial ("不会阻塞"): an answer that denies it in
    # other words ("不会卡住 C++ core") agrees with it.
    question = Question(
        id="gil",
        level=Level.ADVANCED,
        question="Python backend 如何避免 GIL 影响 core？",
        answer="Python 跑在子进程里，GIL 不会阻塞 C++ core 的网络与调度。",
        concepts=(Concept(label="不阻塞 C++ core", aliases=("不会阻塞", "C++ core")),),
    )
    assert statuses(question, "所以 GIL 只锁这个子进程，不会卡住 C++ core。") == {
        "不阻塞 C++ core": Status.COVERED
    }


MODES = Question(
    id="modes",
    level=Level.INTERMEDIATE,
    question="模型热更新有哪两种模式？生产推荐哪种？",
    answer="Poll 模式周期性扫描仓库。Explicit 模式通过 API 控制加载。生产推荐 explicit 模式。",
    concepts=(
        Concept(
            label="生产环境推荐 explicit",
            aliases=("explicit",),
            requires=(("推荐", "recommend", "recommended"),),
        ),
    ),
)


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param("Explicit mode is not recommended for production. Use poll.", id="is-not"),
        pytest.param("Explicit mode isn't recommended in production.", id="isn't"),
        pytest.param("Poll is recommended; explicit mode is not recommended.", id="second-clause"),
    ],
)
def test_an_english_subject_of_a_denied_verb_is_denied(answer: str) -> None:
    assert statuses(MODES, answer) == {"生产环境推荐 explicit": Status.NEGATED}


def test_a_denial_further_on_in_the_clause_is_not_the_terms() -> None:
    # "nothing changes" and "batches are not filling" deny what follows, not the term.
    assert statuses(
        MODES, "In production explicit mode is recommended: nothing loads by itself."
    ) == {"生产环境推荐 explicit": Status.COVERED}


PHASES = Question(
    id="phases2",
    level=Level.BEGINNER,
    question="prefill 和 decode 阶段分别做什么？",
    answer="预填充阶段并行处理整个 prompt，瓶颈在算力。生成阶段每步出一个 token，瓶颈在显存带宽。",
    concepts=(
        Concept(label="Prefill 瓶颈在算力", subject=("prefill", "预填充阶段"), aliases=("算力",)),
        Concept(
            label="Decode 瓶颈在显存带宽", subject=("decode", "生成阶段"), aliases=("显存带宽",)
        ),
    ),
)


def test_a_verb_left_of_a_siblings_name_is_no_short_name() -> None:
    # 生成 is what is left of 生成阶段, but it is a verb: "生成 KV cache" is said of prefill.
    answer = "Prefill 一次处理整个 prompt，生成 KV cache，瓶颈在算力；decode 瓶颈在显存带宽。"
    assert set(statuses(PHASES, answer).values()) == {Status.COVERED}


FORMATS = Question(
    id="formats",
    level=Level.BEGINNER,
    question="INT8 和 FP8 有什么区别？",
    answer="INT8 是均匀的整数网格；FP8 有指数位，动态范围更大。",
    concepts=(
        Concept(label="INT8 均匀网格", subject=("INT8",), aliases=("均匀",)),
        Concept(label="FP8 动态范围大", subject=("FP8",), aliases=("动态范围",)),
    ),
)


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param("FP8 有指数位，动态范围比 INT8 大。", id="bi"),
        pytest.param("FP8 有指数位，动态范围相对于 INT8 更大。", id="xiangduiyu"),
        pytest.param("INT8 相比 FP8 更均匀，FP8 有指数位。", id="xiangbi"),
    ],
)
def test_what_a_claim_is_compared_with_is_not_what_it_is_said_of(answer: str) -> None:
    # The comparand (比 INT8) is nearer to the term than the clause's topic, and no swap.
    found = statuses(FORMATS, answer)
    assert Status.MISATTRIBUTED not in found.values()
    assert Status.COVERED in found.values()


VARY = Question(
    id="vary",
    level=Level.BEGINNER,
    question="Vary 头对共享缓存有什么影响？",
    answer=(
        "Vary 列出选择变体的请求头。"
        "共享缓存按每个取值分别存一份，所以更长的 Vary 列表会降低命中率。"
    ),
    concepts=(
        Concept(label="Vary 列出选择变体的请求头", subject=("Vary",), aliases=("请求头",)),
        Concept(
            label="共享缓存按每个取值分别存一份，所以更长的 Vary 列表会降低命中率",
            subject=("共享缓存",),
            terms=(("命中率",), ("分别存",)),
        ),
    ),
)


def test_the_reference_is_not_mixed_up_with_itself() -> None:
    # The reference says the hit rate of the shared cache with Vary named nearer: read by
    # the nearest subject, the reference itself would be mixed up.
    result = score_answer(VARY, VARY.answer)
    assert result.contradicted == []
    assert result.score == 1.0


CAUSES = Question(
    id="causes",
    level=Level.BEGINNER,
    question="延迟抖动常见的原因有哪些？",
    answer="排队时间在利用率接近饱和时暴涨。CPU 侧：tokenizer、GC、日志。",
    concepts=(
        Concept(label="排队时间在利用率接近饱和时暴涨", terms=(("排队时间",), ("饱和",))),
        Concept(label="tokenizer", aliases=("tokenizer",)),
        Concept(label="GC", aliases=("GC",)),
    ),
)


def test_what_the_reference_only_lists_is_stated_by_listing_it() -> None:
    # The reference names tokenizer and GC in a bare list: an answer listing them says all
    # the reference says of them. The claim the reference states with a verb stays "listed"
    # when an answer only names its terms.
    listed = score_answer(CAUSES, "tokenizer、GC")
    assert {h.label: h.credit for h in listed.covered} == {"tokenizer": 1.0, "GC": 1.0}
    names_only = score_answer(CAUSES, "排队时间、饱和")
    (hit,) = names_only.covered
    assert hit.status is Status.LISTED and hit.credit < 1


PATTERNS = Question(
    id="patterns",
    level=Level.BEGINNER,
    question="How do the two caching patterns differ?",
    answer=(
        "Cache-aside: the application loads the database row on a miss and stores it in Redis."
        " Write-through: every write updates the cache and the database together."
    ),
    concepts=(
        Concept(
            label="cache-aside loads on a miss",
            subject=("cache-aside",),
            terms=(("miss",), ("loads",)),
        ),
        Concept(
            label="write-through writes both",
            subject=("write-through",),
            terms=(("every write",), ("together",)),
        ),
    ),
)


def test_names_made_of_verbs_are_names_in_a_term_list() -> None:
    # `write-through` holds "through" and `cache-aside` "cache", both cues of a statement in
    # running text; as names they are blanked, so the list below says nothing.
    listed = score_answer(PATTERNS, "cache-aside, miss, loads, write-through, every write")
    assert listed.covered and {h.status for h in listed.covered} == {Status.LISTED}
    # The same names in sentences state their claims.
    stated = score_answer(
        PATTERNS,
        "With cache-aside the app reads the database on a miss and loads the row; with"
        " write-through every write goes to both together.",
    )
    assert {h.status for h in stated.covered} == {Status.COVERED}


SCHEDULING = Question(
    id="batching",
    level=Level.BEGINNER,
    question="continuous batching 怎么调度？",
    answer="continuous batching 每一步都重新调度，结束的请求马上退出。",
    concepts=(
        Concept(label="每一步都重新调度", aliases=("重新调度", "调度")),
        Concept(label="结束的请求马上退出", aliases=("退出",)),
    ),
)


@pytest.mark.parametrize(
    "unsure",
    [
        "具体怎么重新调度的我不太清楚",
        "具体怎么重新调度讲不太清楚",
        "I'm not sure how it does the 重新调度",
        "I don't know the 重新调度 details",
    ],
)
def test_saying_one_does_not_know_is_neither_a_claim_nor_a_denial(unsure: str) -> None:
    answer = f"结束的请求马上退出，{unsure}。"
    result = score_answer(SCHEDULING, answer)
    assert result.covered_labels == ["结束的请求马上退出"]
    assert result.contradicted == []  # a denial would cost half its weight
    assert result.coverage == pytest.approx(0.5)
    # A denial of the same claim is one.
    denied = score_answer(SCHEDULING, "结束的请求马上退出，它不会重新调度。")
    assert [h.label for h in denied.contradicted] == ["每一步都重新调度"]


def test_a_false_claim_costs_more_than_half_a_true_one() -> None:
    # Two claims of weight 1: one stated, one denied. A grader marks the false statement
    # down: it takes back 0.6 of the true one's point (measured on the graded banks: 0.5
    # and 0.8 agree less with the reviewed LLM bank's grades), so 0.4 of 2 is left.
    result = score_answer(SCHEDULING, "结束的请求马上退出，它不会重新调度。")
    assert result.coverage == pytest.approx(0.2)
    assert result.score == pytest.approx(0.2)  # no credit for vocabulary after a false claim


@pytest.mark.parametrize("asked", ["结束的请求会马上退出吗？", "Do finished requests 退出?"])
def test_a_question_asked_back_states_nothing(asked: str) -> None:
    assert score_answer(SCHEDULING, asked).covered == []
    # The same words as a statement state the claim.
    stated = score_answer(SCHEDULING, "结束的请求会马上退出。")
    assert stated.covered_labels == ["结束的请求马上退出"]


GAINS = Question(
    id="gains",
    level=Level.BEGINNER,
    question="量化有什么收益？",
    answer="一是显存：INT4 权重只占四分之一。二是带宽：INT4 读的字节少。",
    concepts=(
        Concept(label="一是显存", terms=(("显存",), ("INT4",))),
        Concept(label="二是带宽", terms=(("带宽",), ("INT4",))),
    ),
)


def test_a_claim_whose_own_term_is_denied_is_not_saved_by_a_shared_one() -> None:
    # INT4 is in both claims: it tells neither. 显存 is the first claim's own term, and
    # the answer denies it.
    result = score_answer(GAINS, "量化把权重换成 INT4，但它并不能减少显存。")
    assert [h.label for h in result.contradicted] == ["一是显存"]
    # The shared term still half-states the claim whose own term is not named at all.
    assert {h.label: h.credit for h in result.covered} == {"二是带宽": 0.5}
    # Stated, the own term earns the claim.
    stated = score_answer(GAINS, "量化把权重换成 INT4，显存只要四分之一。")
    assert "一是显存" in stated.covered_labels


SHARING = Question(
    id="sharing",
    level=Level.BEGINNER,
    question="Pod 怎么申请 GPU？",
    answer="在 limits 里写 nvidia.com/gpu，只能写整数，不能超卖；共享一块卡要用 MIG。",
    concepts=(
        Concept(label="整数且不超卖", aliases=("超卖",)),
        Concept(label="共享要用 MIG", aliases=("MIG",)),
    ),
)


def test_a_denial_inside_one_item_of_a_term_list_states_only_that_item() -> None:
    # A graded term list: 不能超卖 says something, the names listed beside it do not.
    listed = statuses(SHARING, "device plugin, nvidia.com/gpu, limits, 整数, 不能超卖, MIG")
    assert listed["共享要用 MIG"] is Status.LISTED
    assert listed["整数且不超卖"] is Status.COVERED  # the reference denies it too
    # In a sentence the same names are said.
    said = statuses(SHARING, "limits 里只能写整数，不能超卖，共享要用 MIG")
    assert said["共享要用 MIG"] is Status.COVERED


# -- a pole inside a denial --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reference", "answer", "expected"),
    [
        # The reference denies raising it: raising says the opposite, lowering agrees.
        ("Do not raise max_num_seqs.", "Raise max_num_seqs.", (Status.NEGATED, 0.0)),
        ("Do not raise max_num_seqs.", "Lower max_num_seqs.", (Status.COVERED, 1.0)),
        ("Do not raise max_num_seqs.", "Don't raise max_num_seqs.", (Status.COVERED, 1.0)),
        ("Do not raise max_num_seqs.", "max_num_seqs should stay low.", (Status.COVERED, 1.0)),
        ("Do not raise max_num_seqs.", "Never lower max_num_seqs.", (Status.NEGATED, 0.0)),
        ("不要调大 max_num_seqs，显存会不够。", "调大 max_num_seqs。", (Status.NEGATED, 0.0)),
        ("不要调大 max_num_seqs，显存会不够。", "max_num_seqs 不能太大。", (Status.COVERED, 1.0)),
        # A tuning verb states something: "调小 X" is advice, not a bare name.
        ("不要调大 max_num_seqs，显存会不够。", "调小 max_num_seqs。", (Status.COVERED, 1.0)),
        ("调高 max_num_seqs 提高并发。", "调高 max_num_seqs。", (Status.COVERED, 1.0)),
        # A reference that affirms it reads as before.
        ("Raise max_num_seqs.", "Lower max_num_seqs.", (Status.NEGATED, 0.0)),
        ("Raise max_num_seqs.", "Don't raise max_num_seqs.", (Status.NEGATED, 0.0)),
    ],
)
def test_a_pole_named_in_a_denial_is_the_other_pole(
    reference: str, answer: str, expected: tuple[Status, float]
) -> None:
    question = Question(
        id="t-q1",
        level=Level.BEGINNER,
        question="How do you tune vLLM?",
        answer=reference,
        concepts=(Concept(label="max_num_seqs"),),
    )
    hits = score_answer(question, answer)
    found = {h.label: (h.status, h.credit) for h in (*hits.covered, *hits.contradicted)}
    assert found == {"max_num_seqs": expected}
