"""The parsed-YAML cache, for the surviving mutants of `bot/core/yamlcache.py`.

What a bot owner would notice: a PyYAML upgrade (or none installed) must parse every file
afresh, not serve data parsed by another version; a start that changed nothing must not
rewrite the cache; a broken file's error is PyYAML's own message.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import yaml

import bot.core.yamlcache
from bot.core.yamlcache import YamlCache, YamlError, parse_yaml, yaml_loader

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
