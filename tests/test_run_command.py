"""`interview-bot run` as a real process: long polling against the fake Bot API, clean stop."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import aiohttp

from tests.support.fake_bot_api import FakeBotAPI, FakeUser
from tests.support.run import free_port, run_env, start_run

NEW_USER = FakeUser(424242, "Neo", "en")


async def test_the_bot_runs_answers_and_stops_cleanly(api: FakeBotAPI, tmp_path: Path) -> None:
    env = run_env(api, tmp_path / "data" / "bot.sqlite3", LOG_LEVEL="DEBUG")
    process = await start_run(env, tmp_path)
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
    assert "starting: 2 packs, 24 questions" in logs  # content/: triton and llm
    assert api.token not in logs and api.token.split(":")[1] not in logs
    assert (tmp_path / "data" / "bot.sqlite3").exists()


async def test_webhook_mode_takes_updates_only_with_the_secret(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/telegram"
    env = run_env(
        api,
        tmp_path / "bot.sqlite3",
        TELEGRAM_WEBHOOK_URL=url,
        WEBHOOK_LISTEN="127.0.0.1",
        WEBHOOK_PORT=str(port),
        WEBHOOK_SECRET_TOKEN="s3cret-Token_1",
    )
    process = await start_run(env, tmp_path)
    update = {
        "update_id": 1,
        "message": {
            "message_id": 1, "date": 0, "text": "/start",
            "chat": {"id": NEW_USER.id, "type": "private", "first_name": "Neo"},
            "from": NEW_USER.to_dict(),
            "entities": [{"type": "bot_command", "offset": 0, "length": 6}],
        },
    }  # fmt: skip
    try:
        async with aiohttp.ClientSession() as session:
            for _ in range(100):  # until the listener is up
                try:
                    async with session.post(url, json=update) as response:
                        assert response.status == 403  # no secret: refused
                        break
                except aiohttp.ClientConnectionError:
                    await asyncio.sleep(0.1)
            assert api.webhook is not None and api.webhook["url"] == url
            assert api.webhook["secret_token"] == "s3cret-Token_1"
            headers = {"X-Telegram-Bot-Api-Secret-Token": "s3cret-Token_1"}
            async with session.post(url, json=update, headers=headers) as response:
                assert response.status == 200
        (welcome,) = await api.wait_for(NEW_USER.id, 1, timeout=30)
        assert "Hi Neo" in welcome.visible
    finally:
        process.send_signal(signal.SIGINT)
        _, stderr = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 0, stderr.decode()[-2000:]
