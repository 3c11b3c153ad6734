"""/daily with a Chinese time typed in pieces (`8 点 30 分`, `8点30 上海`): the time the bot
understands, and the words it quotes back when the time is impossible (bot/core/schedule.py).

Written for survivors of the mutation run; each expected time and quote written by hand.
"""

from __future__ import annotations

from datetime import time

import pytest

from bot.core.schedule import DailyCommand, parse_daily


@pytest.mark.parametrize(
    "words",
    [["8", "点", "30", "分"], ["8", "點", "30", "分"], ["8", "时", "30", "分"]],
    ids=["simplified", "traditional", "shi"],
)
def test_an_hour_spaced_from_its_character_and_minutes_is_half_past_eight(
    words: list[str],
) -> None:
    # Spaced the way many Chinese writers space digits: 8 点 30 分 is 08:30.
    assert parse_daily(words) == DailyCommand(enabled=True, at=time(8, 30))


def test_minutes_typed_onto_the_hour_are_followed_by_a_zone() -> None:
    assert parse_daily(["8点30", "上海"]) == DailyCommand(
        enabled=True, at=time(8, 30), zone="Asia/Shanghai"
    )


def test_an_impossible_time_in_pieces_is_quoted_whole() -> None:
    assert parse_daily(["每天", "25", "点", "30", "分"]) == DailyCommand(
        problem="time", bad_value="25点30分"
    )
    assert parse_daily(["每天", "25", "点半"]) == DailyCommand(problem="time", bad_value="25点半")
    assert parse_daily(["每天", "25", "點"]) == DailyCommand(problem="time", bad_value="25點")


def test_an_evening_time_with_impossible_minutes_is_a_bad_time() -> None:
    # `晚上 8点60分`: the minutes are wrong; it is a time, not words the bot does not know.
    assert parse_daily(["晚上", "8点60分"]) == DailyCommand(problem="time", bad_value="晚上8点60分")


def test_a_word_before_the_hour_is_quoted_on_its_own() -> None:
    # A zone put first (`/daily CDMX 8`) is not glued to the hour after it.
    assert parse_daily(["CDMX", "8"]) == DailyCommand(problem="words", bad_value="CDMX")


def test_a_word_before_two_digits_is_not_an_hour_and_its_minutes() -> None:
    # `8 30` is an hour and its minutes; in `/daily at 10` the word `at` is what is not
    # understood, not a time "at:10".
    assert parse_daily(["at", "10"]) == DailyCommand(problem="words", bad_value="at")


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["早上", "8", "点", "30", "分"], DailyCommand(enabled=True, at=time(8, 30))),
        (
            ["下午", "3", "点", "15", "分", "上海"],
            DailyCommand(enabled=True, at=time(15, 15), zone="Asia/Shanghai"),
        ),
        (["晚上", "9", "点", "半"], DailyCommand(enabled=True, at=time(21, 30))),
    ],
)
def test_a_time_of_day_before_an_hour_typed_in_pieces(
    words: list[str], expected: DailyCommand
) -> None:
    # 早上 joins the hour first (早上8): the 点, minutes and 分 still follow it. It was
    # refused, with 分 called an unknown time zone.
    assert parse_daily(words) == expected


def test_an_impossible_hour_with_shi_is_a_bad_time_as_with_dian() -> None:
    assert parse_daily(["25时"]) == DailyCommand(problem="time", bad_value="25时")
    assert parse_daily(["25点"]) == DailyCommand(problem="time", bad_value="25点")
