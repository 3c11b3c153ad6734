"""Levels, question selection, time zones, rendering and interface strings."""

from __future__ import annotations

import random
from html.parser import HTMLParser

import pytest

from bot.core.content import Library
from bot.core.levels import Level, parse_level
from bot.core.scoring import score_answer
from bot.core.selection import pick_question
from bot.core.streaks import StreakState
from bot.core.timezones import resolve_timezone, suggest_timezones
from bot.i18n import Html, Strings, language_for
from bot.render import MESSAGE_LIMIT, feedback_messages, split_plain, utf16_len
from tests.conftest import CONTENT


@pytest.mark.parametrize(
    ("word", "level"),
    [
        ("Advanced", Level.ADVANCED),
        ("高级", Level.ADVANCED),
        ("HARD", Level.ADVANCED),
        ("easy", Level.BEGINNER),
        ("初级", Level.BEGINNER),
        ("medium", Level.INTERMEDIATE),
        (" 中级 ", Level.INTERMEDIATE),
        ("legendary", None),
        ("", None),
    ],
)
def test_level_words(word: str, level: Level | None) -> None:
    assert parse_level(word) is level


def test_no_repeats_while_others_remain(library: Library) -> None:
    pool = library.pool(Level.ADVANCED)
    asked: list[str] = []
    rng = random.Random(7)
    for _ in range(len(pool)):
        q = pick_question(pool, asked, rng)
        assert q is not None and q.id not in asked
        asked.insert(0, q.id)
    again = pick_question(pool, asked, rng)
    assert again is not None and again.id == asked[-1]  # the oldest comes back first


@pytest.mark.parametrize(
    ("name", "zone"),
    [
        ("asia/shanghai", "Asia/Shanghai"),
        ("Europe/Berlin", "Europe/Berlin"),
        ("America/New York", "America/New_York"),
        ("utc", "UTC"),
        ("Mars/Base", None),
        ("", None),
    ],
)
def test_resolve_timezone(name: str, zone: str | None) -> None:
    assert resolve_timezone(name) == zone


def test_timezone_suggestions() -> None:
    assert "Asia/Shanghai" in suggest_timezones("Shanghia")
    assert "Europe/Berlin" in suggest_timezones("Europe/Berln")
    assert suggest_timezones("qqqqqqqq") == []


def test_language_for_telegram_codes() -> None:
    assert language_for("zh-hans") == "zh"
    assert language_for("zh-CN") == "zh"
    assert language_for("en-US") == "en"
    assert language_for(None) == "en"


def test_both_languages_have_every_string() -> None:
    strings = Strings.load(CONTENT / "strings")
    assert set(strings.tables["en"]) == set(strings.tables["zh"])


def test_filled_values_are_escaped() -> None:
    strings = Strings.load(CONTENT / "strings")
    text = strings("en", "welcome", name="<script>&")
    assert "&lt;script&gt;&amp;" in text and "<script>" not in text
    assert strings("en", "welcome", name=Html("<b>x</b>")).count("<b>x</b>") == 1


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.ok = True

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack.pop() != tag:
            self.ok = False


def balanced(html_text: str) -> bool:
    parser = _Tags()
    parser.feed(html_text)
    parser.close()
    return parser.ok and not parser.stack


def test_long_reference_answers_split_cleanly(library: Library) -> None:
    strings = Strings.load(CONTENT / "strings")
    question = library.questions["triton-q11"]
    reference = (question.answer + "\n\n") * 12  # about 9,000 characters of <, > and &
    reference = reference.replace("→", "<->&")
    result = score_answer(question, "prefill/decode <b>分离</b>" * 300)
    messages = feedback_messages(
        strings, "zh", result=result, reference=reference, hints=2, streak=StreakState(3, 5)
    )
    assert len(messages) >= 3
    for message in messages:
        assert utf16_len(message) <= MESSAGE_LIMIT
        assert balanced(message), message[:200]
    body = "".join(messages)
    assert "&lt;-&gt;&amp;" in body and "<->&" not in body


