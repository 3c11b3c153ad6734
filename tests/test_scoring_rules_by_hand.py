"""Scoring rules that the mutation run of issue 12 found untested, each written from the rule.

Every expected value here is worked out by hand from what the rule means (the scores are
shares of the concepts' weights: one of two terms stated is 0.5, a contradiction costs
`CONTRADICTION_COST` = 0.6 of the weight, a listed concept earns `LIST_CREDIT` = 0.3). The
reference answer is "Reference." unless a rule reads the reference, so relevance adds
nothing and the score is the coverage.
"""

from __future__ import annotations

import itertools

import pytest

from bot.core import scoring
from bot.core.content import Concept, Question
from bot.core.scoring import RELEVANCE_SHARE, Status, needle, score_answer
from bot.core.scoring.names import short_forms as _short_forms
from tests.support.questions import question_of as _question
from tests.support.questions import statuses as _statuses

# -- claims given as key terms ---------------------------------------------------------------


def test_a_term_turned_the_other_way_from_the_reference_is_said_wrongly() -> None:
    # The reference lowers the setting (the verb is far from the term: no value next to it,
    # only the clause's direction); raising it says the opposite.
    reference = "We lower the configured scheduler limit max_num_seqs when preemption happens."
    question = _question(
        Concept(
            label="lower max_num_seqs under pressure",
            terms=(("max_num_seqs",), ("preemption",)),
        ),
        answer=reference,
    )
    label = "lower max_num_seqs under pressure"
    assert _statuses(question, reference) == {label: (Status.COVERED, 1.0)}
    raised = reference.replace("lower", "raise")
    assert _statuses(question, raised) == {label: (Status.NEGATED, 0.0)}
    assert score_answer(question, raised).score == 0.0


def test_one_term_stated_and_one_only_listed_earns_half() -> None:
    # Stated terms add up; a listed term adds nothing beside a stated one: 1 of 2 = 0.5.
    question = _question(
        Concept(label="max_num_seqs bounds preemption", terms=(("max_num_seqs",), ("preemption",)))
    )
    answer = "max_num_seqs limits how many sequences run. Preemption, swapping, recompute."
    result = score_answer(question, answer)
    assert _statuses(question, answer) == {"max_num_seqs bounds preemption": (Status.COVERED, 0.5)}
    assert result.covered[0].phrase == "max_num_seqs"
    assert result.score == 0.5


def _prefill_decode() -> Question:
    # A new question each test: the compiled form is cached by question.
    return _question(
        Concept(
            label="prefill is compute-bound",
            subject=("prefill",),
            terms=(("compute-bound",), ("matrix multiply",)),
        ),
        Concept(
            label="decode is memory-bound",
            subject=("decode",),
            terms=(("memory-bound",), ("cache reads",)),
        ),
    )


def test_a_claim_whose_terms_are_all_said_wrongly_reports_the_other_subject_first() -> None:
    # One term said of decode, the other denied of prefill: both wrong. Saying it of another
    # subject ranks above a denial, so that is what the learner is shown.
    answer = "Decode uses a matrix multiply. Prefill is not compute-bound."
    result = score_answer(_prefill_decode(), answer)
    assert [(h.label, h.status, h.phrase, h.said_of) for h in result.contradicted] == [
        ("prefill is compute-bound", Status.MISATTRIBUTED, "matrix multiply", "Decode")
    ]
    assert result.score == 0.0


def test_a_term_two_claims_of_one_subject_share_still_counts_for_the_first_subject() -> None:
    # `prompt` is a term of both prefill claims (one subject): it tells nothing of which
    # claim is meant, but for a claim with a subject only terms shared *between subjects*
    # are set aside. Stating `prompt` and denying `one pass` earns half of each claim.
    question = _question(
        Concept(
            label="prefill runs the whole prompt",
            subject=("prefill",),
            terms=(("prompt",), ("one pass",)),
        ),
        Concept(
            label="prefill fills the cache",
            subject=("prefill",),
            terms=(("prompt",), ("kv cache",)),
        ),
        Concept(label="decode is memory-bound", subject=("decode",), terms=(("memory-bound",),)),
    )
    answer = "Prefill reads the prompt. Prefill does not work in one pass."
    assert _statuses(question, answer) == {
        "prefill runs the whole prompt": (Status.COVERED, 0.5),
        "prefill fills the cache": (Status.COVERED, 0.5),
    }
    assert round(score_answer(question, answer).score, 4) == round(1 / 3, 4)


def test_a_claim_of_the_first_subject_stated_only_by_a_term_both_subjects_share_is_wrong() -> None:
    # `prompt` is a term of a prefill claim and of a decode claim: it does not tell whose
    # claim is stated. The term that does (`one pass`) is denied, so the prefill claim is
    # said wrongly: no credit, and it costs 0.6 of its weight.
    question = _question(
        Concept(
            label="prefill runs the whole prompt",
            subject=("prefill",),
            terms=(("prompt",), ("one pass",)),
        ),
        Concept(
            label="decode reads the prompt cache",
            subject=("decode",),
            terms=(("prompt",), ("cache reads",)),
        ),
    )
    answer = "Prefill reads the prompt. Prefill does not work in one pass."
    result = score_answer(question, answer)
    assert [(h.label, h.status, h.phrase) for h in result.contradicted] == [
        ("prefill runs the whole prompt", Status.NEGATED, "one pass")
    ]
    assert [h.label for h in result.covered] == ["decode reads the prompt cache"]
    # 0.5 (half the decode claim) - 0.6 (the prefill claim said wrongly) < 0: clamped to 0.
    assert result.score == 0.0


# -- required parts ----------------------------------------------------------------------------


def _chunks() -> Question:
    # A new question each test: the compiled form is cached by question.
    return _question(
        Concept(
            label="prefill chunk size 512",
            subject=("prefill",),
            aliases=("chunk size",),
            requires=(("512",),),
        ),
        Concept(label="decode is memory-bound", subject=("decode",), aliases=("memory-bound",)),
    )


def test_a_required_part_said_of_the_claims_subject_states_it() -> None:
    answer = "Prefill uses 512 for the chunk size."
    assert _statuses(_chunks(), answer) == {"prefill chunk size 512": (Status.COVERED, 1.0)}
    result = score_answer(_chunks(), answer)
    assert result.score == 0.5
    assert result.covered[0].said_of == ""  # only a claim said of another subject names one


