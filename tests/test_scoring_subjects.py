"""Which subject a claim is said of, when one subject's name sits inside another's."""

from __future__ import annotations

import pytest

from bot.core.content import Concept, Question
from bot.core.scoring import Status, score_answer

QUESTION = Question(
    id="t-dynamo",
    level="advanced",
    question="Dynamo 和 Dynamo-Triton 分别负责什么？",
    answer="Dynamo 做 KV-aware routing；Dynamo-Triton 提供 OpenAI-compatible API。",
    concepts=(
        Concept(label="Dynamo 路由", aliases=("KV-aware routing",), subject=("Dynamo",)),
        Concept(label="Dynamo-Triton 接口", aliases=("OpenAI API",), subject=("Dynamo-Triton",)),
    ),
)


def test_dynamo_inside_dynamo_triton_names_dynamo_triton() -> None:
    # Said of Dynamo-Triton, not of the Dynamo inside its name: mixed up, no credit.
    result = score_answer(QUESTION, "Dynamo-Triton 做 KV-aware routing。")
    assert result.covered_labels == []
    assert [(h.label, h.status) for h in result.contradicted] == [
        ("Dynamo 路由", Status.MISATTRIBUTED)
    ]


def test_dynamo_on_its_own_is_dynamo() -> None:
    result = score_answer(QUESTION, "Dynamo 做 KV-aware routing。")
    assert result.covered_labels == ["Dynamo 路由"]


# A claim of one subject that names another as its object: "…把 batch 限制在…" in a claim of
# throughput. (From a graded answer, grade 4: "按 SLO 来选 batch 上限" was read as SLO said
# of batch instead of throughput, a mix-up that cost it the claim and more.)
TRADE_OFF = "吞吐和延迟不能同时最优，应先定 SLO，再用参数把 batch 限制在这个点附近"
BATCHING = "batch 加大后每秒 token 数上升"


def _trade_off_question(*, trade_off_first: bool = False) -> Question:
    concepts = [
        Concept(label=BATCHING, subject=("batch",), terms=(("每秒 token 数",), ("上升",))),
        Concept(label=TRADE_OFF, subject=("吞吐",), terms=(("SLO",), ("延迟",))),
    ]
    return Question(
        id="t-batch",
        level="advanced",
        question="batch 大小怎么选？",
        answer=f"{BATCHING}。{TRADE_OFF}。",
        # The claim's subject second or first (the question's subjects are numbered from 0).
        concepts=tuple(reversed(concepts)) if trade_off_first else tuple(concepts),
    )


@pytest.mark.parametrize("trade_off_first", [False, True], ids=["second", "first"])
def test_a_term_said_of_a_subject_the_claim_names_as_its_object_is_said_as_the_claim_says(
    trade_off_first: bool,
) -> None:
    question = _trade_off_question(trade_off_first=trade_off_first)
    result = score_answer(question, "按 SLO 来选 batch 上限。")
    assert result.contradicted == []
    assert [(h.label, h.credit) for h in result.covered] == [(TRADE_OFF, 0.5)]


# The reference's own claim says a term of another subject that opens a clause of its own
# (`; the Vary list lowers the hit ratio`): that subject is no object of the claim, but the
# term is said as the reference says it, so the reference pasted back is not mixed up.
VARY_CLAIM = "A shared cache keeps one copy per Vary value; the Vary list lowers the hit ratio"


def test_a_term_the_claim_itself_says_of_another_subject_is_not_read_by_the_nearest_one() -> None:
    question = Question(
        id="t-vary",
        level="advanced",
        question="How does Vary affect a shared cache?",
        answer=f"{VARY_CLAIM}. The Vary list names the headers.",
        concepts=(
            Concept(
                label=VARY_CLAIM, subject=("shared cache",), terms=(("one copy",), ("hit ratio",))
            ),
            Concept(
                label="the Vary list names the headers",
                subject=("Vary list",),
                aliases=("names the headers",),
            ),
        ),
    )
    result = score_answer(question, VARY_CLAIM)
    assert result.contradicted == []
    assert [(h.label, h.credit) for h in result.covered] == [(VARY_CLAIM, 1.0)]


def test_a_term_said_of_a_subject_with_a_claim_of_its_own_is_still_mixed_up() -> None:
    # The other subject opens a clause of the same sentence with its own claim: said of it,
    # the term is the swap the reference's sentence rules out.
    swap = "prefill 是 compute-bound，decode 是 memory-bound"
    question = Question(
        id="t-pd",
        level="advanced",
        question="prefill 和 decode 的瓶颈各是什么？",
        answer=f"{swap}。",
        concepts=(
            Concept(label=swap, subject=("prefill",), terms=(("compute-bound",),)),
            Concept(label="decode 受带宽限制", subject=("decode",), terms=(("memory-bound",),)),
        ),
    )
    result = score_answer(question, "decode 是 compute-bound 的。")
    assert [(h.label, h.status) for h in result.contradicted] == [(swap, Status.MISATTRIBUTED)]
