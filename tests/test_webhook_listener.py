"""The webhook listener in the test's own process: what Telegram and the operator see of it.

tests/test_webhook.py runs the same listener in the real `interview-bot run`; this file runs
`serve_webhook` on the test's event loop (the Application as the flow tests build it, the
fake Bot API behind it), so that mutation testing, which changes code in this process only,
can see it. Requests go over real HTTP to the listener on a free port.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re
import signal
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.app import build_application
from bot.config import SettingRefused, Settings
from bot.core.content import Library
from bot.lifecycle import STOP_KEY
from bot.webhook import serve_webhook
from tests.conftest import FakeClock
from tests.support.fake_bot_api import FakeBotAPI, FakeUser
from tests.support.run import free_port

SECRET = "s3cret-Token_1"
NEO = FakeUser(515151, "Neo", "en")


def update(update_id: int, text: str) -> bytes:
    return json.dumps(
        {
            "update_id": update_id,
            "message": {
                "message_id": update_id, "date": 0, "text": text,
                "chat": {"id": NEO.id, "type": "private", "first_name": "Neo"},
                "from": NEO.to_dict(),
                "entities": [
                    {"type": "bot_command", "offset": 0, "length": len(text.split()[0])}
                ],
            },
        }
    ).encode()  # fmt: skip


async def request(
    port: int,
    method: str,
    path: str,
    body: bytes = b"",
    *,
    headers: dict[str, str] | None = None,
    send_body: bool = True,
) -> tuple[int | None, bytes]:
    """One HTTP/1.1 request on a raw socket (so a body can be announced and held back); the
    status and body of the answer, None when the connection was cut without one."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close"]
    head += [f"{k}: {v}" for k, v in (headers or {}).items()]
    try:
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + (body if send_body else b""))
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), 30)  # a bound, not a measurement
    except ConnectionError:
        return None, b""
    finally:
        writer.close()
    if not answer.startswith(b"HTTP/"):
        return None, b""
    status = int(answer.split(b" ", 2)[1])
    return status, answer.partition(b"\r\n\r\n")[2]


def post_headers(body: bytes, secret: str | None = SECRET, **extra: str) -> dict[str, str]:
    headers = {"Content-Type": "application/json", "Content-Length": str(len(body))}
    if secret is not None:
        headers["X-Telegram-Bot-Api-Secret-Token"] = secret
    return headers | extra


async def post(port: int, body: bytes, secret: str | None = SECRET, **extra: str) -> int | None:
    status, _ = await request(
        port, "POST", "/telegram", body, headers=post_headers(body, secret, **extra)
    )
    return status


class Listener:
    def __init__(self, port: int, settings: Settings, app: Any, task: asyncio.Task[None]):
        self.port = port
        self.settings = settings
        self.app = app
        self.task = task

    def recorded(self, update_id: int) -> bool:
        """Whether the inbox (processed_updates) holds this update with its body, as the next
        start needs it to handle the update again."""
        with sqlite3.connect(self.settings.database_path) as db:
            row = db.execute(
                "SELECT 1 FROM processed_updates WHERE update_id = ? AND body IS NOT NULL",
                (update_id,),
            ).fetchone()
        return row is not None


def webhook_settings(api: FakeBotAPI, tmp_path: Path, flow_content: Path, port: int) -> Settings:
    return Settings(
        _env_file=None,  # type: ignore[call-arg]
        telegram_bot_token=api.token,
        telegram_api_base_url=api.base_url,
        database_path=tmp_path / "bot.sqlite3",
        content_dir=flow_content,
        default_timezone="UTC",
        telegram_webhook_url=f"http://127.0.0.1:{port}/telegram",
        webhook_listen="127.0.0.1",
        webhook_port=port,
        webhook_secret_token=SECRET,  # type: ignore[arg-type]
        group_rate_limit_per_minute=100_000,
        retry_base_seconds=0.05,
        retry_max_seconds=0.4,
        outbox_poll_seconds=0.05,
    )


async def start(settings: Settings, library: Library, clock: FakeClock) -> tuple[Any, Any]:
    app = build_application(
        settings, library, clock=clock, max_retries=3, scheduler=False, rng=random.Random(7)
    )
    storage = app.bot_data["services"].storage
    return app, asyncio.create_task(serve_webhook(app, settings, storage))


async def stop(app: Any, task: asyncio.Task[None]) -> None:
    if not task.done():
        app.bot_data[STOP_KEY]()  # as a lost lease stops the run
    try:
        await asyncio.wait_for(task, 60)
    finally:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):  # serve_webhook took them over
            loop.remove_signal_handler(sig)


async def until_healthy(port: int, task: asyncio.Task[None]) -> None:
    for _ in range(600):
        if task.done():
            task.result()  # the run ended: its error, if any
            raise AssertionError("the webhook run ended before it listened")
        try:
            status, _ = await request(port, "GET", "/healthz")
        except OSError:
            status = None
        if status == 200:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the webhook listener never became healthy")


