"""The words each language reads a claim by: one data module per language, one seam.

The scorer (`bot.core.scoring`: is a place denied, does a sentence say something, is it a bare
list, which way does it turn a value, what is a topic word, whose claim is it) and
`bot.core.suggest` (what can be a key term) ask these questions of any text; the words that
answer them live here, a module per language:

- `zh` Chinese, `en` English, `ja` Japanese, each a `Language` of plain data: regular
  expression alternatives (written as one would grep for them) and word sets;
- `LANGUAGES` is every language the scorer reads, in the order their patterns are tried.

Adding a word is a one-line change in the language's module; adding a language is a new
module listed in `LANGUAGES`. The patterns are composed once, at import, by the modules that
use them, so the hot path pays nothing for the seam.
"""

from __future__ import annotations

from bot.core.lang import en, ja, zh
from bot.core.lang.base import Language

__all__ = ["CJK", "HAN", "KANA", "LANGUAGES", "Language", "alternatives", "words"]

# Han (with extension A and the compatibility block), kana, Hangul: the scripts that are
# written without spaces between words. One definition for every module that asks.
HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
KANA = "\u3040-\u30ff"
HANGUL = "\uac00-\ud7af"
CJK = KANA + HAN + HANGUL


LANGUAGES: tuple[Language, ...] = (en.LANGUAGE, zh.LANGUAGE, ja.LANGUAGE)


def alternatives(field: str) -> str:
    """One field of every language, as one alternation (languages without it left out)."""
    return "|".join(p for lang in LANGUAGES if (p := getattr(lang, field)))


def words(field: str) -> frozenset[str]:
    """One word-set field of every language, as one set."""
    return frozenset().union(*(getattr(lang, field) for lang in LANGUAGES))
