"""Shared fixtures: the real content library and question lookups."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core.content import Library, Question, load_library

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content"
SEED = ROOT.parent / "shared" / "seeds" / "000_d8bd3570adfa3e3b.txt"


@pytest.fixture(scope="session")
def library() -> Library:
    return load_library([CONTENT])


@pytest.fixture(scope="session")
def q(library: Library):  # type: ignore[no-untyped-def]
    def get(question_id: str) -> Question:
        question = library.question(question_id)
        assert question is not None, question_id
        return question

    return get