def test_a_required_part_said_of_another_subject_does_not_state_it() -> None:
    # `512` is in the sentence, but in the clause about decode: prefill's chunk size is not
    # said to be 512.
    result = score_answer(_chunks(), "Prefill sets the chunk size, and decode uses 512.")
    assert result.covered == []
    assert result.contradicted == []
    assert [c.label for c in result.missed] == ["prefill chunk size 512", "decode is memory-bound"]


def test_a_required_part_said_of_a_name_two_subjects_share_counts_for_this_one() -> None:
    # `vLLM` names both subjects (an engine and a backend): the required `256` said of it
    # counts for the backend claim.
    question = _question(
        Concept(label="engine speed", subject=("vLLM", "the engine"), aliases=("paged attention",)),
        Concept(
            label="backend batch 256",
            subject=("vLLM", "the backend"),
            aliases=("batch size",),
            requires=(("256",),),
        ),
    )
    answer = "vLLM sets the batch size to 256."
    assert _statuses(question, answer) == {"backend batch 256": (Status.COVERED, 1.0)}
    assert score_answer(question, answer).score == 0.5


def test_a_required_part_of_a_claim_without_a_subject_may_stand_next_to_any_subject() -> None:
    question = _question(
        Concept(label="chunk size 512", aliases=("chunk size",), requires=(("512",),)),
        Concept(label="decode is memory-bound", subject=("decode",), aliases=("memory-bound",)),
    )
    answer = "Decode uses 512 as the chunk size."
    assert _statuses(question, answer) == {"chunk size 512": (Status.COVERED, 1.0)}


# -- what a claim is compared with ---------------------------------------------------------------


def _formats_en() -> Question:
    # A new question each test: the compiled form is cached by question.
    return _question(
        Concept(label="INT8 uniform grid", subject=("INT8",), aliases=("uniform grid",)),
        Concept(label="FP8 wide dynamic range", subject=("FP8",), aliases=("dynamic range",)),
        question="How do INT8 and FP8 differ?",
    )


def _formats_zh() -> Question:
    # A new question each test: the compiled form is cached by question.
    return _question(
        Concept(label="INT8 均匀网格", subject=("INT8",), aliases=("均匀",)),
        Concept(label="FP8 动态范围大", subject=("FP8",), aliases=("动态范围",)),
        question="INT8 和 FP8 有什么区别？",
    )


def test_a_comparand_at_the_very_start_of_the_answer_is_not_the_topic() -> None:
    # "Versus INT8": INT8 is what FP8 is measured against, even as the answer's first word.
    answer = "Versus INT8 the dynamic range is larger in FP8."
    assert _statuses(_formats_en(), answer) == {"FP8 wide dynamic range": (Status.COVERED, 1.0)}


@pytest.mark.parametrize(
    "opening",
    ["Compared with INT8", "Compared to INT8", "Compared  with INT8", "Compared with  INT8"],
)
def test_a_subject_after_compared_with_is_the_comparand(opening: str) -> None:
    # The claim is FP8's however the comparison is typed (14 characters and more before INT8).
    answer = f"{opening} the dynamic range is larger in FP8."
    assert _statuses(_formats_en(), answer) == {"FP8 wide dynamic range": (Status.COVERED, 1.0)}


def test_a_subject_followed_by_xiangbi_is_the_comparand() -> None:
    # 与 INT8 相比: INT8 is the comparand (相比 after it), the claim is FP8's.
    answer = "与 INT8 相比 FP8 的动态范围更大。"
    assert _statuses(_formats_zh(), answer) == {"FP8 动态范围大": (Status.COVERED, 1.0)}
    assert score_answer(_formats_zh(), answer).score == 0.5


# -- phrases found -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "named"),
    [
        pytest.param(
            "Requests wait until the queue is static. Batching helps.", {}, id="full-stop"
        ),
        pytest.param("延迟是 static；batching 另说。", {}, id="chinese-semicolon"),
        pytest.param(
            "Use static batching.", {"static batching": (Status.COVERED, 1.0)}, id="one-sentence"
        ),
    ],
)
def test_a_phrase_is_not_found_across_a_sentence_end(
    answer: str, named: dict[str, tuple[Status, float]]
) -> None:
    question = _question(Concept(label="static batching"), question="How are requests batched?")
    assert _statuses(question, answer) == named


def test_a_phrase_with_a_sentence_end_of_its_own_is_found_across_one() -> None:
    question = _question(Concept(label="stop. go"), question="What do the lights say?")
    assert _statuses(question, "The light is stop. Go when it is green.") == {
        "stop. go": (Status.COVERED, 1.0)
    }


def test_a_one_character_chinese_alias_is_found() -> None:
    # A one-character phrase has no two-character key to screen answers by: it is searched
    # in every answer.
    question = _question(Concept(label="锁", aliases=("lock",)), question="怎么保护共享状态？")
    assert _statuses(question, "用锁保护共享状态。") == {"锁": (Status.COVERED, 1.0)}


def test_a_latin_phrase_is_not_found_inside_a_longer_word() -> None:
    # `microbatch size` holds "batch size" only inside a word: the quote is the real one.
    question = _question(Concept(label="batch size", aliases=("max batch",)))
    answer = "A microbatch size is small; the batch size caps memory."
    result = score_answer(question, answer)
    assert [(h.label, h.text, h.start) for h in result.covered] == [
        ("batch size", "batch size", answer.index("the batch") + 4)
    ]


def test_how_a_phrase_is_searched_for() -> None:
    # Latin ends carry a space (whole words only), CJK ends none (a phrase may sit inside a
    # run); case and plural fold away; a phrase with no words has no needle.
    assert needle("Max Batch Sizes") == needle("max batch size")
    assert needle("max batch size").startswith(" ")
    assert needle("max batch size").endswith(" ")
    assert needle("显存") == "显存"
    assert needle("KV 缓存").startswith(" kv ")
    assert needle("KV 缓存").endswith("缓存")
    assert needle("缓存 KV") == "缓存 kv "
    assert needle("!!!") == ""


