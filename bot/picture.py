"""The /stats picture: a 12-week calendar heat map, streaks and coverage per level (PNG).

Drawn with Pillow and the bundled CJK font subset (`content/fonts/`), so it renders the same
in English and Chinese everywhere, with no system fonts. Only interface strings and numbers
are drawn, never user text: every glyph is in the subset. Pure: data in, PNG bytes out.
"""

from __future__ import annotations

import html
import io
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from bot.i18n import Strings

WIDTH, HEIGHT = 1080, 1100
WEEKS = 12
CELL, GAP = 60, 10
LEFT, TOP = 150, 150  # the heat map's top-left corner
BACKGROUND = (255, 255, 255)
INK = (36, 41, 47)
MUTED = (110, 119, 129)
EMPTY = (235, 237, 240)
SHADES = ((155, 233, 168), (64, 196, 99), (33, 110, 57))  # 1, 2, 3+ answers a day
BAR = (64, 196, 99)


@dataclass(frozen=True, slots=True)
class LevelBar:
    name: str
    average: float | None  # None: no answers at this level yet


@cache
def _font(folder: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(Path(folder) / "NotoSansSC-subset.otf"), size)


def first_day(today: date) -> date:
    """Monday of the first of the 12 weeks shown (the last column is this week)."""
    return today - timedelta(days=today.weekday()) - timedelta(weeks=WEEKS - 1)


def cell_box(day: date, today: date) -> tuple[int, int, int, int] | None:
    """Pixel box of a day's cell, or None if the day is outside the 12 weeks shown."""
    offset = (day - first_day(today)).days
    if not 0 <= offset < WEEKS * 7 or day > today:
        return None
    column, row = divmod(offset, 7)
    x, y = LEFT + column * (CELL + GAP), TOP + row * (CELL + GAP)
    return x, y, x + CELL, y + CELL


def shade(count: int) -> tuple[int, int, int]:
    return EMPTY if count <= 0 else SHADES[min(count, len(SHADES)) - 1]


def render_stats_picture(
    *,
    strings: Strings,
    lang: str,
    fonts: Path,
    today: date,
    per_day: dict[date, int],
    current: int,
    best: int,
    levels: list[LevelBar],
) -> bytes:
    def text(key: str) -> str:
        return html.unescape(strings(lang, key))

    folder = str(fonts)
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.text((LEFT - 100, 50), text("pic_title"), font=_font(folder, 46), fill=INK)

    small = _font(folder, 28)
    for row, label in enumerate(text("pic_weekdays").split(",")):
        if label:
            y = TOP + row * (CELL + GAP) + CELL // 2
            draw.text((LEFT - 20, y), label, font=small, fill=MUTED, anchor="rm")
    start = first_day(today)
    for offset in range(WEEKS * 7):
        day = start + timedelta(days=offset)
        box = cell_box(day, today)
        if box is not None:
            draw.rounded_rectangle(box, radius=8, fill=shade(per_day.get(day, 0)))
    bottom = TOP + 7 * (CELL + GAP)
    draw.text((LEFT, bottom + 10), start.isoformat(), font=small, fill=MUTED)
    right = LEFT + WEEKS * (CELL + GAP) - GAP
    draw.text((right, bottom + 10), today.isoformat(), font=small, fill=MUTED, anchor="ra")

    legend_y = bottom + 60
    x = right - 4 * 40 - 70
    draw.text((x - 10, legend_y + 15), text("pic_less"), font=small, fill=MUTED, anchor="rm")
    for i, colour in enumerate((EMPTY, *SHADES)):
        draw.rounded_rectangle((x + i * 40, legend_y, x + i * 40 + 30, legend_y + 30), 6, colour)
    draw.text(
        (x + 4 * 40 + 5, legend_y + 15), text("pic_more"), font=small, fill=MUTED, anchor="lm"
    )

    big = _font(folder, 40)
    y = legend_y + 70
    streak = html.unescape(strings(lang, "pic_streak_line", count=current))
    draw.text((LEFT - 100, y), streak, font=big, fill=INK)
    best_line = html.unescape(strings(lang, "pic_best_line", count=best))
    draw.text((LEFT + 480, y), best_line, font=big, fill=INK)

    y += 80
    draw.text((LEFT - 100, y), text("pic_levels"), font=big, fill=INK)
    for level in levels:
        y += 56
        draw.text((LEFT - 100, y + 22), level.name, font=small, fill=INK, anchor="lm")
        bar_x, bar_w = LEFT + 110, 560
        draw.rounded_rectangle((bar_x, y + 6, bar_x + bar_w, y + 38), 10, EMPTY)
        if level.average is None:
            label = text("pic_no_answers")
        else:
            filled = round(bar_w * max(0.0, min(1.0, level.average)))
            if filled:
                draw.rounded_rectangle((bar_x, y + 6, bar_x + filled, y + 38), 10, BAR)
            label = f"{round(level.average * 100)}%"
        draw.text((bar_x + bar_w + 20, y + 22), label, font=small, fill=INK, anchor="lm")

    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def drawn_text(strings: Strings, lang: str) -> str:
    """Every interface string the picture can draw (for the glyph-coverage test)."""
    keys = ["pic_title", "pic_weekdays", "pic_less", "pic_more", "pic_levels", "pic_no_answers",
            "level_beginner", "level_intermediate", "level_advanced"]  # fmt: skip
    counted = [
        strings(lang, k, count=n) for k in ("pic_streak_line", "pic_best_line") for n in (1, 2)
    ]
    drawn = [*(strings(lang, k) for k in keys), *counted]
    return "".join(html.unescape(s) for s in drawn) + "0123456789-:% "
