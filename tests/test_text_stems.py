"""Stems and their memo, for the surviving mutants of `bot/core/text.py`.

Expected stems are written by hand from the rule in `text.py`: only ASCII English words are
folded (-ing, -ed, -s, a final -e); any other word is kept as it is.
"""

from __future__ import annotations

from bot.core import text
from bot.core.text import stem, tokenize


def test_words_with_letters_beyond_ascii_are_not_folded() -> None:
    # English suffix rules would cut "cafés" to "café" and "größe" to "größ".
    assert [stem(w) for w in ("cafés", "größe", "naïve")] == ["cafés", "größe", "naïve"]
    assert tokenize("Cafés und Größe").stem == ["cafés", "und", "größe"]


def test_the_stem_memo_is_emptied_when_it_holds_its_limit() -> None:
    memo = text._STEMS
    memo.clear()
    for i in range(memo.LIMIT):
        stem(f"memo{i}")
    assert len(memo) == memo.LIMIT  # full, not over
    assert stem("batching") == "batch"  # a new word: the memo is emptied first
    assert len(memo) == 1


def test_six_letter_ing_words_fold_with_the_memo_emptied() -> None:
    # Emptied first, so the rule runs here and not only in whichever test met the word first.
    text._STEMS.clear()
    # Three letters are left: tuning/tune, coding/code, paging/page meet.
    assert [stem(w) for w in ("tuning", "coding", "paging")] == ["tun", "cod", "pag"]
    assert [stem(w) for w in ("tune", "code", "page")] == ["tun", "cod", "pag"]


def test_five_letter_ed_words_fold_with_the_memo_emptied() -> None:
    # "-ed" comes off words of five letters or more: tuned/tune, based/base meet.
    text._STEMS.clear()
    assert [stem(w) for w in ("tuned", "based", "used")] == ["tun", "bas", "used"]
