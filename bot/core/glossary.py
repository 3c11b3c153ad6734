"""A bilingual glossary of the field: groups of terms that name one thing in any language.

`content/glossary/*.yaml` holds lists of groups, e.g. `[batching, 批处理, 组批]`. The importer
uses it to give each concept its aliases in both languages, so an English answer to a Chinese
question is credited for what it states. Users extend it by adding their own files beside
the shipped one (later files add groups; a term in two groups joins them).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import yaml

from bot.core.text import tokenize
from bot.core.textfile import UnreadableFile, read_text
from bot.core.yamlcache import yaml_loader


class GlossaryError(ValueError):
    """A glossary file that cannot be read; the message names the file and the entry."""


# `batches` is batch + es but `caches` is cache + s: a word's final -e after ch/sh is folded
# too (cache and caches both fold to "cach", batch and batches to "batch").
_PLURAL_RE = re.compile(r"(?<=[a-z]{3})(?:(?<=ch|sh)es|(?<=ch|sh)e|(?<=[^s])s)$")


def _key(term: str) -> str:
    """How a term is compared: lower-case words, separators and plurals folded.

    Not the scorer's stems: those fold `stage` and `staging` into one word, and a glossary
    must not call a pipeline stage a staging environment.
    """
    return " ".join(_PLURAL_RE.sub("", w) for w in tokenize(term).raw)


class Glossary:
    """Term groups with lookups by any member and a scan of a text for known terms."""

    def __init__(self, groups: Iterable[Sequence[str]] = ()) -> None:
        self.groups: list[list[str]] = []
        self._index: dict[str, int] = {}
        # What `find_in` searches for, each term's once (a 1,000-question import scans the
        # glossary thousands of times): built on first use, dropped when a group is added.
        self._needles: list[tuple[str, str]] | None = None
        for group in groups:
            self.add(group)

    def add(self, group: Sequence[str]) -> None:
        """Add a group; one that shares a term with a known group is merged into it."""
        terms = [t.strip() for t in group if isinstance(t, str) and _key(t)]
        if len(terms) < 2:
            return
        self._needles = None
        known = sorted({self._index[_key(t)] for t in terms if _key(t) in self._index})
        if known:
            target = known[0]
            for other in known[1:]:  # the new group bridges two old ones
                for term in self.groups[other]:
                    self._place(term, target)
                self.groups[other] = []
        else:
            target = len(self.groups)
            self.groups.append([])
        for term in terms:
            self._place(term, target)

    def _place(self, term: str, index: int) -> None:
        key = _key(term)
        if self._index.get(key) == index:
            return
        self._index[key] = index
        self.groups[index].append(term)

    def synonyms(self, term: str) -> list[str]:
        """Every way of saying `term` the glossary knows, the term itself first."""
        index = self._index.get(_key(term))
        if index is None:
            return [term]
        return [term, *(t for t in self.groups[index] if _key(t) != _key(term))]

    def __contains__(self, term: str) -> bool:
        return _key(term) in self._index

    def __len__(self) -> int:
        return sum(1 for g in self.groups if g)

    def find_in(self, text: str) -> list[str]:
        """Glossary terms named in `text`, longest first where they overlap, in text order."""
        canon = f" {_key(text)} "
        hits: list[tuple[int, int, str]] = []
        for needle, term in self._search_needles():
            at = canon.find(needle)
            if at >= 0:
                hits.append((at, at + len(needle), term))
        hits.sort(key=lambda h: (h[0], -(h[1] - h[0])))
        out: list[str] = []
        taken: list[tuple[int, int]] = []
        for start, end, term in sorted(hits, key=lambda h: -(h[1] - h[0])):
            if any(start < e and s < end for s, e in taken):
                continue
            taken.append((start, end))
            out.append(term)
        order = {t: s for s, _, t in hits}
        return sorted(out, key=order.__getitem__)

    def _search_needles(self) -> list[tuple[str, str]]:
        if self._needles is None:
            needles = []
            for group in self.groups:
                for term in group:
                    key = _key(term)
                    # Latin ends match whole words; CJK ends may sit inside a run.
                    needle = (
                        (" " if key[:1].isascii() else "")
                        + key
                        + (" " if key[-1:].isascii() else "")
                    )
                    needles.append((needle, term))
            self._needles = needles
        return self._needles


def parse_glossary(data: Any, source: str) -> list[list[str]]:
    """Validate the YAML structure of one glossary file."""
    if not isinstance(data, list):
        raise GlossaryError(f"{source}: a glossary is a YAML list of term groups")
    groups = []
    for i, group in enumerate(data, 1):
        if not isinstance(group, list) or not all(isinstance(t, str | int | float) for t in group):
            raise GlossaryError(f"{source}: entry {i}: a group is a list of terms, e.g. [a, b]")
        groups.append([str(t) for t in group])
    return groups


def load_glossary(paths: Iterable[Path]) -> Glossary:
    """Load every *.yaml glossary file under `paths` (files or folders) into one glossary."""
    glossary = Glossary()
    for path in paths:
        if not path.exists() and path.name == "glossary":
            continue  # the default folder is optional
        files = sorted(path.glob("*.y*ml")) if path.is_dir() else [path]
        for file in files:
            try:
                data = yaml.load(read_text(file)[0], Loader=yaml_loader())  # noqa: S506
            except UnreadableFile as exc:
                raise GlossaryError(f"{file}: {exc}") from None
            except (yaml.YAMLError, ValueError) as exc:  # ValueError: `2024-02-30` as a date
                raise GlossaryError(f"{file}: cannot read ({exc})") from None
            for group in parse_glossary(data, str(file)):
                glossary.add(group)
    return glossary
