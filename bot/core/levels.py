"""Question levels and the words people use for them (English, Chinese, easy/medium/hard)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum


class Level(StrEnum):
    BEGINNER = "beginner"
    INTERMEDIATE = "intermediate"
    ADVANCED = "advanced"


LEVEL_ORDER: tuple[Level, ...] = (Level.BEGINNER, Level.INTERMEDIATE, Level.ADVANCED)

_LEVEL_WORDS: dict[str, Level] = {
    "beginner": Level.BEGINNER,
    "basic": Level.BEGINNER,
    "easy": Level.BEGINNER,
    "junior": Level.BEGINNER,
    "初级": Level.BEGINNER,
    "简单": Level.BEGINNER,
    "入门": Level.BEGINNER,
    "intermediate": Level.INTERMEDIATE,
    "medium": Level.INTERMEDIATE,
    "mid": Level.INTERMEDIATE,
    "中级": Level.INTERMEDIATE,
    "中等": Level.INTERMEDIATE,
    "advanced": Level.ADVANCED,
    "hard": Level.ADVANCED,
    "senior": Level.ADVANCED,
    "expert": Level.ADVANCED,
    "高级": Level.ADVANCED,
    "困难": Level.ADVANCED,
}

# Shown to users when an argument is not understood.
LEVEL_CHOICES = "beginner|intermediate|advanced, 初级|中级|高级, easy|medium|hard"


def parse_level(word: str) -> Level | None:
    """Return the level a word names, in any case and either script, or None."""
    return _LEVEL_WORDS.get(word.strip().casefold())


@dataclass(frozen=True, slots=True)
class QuizArgs:
    """What `/quiz [level] [pack]` asks for; `problem` names the string key of a refusal."""

    level: Level | None = None
    pack: str | None = None
    problem: str | None = None  # "bad_level" (neither) | "pack_draft" | "bad_quiz_args"
    word: str = ""  # the word refused (else the first that is not a level)


def parse_quiz_args(
    args: Iterable[str], packs: Iterable[str] | Mapping[str, str], drafts: Iterable[str] = ()
) -> QuizArgs:
    """The one reader of /quiz arguments (private chats and groups): a level and a pack,
    each at most once, in any order and any case. `packs`: the pack ids, or a table of the
    words that name a pack (its id, a word of its title) to its id. `drafts`: packs loaded
    but not yet asked (named, they get their own answer rather than "no such pack")."""
    words = list(args)
    if isinstance(packs, Mapping):
        known = {word.casefold(): pid for word, pid in packs.items()}
    else:
        known = {p.casefold(): p for p in packs}
    unready = {p.casefold() for p in drafts}
    word = next((w for w in words if parse_level(w) is None), "")
    level: Level | None = None
    pack: str | None = None
    if len(words) > 2:
        return QuizArgs(problem="bad_quiz_args", word=word)
    for each in words:
        if level is None and (found := parse_level(each)) is not None:
            level = found
        elif pack is None and each.casefold() in known:
            pack = known[each.casefold()]
        elif each.casefold() in unready:
            return QuizArgs(problem="pack_draft", word=each)
        elif parse_level(each) is None:  # neither a level nor a pack
            return QuizArgs(problem="bad_level", word=each)
        else:  # a second level
            return QuizArgs(problem="bad_quiz_args", word=word)
    return QuizArgs(level, pack)
