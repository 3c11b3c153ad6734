"""The pure rules behind issue 29's fixes: hint cues, a bare list of terms, when the daily
question waits, and the buttons under an open question shown again."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.core.content import Library
from bot.core.feedback import is_bare_list
from bot.core.hints import cue, topic
from bot.core.levels import Level
from bot.core.schedule import daily_waits
from bot.core.scoring import score_answer
from bot.i18n import Strings
from bot.keyboards import (
    parse_still_open,
    parse_switch,
    question_tag,
    shared_still_open_keyboard,
    still_open_keyboard,
)
from tests.conftest import CONTENT


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("preferred_batch_size（期望的 batch 大小）", "pref…"),
        ("max_queue_delay_microseconds（最大排队等待）", "max_…"),
        ("多框架统一服务入口", "多框…"),
        ("模型管理", "模…"),
        ("Python 代码跑在独立子进程", "Py…"),
        ("Spreads requests over servers.", "Sp…"),
        ("KV", "K…"),
    ],
)
def test_a_cue_shows_how_the_name_begins_not_the_name(label: str, expected: str) -> None:
    assert cue(label) == expected


def test_a_topic_reads_as_words(library: Library) -> None:
    q3 = library.questions["triton-q3"]
    assert [topic(c) for c in q3.concepts] == ["batch tuning", "batch tuning", "", ""]


@pytest.mark.parametrize(
    ("qid", "text", "bare"),
    [
        ("triton-q1", "可观测、统一入口、vLLM", True),
        ("triton-q1", "Triton、推理引擎", True),
        ("llm-q2", "prefill, 显存带宽", True),
        ("llm-q2", "prefill 的瓶颈是显存带宽", False),
        ("llm-q2", "prefill is bound by memory bandwidth", False),
        ("triton-q3", "max_batch_size 是请求最多等多久", False),
    ],
)
def test_a_bare_list_of_terms_is_told_from_a_statement(
    library: Library, qid: str, text: str, bare: bool
) -> None:
    question = library.questions[qid]
    assert is_bare_list(text, score_answer(question, text)) is bare


def test_the_daily_question_waits_for_a_question_opened_within_the_hour() -> None:
    opened = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    assert daily_waits(opened, opened + timedelta(minutes=2))
    assert daily_waits(opened, opened + timedelta(minutes=59))
    assert not daily_waits(opened, opened + timedelta(hours=1))  # left: the daily one comes
    assert not daily_waits(opened, opened + timedelta(days=1))


@pytest.mark.parametrize("level", [None, *Level])
def test_the_still_open_buttons_read_back_and_fit_telegram(level: Level | None) -> None:
    strings = Strings.load(CONTENT / "strings")
    longest = "q" * 48  # the longest question id a pack may have
    keyboard = still_open_keyboard(strings, "en", longest, level)
    keep, renew = (row[0].callback_data for row in keyboard.inline_keyboard)
    assert isinstance(keep, str) and isinstance(renew, str)
    assert len(keep.encode()) <= 64 and len(renew.encode()) <= 64
    assert parse_still_open(keep) == (False, longest, None)
    assert parse_still_open(renew) == (True, longest, level)


@pytest.mark.parametrize(
    "data", ["keep:", "renew:q1", "renew:q1:x", "renew:Q1:b", "keep:q1:b", "renew:q1:b:c", None]
)
def test_only_the_still_open_data_the_bot_makes_is_read(data: str | None) -> None:
    assert parse_still_open(data) is None


def test_the_shared_link_choice_reads_back_and_fits_telegram() -> None:
    strings = Strings.load(CONTENT / "strings")
    open_id, shared_id = "o" * 48, "s" * 48  # the longest question ids a pack may have
    keyboard = shared_still_open_keyboard(strings, "en", open_id, shared_id)
    keep, switch = (row[0].callback_data for row in keyboard.inline_keyboard)
    assert isinstance(keep, str) and isinstance(switch, str)
    assert len(keep.encode()) <= 64 and len(switch.encode()) <= 64
    assert parse_still_open(keep) == (False, open_id, None)
    tap = parse_switch(switch)
    assert tap is not None and tap.question_id == shared_id
    # The button names the question it was shown under: another one open since is not it.
    assert tap.open_tag == question_tag(open_id) != question_tag("o" * 47)


@pytest.mark.parametrize(
    "data", ["switch:", "switch:q1", "switch:q1:xyz", "switch:Q1:0000abcd", "switch:q1:0000abcd:0"]
)
def test_only_the_switch_data_the_bot_makes_is_read(data: str) -> None:
    assert parse_switch(data) is None