# -- relevance ---------------------------------------------------------------------------------


def test_relevance_counts_the_references_topic_words_not_stop_words_or_numbers() -> None:
    # The reference's topic words: batching, merges, requests, steps ("in" is a stop word,
    # "2" a number). The answer uses three of the four: relevance 0.75, worth 15% of the
    # half that coverage left open.
    question = _question(
        Concept(label="batching"),
        Concept(label="paging"),
        question="How?",
        answer="Batching merges requests in 2 steps.",
    )
    result = score_answer(question, "Batching merges requests.")
    assert result.coverage == 0.5
    assert result.relevance == 0.75
    assert result.score == pytest.approx(0.5 + 0.5 * RELEVANCE_SHARE * 0.75)


def test_a_mixed_phrase_is_not_named_by_its_latin_word_alone() -> None:
    # People run identifiers together (`kvcache`), but `KV 缓存` is not said by "KV" alone.
    question = _question(Concept(label="KV 缓存"), question="显存里放什么？")
    assert _statuses(question, "KV 很大。") == {}
    assert _statuses(question, "KV 缓存很大。") == {"KV 缓存": (Status.COVERED, 1.0)}


def test_a_phrase_mixing_scripts_must_be_spelled_right() -> None:
    question = _question(Concept(label="preferred 批大小"))
    assert _statuses(question, "It sets prefered 批大小 to 4.") == {}
    assert _statuses(question, "It sets preferred 批大小 to 4.") == {
        "preferred 批大小": (Status.COVERED, 1.0)
    }


def test_a_five_letter_word_may_have_one_typo() -> None:
    # `batch queue`: 5 + 5 letters, one edit in all (10 // 8); the quote is what was written.
    question = _question(Concept(label="batch queue"))
    result = score_answer(question, "It fills the bacth queue here.")
    assert [(h.label, h.text) for h in result.covered] == [("batch queue", "bacth queue")]


# -- names and statements: what a bare list is -------------------------------------------------


def test_a_name_with_a_verb_inside_it_is_still_only_listed() -> None:
    # 调度队列长度 (6 characters) holds the verb 调度, but it is a name: a list of names earns
    # LIST_CREDIT (0.3) each.
    question = _question(
        Concept(label="调度队列长度"), Concept(label="显存"), question="怎么监控推理服务？"
    )
    assert _statuses(question, "调度队列长度、显存。") == {
        "调度队列长度": (Status.LISTED, 0.3),
        "显存": (Status.LISTED, 0.3),
    }
    assert score_answer(question, "调度队列长度、显存。").score == 0.3


def test_a_one_word_identifier_made_of_verbs_is_a_name() -> None:
    # `cache-aside` opens with the verb "cache", but one Latin word is a name.
    question = _question(Concept(label="cache-aside"), question="How do you keep reads fast?")
    assert _statuses(question, "Redis, cache-aside, TTL.") == {"cache-aside": (Status.LISTED, 0.3)}


def test_long_names_in_a_list_are_not_statements() -> None:
    # Four words are as long as a clause, but they are one name: the sentence only lists.
    question = _question(
        Concept(label="max queue delay microseconds"),
        Concept(label="preferred batch size"),
        question="How do you tune dynamic batching?",
    )
    assert _statuses(question, "Max queue delay microseconds, preferred batch size.") == {
        "max queue delay microseconds": (Status.LISTED, 0.3),
        "preferred batch size": (Status.LISTED, 0.3),
    }


def test_a_required_part_is_what_is_said_not_a_name() -> None:
    # 推荐 is required with max_batch_size: it says something of it, so the sentence states
    # the concept rather than listing names.
    question = _question(
        Concept(label="batch size advice", aliases=("max_batch_size",), requires=(("推荐",),)),
        question="怎么设批大小？",
    )
    assert _statuses(question, "max_batch_size 推荐 8") == {
        "batch size advice": (Status.COVERED, 1.0)
    }


# -- short names of subjects set side by side ----------------------------------------------------


def _forms(*subjects: tuple[str, ...], question: str = "How do they differ?") -> dict[str, tuple]:
    """The short names `_short_forms` gives each subject (by its first name)."""
    concepts = tuple(
        Concept(label=f"claim {i}", aliases=(f"alias{i}x",), subject=names)
        for i, names in enumerate(subjects)
    )
    found = _short_forms(_question(*concepts, question=question))
    return {key[0]: forms for key, forms in found.items()}


@pytest.mark.parametrize(
    ("subjects", "expected"),
    [
        pytest.param(
            (("readiness probe",), ("liveness probe",)),
            {"readiness probe": ("readiness",), "liveness probe": ("liveness",)},
            id="two-subjects-share-the-head-noun",
        ),
        pytest.param(
            (("static batching",), ("continuous batching",), ("dynamic batching",)),
            {
                "static batching": ("static",),
                "continuous batching": ("continuous",),
                "dynamic batching": ("dynamic",),
            },
            id="three-subjects",
        ),
        pytest.param((("readiness probe",),), {}, id="one-subject-has-no-sibling-to-tell-apart"),
        pytest.param(
            (("静态批处理",), ("连续批处理",)),
            {"静态批处理": ("静态",), "连续批处理": ("连续",)},
            id="chinese-shared-ending",
        ),
        pytest.param(
            (("生成阶段",), ("预填阶段",)), {"预填阶段": ("预填",)}, id="生成-is-a-verb-not-a-name"
        ),
        pytest.param((("静态批处理",), ("连续调度",)), {}, id="no-shared-ending"),
        pytest.param((("量化的模型",), ("原模型",)), {}, id="an-adjective-in-的-is-no-name"),
        pytest.param((("大模型",), ("小模型",)), {}, id="one-character-is-too-short"),
        pytest.param((("KV 缓存",), ("显存",)), {}, id="mixed-or-unshared-names"),
        pytest.param(
            (("tensor pipeline expert parallelism",), ("data parallelism",)),
            {"data parallelism": ("data",)},
            id="at-most-two-words-of-four-letters-or-more",
        ),
        pytest.param(
            (("chunked prefill scheduler",), ("decode scheduler",)),
            {"chunked prefill scheduler": ("chunked prefill",), "decode scheduler": ("decode",)},
            id="two-words-kept",
        ),
        pytest.param(
            (("显存 offload cache",), ("prefix cache",)),
            {"prefix cache": ("prefix",)},
            id="a-name-mixing-scripts-has-none",
        ),
        pytest.param(
            (("cache",), ("prefix cache",)),
            {"prefix cache": ("prefix",)},
            id="a-name-made-only-of-the-siblings-words-has-none",
        ),
        pytest.param(
            (("small model",), ("draft model",)),
            {"draft model": ("draft",)},
            id="a-common-adjective-is-no-name",
        ),
        pytest.param(
            (("tp group",), ("expert group",)),
            {"expert group": ("expert",)},
            id="a-two-letter-word-is-too-short",
        ),
    ],
)
def test_the_short_names_of_subjects_set_side_by_side(
    subjects: tuple[tuple[str, ...], ...], expected: dict[str, tuple[str, ...]]
) -> None:
    assert _forms(*subjects) == expected