def test_split_plain_never_loses_text() -> None:
    text = "句子。" * 3000 + "word " * 500
    pieces = split_plain(text, 1000)
    assert all(utf16_len(p) <= 1000 for p in pieces)
    assert "".join(pieces).replace(" ", "") == text.replace(" ", "")


PACKS = ("triton", "llm_inference")


@pytest.mark.parametrize(
    ("args", "level", "pack", "problem", "word"),
    [
        ([], None, None, None, ""),
        (["ADVANCED"], Level.ADVANCED, None, None, ""),
        (["Triton", "初级"], Level.BEGINNER, "triton", None, ""),
        (["beginner", "nope"], None, None, "bad_level", "nope"),
        (["triton", "nope"], None, None, "bad_level", "nope"),  # the refused word, not the pack
        (["beginner", "advanced"], None, None, "bad_quiz_args", ""),
        (["triton", "triton"], None, None, "bad_level", "triton"),  # a pack twice
        (["a", "b", "c"], None, None, "bad_quiz_args", "a"),
    ],
    ids=["none", "level", "pack-and-level", "unknown", "pack-then-unknown", "two-levels",
         "pack-twice", "three-words"],
)  # fmt: skip
def test_one_reader_of_quiz_arguments(
    args: list[str], level: Level | None, pack: str | None, problem: str | None, word: str
) -> None:
    from bot.core.levels import parse_quiz_args

    wanted = parse_quiz_args(args, PACKS)
    assert (wanted.level, wanted.pack, wanted.problem) == (level, pack, problem)
    assert wanted.word == word


@pytest.mark.parametrize(
    ("word", "switch"),
    [("on", True), (" OFF ", False), ("开", True), ("关闭", False), ("enable", True), ("x", None)],
)
def test_one_set_of_on_off_words(word: str, switch: bool | None) -> None:
    from bot.core.schedule import parse_switch

    assert parse_switch(word) is switch


def test_whose_clock_applies() -> None:
    from bot.core.models import ChatKind, ChatRecord, UserProfile
    from bot.core.timezones import zone_of

    user = UserProfile(1, timezone="Asia/Tokyo")
    private = ChatRecord(1, ChatKind.PRIVATE)
    group = ChatRecord(-5, ChatKind.SUPERGROUP)
    assert zone_of("UTC") == "UTC"
    assert zone_of("UTC", user=user) == "Asia/Tokyo"
    assert zone_of("UTC", private, user) == "Asia/Tokyo"  # a private chat follows its user
    assert zone_of("UTC", group, user) == "UTC"  # a group never follows one member
    assert zone_of("UTC", ChatRecord(-5, ChatKind.GROUP, timezone="Europe/Berlin"), user) == (
        "Europe/Berlin"
    )
    # The stored zone alone counts as the user (storage and the reminder rule hold only that).
    assert zone_of("UTC", user="Asia/Tokyo") == zone_of("UTC", user=user)
    assert zone_of("UTC", group, "Asia/Tokyo") == "UTC"
    assert zone_of("Europe/Paris", user=UserProfile(2)) == "Europe/Paris"


def test_the_reminder_rule_reads_the_clock_by_zone_of() -> None:
    from zoneinfo import ZoneInfo

    from bot.core.reminders import ReminderRule

    rule = ReminderRule(default_zone="Asia/Shanghai")
    assert rule.zone(None) == ZoneInfo("Asia/Shanghai")
    assert rule.zone("") == ZoneInfo("Asia/Shanghai")
    assert rule.zone("Europe/Berlin") == ZoneInfo("Europe/Berlin")


def test_quiz_args_name_a_draft_pack_as_a_draft() -> None:
    from bot.core.levels import Level, parse_quiz_args

    wanted = parse_quiz_args(["beginner", "Notes"], ["triton"], drafts=["notes"])
    assert (wanted.problem, wanted.word) == ("pack_draft", "Notes")
    ready = parse_quiz_args(["beginner", "triton"], ["triton"], drafts=["notes"])
    assert (ready.problem, ready.level, ready.pack) == (None, Level.BEGINNER, "triton")
    assert parse_quiz_args(["nope"], ["triton"], drafts=["notes"]).problem == "bad_level"
