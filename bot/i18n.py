"""Interface strings per language, loaded from `content/strings/<lang>.yaml`.

Templates are trusted Telegram HTML; every value filled into a template is HTML-escaped here,
unless it is already `Html` (built by `bot.render` from escaped parts).

Counts agree with their noun through the placeholder's format: `{days:day|days}` gives
"1 day" and "2 days" (languages without plural forms write `{days} 天`).
"""

from __future__ import annotations

import html
from pathlib import Path

from bot.core.models import UserProfile
from bot.core.yamlcache import YamlCache, parse_yaml

DEFAULT_LANGUAGE = "en"
LANGUAGES = ("en", "zh")


class Html(str):
    """A string that is already safe Telegram HTML."""

    __slots__ = ()


def language_for(code: str | None) -> str:
    """Map a Telegram language code (zh-hans, zh-CN, en-US, …) to a UI language."""
    if code and code.lower().startswith("zh"):
        return "zh"
    return DEFAULT_LANGUAGE


_LANGUAGE_WORDS = {"cn": "zh", "中文": "zh", "chinese": "zh", "english": "en", "英文": "en"}


def parse_language(word: str) -> str | None:
    """What /lang names (en, zh, 中文, English, …) as an interface language; None if none."""
    wanted = word.strip().lower()
    wanted = _LANGUAGE_WORDS.get(wanted, wanted)
    return wanted if wanted in LANGUAGES else None


def interface_language(chosen: str | None, client: str | None) -> str:
    """The one rule for the language of a reply to a person.

    What they chose (/lang), else what their Telegram client reports, else English.
    """
    if chosen in LANGUAGES:
        return chosen
    return language_for(client)


def user_language(user: UserProfile | None, client: str | None = None) -> str:
    """The language of every reply to this person, in any chat (see `interface_language`).

    `client`: the language code of the update being answered (the freshest); without one
    (background sends), what the client reported at the last contact.
    """
    reported = language_for(client) if client else (user.telegram_language if user else None)
    return interface_language(user.language if user else None, reported)


class Count(int):
    """An integer that formats `{n:one|many}` as "1 one" or "2 many"."""

    def __format__(self, spec: str) -> str:
        if "|" not in spec:
            return int.__format__(self, spec)
        one, many = spec.split("|", 1)
        return f"{int(self)} {one if self == 1 else many}"


class Strings:
    def __init__(self, tables: dict[str, dict[str, str]]) -> None:
        if DEFAULT_LANGUAGE not in tables:
            raise ValueError(f"missing strings for {DEFAULT_LANGUAGE!r}")
        self.tables = tables

    @classmethod
    def load(cls, folder: Path, cache: YamlCache | None = None) -> Strings:
        """The tables in `folder`; `cache`: their parsed YAML from an earlier start."""
        tables: dict[str, dict[str, str]] = {}
        for lang in LANGUAGES:
            path = folder / f"{lang}.yaml"
            text = path.read_text(encoding="utf-8")
            data = cache.load(text) if cache is not None else parse_yaml(text)
            if not isinstance(data, dict):
                raise ValueError(f"{path}: expected a mapping of string keys")
            tables[lang] = {str(k): str(v) for k, v in data.items()}
        return cls(tables)

    def has(self, key: str) -> bool:
        """Whether `key` is a string (in English, the fallback of every language)."""
        return key in self.tables[DEFAULT_LANGUAGE]

    def __call__(self, lang: str | None, key: str, **values: object) -> Html:
        """The template `key` in `lang` (falling back to English) with escaped values."""
        table = self.tables.get(lang or DEFAULT_LANGUAGE, self.tables[DEFAULT_LANGUAGE])
        template = table.get(key) or self.tables[DEFAULT_LANGUAGE][key]
        safe = {k: _safe(v) for k, v in values.items()}
        return Html(template.format_map(safe))


def _safe(value: object) -> object:
    if isinstance(value, Html):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return Count(value)  # digits need no escaping; plural forms need the number
    return html.escape(str(value), quote=False)