def test_a_short_name_the_question_uses_on_its_own_is_no_short_name() -> None:
    # "readiness 和 liveness probe": `readiness` stands alone in the question (it names both
    # probes there), `liveness` only inside the full name.
    question = "readiness 和 liveness probe 有什么区别？"
    assert _forms(("readiness probe",), ("liveness probe",), question=question) == {
        "liveness probe": ("liveness",)
    }


def test_full_names_are_taken_out_of_the_question_longest_first() -> None:
    # Taking out `batching` first would leave `adaptive` in the question, on its own.
    question = "What does adaptive batching add over batching?"
    assert _forms(("adaptive batching",), ("batching",), question=question) == {
        "adaptive batching": ("adaptive",)
    }


def test_a_claim_said_of_a_siblings_short_name_is_said_of_that_sibling() -> None:
    question = _question(
        Concept(
            label="readiness gates traffic", subject=("readiness probe",), aliases=("traffic",)
        ),
        Concept(
            label="liveness restarts the pod", subject=("liveness probe",), aliases=("restart",)
        ),
        question="How do the two probes differ?",
    )
    result = score_answer(question, "Liveness stops traffic; readiness restarts the pod.")
    assert [(h.label, h.status, h.said_of) for h in result.contradicted] == [
        ("readiness gates traffic", Status.MISATTRIBUTED, "Liveness"),
        ("liveness restarts the pod", Status.MISATTRIBUTED, "readiness"),
    ]


# -- phrases several claims or subjects share ----------------------------------------------------


def _batching() -> Question:
    return _question(
        Concept(label="batching needs a queue", aliases=("queue",)),
        Concept(label="static batching waits", subject=("static batching",), aliases=("waits",)),
        Concept(
            label="static batching schedules once",
            subject=("static batching",),
            aliases=("scheduling",),
        ),
        Concept(
            label="continuous batching schedules each step",
            subject=("continuous batching",),
            aliases=("scheduling",),
        ),
        question="How do they differ?",
    )


def test_a_phrase_the_claims_of_two_subjects_share_is_not_said_of_either() -> None:
    # `scheduling` is in a static and a continuous batching claim: said next to continuous
    # batching, it tells nothing of whose claim it is, so neither is said wrongly.
    answer = "In continuous batching scheduling is done every iteration."
    assert _statuses(_batching(), answer) == {
        "static batching schedules once": (Status.COVERED, 1.0),
        "continuous batching schedules each step": (Status.COVERED, 1.0),
    }


def test_a_phrase_only_one_subjects_claim_has_is_said_of_the_nearest_subject() -> None:
    result = score_answer(_batching(), "Continuous batching waits.")
    assert [(h.label, h.status, h.said_of) for h in result.contradicted] == [
        ("static batching waits", Status.MISATTRIBUTED, "Continuous batching")
    ]


def test_a_term_two_claims_share_does_not_state_a_claim_whose_own_term_is_denied() -> None:
    # INT4 is a term of both claims; 显存 only of the first, and it is denied: the first claim
    # is said wrongly, whatever INT4 earns. The second has both its terms, 带宽 and INT4.
    question = _question(
        Concept(label="一是显存", terms=(("显存",), ("INT4",))),
        Concept(label="二是带宽", terms=(("带宽",), ("INT4",))),
        question="量化有什么好处？",
    )
    answer = "显存并没有减少，INT4 主要省的是带宽。"
    assert _statuses(question, answer) == {
        "二是带宽": (Status.COVERED, 1.0),
        "一是显存": (Status.NEGATED, 0.0),
    }


# -- typos ---------------------------------------------------------------------------------------


def test_a_typo_in_the_first_letter_is_found_by_the_words_end() -> None:
    # `rensor` shares no first letter with `tensor`, but its last two letters.
    question = _question(Concept(label="tensor parallelism"))
    result = score_answer(question, "It uses rensor parallelism here.")
    assert [(h.label, h.text) for h in result.covered] == [
        ("tensor parallelism", "rensor parallelism")
    ]


def test_a_word_too_far_from_the_phrase_word_is_no_typo_even_within_the_budget() -> None:
    # `continuous batching` may be two edits off in all, but `batching` (8 letters) only one:
    # `btchng` is two edits from it.
    question = _question(Concept(label="continuous batching"))
    assert score_answer(question, "It runs continuous btchng here.").covered == []


def test_the_typo_memo_counts_each_word_once_and_empties_at_its_bound() -> None:
    # scoring.py's bound, written out (tests/test_memory_bounds.py keeps the same figure).
    bound = 20_000
    question = _question(Concept(label="request scheduler"))
    words = (
        "".join(letters)
        for letters in itertools.product("bcdfghjklmnpqrstvwxz", repeat=8)  # no typos of it
    )
    missing = bound - scoring.typo_memo_size()
    if missing > 0:
        score_answer(question, " ".join(itertools.islice(words, missing)))
    assert scoring.typo_memo_size() == bound
    score_answer(question, next(words))  # one more: every memo is emptied, then it is kept
    assert scoring.typo_memo_size() == 1
    # Two typos (`request` is a word of the question's own phrases: never looked up).
    score_answer(question, "Request schedulr, request schedular.")
    assert scoring.typo_memo_size() == 3
    again = score_answer(question, "Request schedulr, request schedular.")  # seen: not again
    assert scoring.typo_memo_size() == 3
    assert [h.text for h in again.covered] == ["Request schedulr"]  # still a typo
    clean = next(words)
    score_answer(question, clean)
    score_answer(question, clean)
    assert scoring.typo_memo_size() == 4


