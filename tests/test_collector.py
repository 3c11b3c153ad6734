"""The cyclic garbage collector: off while the program loads, on while any command runs.

`interview-bot` loads with it off (bot/entry.py, issue 13); a bot left without it would
keep every reference cycle it ever made (each exception with its traceback is one), and
grow for as long as it runs. Each check is a fresh interpreter through the entry module,
which reports at exit whether the collector was on and how many times it had run.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path

from tests.conftest import CONTENT
from tests.support.fake_bot_api import FakeBotAPI, FakeUser

USER = FakeUser(525252, "Lin", "en")


def _code(report: Path, argv: list[str]) -> str:
    return (
        "import atexit, gc, json, pathlib, sys\n"
        f"out = pathlib.Path({str(report)!r})\n"
        "atexit.register(lambda: out.write_text(json.dumps("
        "[gc.isenabled(), sum(s['collections'] for s in gc.get_stats())])))\n"
        f"sys.argv = {['interview-bot', *argv]!r}\n"
        "from bot.entry import main\n"
        "raise SystemExit(main())\n"
    )


async def _start(
    tmp_path: Path, argv: list[str], api: FakeBotAPI | None = None
) -> asyncio.subprocess.Process:
    env = {
        **os.environ,
        "DATABASE_PATH": str(tmp_path / "bot.sqlite3"),
        "CONTENT_DIR": str(CONTENT),
    }
    if api is not None:
        env |= {"TELEGRAM_BOT_TOKEN": api.token, "TELEGRAM_API_BASE_URL": api.base_url}
    return await asyncio.create_subprocess_exec(
        sys.executable, "-c", _code(tmp_path / "gc.json", argv), cwd=tmp_path, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip


def _report(tmp_path: Path) -> tuple[bool, int]:
    enabled, collections = json.loads((tmp_path / "gc.json").read_text())
    return enabled, collections


async def test_a_running_bot_collects(api: FakeBotAPI, tmp_path: Path) -> None:
    process = await _start(tmp_path, ["run"], api)
    try:
        api.message(USER, "/start")
        await api.wait_for(USER.id, 1, timeout=30)
        api.message(USER, "/quiz beginner triton")  # chosen: the packs are Chinese
        await api.wait_for(USER.id, 2)
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 0, stderr.decode()[-2000:]
    enabled, collections = _report(tmp_path)
    assert enabled
    assert collections > 0


async def test_a_command_other_than_run_collects(tmp_path: Path) -> None:
    process = await _start(tmp_path, ["content", "check"])
    _, stderr = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, stderr.decode()[-2000:]
    enabled, _ = _report(tmp_path)
    assert enabled
