"""Which subject a claim is said of (bot/core/scoring.py): a term that is the end of
another subject's name says nothing of its concept; a term right before a subject's name is
said of that subject; an object named in the clause before is not the claim's subject.

Written for survivors of the mutation run: 推理 inside 模型推理, near the start of the
answer, with the concept's own subject (大模型) the sixth of the question's subjects; 请求级
and 迭代级 put right before the batching they describe; 连续批处理 named right before 导致.
Which concept is credited, or said of the other subject, is read off the answer by eye.
"""

from __future__ import annotations

from bot.core.content import Concept, Question
from bot.core.levels import Level
from bot.core.scoring import Status, score_answer

_OTHERS = ("模型推理", "Redis", "Kafka", "etcd", "Nginx")

QUESTION = Question(
    id="t-six-subjects",
    level="advanced",
    question="这些组件分别做什么？",
    answer="模型推理、Redis、Kafka、etcd、Nginx 各有要点；大模型的推理很快。",
    concepts=(
        *(
            Concept(label=f"{name} 的要点", aliases=(f"要点{i}",), subject=(name,))
            for i, name in enumerate(_OTHERS)
        ),
        Concept(label="大模型 推理", aliases=("推理",), subject=("大模型",)),
    ),
)


def test_the_term_said_of_its_own_subject_is_credited() -> None:
    result = score_answer(QUESTION, "大模型的推理很快。")
    assert result.covered_labels == ["大模型 推理"]


def test_the_term_as_the_end_of_another_subjects_name_is_not() -> None:
    # 大模型推理: 推理 here is the end of 模型推理, the name of another subject.
    result = score_answer(QUESTION, "大模型推理很快。")
    assert result.covered_labels == []
    assert result.contradicted == []


STATIC = ("static batching", "静态批处理")
CONTINUOUS = ("continuous batching", "连续批处理")
BATCHING = Question(
    id="t-batching-levels",
    level=Level.INTERMEDIATE,
    question="continuous batching 和 static batching 有什么区别？",
    answer=(
        "静态批处理是请求级调度，要等最长的序列结束，GPU 利用率低。"
        "连续批处理是迭代级调度，已完成的序列立即退出。"
    ),
    concepts=(
        Concept(label="静态批处理 请求级调度", subject=STATIC, terms=(("请求级",),)),
        Concept(label="静态批处理 GPU 利用率低", subject=STATIC, terms=(("GPU 利用率",),)),
        Concept(label="连续批处理 迭代级调度", subject=CONTINUOUS, terms=(("迭代级",),)),
    ),
)


def _verdicts(answer: str) -> dict[str, Status]:
    result = score_answer(BATCHING, answer)
    return {h.label: h.status for h in (*result.covered, *result.contradicted)}


def test_a_level_put_right_before_the_other_batching_is_said_of_that_one() -> None:
    # Swapped: the answer calls continuous batching request-level and static batching
    # iteration-level. Each term sits right before the name of the subject it describes.
    assert _verdicts("请求级连续批处理，迭代级静态批处理。") == {
        "静态批处理 请求级调度": Status.MISATTRIBUTED,
        "连续批处理 迭代级调度": Status.MISATTRIBUTED,
    }


def test_an_object_named_right_before_a_connective_is_not_the_claims_subject() -> None:
    # 连续批处理 is what static batching does without (没有用 …); the claim after 导致 is
    # said of the sentence's topic, static batching, whose GPU utilisation the reference
    # also calls low.
    answer = "静态批处理要等最长的序列，没有用连续批处理导致 GPU 利用率低。"
    assert _verdicts(answer) == {"静态批处理 GPU 利用率低": Status.COVERED}