def test_a_word_too_far_off_fails_the_phrase_even_when_the_budget_would_cover_it() -> None:
    # 29 letters: three edits in all, but each word only its own share: `qxxxe` is three
    # edits from `queue` (5 letters: one), so the phrase is not named, though
    # `microsecnds` is one typo within its two.
    question = _question(Concept(label="maximum queue delay microseconds"))
    assert score_answer(question, "It sets maximum qxxxe delay microsecnds.").covered == []
    assert [
        h.text for h in score_answer(question, "It sets maximum queue delay microsecnds.").covered
    ] == ["maximum queue delay microsecnds"]


def test_a_phrase_whose_first_word_comes_twice_is_found_at_the_second() -> None:
    # `tensor cores` is not `tensor parallelism`; the second `tensor` starts it (with a typo).
    question = _question(Concept(label="tensor parallelism"))
    result = score_answer(question, "It uses tensor cores and tensor parallelsim.")
    assert [(h.text, h.start) for h in result.covered] == [("tensor parallelsim", 25)]


def test_typos_add_up_over_the_phrase() -> None:
    # `continuous batching` (18 letters) may be two edits off in all: `contnuos` (two, of
    # the ten-letter word's two) and `btching` (one, of its one) are three.
    question = _question(Concept(label="continuous batching"))
    assert score_answer(question, "It runs contnuos btching here.").covered == []
    assert [h.text for h in score_answer(question, "It runs contnuos batching.").covered] == [
        "contnuos batching"
    ]


# -- which subject a claim is said of ------------------------------------------------------------


def _dynamo(first: str, second: str) -> Question:
    return _question(
        Concept(label=f"{first} serves one node", subject=(first,), aliases=("单机推理",)),
        Concept(label=f"{second} orchestrates", subject=(second,), aliases=("分布式编排",)),
        question="两者有什么区别？",
    )


def test_a_name_inside_a_longer_name_of_another_subject_names_that_one() -> None:
    # `Triton` ends `Dynamo-Triton`, `Dynamo` starts it: either way the answer names
    # Dynamo-Triton, and a claim said of it is not the other subject's.
    result = score_answer(_dynamo("Triton", "Dynamo-Triton"), "Dynamo-Triton 负责单机推理。")
    assert [(h.label, h.status, h.said_of) for h in result.contradicted] == [
        ("Triton serves one node", Status.MISATTRIBUTED, "Dynamo-Triton")
    ]
    result = score_answer(_dynamo("Dynamo-Triton", "Dynamo"), "分布式编排由 Dynamo-Triton 负责。")
    assert [(h.label, h.status, h.said_of) for h in result.contradicted] == [
        ("Dynamo orchestrates", Status.MISATTRIBUTED, "Dynamo-Triton")
    ]
    assert _statuses(_dynamo("Triton", "Dynamo-Triton"), "Triton 负责单机推理。") == {
        "Triton serves one node": (Status.COVERED, 1.0)
    }


def _batching_zh() -> Question:
    return _question(
        Concept(label="static batching waits", subject=("静态批处理",), aliases=("等待",)),
        Concept(label="continuous batching is busy", subject=("连续批处理",), aliases=("利用率",)),
        question="两者有什么区别？",
    )


def test_a_claim_written_right_after_a_subject_is_said_of_it() -> None:
    # 静态批处理利用率高: no space between the subject and the claim.
    result = score_answer(_batching_zh(), "静态批处理利用率高。")
    assert [(h.label, h.status, h.said_of) for h in result.contradicted] == [
        ("continuous batching is busy", Status.MISATTRIBUTED, "静态批处理")
    ]


def test_an_answer_opening_with_xiangbijiao_has_no_comparand_there() -> None:
    # 相比较而言 ("comparatively") compares nothing named: the claim is still said of 静态批处理.
    result = score_answer(_batching_zh(), "相比较而言静态批处理利用率高。")
    assert [(h.label, h.status, h.said_of) for h in result.contradicted] == [
        ("continuous batching is busy", Status.MISATTRIBUTED, "静态批处理")
    ]


def test_a_subject_that_ends_the_answer_without_a_full_stop_is_in_the_clause() -> None:
    question = _question(
        Concept(label="Redis keeps data in memory", subject=("Redis",), aliases=("in memory",)),
        Concept(label="Memcached evicts by LRU", subject=("Memcached",), aliases=("LRU",)),
        question="How do they differ?",
    )
    result = score_answer(question, "Eviction by LRU is done by Redis")
    assert [(h.label, h.status, h.said_of) for h in result.contradicted] == [
        ("Memcached evicts by LRU", Status.MISATTRIBUTED, "Redis")
    ]


def test_a_name_two_subjects_share_binds_the_claim_in_its_clause() -> None:
    # `vLLM` names the engine and the backend: the claim in its clause is the backend's,
    # not the TensorRT-LLM clause's before it.
    question = _question(
        Concept(label="engine speed", subject=("vLLM", "the engine"), aliases=("paged attention",)),
        Concept(label="backend batch", subject=("vLLM", "the backend"), aliases=("batch size",)),
        Concept(
            label="TensorRT-LLM compiles", subject=("TensorRT-LLM",), aliases=("engine build",)
        ),
        question="How do they differ?",
    )
    answer = "TensorRT-LLM is fast, but vLLM sets the batch size."
    assert _statuses(question, answer) == {"backend batch": (Status.COVERED, 1.0)}


def test_a_term_at_the_start_of_another_subjects_name_says_nothing() -> None:
    # 训练 opens 训练后量化 (PTQ's name): it says nothing of QAT.
    question = _question(
        Concept(
            label="QAT trains with fake quantization", subject=("量化感知训练",), aliases=("训练",)
        ),
        Concept(label="PTQ needs no training", subject=("训练后量化",), aliases=("校准",)),
        question="两者有什么区别？",
    )
    assert _statuses(question, "训练后量化速度快。") == {}


