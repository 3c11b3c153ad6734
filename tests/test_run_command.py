"""`interview-bot run` as a real process: long polling against the fake Bot API, clean stop."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import aiohttp
import yaml

from tests.conftest import CONTENT
from tests.support.fake_bot_api import FakeBotAPI, FakeUser
from tests.support.run import free_port, run_env, start_run
from tests.support.wait import until

NEW_USER = FakeUser(424242, "Neo", "en")


async def test_the_bot_runs_answers_and_stops_cleanly(api: FakeBotAPI, tmp_path: Path) -> None:
    env = run_env(api, tmp_path / "data" / "bot.sqlite3", LOG_LEVEL="DEBUG")
    process = await start_run(env, tmp_path)
    try:
        api.message(NEW_USER, "/start")
        (welcome,) = await api.wait_for(NEW_USER.id, 1, timeout=30)
        assert "Hi Neo" in welcome.visible
        api.message(NEW_USER, "/quiz beginner triton")  # a pack by name (asked in English)
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
    # content/ as shipped: its packs and their questions, read from the files.
    packs = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in CONTENT.glob("*.yaml")]
    questions = sum(len(pack["questions"]) for pack in packs)
    assert f"starting: {len(packs)} packs, {questions} questions" in logs
    assert "INFO bot.app: bot @interview_test_bot started: long polling\n" in logs
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
            for _ in range(600):  # until the listener is up (a bound: slow on a loaded machine)
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
    assert (
        f"bot @interview_test_bot started: webhook at {url} (listening on 127.0.0.1:{port})\n"
        in stderr.decode()
    )


def webhook_env(api: FakeBotAPI, tmp_path: Path, port: int) -> dict[str, str]:
    return run_env(
        api,
        tmp_path / "bot.sqlite3",
        TELEGRAM_WEBHOOK_URL=f"http://127.0.0.1:{port}/telegram",
        WEBHOOK_LISTEN="127.0.0.1",
        WEBHOOK_PORT=str(port),
        WEBHOOK_SECRET_TOKEN="s3cret-Token_1",
    )


async def read_until(process: asyncio.subprocess.Process, text: str) -> str:
    """stderr lines until one holds `text` (all of them, as read)."""
    assert process.stderr is not None
    seen = ""
    while text not in seen:
        line = await asyncio.wait_for(process.stderr.readline(), 60)
        assert line, seen
        seen += line.decode()
    return seen


async def test_webhook_mode_waits_for_an_unreachable_api_as_polling_does(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    """The Bot API refuses connections at the start: one line says so (as in polling mode),
    the bot waits, and SIGTERM stops it with status 0, no traceback."""
    await api.close_port()
    process = await start_run(webhook_env(api, tmp_path, free_port()), tmp_path)
    try:
        seen = await read_until(process, "Telegram is not answering")
        await asyncio.sleep(3)  # a few retries
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
        _, rest = await asyncio.wait_for(process.communicate(), 30)
    logs = seen + rest.decode()
    assert process.returncode == 0, logs[-3000:]
    assert "Traceback" not in logs, logs[-3000:]
    assert logs.count("Telegram is not answering") == 1, logs
    assert len(logs.splitlines()) <= 4, logs  # starting, not answering, stopping


async def test_webhook_mode_starts_once_the_api_answers(api: FakeBotAPI, tmp_path: Path) -> None:
    await api.close_port()
    process = await start_run(webhook_env(api, tmp_path, free_port()), tmp_path)
    try:
        await read_until(process, "Telegram is not answering")
        await api.open_port()
        await until(lambda: api.webhook is not None, 60, "the webhook registered")
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
        _, rest = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 0, rest.decode()[-3000:]
    assert "Traceback" not in rest.decode()


async def test_webhook_url_telegram_refuses_is_one_configuration_line(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    api.fail("setWebhook", 400, description="Bad Request: bad webhook: HTTPS url must be provided")
    process = await start_run(webhook_env(api, tmp_path, free_port()), tmp_path)
    _, stderr = await asyncio.wait_for(process.communicate(), 60)
    logs = stderr.decode()
    assert process.returncode == 1, logs[-3000:]
    assert "Traceback" not in logs, logs[-3000:]
    assert logs.splitlines()[-1] == (
        "Configuration error: TELEGRAM_WEBHOOK_URL: Telegram refused it:"
        " Bad webhook: https url must be provided"  # PTB capitalizes it so
    )
