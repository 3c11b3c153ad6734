"""Which packs a chat's questions come from (bot/core/packs.py), rule by rule, on small
packs written here: followed packs in the user's language, else the user's language, else
nothing (the others offered); and which words of /quiz name a pack."""

from __future__ import annotations

from bot.core.content import Concept, Library, Pack, Question
from bot.core.levels import Level
from bot.core.packs import (
    Drawn,
    draw_from,
    field_languages,
    field_packs,
    listed,
    pack_words,
    translation,
)


def _pack(
    pid: str, language: str, field: str, translates: str | None = None, title: str = ""
) -> Pack:
    question = Question(
        id=f"{pid}-q1",
        level=Level.BEGINNER,
        question="Why?",
        answer="Because.",
        concepts=(Concept(label="a reason"),),
    )
    return Pack(
        id=pid,
        title=title or pid,
        language=language,
        field=field,
        translates=translates,
        questions=(question,),
    )


LIBRARY = Library(
    [
        _pack("db-zh", "zh", "databases", title="数据库 面试题"),
        _pack("db-en", "en", "databases", "db-zh", title="Database Basics"),
        _pack("db-ja", "ja", "databases", "db-zh", title="データベース"),
        _pack("os-zh", "zh-Hans", "operating-systems", title="操作系统 Networking 面试题"),
        _pack("net-en", "en-GB", "networking", title="Networking Basics"),
    ]
)


def test_followed_packs_come_in_the_users_language_where_translated() -> None:
    assert draw_from(LIBRARY, ["db-zh", "os-zh"], "en") == Drawn(("db-en", "os-zh"))
    assert draw_from(LIBRARY, ["db-ja"], "zh") == Drawn(("db-zh",))  # via the original
    assert draw_from(LIBRARY, ["db-en"], "ja") == Drawn(("db-ja",))  # a sibling translation
    assert draw_from(LIBRARY, ["db-zh", "db-en"], "en") == Drawn(("db-en",))  # once


def test_following_none_draws_the_users_language_and_never_another() -> None:
    assert draw_from(LIBRARY, [], "en") == Drawn(("db-en", "net-en"))
    assert draw_from(LIBRARY, [], "zh") == Drawn(("db-zh", "os-zh"))
    assert draw_from(LIBRARY, [], "fr") == Drawn((), ("db-zh", "db-en", "db-ja", "os-zh", "net-en"))


def test_a_followed_pack_no_longer_there_is_passed_over() -> None:
    assert draw_from(LIBRARY, ["gone"], "en") == Drawn(("db-en", "net-en"))


def test_a_pack_without_a_translation_stays_itself() -> None:
    assert translation(LIBRARY, "os-zh", "en") == "os-zh"
    assert translation(LIBRARY, "db-zh", "zh") == "db-zh"


def test_a_field_means_its_packs_in_the_users_language_else_all_of_it() -> None:
    assert field_packs(LIBRARY, "databases", "en") == ("db-en",)
    assert field_packs(LIBRARY, "operating-systems", "en") == ("os-zh",)  # none in English
    assert field_packs(LIBRARY, None, "zh") == ("db-zh", "os-zh")


def test_languages_and_packs_are_listed_the_users_first() -> None:
    assert field_languages(LIBRARY, "en") == ["en", "zh", "ja"]
    assert field_languages(LIBRARY, "zh", "networking") == ["en"]
    assert [p.id for p in listed(LIBRARY, "zh")] == ["db-zh", "os-zh", "db-en", "db-ja", "net-en"]


def test_quiz_words_name_a_pack_by_id_or_by_a_title_word_only_one_pack_has() -> None:
    words = pack_words(LIBRARY, "en")
    assert words["db-zh"] == "db-zh" and words["database"] == "db-en"
    # "networking" is in a Chinese and an English title: each user's language names one.
    assert words["networking"] == "net-en"
    assert pack_words(LIBRARY, "zh")["networking"] == "os-zh"
    # "basics" is in two English titles: it names neither.
    assert "basics" not in words
    # "面试题" is in two Chinese titles: for a Chinese user too, it names neither.
    assert "面试题" not in pack_words(LIBRARY, "zh")
