"""The Chinese predicate cues find the same words with their speed-up as without it.

`_PREDICATE_RE` is the cue list behind "does this sentence say something?" (a bare list of
terms earns less than a statement). For speed it is rewritten so each alternative starts
with a literal character (`_literal_first`); a cue the rewrite lost or changed would
silently stop counting, and the sentences it marks would be read as bare lists.
"""

from __future__ import annotations

import re

import pytest

from bot.core.scoring.cues import _PREDICATE_PATTERN, _PREDICATE_RE, _literal_first

SENTENCES = [
    "两种模式：poll 和 explicit",
    "多种 backend 都能用",
    "几种调度方式",
    "模型能热更新",
    "它会阻塞",
    "用共享内存通信",
    "是一个推理服务",
    "可以减少显存占用",
    "需要凑够 batch 才发",
    "在线推理服务",  # 在 followed by 线: not a cue
    "会话保持",  # 会话 is a noun
    "性能很好",  # 性能: 能 after 性 is not a cue (but 很 is)
    "有状态的模型",  # 有状态: not a cue
]


@pytest.mark.parametrize("text", SENTENCES)
def test_the_rewrite_changes_no_match(text: str) -> None:
    plain = re.compile(_PREDICATE_PATTERN)
    assert [m.span() for m in _PREDICATE_RE.finditer(text)] == [
        m.span() for m in plain.finditer(text)
    ]


def test_cues_found_in_sentences_people_write() -> None:
    found = {t: [m.group() for m in _PREDICATE_RE.finditer(t)] for t in SENTENCES[:5]}
    assert found == {
        "两种模式：poll 和 explicit": ["两种"],
        "多种 backend 都能用": ["多种", "都", "能", "用"],
        "几种调度方式": ["几种", "调度"],
        "模型能热更新": ["能", "更"],  # 更 ("more") is a cue, also inside 更新
        "它会阻塞": ["会", "阻塞"],
    }
    assert [m.group() for m in _PREDICATE_RE.finditer("会话保持")] == []
    assert [m.group() for m in _PREDICATE_RE.finditer("在线推理")] == []


def test_the_rewrite_starts_every_alternative_with_a_character() -> None:
    # Plain words, a look back before a word, a class of first characters, and a `|`
    # inside a group, which is not an alternative of the whole.
    built = _literal_first(r"是|(?<![性功])能(?!力)|[两二]种|(?<=[调])大|要(?!求|素)")
    assert built == r"是|能(?<![性功]能)(?!力)|两种|二种|大(?<=[调]大)|要(?!求|素)"
