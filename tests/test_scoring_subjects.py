"""Which subject a claim is said of, when one subject's name sits inside another's."""

from __future__ import annotations

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
