"""Question levels and the words people use for them (English, Chinese, easy/medium/hard)."""

from __future__ import annotations

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
