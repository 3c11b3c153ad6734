"""The /stats picture (PNG): a 12-week calendar heat map and streaks, the average score of
each of those weeks under their columns (the trend), the question bank answered per level,
and the three weakest concepts; and the card of a mock interview's report.

Drawn with Pillow and the bundled CJK font subset (`content/fonts/`), so it renders the same
in English and Chinese everywhere, with no system fonts. Interface strings and numbers are
drawn, and the weak spots' labels (pack text, never what a user wrote) as far as the subset
has their glyphs: a label it cannot draw is shortened or elided (`drawable`), and the
text message under the picture names each spot in full. Pure: data in, PNG bytes out.
"""

from __future__ import annotations

import html
import io
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from bot.core.mock import MockReport, duration
from bot.i18n import Strings

WIDTH, HEIGHT = 1080, 1780
WEEKS = 12
CELL, GAP = 60, 10
LEFT, TOP = 150, 200  # the heat map's top-left corner
TREND_TOP, TREND_HEIGHT = 920, 200  # the trend chart: 100% at the top, 0% at the bottom
BANK_TOP = 1260  # the first level's bar of the bank progress
BANK_ROW = 62
BAR_X, BAR_W = LEFT + 130, 540  # the bank progress bars
WEAK_TOP = 1540  # the first weak spot's row
WEAK_ROW = 60
BACKGROUND = (255, 255, 255)
INK = (36, 41, 47)
MUTED = (110, 119, 129)
EMPTY = (235, 237, 240)
SHADES = ((155, 233, 168), (64, 196, 99), (33, 110, 57))  # 1, 2, 3+ answers a day
BAR = (64, 196, 99)
MISS = (207, 34, 46)  # the weak spots' marks


@dataclass(frozen=True, slots=True)
class LevelBar:
    """A level's row of the bank progress."""

    name: str
    answered: int  # questions answered at least once
    total: int  # questions at the level in the bank


@dataclass(frozen=True, slots=True)
class WeakBar:
    label: str
    missed: int


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


def trend_column(week: int) -> tuple[int, int]:
    """Left and right x of a week's trend bar: under that week's heat-map column."""
    x = LEFT + week * (CELL + GAP)
    return x, x + CELL


def trend_y(average: float) -> int:
    """The y of a weekly average on the trend chart (0% at the bottom)."""
    return TREND_TOP + TREND_HEIGHT - round(TREND_HEIGHT * max(0.0, min(1.0, average)))


def bank_bar(row: int) -> tuple[int, int, int, int]:
    """The box of a level's bank progress bar (its full length: the level's whole bank)."""
    y = BANK_TOP + row * BANK_ROW
    return BAR_X, y, BAR_X + BAR_W, y + 32


def drawable(font: ImageFont.FreeTypeFont, label: str) -> str:
    """`label` if the font draws every character of it; else its part before a bracket if
    that part is drawable (`max_batch_size（…）`); else an ellipsis. Never a label cut in
    the middle of a word (the subset draws a missing glyph as nothing)."""

    def has(ch: str) -> bool:
        _, top, _, bottom = font.getbbox(ch)
        return ch.isspace() or bottom > top

    if all(has(ch) for ch in label):
        return label
    for bracket in ("（", "("):
        head = label.split(bracket, 1)[0].strip()
        if head and head != label and all(has(ch) for ch in head):
            return head
    return "…"


def _fit(draw: ImageDraw.ImageDraw, text: str, font: ImageFont.FreeTypeFont, width: int) -> str:
    """`text` cut with an ellipsis to fit in `width` pixels."""
    if draw.textlength(text, font=font) <= width:
        return text
    while text and draw.textlength(text + "…", font=font) > width:
        text = text[:-1]
    return text + "…"


