"""What counts as an attempt at an answer (before scoring)."""

from __future__ import annotations

import pytest

from bot.core.answers import is_substantive


@pytest.mark.parametrize(
    "text", ["x", "ok", "??", "12", "好", "aaaa", "x y", "😀😀😀", "ＡＢ", "", "  ", "a.", "好好"]
)
def test_not_an_attempt(text: str) -> None:
    assert not is_substantive(text)


@pytest.mark.parametrize("text", ["GIL", "好的", "缓存", "yes", "max_batch_size", "ab c", "批 x"])
def test_an_attempt(text: str) -> None:
    assert is_substantive(text)