@pytest.fixture
async def listener(
    api: FakeBotAPI, tmp_path: Path, flow_content: Path, flow_library: Library, clock: FakeClock
) -> AsyncIterator[Listener]:
    port = free_port()
    settings = webhook_settings(api, tmp_path, flow_content, port)
    app, task = await start(settings, flow_library, clock)
    try:
        await until_healthy(port, task)
        yield Listener(port, settings, app, task)
    finally:
        await stop(app, task)


async def test_the_webhook_is_registered_with_its_url_and_secret(
    listener: Listener, api: FakeBotAPI
) -> None:
    """Telegram is told where to post and which secret to send, for every kind of update."""
    assert api.webhook is not None
    assert api.webhook["url"] == f"http://127.0.0.1:{listener.port}/telegram"
    assert api.webhook["secret_token"] == SECRET
    allowed = api.webhook["allowed_updates"]
    if isinstance(allowed, str):
        allowed = json.loads(allowed)
    assert {"message", "callback_query", "my_chat_member"} <= set(allowed)


async def test_an_update_with_the_secret_is_recorded_then_answered_200_and_handled(
    listener: Listener, api: FakeBotAPI
) -> None:
    api.hang()  # the reply is held: the update is still being handled when the 200 comes
    assert await post(listener.port, update(11, "/start")) == 200
    try:
        # In the inbox with its body before the 200: a crash from here on loses nothing,
        # the next start handles it again.
        assert listener.recorded(11)
    finally:
        api.unhang()
    (welcome,) = await api.wait_for(NEO.id, 1, timeout=30)
    assert "Hi Neo" in welcome.visible


async def test_a_trailing_slash_and_a_charset_are_accepted(
    listener: Listener, api: FakeBotAPI
) -> None:
    body = update(12, "/start")
    headers = post_headers(body, **{"Content-Type": "application/json; charset=utf-8"})
    status, _ = await request(listener.port, "POST", "/telegram/", body, headers=headers)
    assert status == 200
    await api.wait_for(NEO.id, 1, timeout=30)


async def test_updates_without_the_right_secret_are_refused_and_never_handled(
    listener: Listener, api: FakeBotAPI, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="bot.webhook")
    assert await post(listener.port, update(21, "/start"), secret=None) == 403
    assert await post(listener.port, update(22, "/start"), secret="wrong-secret") == 403
    assert await post(listener.port, update(23, "/start"), secret=SECRET + "x") == 403
    assert await post(listener.port, update(24, "/start"), secret="") == 403
    # Sentinel: an update with the secret after those is handled, and none before it was.
    assert await post(listener.port, update(25, "/help")) == 200
    await api.wait_for(NEO.id, 1, timeout=30)
    assert len(api.to(NEO.id)) == 1
    assert "Hi Neo" not in api.to(NEO.id)[0].visible
    assert not any(listener.recorded(n) for n in (21, 22, 23, 24))
    # At LOG_LEVEL=DEBUG the operator sees why Telegram's requests are refused.
    assert "no or wrong secret from 127.0.0.1" in caplog.text


@pytest.mark.parametrize(
    ("secret", "length", "status"),
    [(None, 100_000_000, 403), ("wrong", 2_000_000, 403), (SECRET, 2_000_000, 413),
     (SECRET, 1024 * 1024 + 1, 413)],
    ids=["no-secret", "wrong-secret", "2-MB", "1-MB-and-a-byte"],
)  # fmt: skip
async def test_a_refusal_is_answered_from_the_headers_before_the_body(
    listener: Listener, secret: str | None, length: int, status: int
) -> None:
    """The body is never sent: a listener that waited for it would never answer."""
    headers = {"Content-Type": "application/json", "Content-Length": str(length)}
    if secret is not None:
        headers["X-Telegram-Bot-Api-Secret-Token"] = secret
    answer, body = await request(
        listener.port, "POST", "/telegram", headers=headers, send_body=False
    )
    assert answer == status
    assert body == b""  # nothing about the bot in an error


async def test_an_update_sent_chunked_without_a_length_is_accepted(
    listener: Listener, api: FakeBotAPI
) -> None:
    body = update(32, "/start")
    headers = post_headers(body, **{"Transfer-Encoding": "chunked"})
    del headers["Content-Length"]
    half = len(body) // 2
    chunked = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in (body[:half], body[half:]))
    status, _ = await request(
        listener.port, "POST", "/telegram", chunked + b"0\r\n\r\n", headers=headers
    )
    assert status == 200
    (welcome,) = await api.wait_for(NEO.id, 1, timeout=30)
    assert "Hi Neo" in welcome.visible


async def test_an_update_of_exactly_one_megabyte_is_accepted(
    listener: Listener, api: FakeBotAPI
) -> None:
    body = update(31, "/start")
    body = body[:-1] + b', "pad": "' + b"x" * (1024 * 1024 - len(body) - 11) + b'"}'
    assert len(body) == 1024 * 1024
    assert await post(listener.port, body) == 200
    await api.wait_for(NEO.id, 1, timeout=30)


