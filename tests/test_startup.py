"""Start-up does the whole-file integrity check once: `run` checks, the bot does not again."""

from __future__ import annotations

import argparse
import ssl
from pathlib import Path
from typing import Any

import pytest

import bot.app
import bot.storage.database
from bot.app import build_application, running
from bot.config import Settings
from bot.core.content import Library
from tests.conftest import CONTENT
from tests.support.fake_bot_api import FakeBotAPI


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """The `verify` of every database opening (True: PRAGMA quick_check reads the file)."""
    seen: list[bool] = []
    real = bot.storage.database.open_database

    async def counting(*args: Any, verify: bool = True, **kwargs: Any) -> Any:
        seen.append(verify)
        return await real(*args, verify=verify, **kwargs)

    monkeypatch.setattr(bot.storage.database, "open_database", counting)
    return seen


async def test_the_bot_opened_after_a_check_does_not_check_again(
    api: FakeBotAPI, tmp_path: Path, flow_library: Library, checks: list[bool]
) -> None:
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        telegram_bot_token=api.token,
        telegram_api_base_url=api.base_url,
        database_path=tmp_path / "bot.sqlite3",
    )
    async with running(build_application(settings, flow_library, scheduler=False)):
        pass
    assert checks == [True]  # on its own (tests, benchmarks) the bot checks
    checks.clear()
    async with running(build_application(settings, flow_library, scheduler=False, checked=True)):
        pass
    assert checks == [False]


def test_the_run_command_checks_once_and_says_so(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, checks: list[bool]
) -> None:
    handed: list[dict[str, Any]] = []
    monkeypatch.setattr(bot.app, "run_bot", lambda *a, **kw: handed.append(kw))
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", FakeBotAPI.token)
    monkeypatch.setenv("DATABASE_PATH", str(tmp_path / "bot.sqlite3"))
    monkeypatch.setenv("CONTENT_DIR", str(CONTENT))
    from bot.cli import cmd_run

    assert cmd_run(argparse.Namespace()) == 0
    assert checks == [True]  # the pre-flight check, before anything talks to Telegram
    assert [kw["checked"] for kw in handed] == [True]  # so the bot's own opening skips it


def test_building_the_bot_reads_the_certificate_bundle_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, flow_library: Library
) -> None:
    """Both HTTP clients (requests, getUpdates) share one TLS context: the CA bundle is read
    and parsed once, not once per client (about 70 ms of start-up each, issue 13)."""
    made: list[object] = []
    real = ssl.create_default_context

    def counting(*args: Any, **kwargs: Any) -> ssl.SSLContext:
        context = real(*args, **kwargs)
        made.append(context)
        return context

    monkeypatch.setattr(ssl, "create_default_context", counting)
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        telegram_bot_token=FakeBotAPI.token,
        database_path=tmp_path / "bot.sqlite3",
    )
    app = build_application(settings, flow_library, scheduler=False)
    assert len(made) == 1
    assert app.bot.request is not app.bot._request[0]  # two clients, as before
