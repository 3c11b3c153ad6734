"""/stats as a learner reads it, on a phone, in Chinese and English: a welcome before the
first answer (no empty picture); after answers, the picture and the words show the concepts
missed most, how much of the question bank is answered per level, and the weekly trend.

The expected values are computed here from the answers the test sent and the pack's YAML
(levels, concept labels and topics), never from the code under test.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from datetime import date, timedelta

import pytest
import yaml
from PIL import Image

from bot.picture import (
    BAR,
    EMPTY,
    LEFT,
    MISS,
    TREND_HEIGHT,
    TREND_TOP,
    WEAK_ROW,
    WEAK_TOP,
    bank_bar,
    trend_column,
    trend_y,
)
from tests.conftest import CONTENT, BotHarness
from tests.support.fake_bot_api import FakeUser, Sent

PACK = yaml.safe_load((CONTENT / "triton.yaml").read_text(encoding="utf-8"))
BY_ID = {q["id"]: q for q in PACK["questions"]}
NOTHING = "不知道这个问题"  # states no concept: every one missed
USERS = {"zh": FakeUser(7401, "Lin", "zh"), "en": FakeUser(7402, "Ada", "en")}
WORDS = {
    "zh": {
        "welcome": "还没有可显示的内容",
        "bank": "📚 题库：共 12 道题，已答过 3 道",
        "beginner": "初级：",
        "intermediate": "中级：还没答过 · 已答 0/4 题",
        "weak": r"^(\d)\. (.+) —— 漏掉 (\d+) 次$",
        "trend": "📈 趋势：上升，从 50% 到 67%（周平均，2026-03-09 那周 → 2026-03-16 那周）",
    },
    "en": {
        "welcome": "Nothing to show yet",
        "bank": "📚 Question bank: 3 of 12 questions answered at least once",
        "beginner": "Beginner: ",
        "intermediate": "Intermediate: not started · 0/4 done",
        "weak": r"^(\d)\. (.+) — missed (\d+) times?$",
        "trend": (
            "📈 Trend: up, from 50% to 67% (weekly average, week of 2026-03-09 → week of"
            " 2026-03-16)"
        ),
    },
}


async def _answer(bot: BotHarness, user: FakeUser, qid: str, text: str) -> list[Sent]:
    """Open `qid` by its share link and answer it; the feedback messages."""
    await bot.open_shared(user, qid)
    before = len(bot.api.to(user.id))
    bot.api.message(user, text)
    while True:
        sent = bot.api.to(user.id)[before:]
        if sent and any(d.startswith("rate:") for _, d in sent[-1].buttons):
            return sent
        await bot.api.wait_for(user.id, before + len(sent) + 1)


@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_stats_before_any_answer_is_a_welcome_and_no_picture(
    bot: BotHarness, lang: str
) -> None:
    user = USERS[lang]
    (welcome,) = await bot.say(user, "/stats")
    assert welcome.method == "sendMessage"
    assert WORDS[lang]["welcome"] in welcome.visible and "/quiz" in welcome.visible
    # Nothing follows it: the next message's reply is the next thing sent.
    earlier = await bot.sentinel(user)
    assert [m.method for m in earlier if m.method == "sendPhoto"] == []
    assert earlier[-1] is welcome


# The answers: (days after Monday 2026-03-02, question, the reference answer or nothing).
WEEKS_OF_ANSWERS = [
    (0, "triton-q3", False), (0, "triton-q1", False),  # week of 03-02: 0%, 0%
    (7, "triton-q3", False), (7, "triton-q1", True),  # week of 03-09: 0%, 100%
    (14, "triton-q3", False), (14, "triton-q1", True), (14, "triton-q2", True),  # 03-16
]  # fmt: skip


def _expected_weak_spots() -> dict[str, int]:
    """Topic (or label) -> misses, over the answers above; covered ones subtract nothing
    here, as no concept of triton-q3 (the only one missed more than once) is ever covered."""
    missed: Counter[str] = Counter()
    covered: Counter[str] = Counter()
    for _, qid, full in WEEKS_OF_ANSWERS:
        for concept in BY_ID[qid]["concepts"]:
            key = concept.get("topic") or concept["label"]
            (covered if full else missed)[key] += 1
    return {k: n for k, n in missed.items() if n >= 2 and n > covered[k]}


def _key_of(label: str) -> str:
    for question in PACK["questions"]:
        for concept in question["concepts"]:
            if concept["label"] == label:
                return str(concept.get("topic") or label)
    raise AssertionError(f"{label!r} is no concept of the pack")


def _colour(image: Image.Image, x: int, y: int) -> tuple[int, int, int]:
    pixel = image.getpixel((x, y))
    assert isinstance(pixel, tuple)
    return pixel[0], pixel[1], pixel[2]


@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_stats_shows_weak_spots_bank_progress_and_the_weekly_trend(
    bot: BotHarness, lang: str
) -> None:
    user = USERS[lang]
    start = bot.clock.now
    for days, qid, full in WEEKS_OF_ANSWERS:
        bot.clock.now = start + timedelta(days=days)
        await _answer(bot, user, qid, BY_ID[qid]["answer"] if full else NOTHING)
    # The scores the expectations rest on: a reference answer covers all, nothing covers none.
    stored = await bot.storage.answers_for(user.id)
    assert [a.score for a in stored] == [1.0 if full else 0.0 for *_, full in WEEKS_OF_ANSWERS]

    picture, text = await bot.say(user, "/stats", expect=2)
    assert picture.method == "sendPhoto"
    words = WORDS[lang]
    lines = text.visible.splitlines()
    # Bank progress: triton-q1..q3 are the pack's three beginner questions, of 12 in all.
    levels = Counter(q["level"] for q in PACK["questions"])
    assert (levels["beginner"], levels["intermediate"], len(PACK["questions"])) == (3, 4, 12)
    assert words["bank"] in lines
    assert any(line.startswith(words["beginner"]) and "3/3" in line for line in lines)
    assert words["intermediate"] in lines
    # The three weakest: most missed first, each with its number of misses.
    expected = _expected_weak_spots()
    shown = [m.groups() for line in lines if (m := re.match(words["weak"], line))]
    assert [n for n, *_ in shown] == ["1", "2", "3"][: min(3, len(expected))]
    counts = [int(c) for *_, c in shown]
    assert counts == sorted(expected.values(), reverse=True)[:3]
    for _, label, count in shown:
        assert expected[_key_of(label)] == int(count)
    # The trend: 0% the first week, 50% the second, 67% the third: up, last two compared.
    assert words["trend"] in lines

    # The picture says the same: a trend bar per week answered, at its average ...
    image = Image.open(io.BytesIO(picture.params["photo"])).convert("RGB")
    monday = date(2026, 3, 16)
    first = monday - timedelta(weeks=11)  # the 12 weeks shown end with this one
    for week, average in ((9, 0.0), (10, 0.5), (11, 2 / 3)):
        assert first + timedelta(weeks=week) == date(2026, 3, 2) + timedelta(weeks=week - 9)
        left, _ = trend_column(week)
        assert _colour(image, left + 3, TREND_TOP + TREND_HEIGHT - 2) == BAR
        assert (
            _colour(image, left + 3, min(trend_y(average) + 3, TREND_TOP + TREND_HEIGHT - 2)) == BAR
        )
        assert _colour(image, left + 3, trend_y(average) - 12) != BAR
    for week in range(9):  # no answers: no bar
        left, _ = trend_column(week)
        assert _colour(image, left + 3, TREND_TOP + TREND_HEIGHT - 2) != BAR
    # ... the bank per level: beginner full, intermediate and advanced empty ...
    for row, share in enumerate((1.0, 0.0, 0.0)):
        x0, y0, x1, y1 = bank_bar(row)
        middle = (y0 + y1) // 2
        assert _colour(image, x1 - 15, middle) == (BAR if share == 1.0 else EMPTY)
        assert _colour(image, x0 + 15, middle) == (BAR if share else EMPTY)
    # ... and one red mark per weak spot shown.
    marks = [_colour(image, LEFT - 93, WEAK_TOP + row * WEAK_ROW + 18) for row in range(3)]
    assert marks == [MISS] * len(shown) + [(255, 255, 255)] * (3 - len(shown))


async def test_the_stats_picture_is_drawn_in_the_learners_language(bot: BotHarness) -> None:
    # The same answer on the same day: the headings (the title, the streak and the best
    # streak, above the heat map) differ only by their language.
    headings = []
    for lang in ("zh", "en"):
        await _answer(bot, USERS[lang], "triton-q1", NOTHING)
        picture, _ = await bot.say(USERS[lang], "/stats", expect=2)
        assert picture.method == "sendPhoto"
        image = Image.open(io.BytesIO(picture.params["photo"])).convert("RGB")
        headings.append(image.crop((0, 0, image.width, 180)).tobytes())
    assert headings[0] != headings[1]