def test_another_form_of_a_phrase_word_is_no_typo_of_a_different_word() -> None:
    # `caches` is `caching` in another form (a word of this question), not `catches` with a
    # letter missing; `catchs` is that typo.
    question = _question(
        Concept(label="prefix caching"),
        Concept(label="catches errors"),
        question="What does the proxy do?",
    )
    assert _statuses(question, "It caches errors.") == {}
    assert _statuses(question, "It catchs errors.") == {"catches errors": (Status.COVERED, 1.0)}


# -- what the question's own texts decide (compiled once per question) --------------------------


def test_a_key_term_the_question_itself_uses_does_not_count() -> None:
    # "KV cache" is in the question: the claim is stated by its other term alone.
    question = _question(
        Concept(label="KV cache eviction", terms=(("KV cache",), ("evict",))),
        question="What does the KV cache hold?",
    )
    assert _statuses(question, "Old pages evict under pressure.") == {
        "KV cache eviction": (Status.COVERED, 1.0)
    }
    assert _statuses(question, "The KV cache is big.") == {}


def test_a_subject_written_with_a_typo_is_still_that_subject() -> None:
    result = score_answer(_batching(), "Continous batching waits.")
    assert [(h.label, h.status, h.said_of) for h in result.contradicted] == [
        ("static batching waits", Status.MISATTRIBUTED, "Continous batching")
    ]


def test_each_term_keeps_the_polarity_it_has_where_the_reference_states_the_claim() -> None:
    # The claim (its label, as imported) denies 重算 and affirms KV cache: denying KV cache
    # contradicts it, denying 重算 agrees (one of two terms: half).
    claim = "不用重算，直接复用 KV cache"
    question = _question(
        Concept(label=claim, terms=(("重算",), ("KV cache",))),
        question="prefix caching 有什么用？",
        answer=f"Prefix caching: {claim}。",
    )
    assert _statuses(question, "KV cache 不会复用。") == {claim: (Status.NEGATED, 0.0)}
    assert _statuses(question, "不用重算。") == {claim: (Status.COVERED, 0.5)}


def test_a_term_that_opens_the_claim_keeps_its_own_polarity() -> None:
    claim = "KV cache 直接复用，不用重算"
    question = _question(
        Concept(label=claim, terms=(("KV cache",), ("重算",))),
        question="prefix caching 有什么用？",
        answer=f"{claim}。",
    )
    assert _statuses(question, "KV cache 不会复用。") == {claim: (Status.NEGATED, 0.0)}


def test_a_claim_the_reference_does_not_spell_out_takes_the_labels_polarity() -> None:
    # The reference ("Reference.") does not say it: the label is a denial, so a denial of
    # its term agrees.
    question = _question(
        Concept(label="不用重算", terms=(("重算",),)), question="prefix caching 有什么用？"
    )
    assert _statuses(question, "不用重算。") == {"不用重算": (Status.COVERED, 1.0)}


def test_the_other_pole_of_what_the_reference_says_is_a_contradiction() -> None:
    question = _question(
        Concept(label="ITL 变差", aliases=("ITL",)),
        question="token 预算大有什么影响？",
        answer="ITL 越差。",
    )
    assert _statuses(question, "ITL 越好。") == {"ITL 变差": (Status.NEGATED, 0.0)}
    assert _statuses(question, "ITL 也越差。") == {"ITL 变差": (Status.COVERED, 1.0)}


def test_a_setting_the_reference_lowers_once_and_names_once_is_lowered() -> None:
    # One place lowers max_num_seqs, the other turns it no way: the reference lowers it.
    question = _question(
        Concept(label="lower max_num_seqs", aliases=("max_num_seqs",)),
        answer=(
            "We lower the configured scheduler limit max_num_seqs when memory is tight. "
            "max_num_seqs caps the batch."
        ),
    )
    answer = "We raise the configured scheduler limit max_num_seqs when memory is tight."
    assert _statuses(question, answer) == {"lower max_num_seqs": (Status.NEGATED, 0.0)}


def test_concepts_the_reference_only_lists_are_stated_by_listing_them() -> None:
    question = _question(
        Concept(label="tokenizer"),
        Concept(label="GC"),
        Concept(label="日志"),
        question="CPU 侧开销在哪？",
        answer="CPU 侧：tokenizer、GC、日志。",
    )
    assert _statuses(question, "tokenizer、GC、日志。") == {
        "tokenizer": (Status.COVERED, 1.0),
        "GC": (Status.COVERED, 1.0),
        "日志": (Status.COVERED, 1.0),
    }


def test_the_reference_pasted_back_is_not_mixed_up_with_itself() -> None:
    # In the reference, `hit ratio` stands nearer `Vary` than the shared cache its claim is
    # of: read by the nearest subject, the reference would contradict itself.
    question = _question(
        Concept(
            label="Vary lists request headers", subject=("Vary",), aliases=("request headers",)
        ),
        Concept(
            label="A shared cache stores one copy per value, so a longer Vary list lowers the "
            "hit ratio",
            subject=("shared cache",),
            terms=(("hit ratio",), ("one copy per value",)),
        ),
        question="How does the Vary header affect a shared cache?",
        answer=(
            "Vary lists the request headers that select a variant. A shared cache stores one "
            "copy per value, so a longer Vary list lowers the hit ratio."
        ),
    )
    result = score_answer(question, question.answer)
    assert result.contradicted == []
    assert result.score == 1.0


# -- a subject given another claim's meaning -----------------------------------------------------


def _parameters() -> Question:
    return _question(
        Concept(
            label="max_batch_size 限制一批的请求数",
            subject=("max_batch_size",),
            aliases=("max_batch_size",),
        ),
        Concept(
            label="max_queue_delay 是请求最多等多久",
            subject=("max_queue_delay",),
            aliases=("最多等多久",),
        ),
        question="这两个参数分别是什么意思？",
    )


