"""Packs kept validated between starts (issue 30): `interview-bot run` rebuilds a pack it
validated on an earlier start instead of validating it again, so a pack costs a start next
to nothing. What it serves is still what the files say: an edited pack is served as edited
after a restart, an added pack appears, a pack broken since the last start stops the start
with its problem named, and a change of the validating code validates every pack again."""

from __future__ import annotations

import asyncio
import itertools
import json
import shutil
import signal
from pathlib import Path

import pytest
from pydantic import BaseModel

from bot.core import content
from bot.core.content import load_library
from bot.core.yamlcache import YamlCache
from tests.conftest import CONTENT
from tests.support.fake_bot_api import FakeBotAPI, FakeUser
from tests.support.run import run_env, start_run

# A new learner for each /quiz: a question left open would be offered again instead.
LEARNER_IDS = itertools.count(424_242)

PACK = """
id: {id}
title: {title}
language: en
questions:
  - id: {id}-1
    level: beginner
    question: {question}
    answer: A fast store in front of a slow one, kept close to where it is read.
    concepts:
      - label: fast store
        aliases: [quick storage]
        weight: {weight}
"""


def write_pack(folder: Path, pack_id: str, question: str, weight: str = "2") -> Path:
    path = folder / f"{pack_id}.yaml"
    text = PACK.format(id=pack_id, title=pack_id.title(), question=question, weight=weight)
    path.write_text(text, encoding="utf-8")
    return path


def content_folder(tmp_path: Path) -> Path:
    """A content folder of its own (the packs the test edits) with the shipped strings."""
    folder = tmp_path / "content"
    folder.mkdir()
    shutil.copytree(CONTENT / "strings", folder / "strings")
    return folder


async def quiz_replies(api: FakeBotAPI, tmp_path: Path, folder: Path, *commands: str) -> list[str]:
    """Start the real `interview-bot run` on `folder`, send each command from a learner of
    its own, and return the text of the bot's reply to each; then stop it (SIGTERM) as an
    operator does."""
    env = run_env(api, tmp_path / "bot.sqlite3", CONTENT_DIR=str(folder), LOG_LEVEL="WARNING")
    process = await start_run(env, tmp_path)
    replies: list[str] = []
    try:
        for command in commands:
            learner = FakeUser(next(LEARNER_IDS), "Grace")
            before = len(api.to(learner.id))
            api.message(learner, command)
            sent = await api.wait_for(learner.id, before + 1, timeout=60)
            replies.append(sent[before].visible)
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, stderr.decode()[-2000:]
    return replies


async def test_an_edited_pack_is_served_as_edited_after_a_restart_and_an_added_one_appears(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    folder = content_folder(tmp_path)
    write_pack(folder, "caching", "What does a cache keep?")
    (first,) = await quiz_replies(api, tmp_path, folder, "/quiz caching")
    assert "What does a cache keep?" in first
    assert (tmp_path / "bot.sqlite3-yaml").is_file()  # the next start reads the packs from it

    write_pack(folder, "caching", "Why is a cache in front of a database?")
    write_pack(folder, "queues", "What does a queue decouple?")
    edited, added = await quiz_replies(api, tmp_path, folder, "/quiz caching", "/quiz queues")
    assert "Why is a cache in front of a database?" in edited
    assert "What does a cache keep?" not in edited
    assert "What does a queue decouple?" in added


async def test_a_pack_broken_since_the_last_start_stops_the_next_start_naming_it(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    folder = content_folder(tmp_path)
    pack = write_pack(folder, "caching", "What does a cache keep?")
    (first,) = await quiz_replies(api, tmp_path, folder, "/quiz caching")
    assert "What does a cache keep?" in first
    polls = api.calls["getUpdates"]

    write_pack(folder, "caching", "What does a cache keep?", weight="99")  # at most 10
    env = run_env(api, tmp_path / "bot.sqlite3", CONTENT_DIR=str(folder))
    process = await start_run(env, tmp_path)
    _, stderr = await asyncio.wait_for(process.communicate(), 60)
    said = stderr.decode()
    assert process.returncode == 1
    assert "Content error:" in said
    assert f"{pack}: question caching-1: field concepts[0].weight: " in said
    assert api.calls["getUpdates"] == polls  # refused before it polled


def test_a_pack_validated_by_other_code_is_validated_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache holds what one version of the validating code made of a text; with another
    version (the stamp of its source changed) the text is validated again."""
    folder = tmp_path / "content"
    folder.mkdir()
    write_pack(folder, "caching", "What does a cache keep?", weight="2")
    cache_file = tmp_path / "bot.sqlite3-yaml"
    monkeypatch.setattr(content, "validating_code", lambda: "an older version")
    cache = YamlCache(cache_file)
    load_library([folder], cache)
    cache.save()
    # Say that older version read the weight otherwise: while it runs, that is what it gets.
    stored = json.loads(cache_file.read_text(encoding="utf-8"))
    (kept,) = stored["validated"].values()
    kept["questions"][0]["concepts"][0]["weight"] = 3.0
    cache_file.write_text(json.dumps(stored), encoding="utf-8")
    again = load_library([folder], YamlCache(cache_file))
    assert again.questions["caching-1"].concepts[0].weight == 3.0

    monkeypatch.setattr(content, "validating_code", lambda: "this version")
    library = load_library([folder], YamlCache(cache_file))
    assert library.questions["caching-1"].concepts[0].weight == 2.0


def test_the_stamp_of_the_validating_code_changes_with_its_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import bot.core.text

    copy = tmp_path / "text.py"
    shutil.copyfile(str(bot.core.text.__file__), copy)
    monkeypatch.setattr(bot.core.text, "__file__", str(copy))
    content.validating_code.cache_clear()
    try:
        before = content.validating_code()
        copy.write_text(copy.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
        content.validating_code.cache_clear()
        after = content.validating_code()
    finally:
        content.validating_code.cache_clear()
    assert before is not None and after is not None and before != after


def same(validated: object, rebuilt: object, where: str) -> None:
    """Equal, and of the same types all the way down (a tuple no list, a Level no str), with
    the same fields set: what `model_dump(exclude_unset=True)` or `model_copy` see."""
    assert type(rebuilt) is type(validated), where
    if isinstance(validated, BaseModel):
        assert isinstance(rebuilt, BaseModel)
        assert rebuilt.model_fields_set == validated.model_fields_set, where
        assert list(rebuilt.__dict__) == list(validated.__dict__), where
        for name, value in validated.__dict__.items():
            same(value, rebuilt.__dict__[name], f"{where}.{name}")
    elif isinstance(validated, tuple):
        assert isinstance(rebuilt, tuple) and len(rebuilt) == len(validated), where
        for i, (v, r) in enumerate(zip(validated, rebuilt, strict=True)):
            same(v, r, f"{where}[{i}]")
    else:
        assert rebuilt == validated, where


def test_every_shipped_pack_comes_back_from_the_cache_as_validated(tmp_path: Path) -> None:
    paths = [CONTENT, CONTENT / "drafts"]
    validated = load_library(paths)  # no cache: validated from the files
    first = YamlCache(tmp_path / "bot.sqlite3-yaml")
    load_library(paths, first)
    first.save()
    rebuilt = load_library(paths, YamlCache(tmp_path / "bot.sqlite3-yaml"))
    assert list(rebuilt.packs) == list(validated.packs)
    for pack_id, pack in validated.packs.items():
        same(pack, rebuilt.packs[pack_id], pack_id)
