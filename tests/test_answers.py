"""What counts as an attempt at an answer (before scoring)."""

from __future__ import annotations

import pytest

from bot.core.answers import is_one_word, is_substantive


@pytest.mark.parametrize(
    "text", ["x", "ok", "??", "12", "好", "aaaa", "x y", "😀😀😀", "ＡＢ", "", "  ", "a.", "好好"]
)
def test_not_an_attempt(text: str) -> None:
    assert not is_substantive(text)


@pytest.mark.parametrize("text", ["GIL", "好的", "缓存", "yes", "max_batch_size", "ab c", "批 x"])
def test_an_attempt(text: str) -> None:
    assert is_substantive(text)


@pytest.mark.parametrize(
    "text",
    [
        "缓存",
        "cache",
        "idk",
        "max_batch_size",
        "KV-cache!",
        " Cache. ",
        "不知道",
        "我不知道",
        "ＧＩＬ",
    ],
)
def test_one_word_is_one_word(text: str) -> None:
    assert is_one_word(text)


@pytest.mark.parametrize(
    "text",
    [
        "cache it",
        "用Redis",
        "动态批处理",
        "我不知道这个",
        "缓存 预热",
        "max_batch_size 是上限",
        "KV cache",
    ],
)
def test_more_than_one_word_is_an_answer(text: str) -> None:
    assert not is_one_word(text)
