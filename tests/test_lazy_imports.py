"""What only some commands need is loaded by those commands, not by every `run` (issue 13).

The Chinese segmenter and spacing (rjieba, pangu), Pillow (the /stats picture) and the
content tools (importer, suggestions, glossary, evaluation, authoring checks) cost start-up
time and memory; a running bot that nobody asked for a picture needs none of them. The
scorer (with its claims rules and rapidfuzz) is needed by the first answer, not before the
bot polls: it loads then. Each check runs in a fresh interpreter, since this test process has
imported everything.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.conftest import CONTENT, ROOT
from tests.support.fake_bot_api import FakeBotAPI, FakeUser

USER = FakeUser(515151, "Lin", "en")

# Written out, not taken from the code: what `run` must not load.
NOT_FOR_RUN = ("rjieba", "pangu", "PIL")
CONTENT_TOOLS = (
    "bot.core.importer",
    "bot.core.suggest",
    "bot.core.glossary",
    "bot.core.evaluation",
    "bot.core.authoring",
    "bot.core.duplicates",
)


# Loaded by the first answer, not by start-up.
FIRST_ANSWER = ("bot.core.scoring", "bot.core.scoring.layout", "rapidfuzz")
# Loaded once the first getUpdates is out: the client replies travel on (0.16 s of imports).
FIRST_POLL = ("bot.reply_client", "aiohttp")


def _unwanted(modules: list[str], *, answered: bool = True) -> list[str]:
    later = () if answered else FIRST_ANSWER
    return sorted(
        m
        for m in modules
        if m.split(".")[0] in NOT_FOR_RUN
        or m.startswith(CONTENT_TOOLS)
        or m in later
        or m.split(".")[0] in later
    )


def test_importing_the_command_and_the_bot_loads_none_of_them() -> None:
    code = "import json, sys, bot.cli, bot.app; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True,
        cwd=ROOT,
    )  # fmt: skip
    modules = json.loads(done.stdout)
    assert "bot.app" in modules and "telegram" in modules  # the check looked at a real import
    assert _unwanted(modules, answered=False) == []
    assert [m for m in FIRST_POLL if m in modules] == []


async def _run(api: FakeBotAPI, tmp_path: Path) -> asyncio.subprocess.Process:
    """The real `interview-bot run` (argument parsing, the database check, the bot); its
    modules are listed in tmp_path/modules.json at exit."""
    listing = tmp_path / "modules.json"
    code = (
        "import atexit, json, pathlib, sys\n"
        f"out = pathlib.Path({str(listing)!r})\n"
        "atexit.register(lambda: out.write_text(json.dumps(sorted(sys.modules))))\n"
        "from bot.cli import main\n"
        "raise SystemExit(main(['run']))\n"
    )
    env = {
        **os.environ,
        "TELEGRAM_BOT_TOKEN": api.token,
        "TELEGRAM_API_BASE_URL": api.base_url,
        "DATABASE_PATH": str(tmp_path / "bot.sqlite3"),
        "CONTENT_DIR": str(CONTENT),
    }
    return await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, cwd=tmp_path, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip


async def _stop(process: asyncio.subprocess.Process, tmp_path: Path) -> list[str]:
    process.send_signal(signal.SIGTERM)
    _, stderr = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 0, stderr.decode()[-2000:]
    modules: list[str] = json.loads((tmp_path / "modules.json").read_text())
    return modules


async def test_a_bot_that_started_polling_has_not_loaded_the_scorer(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    """Start-up to the first getUpdates (issue 13) loads neither these nor the scorer; the
    second start, with the packs and strings unchanged, not even PyYAML (their parsed data
    is read from the cache beside the database)."""
    starts = []
    for _ in range(2):
        polls = api.calls["getUpdates"]
        process = await _run(api, tmp_path)
        try:
            for _ in range(3000):
                if api.calls["getUpdates"] > polls or process.returncode is not None:
                    break
                await asyncio.sleep(0.01)
            assert api.calls["getUpdates"] > polls
        finally:
            starts.append(await _stop(process, tmp_path))
    for modules in starts:
        assert "bot.handlers.private" in modules and "telegram.ext" in modules
        assert _unwanted(modules, answered=False) == []
    assert "yaml" in starts[0] and "yaml" not in starts[1]


async def test_a_running_bot_that_answered_a_user_loaded_none_of_them(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    """After it welcomed a user, asked a question and scored an answer."""
    process = await _run(api, tmp_path)
    try:
        api.message(USER, "/start")
        await api.wait_for(USER.id, 1, timeout=30)
        api.message(USER, "/quiz beginner triton")  # chosen: the packs are Chinese
        await api.wait_for(USER.id, 2)
        api.message(USER, "max_batch_size and a preferred batch size with a queue delay")
        sent = await api.wait_for(USER.id, 3)
        assert "Score:" in sent[2].visible
    finally:
        modules = await _stop(process, tmp_path)
    assert "bot.handlers.private" in modules and "bot.core.scoring" in modules
    assert _unwanted(modules) == []
    assert all(m in modules for m in FIRST_POLL)  # loaded once polling had begun