def test_a_parameter_given_another_parameters_meaning_is_said_wrongly() -> None:
    # "max_batch_size 是请求最多等多久" names max_batch_size and gives it max_queue_delay's
    # meaning: both claims are said wrongly, each naming the other.
    result = score_answer(_parameters(), "max_batch_size 是请求最多等多久。")
    assert [(h.label, h.status, h.said_of) for h in result.contradicted] == [
        (
            "max_batch_size 限制一批的请求数",
            Status.MISATTRIBUTED,
            "max_queue_delay 是请求最多等多久",
        ),
        ("max_queue_delay 是请求最多等多久", Status.MISATTRIBUTED, "max_batch_size"),
    ]
    assert result.score == 0.0


# -- the most favourable of the places a concept is named ----------------------------------------


def test_a_later_place_with_the_required_part_states_the_concept() -> None:
    answer = "Prefill sets the chunk size. Prefill uses 512 for the chunk size."
    result = score_answer(_chunks(), answer)
    assert [(h.label, h.status, h.start) for h in result.covered] == [
        ("prefill chunk size 512", Status.COVERED, answer.rindex("chunk size"))
    ]


def test_a_later_place_counts_after_one_inside_another_subjects_name() -> None:
    question = _question(
        Concept(label="QAT fakes quantization", subject=("量化感知训练",), aliases=("训练",)),
        Concept(label="PTQ calibrates", subject=("训练后量化",), aliases=("校准",)),
        question="两者有什么区别？",
    )
    answer = "训练后量化更快；量化感知训练在训练中模拟量化。"
    assert _statuses(question, answer) == {"QAT fakes quantization": (Status.COVERED, 1.0)}


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param(
            "How does the TTL expire? The TTL removes keys after a set time.", id="question-first"
        ),
        pytest.param("TTL 具体怎么过期我不太清楚。TTL 到期后键会被删除。", id="unsure-first"),
    ],
)
def test_a_statement_after_a_question_or_a_doubt_counts(answer: str) -> None:
    question = _question(
        Concept(label="TTL expiry", aliases=("TTL",)), question="How do keys leave the cache?"
    )
    result = score_answer(question, answer)
    assert [(h.label, h.status, h.start) for h in result.covered] == [
        ("TTL expiry", Status.COVERED, answer.rindex("TTL"))
    ]


def test_a_bare_list_then_a_statement_earns_the_statement() -> None:
    answer = "KV cache, PagedAttention. PagedAttention is fast."
    question = _question(Concept(label="PagedAttention"))
    result = score_answer(question, answer)
    assert [(h.status, h.credit, h.start) for h in result.covered] == [
        (Status.COVERED, 1.0, answer.rindex("PagedAttention"))
    ]


def test_two_bare_lists_quote_the_first() -> None:
    answer = "KV cache, PagedAttention. PagedAttention, vLLM."
    result = score_answer(_question(Concept(label="PagedAttention")), answer)
    assert [(h.status, h.credit, h.start) for h in result.covered] == [
        (Status.LISTED, 0.3, answer.index("PagedAttention"))
    ]


def test_a_name_inside_its_own_subjects_name_is_not_another_subjects() -> None:
    # `Triton` inside `Dynamo-Triton`, for a claim of Dynamo-Triton itself.
    question = _question(
        Concept(
            label="Dynamo-Triton serves one node", subject=("Dynamo-Triton",), aliases=("Triton",)
        ),
        Concept(label="Dynamo orchestrates", subject=("Dynamo",), aliases=("分布式编排",)),
        question="两者有什么区别？",
    )
    assert _statuses(question, "Dynamo-Triton 负责单机推理。") == {
        "Dynamo-Triton serves one node": (Status.COVERED, 1.0)
    }


def test_a_subject_named_and_then_denied_is_said_wrongly() -> None:
    # max_batch_size only named, then its meaning denied (不限制请求数): the denial stands.
    question = _question(
        Concept(
            label="max_batch_size 限制请求数",
            subject=("max_batch_size",),
            aliases=("max_batch_size", "请求数"),
        ),
        Concept(label="delay", subject=("max_queue_delay",), aliases=("等待",)),
        question="参数是什么意思？",
    )
    result = score_answer(question, "max_batch_size：不限制请求数。")
    assert [(h.label, h.status, h.phrase) for h in result.contradicted] == [
        ("max_batch_size 限制请求数", Status.NEGATED, "请求数")
    ]


# -- values said next to a term ------------------------------------------------------------------


def test_a_value_after_another_named_term_is_that_terms() -> None:
    # "TTFT 低时 ITL 越差": 越差 is said of ITL (named between), not of TTFT.
    question = _question(
        Concept(label="TTFT 变好", aliases=("TTFT",)),
        Concept(label="ITL 变差", aliases=("ITL",)),
        question="token 预算大有什么影响？",
        answer="TTFT 越好、ITL 越差。",
    )
    assert _statuses(question, "TTFT 低时 ITL 越差。") == {
        "TTFT 变好": (Status.COVERED, 1.0),
        "ITL 变差": (Status.COVERED, 1.0),
    }


def test_the_other_pole_said_of_the_claims_own_subject_is_a_contradiction() -> None:
    question = _question(
        Concept(
            label="static batching wastes GPU", subject=("静态批处理",), aliases=("GPU 利用率",)
        ),
        Concept(label="continuous batching rejoins", subject=("连续批处理",), aliases=("每步",)),
        question="两者有什么区别？",
        answer="静态批处理的 GPU 利用率低。",
    )
    assert _statuses(question, "静态批处理的 GPU 利用率高。") == {
        "static batching wastes GPU": (Status.NEGATED, 0.0)
    }


def test_the_other_pole_of_a_subjects_claim_with_no_subject_named_states_nothing() -> None:
    # "GPU 利用率高" with neither batching named: of 静态批处理 it would be the opposite,
    # of 连续批处理 the contrast; either way 静态批处理's claim (low) is not stated: no
    # credit, nothing taken off.
    question = _question(
        Concept(
            label="static batching wastes GPU", subject=("静态批处理",), aliases=("GPU 利用率",)
        ),
        Concept(label="continuous batching rejoins", subject=("连续批处理",), aliases=("每步",)),
        question="两者有什么区别？",
        answer="静态批处理的 GPU 利用率低。",
    )
    assert _statuses(question, "GPU 利用率高。") == {}
    assert score_answer(question, "GPU 利用率高。").coverage == 0.0
    # The reference's own pole with no subject named is still credited ("not known whose").
    assert _statuses(question, "GPU 利用率低。") == {
        "static batching wastes GPU": (Status.COVERED, 1.0)
    }


