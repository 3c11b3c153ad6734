"""Wording a reader notices: plurals, bars, medals, Chinese punctuation, hint costs."""

from __future__ import annotations

import re

import pytest
import yaml

from bot.i18n import Strings
from bot.render import bar, spoken_list
from tests.conftest import CONTENT, BotHarness
from tests.support.fake_bot_api import FakeBotAPI, FakeUser

STRINGS = Strings.load(CONTENT / "strings")


@pytest.mark.parametrize(
    ("key", "values", "shown"),
    [
        ("streak_line", {"current": 1, "best": 1}, "🔥 Streak: 1 day · best 1"),
        ("streak_line", {"current": 2, "best": 5}, "🔥 Streak: 2 days · best 5"),
        ("streak_line", {"current": 0, "best": 5}, "🔥 Streak: 0 days · best 5"),
        ("hints_used", {"count": 1}, "💡 1 hint used."),
        ("hints_used", {"count": 3}, "💡 3 hints used."),
        ("pic_streak_line", {"count": 1}, "Current streak: 1 day"),
        ("pic_best_line", {"count": 9}, "Best streak: 9 days"),
        ("export_caption", {"count": 1}, "Your answers as CSV (1 row)."),
    ],
)
def test_english_counts_agree_with_their_nouns(
    key: str, values: dict[str, int], shown: str
) -> None:
    assert STRINGS("en", key, **values) == shown


def test_chinese_counts_and_punctuation_in_the_picture() -> None:
    assert STRINGS("zh", "pic_streak_line", count=1) == "当前连续：1 天"
    assert STRINGS("zh", "stats_streak", current=1, best=2) == "🔥 当前连续：1 天 · 最佳：2 天"


def test_no_english_string_says_day_s() -> None:
    table = yaml.safe_load((CONTENT / "strings" / "en.yaml").read_text(encoding="utf-8"))
    assert [k for k, v in table.items() if "(s)" in str(v)] == []


def test_chinese_strings_use_full_width_punctuation() -> None:
    table = yaml.safe_load((CONTENT / "strings" / "zh.yaml").read_text(encoding="utf-8"))
    ascii_after_han = re.compile(r"[\u4e00-\u9fff）][:,;?!]|[:,;?!] ?[\u4e00-\u9fff（]")
    bad = {
        key: value
        for key, value in table.items()
        if key != "pic_weekdays"  # a list separated by commas, not prose
        and ascii_after_han.search(re.sub(r"&\w+;", "", str(value)))
    }
    assert bad == {}


@pytest.mark.parametrize(
    ("fraction", "cells"),
    [
        *((0.0, 0), (0.004, 0), (0.006, 1), (0.01, 1), (0.1, 1), (0.5, 5)),
        *((0.94, 9), (0.95, 9), (0.99, 9), (1.0, 10)),
    ],
)
def test_bar_is_full_only_at_100_and_empty_only_at_0(fraction: float, cells: int) -> None:
    # Empty exactly when the percentage beside it reads 0% (0.4% is shown as 0%).
    assert bar(fraction) == "▓" * cells + "░" * (10 - cells)


GROUP = -100500
ANA, BEN, ROOT = FakeUser(8201, "Ana"), FakeUser(8202, "Ben"), FakeUser(8209, "Root")


async def test_no_medal_for_an_answer_that_covered_nothing(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    api.admins[GROUP] = {ROOT.id}
    (question,) = await bot.say(ROOT, "/quiz beginner", chat_id=GROUP)
    for user, text in ((ANA, "我觉得跟天气有关系"), (BEN, "完全不知道这是什么")):
        before = len(api.to(GROUP))
        api.message(user, text, chat_id=GROUP, reply_to=question.message_id)
        await api.wait_for(GROUP, before + 1)  # the ✍ reaction
    results = await bot.say(ROOT, "/reveal", chat_id=GROUP)
    text = results[0].visible
    assert "Ana — 0%" in text and "Ben — 0%" in text
    assert not any(medal in text for medal in ("🥇", "🥈", "🥉"))
    assert "1. Ana — 0%" in text and "2. Ben — 0%" in text


async def test_a_hint_says_what_it_costs(bot: BotHarness) -> None:
    await bot.say(FakeUser(8301, "Hu"), "/quiz beginner")
    (hint,) = await bot.say(FakeUser(8301, "Hu"), "/hint")
    assert "Hint 1:" in hint.visible and "Hints cost a little" in hint.visible


@pytest.mark.parametrize(
    ("lang", "items", "said"),
    [
        ("en", ["English"], "English"),
        ("en", ["English", "Chinese"], "English and Chinese"),
        ("en", ["A", "B", "C"], "A, B and C"),
        ("zh", ["中文", "英文"], "中文和英文"),
        ("zh", ["甲", "乙", "丙"], "甲、乙和丙"),
    ],
    ids=["one", "two", "three", "zh-two", "zh-three"],
)
def test_a_list_in_a_sentence_ends_with_and(lang: str, items: list[str], said: str) -> None:
    assert spoken_list(STRINGS, lang, items) == said
