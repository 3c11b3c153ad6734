"""The parsed-YAML cache of `interview-bot run` (issue 13): a text seen before is read from
the cache, not parsed; a changed text is parsed again; what the cache returns is validated
as if parsed; data JSON cannot hold exactly is never cached; a broken cache is ignored."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from bot.core.content import PackError, load_library
from bot.core.yamlcache import YamlCache
from bot.i18n import Strings
from tests.conftest import CONTENT

PACK = """
id: demo
title: Demo
language: en
questions:
  - id: demo-1
    level: beginner
    question: What is a cache?
    answer: A fast store in front of a slow one.
    concepts:
      - label: fast store
        aliases: [quick storage]
        weight: 2
"""


def test_a_second_start_reads_the_packs_and_strings_without_parsing(
    tmp_path: Path, parsed: list[str]
) -> None:
    cache_file = tmp_path / "bot.sqlite3-yaml"
    first = YamlCache(cache_file)
    library = load_library([CONTENT], first)
    strings = Strings.load(CONTENT / "strings", first)
    first.save()
    assert len(parsed) == len(library.packs) + 2 and cache_file.exists()
    parsed.clear()
    second = YamlCache(cache_file)
    again = load_library([CONTENT], second)
    strings_again = Strings.load(CONTENT / "strings", second)
    assert parsed == []
    assert again.packs == library.packs
    assert strings_again.tables == strings.tables


def test_a_changed_pack_is_parsed_again(tmp_path: Path, parsed: list[str]) -> None:
    folder = tmp_path / "content"
    folder.mkdir()
    (folder / "demo.yaml").write_text(PACK, encoding="utf-8")
    cache = YamlCache(tmp_path / "cache.json")
    load_library([folder], cache)
    cache.save()
    (folder / "demo.yaml").write_text(PACK.replace("weight: 2", "weight: 3"), encoding="utf-8")
    parsed.clear()
    library = load_library([folder], YamlCache(tmp_path / "cache.json"))
    assert len(parsed) == 1
    assert library.questions["demo-1"].concepts[0].weight == 3


def test_what_the_cache_holds_is_validated_again(tmp_path: Path) -> None:
    """A valid YAML text that is no valid pack is refused on every start, cached or not."""
    folder = tmp_path / "content"
    folder.mkdir()
    (folder / "demo.yaml").write_text(PACK.replace("weight: 2", "weight: 99"), encoding="utf-8")
    errors = []
    for _ in range(2):
        cache = YamlCache(tmp_path / "cache.json")
        with pytest.raises(PackError) as caught:
            load_library([folder], cache)
        cache.save()
        errors.append(str(caught.value))
    assert errors[0] == errors[1]
    assert "weight" in errors[0]


def test_data_json_cannot_hold_exactly_is_parsed_every_time(
    tmp_path: Path, parsed: list[str]
) -> None:
    texts = ["when: 2026-12-02\n", "1: one\n", "x: .nan\n", "plain: [a, 1, 1.0, true, null]\n"]
    for _ in range(2):
        cache = YamlCache(tmp_path / "cache.json")
        values = [cache.load(text) for text in texts]
        cache.save()
    assert values[0] == {"when": dt.date(2026, 12, 2)}
    assert values[1] == {1: "one"}
    assert values[3] == {"plain": ["a", 1, 1.0, True, None]}
    assert [type(v) for v in values[3]["plain"]] == [str, int, float, bool, type(None)]
    # the first three were parsed both times, the plain one only the first time
    assert parsed == texts + texts[:3]


def test_a_broken_or_foreign_cache_file_is_ignored(tmp_path: Path, parsed: list[str]) -> None:
    cache_file = tmp_path / "cache.json"
    for content in ("{not json", json.dumps({"format": 0, "entries": {}}), "[]"):
        cache_file.write_text(content, encoding="utf-8")
        cache = YamlCache(cache_file)
        assert cache.load("a: 1\n") == {"a": 1}
        cache.save()
    assert len(parsed) == 3
    assert YamlCache(cache_file).load("a: 1\n") == {"a": 1}
    assert len(parsed) == 3  # the rewritten file serves it


def test_an_unwritable_cache_is_no_error(tmp_path: Path) -> None:
    cache = YamlCache(tmp_path / "missing-folder" / "cache.json")
    assert cache.load("a: [1, 2]\n") == {"a": [1, 2]}
    cache.save()  # nothing written, nothing raised
    assert not (tmp_path / "missing-folder").exists()
