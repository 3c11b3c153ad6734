"""The mock interview's report card (bot/picture.py): every glyph it draws is in the bundled
font, the shipped packs' topics are drawn whole, and each question has its row."""

from __future__ import annotations

import io
from datetime import date

import pytest
from fontTools.ttLib import TTFont
from PIL import Image

from bot.core.content import Library
from bot.core.mock import MockRow, mock_report
from bot.i18n import Strings
from bot.picture import EMPTY, WIDTH, card_bar, mock_card_text, render_mock_card
from tests.conftest import CONTENT

STRINGS = Strings.load(CONTENT / "strings")
FONT = CONTENT / "fonts" / "NotoSansSC-subset.otf"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_glyph_the_card_draws_is_in_the_bundled_font(lang: str) -> None:
    cmap = TTFont(FONT).getBestCmap()
    assert {ch for ch in mock_card_text(STRINGS, lang) if ord(ch) not in cmap} == set()


def test_every_concept_label_of_the_shipped_packs_is_drawable(library: Library) -> None:
    # A mock's topics and /stats' weak spots are concept labels: the subset has them all.
    cmap = TTFont(FONT).getBestCmap()
    labels = {c.label for q in library.questions.values() for c in q.concepts}
    missing = {ch for label in labels for ch in label if ord(ch) not in cmap and ch != " "}
    assert missing == set()


@pytest.mark.parametrize("count", [1, 3, 10])
def test_the_card_has_a_row_per_question_with_its_score_bar(count: int) -> None:
    scores = [(i % 4) / 4 for i in range(count)]  # 0%, 25%, 50%, 75%, 0%, …
    rows = [MockRow(i, f"q{i}", f"topic {i}", s, (), 60 + i) for i, s in enumerate(scores)]
    card = render_mock_card(
        strings=STRINGS,
        lang="en",
        fonts=CONTENT / "fonts",
        report=mock_report(rows, count, None, None),
        day=date(2026, 3, 2),
    )
    image = Image.open(io.BytesIO(card))
    assert image.format == "PNG" and image.size[0] == WIDTH  # phone width, as /stats
    for i, score in enumerate(scores):
        # Each bar filled (green) from its left end up to the score, empty after.
        left, top, right, bottom = card_bar(i)
        y = (top + bottom) // 2
        assert image.getpixel((right - 15, y)) == EMPTY  # no row reaches 100%
        filled = image.getpixel((left + 15, y)) != EMPTY
        assert filled == (score >= 0.25), (i, score)
