"""The parsed-YAML cache, for the surviving mutants of `bot/core/yamlcache.py`.

What a bot owner would notice: a PyYAML upgrade (or none installed) must parse every file
afresh, not serve data parsed by another version; a start that changed nothing must not
rewrite the cache; a broken file's error is PyYAML's own message; the cache works under a
locale that is not UTF-8; a pack added or removed leaves the others' data right and the
cache without the removed one; an unwritable cache is logged with its path and reason; data
JSON would turn into other types (pairs) is parsed every time; a lone surrogate never
reaches the cache from a file, and one read from an escape does not stop the start.
"""

from __future__ import annotations

import importlib.util
import json
import locale
import logging
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

import bot.core.yamlcache
from bot.core.content import PackError, load_library
from bot.core.yamlcache import YamlCache, YamlError, parse_yaml, yaml_loader
from bot.i18n import Strings
from tests.conftest import CONTENT

TEXT = "id: demo\ntitle: Demo\n"


def test_a_cache_from_another_pyyaml_is_not_used(
    tmp_path: Path, parsed: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "bot.sqlite3-yaml"
    first = YamlCache(path)
    first.load(TEXT)
    first.save()
    parsed.clear()
    monkeypatch.setattr(bot.core.yamlcache, "_yaml_stamp", lambda: "another PyYAML")
    assert YamlCache(path).load(TEXT) == {"id": "demo", "title": "Demo"}
    assert parsed == [TEXT]  # parsed afresh


def test_the_stamp_names_the_installed_pyyaml() -> None:
    origin = importlib.util.find_spec("yaml").origin  # type: ignore[union-attr]
    assert origin is not None
    assert bot.core.yamlcache._yaml_stamp().startswith(f"{origin}:")


def test_without_pyyaml_the_stamp_says_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert bot.core.yamlcache._yaml_stamp() == "none"


def test_without_libyaml_the_pure_python_loader_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(yaml, "CSafeLoader", raising=False)
    assert yaml_loader() is yaml.SafeLoader
    assert parse_yaml(TEXT) == {"id": "demo", "title": "Demo"}


def test_a_start_that_changed_nothing_leaves_the_cache_file_alone(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3-yaml"
    first = YamlCache(path)
    first.load(TEXT)
    first.save()
    second = YamlCache(path)
    assert second.load(TEXT) == {"id": "demo", "title": "Demo"}
    marked = path.read_text(encoding="utf-8") + " "  # still the same JSON
    path.write_text(marked, encoding="utf-8")
    second.save()
    assert path.read_text(encoding="utf-8") == marked  # not written again


def test_a_bad_file_reports_pyyamls_own_message() -> None:
    with pytest.raises(YamlError) as caught:
        parse_yaml("id: [unclosed\n")
    assert "expected ',' or ']'" in str(caught.value)
    assert caught.value.original is not None


@pytest.fixture
def ascii_locale() -> Iterator[None]:
    """The machine's locale is plain C (ASCII), as some servers and containers are set."""
    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        yield
    finally:
        locale.setlocale(locale.LC_CTYPE, before)


CHINESE = "title: 缓存复用\n"


def test_under_an_ascii_locale_the_cache_is_written(tmp_path: Path, ascii_locale: None) -> None:
    path = tmp_path / "bot.sqlite3-yaml"
    first = YamlCache(path)
    assert first.load(CHINESE) == {"title": "缓存复用"}
    first.save()  # UTF-8 whatever the locale: no UnicodeEncodeError
    # Chinese as UTF-8, readable in the file (\u escapes would make it twice the size)
    assert "缓存复用" in path.read_text(encoding="utf-8")


def test_under_an_ascii_locale_the_cache_is_read(tmp_path: Path, parsed: list[str]) -> None:
    path = tmp_path / "bot.sqlite3-yaml"
    first = YamlCache(path)
    first.load(CHINESE)
    first.save()
    parsed.clear()
    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        second = YamlCache(path)
    finally:
        locale.setlocale(locale.LC_CTYPE, before)
    assert second.load(CHINESE) == {"title": "缓存复用"}
    assert parsed == []  # read from the cache, not parsed again


def test_a_pack_added_on_one_start_leaves_the_others_data_right(
    tmp_path: Path, parsed: list[str]
) -> None:
    path = tmp_path / "bot.sqlite3-yaml"
    old, new = "id: old\n", "id: new\n"
    first = YamlCache(path)
    first.load(old)
    first.save()
    second = YamlCache(path)  # a pack was added: old from the cache, new parsed
    second.load(old)
    second.load(new)
    second.save()
    parsed.clear()
    third = YamlCache(path)
    assert third.load(old) == {"id": "old"}
    assert third.load(new) == {"id": "new"}
    assert parsed == []


def test_a_removed_pack_is_dropped_from_the_cache_file(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3-yaml"
    first = YamlCache(path)
    first.load("id: kept\n")
    first.load("id: removed\n")
    first.save()
    second = YamlCache(path)
    second.load("id: kept\n")  # nothing new parsed, one text fewer
    second.save()
    entries = json.loads(path.read_text(encoding="utf-8"))["entries"]
    assert list(entries.values()) == [{"id": "kept"}]


def test_an_unwritable_cache_is_logged_with_its_path_and_reason(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "missing-folder" / "bot.sqlite3-yaml"
    cache = YamlCache(path)
    cache.load("a: 1\n")
    with caplog.at_level(logging.DEBUG, logger="bot.core.yamlcache"):
        cache.save()
    partial = tmp_path / "missing-folder" / f".bot.sqlite3-yaml.{os.getpid()}"
    assert [r.getMessage() for r in caplog.records] == [
        f"could not write the content cache {path}:"
        f" [Errno 2] No such file or directory: '{partial}'"
    ]


def test_pairs_are_pairs_on_every_start(tmp_path: Path) -> None:
    """YAML's ordered pairs are tuples; JSON would give them back as lists."""
    path = tmp_path / "bot.sqlite3-yaml"
    text = "order: !!omap [{first: 1}, {second: 2}]\n"
    for _ in range(2):
        cache = YamlCache(path)
        assert cache.load(text) == {"order": [("first", 1), ("second", 2)]}
        cache.save()


def test_a_lone_surrogate_in_a_pack_file_is_a_clear_pack_error(tmp_path: Path) -> None:
    """Files are decoded strictly: the UTF-8 bytes of a lone surrogate (ED A0 80) are not
    UTF-8, so such text never reaches PyYAML (whose libyaml would raise UnicodeEncodeError)."""
    folder = tmp_path / "content"
    folder.mkdir()
    (folder / "demo.yaml").write_bytes(b"id: demo\ntitle: \xed\xa0\x80\n")
    with pytest.raises(PackError) as caught:
        load_library([folder], YamlCache(tmp_path / "cache.json"))
    assert str(caught.value) == (
        f"{folder / 'demo.yaml'}: the file is not UTF-8 (at byte 17): save it as UTF-8"
    )


def test_a_lone_surrogate_escape_is_a_clear_pack_error(tmp_path: Path) -> None:
    folder = tmp_path / "content"
    folder.mkdir()
    (folder / "demo.yaml").write_text('id: demo\ntitle: "x \\ud800"\n', encoding="utf-8")
    with pytest.raises(PackError) as caught:
        load_library([folder], YamlCache(tmp_path / "cache.json"))
    assert str(caught.value) == (
        f"{folder / 'demo.yaml'}: found invalid Unicode character escape code (line 2, column 13)"
    )


def test_a_lone_surrogate_read_by_pure_python_pyyaml_does_not_stop_the_start(
    tmp_path: Path, parsed: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without libyaml, PyYAML reads the escape "\\ud800" as a lone surrogate: the strings
    load as they do without a cache, and the cache, which cannot hold it as UTF-8, still
    keeps the other table."""
    monkeypatch.delattr(yaml, "CSafeLoader", raising=False)
    folder = tmp_path / "strings"
    shutil.copytree(CONTENT / "strings", folder)
    with (folder / "en.yaml").open("a", encoding="utf-8") as f:
        f.write('odd_key: "x \\ud800 y"\n')
    path = tmp_path / "bot.sqlite3-yaml"
    for _ in range(2):
        parsed.clear()
        cache = YamlCache(path)
        strings = Strings.load(folder, cache)
        cache.save()  # no UnicodeEncodeError
        assert strings.tables["en"]["odd_key"] == "x \ud800 y"
    assert [text.endswith('odd_key: "x \\ud800 y"\n') for text in parsed] == [True]
    assert not list(tmp_path.glob(".bot.sqlite3-yaml.*"))  # no half-written file left