# -- spelling and quotes -------------------------------------------------------------------------


def test_a_word_the_question_uses_is_no_typo_of_a_phrase_word() -> None:
    # `contiguous` is in the reference: spelled right, not `continuous` mistyped.
    question = _question(
        Concept(label="continuous batching"),
        question="Why batch?",
        answer="PagedAttention avoids contiguous KV memory; continuous batching keeps GPUs busy.",
    )
    assert score_answer(question, "It needs contiguous batching memory.").covered == []


@pytest.mark.parametrize(
    ("label", "answer", "quote"),
    [
        pytest.param("8 bit quantization", "We use 8 bit quantization.", "8 bit quantization"),
        pytest.param("batch size 8", "Use batch size 8 here.", "batch size 8"),
    ],
)
def test_the_quote_of_a_phrase_with_a_one_character_word_at_an_end(
    label: str, answer: str, quote: str
) -> None:
    result = score_answer(_question(Concept(label=label)), answer)
    assert [(h.text, h.start) for h in result.covered] == [(quote, answer.index(quote))]


def test_a_term_in_a_later_sentences_list_with_a_denial_is_only_listed() -> None:
    # The denial (不能超卖) is its own item's: `limits`, listed beside it, is only named.
    question = _question(Concept(label="limits"), question="GPU 怎么分配？")
    for answer in (
        "Batching is fast. device plugin, limits, 整数, 不能超卖, MIG。",
        "GPU 呢？ device plugin, limits, 整数, 不能超卖, MIG。",
    ):
        assert _statuses(question, answer) == {"limits": (Status.LISTED, 0.3)}


def test_two_names_denied_together_are_both_denied() -> None:
    question = _question(Concept(label="sticky sessions"), Concept(label="retries"))
    assert _statuses(question, "Sticky sessions and retries are not needed.") == {
        "sticky sessions": (Status.NEGATED, 0.0),
        "retries": (Status.NEGATED, 0.0),
    }


def test_an_answer_that_contradicts_earns_no_relevance() -> None:
    # 0.5 for batching, 0.6 of paging's 0.5 taken off for denying it: 0.2, and no share of
    # the gap for the reference's words ("a false claim is worse than silence").
    question = _question(
        Concept(label="batching"),
        Concept(label="paging"),
        question="How?",
        answer="Batching merges requests in 2 steps.",
    )
    result = score_answer(question, "Batching merges requests. Paging is not used.")
    assert result.relevance == 0.0
    assert result.score == pytest.approx(0.5 - 0.5 * 0.6)
    assert result.question_id == "t-q1"


def test_a_bare_list_the_reference_also_lists_earns_relevance() -> None:
    # The reference's own words beyond the question: tokenizer, GC, 日志; the answer lists two
    # of them (and so states two of three concepts): 2/3 + 1/3 * 0.15 * 2/3 = 0.7.
    question = _question(
        Concept(label="tokenizer"),
        Concept(label="GC"),
        Concept(label="日志"),
        question="CPU 侧开销在哪？",
        answer="CPU 侧：tokenizer、GC、日志。",
    )
    result = score_answer(question, "tokenizer、GC。")
    assert result.relevance == pytest.approx(2 / 3)
    assert result.score == pytest.approx(0.7)


def test_a_reference_made_only_of_the_questions_words_adds_no_relevance() -> None:
    question = _question(
        Concept(label="batches requests"),
        question="What do batching and merging do?",
        answer="Batching, merging.",
    )
    result = score_answer(question, "It batches requests.")
    assert (result.coverage, result.relevance, result.score) == (1.0, 0.0, 1.0)


def test_a_claims_polarity_is_read_in_its_own_sentence_only() -> None:
    # The claim denies 重算; the next sentence names 重算 without denying it ("重算很慢"):
    # that is not the claim, so denying 重算 still agrees with it (one of two terms: half).
    claim = "不用重算，直接复用 KV cache"
    question = _question(
        Concept(label=claim, terms=(("重算",), ("KV cache",))),
        question="prefix caching 有什么用？",
        answer=f"{claim}。重算很慢。",
    )
    assert _statuses(question, "不用重算。") == {claim: (Status.COVERED, 0.5)}


@pytest.mark.parametrize(
    "label",
    [
        pytest.param("不用重算，直接复用 KV", id="a-two-word-claim"),
        pytest.param("不用重算，直接复用 KV…", id="a-claim-cut-short-with-an-ellipsis"),
    ],
)
def test_a_claim_is_found_in_the_reference_however_short_or_cut(label: str) -> None:
    # Found where the reference says it, each term keeps its own polarity there: 复用 is
    # affirmed (the label as a whole is a denial), so denying it contradicts the claim.
    question = _question(
        Concept(label=label, terms=(("重算",), ("复用",))),
        question="prefix caching 有什么用？",
        answer="Prefix caching: 不用重算，直接复用 KV cache。",
    )
    assert _statuses(question, "KV cache 不会复用。") == {label: (Status.NEGATED, 0.0)}


def test_a_subject_name_with_a_typo_is_found_though_no_label_has_its_words() -> None:
    question = _question(
        Concept(label="waits for a full batch", subject=("static batching",), aliases=("waits",)),
        Concept(label="rejoins every step", subject=("continuous batching",), aliases=("rejoins",)),
        question="How do they differ?",
    )
    result = score_answer(question, "Continous batching waits.")
    assert [(h.label, h.status, h.said_of) for h in result.contradicted] == [
        ("waits for a full batch", Status.MISATTRIBUTED, "Continous batching")
    ]


def test_a_concept_stated_by_its_alias_earns_it_whole_though_one_term_is_said_too() -> None:
    # Two readings of one answer: the alias states the concept (1.0), the terms half of it
    # (one of two); the better reading counts.
    question = _question(
        Concept(
            label="write-ahead logging",
            aliases=("write-ahead log", "WAL"),
            terms=(("durable",), ("fsync",)),
        )
    )
    answer = "A WAL makes commits durable."
    assert _statuses(question, answer) == {"write-ahead logging": (Status.COVERED, 1.0)}
