"""Which packs a chat's questions come from: the rule every way of asking follows.

A chat follows packs (`/packs`, a field chosen at `/start`, a pack's link); questions are
drawn from those, each in the user's language where a translation of it is there. A chat
that follows none gets the packs in the user's language, and with none in that language,
nothing: the packs in other languages are offered instead, never handed over unasked.
`/quiz`, the daily question and reviews ask `draw_from`; a new way of asking (mock
sessions) asks it too.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from bot.core.content import Library, Pack, base_language
from bot.core.levels import LEVEL_ORDER, Level, parse_level


@dataclass(frozen=True, slots=True)
class Drawn:
    """The packs to draw from; when there are none, the packs to offer instead."""

    packs: tuple[str, ...]
    others: tuple[str, ...] = ()  # packs in other languages (only when `packs` is empty)


def translation(library: Library, pack_id: str, lang: str) -> str:
    """The pack in `lang` holding `pack_id`'s questions (it, its original, or another
    translation of that original); `pack_id` itself when none is in `lang`."""
    if library.pack_language(pack_id) == lang:
        return pack_id
    original = library.packs[pack_id].translates or pack_id
    for pid, pack in library.offered.items():
        family = pid == original or pack.translates == original
        if family and library.pack_language(pid) == lang:
            return pid
    return pack_id


def named(library: Library, pack_id: str, lang: str) -> str:
    """The pack a user named (`/quiz <pack>`, `/mock <pack>`, a pack's link): an original is
    asked in `lang` where a translation of it is there; a translation named is asked as
    named (the user chose that language: `/quiz triton-en` from a Chinese user)."""
    if library.packs[pack_id].translates is not None:
        return pack_id
    return translation(library, pack_id, lang)


def draw_from(library: Library, followed: Iterable[str], lang: str) -> Drawn:
    """The packs a chat's questions come from (see the module's docstring).

    `followed`: the chat's packs, in the order followed; one no longer offered (removed, or
    a draft now) is passed over.
    """
    chosen: list[str] = []
    for pid in followed:
        if pid in library.offered:
            own = translation(library, pid, lang)
            if own not in chosen:
                chosen.append(own)
    if chosen:
        return Drawn(tuple(chosen))
    in_lang = tuple(pid for pid in library.offered if library.pack_language(pid) == lang)
    if in_lang:
        return Drawn(in_lang)
    return Drawn((), tuple(library.offered))


def listed(library: Library, lang: str) -> list[Pack]:
    """The packs offered, those in `lang` first, each group in file order."""
    packs = list(library.offered.values())
    return sorted(packs, key=lambda p: base_language(p.language) != lang)


def fields(library: Library) -> list[str]:
    """The fields of the packs offered, in file order, each once."""
    return list(dict.fromkeys(p.field for p in library.offered.values()))


def field_packs(library: Library, field: str | None, lang: str) -> tuple[str, ...]:
    """The packs following a field chosen at `/start` means (None: every field): those in
    `lang`; where the field has none in `lang`, all of the field (the choice was made
    knowing their languages: `/start` names them)."""
    of_field = [pid for pid, p in library.offered.items() if field is None or p.field == field]
    own = [pid for pid in of_field if library.pack_language(pid) == lang]
    return tuple(own or of_field)


def field_languages(library: Library, lang: str, field: str | None = None) -> list[str]:
    """The languages of the packs offered (of one field), `lang` first, then in file order,
    each once."""
    found = dict.fromkeys(
        base_language(p.language)
        for p in library.offered.values()
        if field is None or p.field == field
    )
    return sorted(found, key=lambda code: code != lang)


def levels_of(pack: Pack) -> list[Level]:
    """The levels a pack has questions at, easiest first."""
    present = {q.level for q in pack.questions}
    return [level for level in LEVEL_ORDER if level in present]


def done_per_pack(library: Library, answered: Collection[str]) -> Counter[str]:
    """How many of each pack's questions are among `answered` (question ids)."""
    return Counter(library.pack_of[q] for q in answered if q in library.pack_of)


_WORD = re.compile(r"[\w+#.-]+")


def pack_words(library: Library, lang: str) -> dict[str, str]:
    """What `/quiz <pack>` accepts for each pack offered: its id, and each word of its title
    (two characters or more, not a level word) that names one pack; a word in the titles of
    several names the one in `lang` if only one of them is. Keys are case-folded."""
    words: dict[str, str] = {pid.casefold(): pid for pid in library.offered}
    owners: dict[str, list[str]] = {}
    for pid, pack in library.offered.items():
        for word in dict.fromkeys(w.casefold().strip(".-") for w in _WORD.findall(pack.title)):
            if len(word) >= 2 and parse_level(word) is None:
                owners.setdefault(word, []).append(pid)
    for word, pids in owners.items():
        if word in words:
            continue
        if len(pids) > 1:
            pids = [pid for pid in pids if library.pack_language(pid) == lang]
        if len(pids) == 1:
            words[word] = pids[0]
    return words


def find_pack(words: Mapping[str, str], word: str) -> str | None:
    """The pack `word` names in `pack_words`' table, or None."""
    return words.get(word.strip().casefold())
