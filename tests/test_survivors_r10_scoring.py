"""A concept's term that is the end of another subject's name says nothing of the concept
(bot/core/scoring.py), in a question with six subjects.

Written for a survivor of the mutation run: 推理 inside 模型推理, near the start of the
answer, with the concept's own subject (大模型) the sixth of the question's subjects. Which
concept is credited is read off the answer by eye.
"""

from __future__ import annotations

from bot.core.content import Concept, Question
from bot.core.scoring import score_answer

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
