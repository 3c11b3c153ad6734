"""`interview-bot run` as a real process: long polling against the fake Bot API, clean stop."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

from tests.conftest import CONTENT
from tests.support.fake_bot_api import FakeBotAPI, FakeUser

NEW_USER = FakeUser(424242, "Neo", "en")


async def test_the_bot_runs_answers_and_stops_cleanly(api: FakeBotAPI, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "TELEGRAM_BOT_TOKEN": api.token,
        "TELEGRAM_API_BASE_URL": api.base_url,
        "DATABASE_PATH": str(tmp_path / "data" / "bot.sqlite3"),
        "CONTENT_DIR": str(CONTENT),
        "LOG_LEVEL": "DEBUG",
    }
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "run",
        cwd=tmp_path, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        api.message(NEW_USER, "/start")
        (welcome,) = await api.wait_for(NEW_USER.id, 1, timeout=30)
        assert "Hi Neo" in welcome.visible
        api.message(NEW_USER, "/quiz beginner")
        await api.wait_for(NEW_USER.id, 2)
        api.message(NEW_USER, "max_batch_size 和 preferred batch size")
        sent = await api.wait_for(NEW_USER.id, 3)
        assert "Score:" in sent[2].visible
        assert api.calls["setMyCommands"] >= 2
    finally:
        process.send_signal(signal.SIGINT)
        _, stderr = await asyncio.wait_for(process.communicate(), 30)
    logs = stderr.decode()
    assert process.returncode == 0, logs[-2000:]
    assert "starting: 1 packs, 12 questions" in logs
    assert api.token not in logs and api.token.split(":")[1] not in logs
    assert (tmp_path / "data" / "bot.sqlite3").exists()