def render_stats_picture(
    *,
    strings: Strings,
    lang: str,
    fonts: Path,
    today: date,
    per_day: dict[date, int],
    current: int,
    best: int,
    weeks: list[float | None],
    levels: list[LevelBar],
    weak: list[WeakBar],
) -> bytes:
    """`weeks`: the average score of each of the 12 weeks shown (None: no answers), oldest
    first; `levels`: the bank answered per level; `weak`: the weakest concepts."""

    def text(key: str, **values: object) -> str:
        return html.unescape(strings(lang, key, **values))

    folder = str(fonts)
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    x0 = LEFT - 100
    big, small, tiny = _font(folder, 40), _font(folder, 28), _font(folder, 26)
    body = _font(folder, 32)  # the rows a learner reads on a phone: levels, weak spots
    draw.text((x0, 40), text("pic_title"), font=_font(folder, 46), fill=INK)
    draw.text((x0, 115), text("pic_streak_line", count=current), font=big, fill=INK)
    draw.text((LEFT + 480, 115), text("pic_best_line", count=best), font=big, fill=INK)

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

    # The trend: each week's average under its column of the heat map.
    draw.text((x0, TREND_TOP - 90), text("pic_trend"), font=big, fill=INK)
    for share in (0.0, 0.5, 1.0):
        y = trend_y(share)
        draw.line((LEFT, y, right, y), fill=EMPTY, width=2)
        draw.text((LEFT - 20, y), f"{round(share * 100)}%", font=tiny, fill=MUTED, anchor="rm")
    for week, average in enumerate(weeks[:WEEKS]):
        if average is None:
            continue
        left, right_x = trend_column(week)
        top = min(trend_y(average), TREND_TOP + TREND_HEIGHT - 4)  # 0% still shows a sliver
        draw.rectangle((left, top, right_x, TREND_TOP + TREND_HEIGHT), fill=BAR)
        label = str(round(max(0.0, min(1.0, average)) * 100))
        draw.text(((left + right_x) // 2, top - 6), label, font=tiny, fill=INK, anchor="mb")

    # The bank: questions answered at least once, per level.
    draw.text((x0, BANK_TOP - 80), text("pic_bank"), font=big, fill=INK)
    for row, level in enumerate(levels):
        box = bank_bar(row)
        middle = (box[1] + box[3]) // 2
        draw.text((x0, middle), level.name, font=body, fill=INK, anchor="lm")
        draw.rounded_rectangle(box, 10, EMPTY)
        share = level.answered / level.total if level.total else 0.0
        filled = round(BAR_W * max(0.0, min(1.0, share)))
        if filled:
            draw.rounded_rectangle((box[0], box[1], box[0] + filled, box[3]), 10, BAR)
        label = f"{level.answered} / {level.total}"
        draw.text((box[2] + 20, middle), label, font=body, fill=INK, anchor="lm")

    # The weak spots: most missed first.
    draw.text((x0, WEAK_TOP - 80), text("pic_weak"), font=big, fill=INK)
    if not weak:
        draw.text((x0, WEAK_TOP), text("pic_no_weak"), font=body, fill=MUTED)
    for row, spot in enumerate(weak):
        y = WEAK_TOP + row * WEAK_ROW
        draw.rounded_rectangle((x0, y, x0 + 14, y + 36), 4, MISS)
        missed = text("pic_missed", count=spot.missed)
        draw.text((WIDTH - 50, y + 18), missed, font=body, fill=MISS, anchor="rm")
        room = WIDTH - 50 - round(draw.textlength(missed, font=body)) - 30 - (x0 + 30)
        name = _fit(draw, f"{row + 1}. {drawable(body, spot.label)}", body, room)
        draw.text((x0 + 30, y + 18), name, font=body, fill=INK, anchor="lm")

    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def drawn_text(strings: Strings, lang: str) -> str:
    """Every interface string the picture can draw (for the glyph-coverage test)."""
    keys = ["pic_title", "pic_weekdays", "pic_less", "pic_more", "pic_trend", "pic_bank",
            "pic_weak", "pic_no_weak", "level_beginner", "level_intermediate",
            "level_advanced"]  # fmt: skip
    counted = [
        strings(lang, k, count=n)
        for k in ("pic_streak_line", "pic_best_line", "pic_missed")
        for n in (1, 2)
    ]
    drawn = [*(strings(lang, k) for k in keys), *counted]
    return "".join(html.unescape(s) for s in drawn) + "0123456789-:%/.… "


# -- the mock interview's report card -------------------------------------------------------

CARD_HEAD = 330  # the title, the date line and the total
CARD_ROW = 118  # a question's row: its topic, then its bar, score and time
CARD_FOOT = 250  # best, weakest, the previous mock
CARD_BAR_X, CARD_BAR_W = 130, 600
LATE = (191, 135, 0)  # a time over the limit


def card_bar(row: int) -> tuple[int, int, int, int]:
    """The box of a question's score bar on the mock card (its full length: 100%)."""
    top = CARD_HEAD + row * CARD_ROW + 54
    return CARD_BAR_X, top, CARD_BAR_X + CARD_BAR_W, top + 34


def render_mock_card(
    *, strings: Strings, lang: str, fonts: Path, report: MockReport, day: date
) -> bytes:
    """The report of a mock interview as a card that reads on a phone (1080 px wide, the
    size of the /stats picture): the total, a row per question (its topic, a bar with its
    score, the time it took, over the limit in amber), the best and weakest topic and the
    previous mock. Topics are pack text, drawn as far as the font subset has their glyphs
    (`drawable`); the message above the card names them in full."""

    def text(key: str, **values: object) -> str:
        return html.unescape(strings(lang, key, **values))

    folder = str(fonts)
    height = CARD_HEAD + CARD_ROW * max(1, len(report.rows)) + CARD_FOOT
    image = Image.new("RGB", (WIDTH, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    x0, right = 50, WIDTH - 50
    title, big, body, small = (_font(folder, s) for s in (52, 44, 34, 30))
    answered = sum(1 for row in report.rows if row.score is not None)
    draw.text((x0, 40), text("pic_mock_title"), font=title, fill=INK)
    subtitle = (
        f"{day.isoformat()} · {text('pic_mock_answered', answered=answered, count=report.count)}"
    )
    draw.text((x0, 120), subtitle, font=small, fill=MUTED)
    total = f"{round(report.total * 100)}%"
    draw.text((x0, 180), text("pic_mock_total"), font=big, fill=INK)
    draw.text((right, 170), total, font=_font(folder, 96), fill=INK, anchor="ra")

    for i, row in enumerate(report.rows):
        y = CARD_HEAD + i * CARD_ROW
        number = f"{row.position + 1}."
        draw.text((x0, y), number, font=body, fill=MUTED)
        topic = _fit(draw, drawable(body, row.topic), body, right - CARD_BAR_X)
        draw.text((CARD_BAR_X, y), topic, font=body, fill=INK)
        box = card_bar(i)
        draw.rounded_rectangle(box, 10, EMPTY)
        if row.score is None:
            label = text("pic_mock_skipped")
        else:
            filled = round(CARD_BAR_W * max(0.0, min(1.0, row.score)))
            if filled:
                draw.rounded_rectangle((box[0], box[1], box[0] + filled, box[3]), 10, BAR)
            label = f"{round(row.score * 100)}%"
        middle = (box[1] + box[3]) // 2
        draw.text((box[2] + 20, middle), label, font=body, fill=INK, anchor="lm")
        if row.seconds is not None:
            late = report.limit_seconds is not None and row.seconds > report.limit_seconds
            took = duration(row.seconds)
            colour = LATE if late else MUTED
            draw.text((right, middle), took, font=body, fill=colour, anchor="rm")

    y = CARD_HEAD + CARD_ROW * max(1, len(report.rows)) + 20
    draw.line((x0, y - 10, right, y - 10), fill=EMPTY, width=3)
    lines: list[tuple[str, tuple[int, int, int]]] = []
    if report.best is not None and report.weakest is not None:
        lines.append((text("pic_mock_best", topic=drawable(body, report.best)), BAR))
        lines.append((text("pic_mock_weakest", topic=drawable(body, report.weakest)), MISS))
    if report.previous is None:
        lines.append((text("pic_mock_first"), MUTED))
    else:
        change = round(report.total * 100) - round(report.previous * 100)
        signed = f"+{change}" if change > 0 else str(change)
        previous = text("pic_mock_previous", percent=round(report.previous * 100), change=signed)
        lines.append((previous, MUTED))
    for i, (line, colour) in enumerate(lines):
        draw.text((x0, y + 20 + i * 64), _fit(draw, line, body, right - x0), font=body, fill=colour)

    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def mock_card_text(strings: Strings, lang: str) -> str:
    """Every interface string the mock card can draw (for the glyph-coverage test)."""
    drawn = [
        strings(lang, "pic_mock_title"),
        strings(lang, "pic_mock_answered", answered=1, count=2),
        strings(lang, "pic_mock_total"),
        strings(lang, "pic_mock_skipped"),
        strings(lang, "pic_mock_best", topic=""),
        strings(lang, "pic_mock_weakest", topic=""),
        strings(lang, "pic_mock_first"),
        strings(lang, "pic_mock_previous", percent=1, change="+1"),
    ]
    return "".join(html.unescape(s) for s in drawn) + "0123456789-:%/.…+ "
