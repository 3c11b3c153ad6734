"""Webhook limits on the real `interview-bot run`, and updates delivered twice handled once.

Requests are written on raw sockets so a test can send headers and hold the body back: a
listener that waited for the body before answering would make the read time out (the
failure), not a slow pass.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import BotHarness
from tests.support.fake_bot_api import FakeBotAPI, FakeUser
from tests.support.run import free_port, run_env, start_run

SECRET = "s3cret-Token_1"
NEO = FakeUser(424242, "Neo", "en")


def command(update_id: int, text: str) -> dict[str, Any]:
    return {
        "update_id": update_id,
        "message": {
            "message_id": update_id, "date": 0, "text": text,
            "chat": {"id": NEO.id, "type": "private", "first_name": "Neo"},
            "from": NEO.to_dict(),
            "entities": [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}],
        },
    }  # fmt: skip


async def exchange(port: int, head: str, body: bytes = b"", *, chunks: int = 0) -> int | None:
    """Send a request (maybe without its body); the response status, None if cut off."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(head.encode() + b"\r\n" + body)
        with_error = False
        for _ in range(chunks):  # a chunked body that keeps growing, 256 KB at a time
            piece = b"x" * 256 * 1024
            try:
                writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                await writer.drain()
            except ConnectionError:
                with_error = True
                break
        if not with_error:
            await writer.drain()
        line = await asyncio.wait_for(reader.readline(), 20)
        return int(line.split()[1]) if line.startswith(b"HTTP/") else None
    except ConnectionError:
        return None
    finally:
        writer.close()


def post_head(port: int, length: int | None, *, secret: str | None = SECRET) -> str:
    lines = [
        "POST /telegram HTTP/1.1",
        f"Host: 127.0.0.1:{port}",
        "Content-Type: application/json",
    ]
    if secret is not None:
        lines.append(f"X-Telegram-Bot-Api-Secret-Token: {secret}")
    lines.append(
        f"Content-Length: {length}" if length is not None else "Transfer-Encoding: chunked"
    )
    return "\r\n".join(lines) + "\r\n"


@pytest.fixture
async def webhook_bot(api: FakeBotAPI, tmp_path: Path) -> AsyncIterator[int]:
    port = free_port()
    env = run_env(
        api,
        tmp_path / "bot.sqlite3",
        TELEGRAM_WEBHOOK_URL=f"http://127.0.0.1:{port}/telegram",
        WEBHOOK_LISTEN="127.0.0.1",
        WEBHOOK_PORT=str(port),
        WEBHOOK_SECRET_TOKEN=SECRET,
    )
    process = await start_run(env, tmp_path)
    try:
        for _ in range(200):  # until the health endpoint answers
            try:
                status = await exchange(port, f"GET /healthz HTTP/1.1\r\nHost: x:{port}\r\n")
            except OSError:
                status = None
            if status == 200:
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("the webhook listener never became healthy")
        yield port
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 0, stderr.decode()[-2000:]


async def test_health_endpoint(webhook_bot: int) -> None:
    port = webhook_bot
    assert await exchange(port, f"GET /healthz HTTP/1.1\r\nHost: x:{port}\r\n") == 200


async def test_a_webhook_run_registers_the_menus_without_polling(
    webhook_bot: int, api: FakeBotAPI
) -> None:
    """The menus wait for the first getUpdates in a polling run; a webhook never polls."""
    for _ in range(100):
        if api.calls["setMyShortDescription"] >= 2:  # the last requests, both languages
            break
        await asyncio.sleep(0.05)
    assert api.calls["getUpdates"] == 0
    assert api.calls["setMyCommands"] == 8  # four scopes, two languages


async def test_requests_are_refused_from_their_headers(webhook_bot: int, api: FakeBotAPI) -> None:
    port = webhook_bot
    # 100 MB announced, nothing sent: the answer comes from the headers alone.
    assert await exchange(port, post_head(port, 100_000_000, secret=None)) == 403
    assert await exchange(port, post_head(port, 100_000_000, secret="wrong-secret")) == 403
    assert await exchange(port, post_head(port, 2_000_000)) == 413
    assert await exchange(port, post_head(port, 1024 * 1024 + 1)) == 413
    # No length announced: the body is cut off once it passes 1 MB (never a 200).
    assert await exchange(port, post_head(port, None), chunks=8) != 200
    # A small request without the secret is answered 403 too, its body dropped.
    body = json.dumps(command(1, "/start")).encode()
    assert await exchange(port, post_head(port, len(body), secret=None), body) == 403
    # Sentinel: a valid update after all of that is handled, and nothing before it was.
    body = json.dumps(command(2, "/start")).encode()
    assert await exchange(port, post_head(port, len(body)), body) == 200
    (welcome,) = await api.wait_for(NEO.id, 1, timeout=30)
    assert "Hi Neo" in welcome.visible


@pytest.mark.parametrize(
    "body",
    [b"{not json", b"", b"[1, 2]", b'{"no_update_id": 1}', b"\xff\xfe\xfd", b'{"update_id": "1"}'],
    ids=["broken", "empty", "array", "no-id", "not-utf8", "id-not-int"],
)
async def test_malformed_bodies_get_400(webhook_bot: int, body: bytes) -> None:
    port = webhook_bot
    assert await exchange(port, post_head(port, len(body)), body) == 400


async def test_a_repeated_update_id_is_processed_once(webhook_bot: int, api: FakeBotAPI) -> None:
    port = webhook_bot
    start = json.dumps(command(7, "/start")).encode()
    for _ in range(3):  # Telegram retrying, or someone replaying a captured request
        assert await exchange(port, post_head(port, len(start)), start) == 200
    await api.wait_for(NEO.id, 1, timeout=30)
    sentinel = json.dumps(command(8, "/help")).encode()
    assert await exchange(port, post_head(port, len(sentinel)), sentinel) == 200
    sent = await api.wait_for(NEO.id, 2, timeout=30)
    await asyncio.sleep(0.3)
    sent = api.to(NEO.id)
    assert sum("Hi Neo" in s.visible for s in sent) == 1, [s.visible[:40] for s in sent]
    assert len(sent) == 2


async def test_polling_redelivery_is_processed_once_even_after_a_restart(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    before = len(api.to(NEO.id))
    update_id = api.push(**{k: v for k, v in command(0, "/start").items() if k != "update_id"})
    await api.wait_for(NEO.id, before + 1)
    api.replay(update_id)  # the same update again, e.g. the offset was never confirmed
    await bot.say(NEO, "/help")  # sentinel: handled after the replay
    await bot.restart()
    api.replay(update_id)
    await bot.say(NEO, "/help")
    welcomes = [s for s in api.to(NEO.id) if "Hi Neo" in s.visible]
    assert len(welcomes) == 1


async def test_health_command_asks_the_listener(webhook_bot: int, tmp_path: Path) -> None:
    async def health(port: int) -> int:
        env = {
            **os.environ,
            "TELEGRAM_WEBHOOK_URL": f"http://127.0.0.1:{port}/telegram",
            "WEBHOOK_LISTEN": "0.0.0.0",  # noqa: S104 - as in a container: health asks locally
            "WEBHOOK_PORT": str(port),
            "WEBHOOK_SECRET_TOKEN": SECRET,
            "DATABASE_PATH": str(tmp_path / "unused.sqlite3"),
        }
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "health", env=env, cwd=tmp_path,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
        return await asyncio.wait_for(process.wait(), 60)

    assert await health(webhook_bot) == 0
    assert await health(free_port()) == 1  # nothing listening: unhealthy
