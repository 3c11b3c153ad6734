"""The mock interview's report: its card (bot/picture.py: every glyph it draws is in the
bundled font, the shipped packs' topics are drawn whole, each question has its row) and its
message (one, valid HTML, every label escaped, within Telegram's limit)."""

from __future__ import annotations

import io
from datetime import date

import pytest
from fontTools.ttLib import TTFont
from PIL import Image

from bot.core.content import Library
from bot.core.mock import End, MockEnded, MockRow, mock_report
from bot.i18n import Strings
from bot.picture import EMPTY, WIDTH, card_bar, mock_card_text, render_mock_card
from bot.render import utf16_len
from bot.render_mock import report_message
from tests.conftest import CONTENT
from tests.support.fake_bot_api import parse_telegram_html

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


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_ten_question_report_of_long_labels_is_one_valid_message(lang: str) -> None:
    # Labels as long as a pack may write them (120 characters), with markup characters in.
    long = "<b>KV cache</b> & paged attention " * 4
    rows = [
        MockRow(i, f"q{i}", long[:120], 0.5, (long[:120],) * 6, 3599, long[:120], 0.25)
        for i in range(10)
    ]
    ended = MockEnded(7, End.STOPPED, mock_report(rows, 10, 0.4, 180))
    text = report_message(STRINGS, lang, ended)
    assert utf16_len(text) <= 4096  # Telegram's limit: one message
    visible = parse_telegram_html(text)  # raises where Telegram would refuse the HTML
    assert "<b>KV cache</b> & paged" in visible  # the label's markup shown, not applied
    assert visible.count("\n    ❌ ") == 10  # every row, none cut off