@pytest.mark.parametrize(
    "body",
    [b"{not json", b"", b"[1, 2]", b'{"no_update_id": 1}', b"\xff\xfe\xfd", b'{"update_id": "1"}',
     b'{"update_id": 5, "message": "not a message"}'],
    ids=["broken", "empty", "array", "no-id", "not-utf8", "id-not-int", "unreadable"],
)  # fmt: skip
async def test_a_body_that_is_not_an_update_gets_400(listener: Listener, body: bytes) -> None:
    status, answer = await request(
        listener.port, "POST", "/telegram", body, headers=post_headers(body)
    )
    assert status == 400
    assert answer == b""


async def test_a_body_that_is_not_json_by_its_type_gets_415(listener: Listener) -> None:
    body = update(41, "/start")
    assert await post(listener.port, body, **{"Content-Type": "text/plain"}) == 415
    headers = post_headers(body)
    del headers["Content-Type"]
    status, _ = await request(listener.port, "POST", "/telegram", body, headers=headers)
    assert status == 415
    assert not listener.recorded(41)


async def test_an_update_that_cannot_be_recorded_gets_500_so_telegram_sends_it_again(
    listener: Listener, api: FakeBotAPI, caplog: pytest.LogCaptureFixture
) -> None:
    storage = listener.app.bot_data["services"].storage
    await storage.close()
    try:
        assert await post(listener.port, update(61, "/start")) == 500
    finally:
        await storage.open()
    assert "update 61 could not be recorded" in caplog.text
    # Sent again, as Telegram does after a 500: now it is recorded and handled.
    assert await post(listener.port, update(61, "/start")) == 200
    (welcome,) = await api.wait_for(NEO.id, 1, timeout=30)
    assert "Hi Neo" in welcome.visible


async def test_only_post_is_served_on_the_webhook_path(
    listener: Listener, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="bot.webhook")
    assert await request(listener.port, "GET", "/telegram") == (405, b"")
    # At LOG_LEVEL=DEBUG the operator sees why a request failed.
    assert "webhook request failed" in caplog.text


async def test_health_says_ok_while_the_database_answers(listener: Listener) -> None:
    assert await request(listener.port, "GET", "/healthz") == (200, b"ok\n")


async def test_health_says_unavailable_once_the_database_is_gone(listener: Listener) -> None:
    storage = listener.app.bot_data["services"].storage
    await storage.close()
    try:
        assert await request(listener.port, "GET", "/healthz") == (503, b"database unavailable\n")
    finally:
        await storage.open()  # for the orderly stop


async def test_a_start_while_telegram_is_away_registers_once_it_answers(
    api: FakeBotAPI,
    tmp_path: Path,
    flow_content: Path,
    flow_library: Library,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="bot.webhook")
    port = free_port()
    settings = webhook_settings(api, tmp_path, flow_content, port)
    api.fail("setWebhook", 502, times=2)
    app, task = await start(settings, flow_library, clock)
    try:
        await until_healthy(port, task)
        for _ in range(400):  # retried after 1 s, then 2 s
            if api.webhook is not None:
                break
            await asyncio.sleep(0.05)
        assert api.webhook is not None
        assert await post(port, update(51, "/start")) == 200
        await api.wait_for(NEO.id, 1, timeout=30)
    finally:
        await stop(app, task)
    # What the operator reads: the waits while Telegram is away, the start, the stop.
    waits = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Telegram did")]
    assert [re.sub(r"\(.*\)", "(…)", w) for w in waits] == [
        "Telegram did not answer (…); again in 1 s",
        "Telegram did not answer (…); again in 2 s",
    ]
    assert f"webhook at http://127.0.0.1:{port}/telegram" in caplog.text
    assert "stopping" in [r.getMessage() for r in caplog.records if r.name == "bot.webhook"]


async def test_a_stop_while_telegram_is_away_ends_the_run_unregistered(
    api: FakeBotAPI, tmp_path: Path, flow_content: Path, flow_library: Library, clock: FakeClock
) -> None:
    settings = webhook_settings(api, tmp_path, flow_content, free_port())
    api.fail("setWebhook", 502, times=1000)
    app, task = await start(settings, flow_library, clock)
    for _ in range(600):  # until the first try was refused
        if api.calls["setWebhook"]:
            break
        await asyncio.sleep(0.05)
    await stop(app, task)  # a bound of 60 s: without the stop it would try for ever
    assert api.webhook is None
    assert api.calls["setWebhook"] == 1


async def test_a_webhook_url_telegram_refuses_stops_the_start_naming_the_setting(
    api: FakeBotAPI, tmp_path: Path, flow_content: Path, flow_library: Library, clock: FakeClock
) -> None:
    settings = webhook_settings(api, tmp_path, flow_content, free_port())
    api.fail("setWebhook", 400, description="Bad Request: bad webhook: HTTPS url must be provided")
    _, task = await start(settings, flow_library, clock)
    try:
        with pytest.raises(SettingRefused) as refused:
            await asyncio.wait_for(task, 60)
    finally:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
    assert "TELEGRAM_WEBHOOK_URL" in str(refused.value)
    assert "https url must be provided" in str(refused.value).lower()
