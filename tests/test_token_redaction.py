"""The token never reaches any output: logs at every level, exception text, tracebacks."""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.logs import REDACTED, configure_logging, redact
from tests.support.fake_bot_api import FakeBotAPI
from tests.support.run import polling_run, run_env, start_run

# Shaped like a real token (bot id, colon, 35 url-safe characters).
REAL_LOOKING = "7312345678:AAHf3-xYz_0123456789abcdefghijklmnOPQ"


@pytest.mark.parametrize(
    ("token", "status"),
    [
        pytest.param("123456:TEST-token-not-real", 401, id="short-token-401"),
        pytest.param(REAL_LOOKING, 401, id="real-looking-401"),
        pytest.param(REAL_LOOKING, 404, id="real-looking-404"),
    ],
)
async def test_a_rejected_token_is_not_printed(token: str, status: int, tmp_path: Path) -> None:
    api = FakeBotAPI(token=token)
    await api.start()
    api.fail(
        "getMe", status, times=100, description="Unauthorized" if status == 401 else "Not Found"
    )
    env = run_env(api, tmp_path / "bot.sqlite3", LOG_LEVEL="DEBUG")
    try:
        process = await start_run(env, tmp_path)
        stdout, stderr = await asyncio.wait_for(process.communicate(), 60)
    finally:
        await api.stop()
    output = stdout.decode() + stderr.decode()
    assert api.calls["getMe"] >= 1  # the server really was asked, and said no
    assert process.returncode == 4, output[-2000:]
    assert "Telegram rejected TELEGRAM_BOT_TOKEN" in output
    secret = token.split(":", 1)[1]
    assert token not in output and secret not in output, output
    assert REDACTED in output  # PTB's message and the API URL were there, cleaned


async def test_a_rejected_token_is_one_line_at_the_default_log_level(tmp_path: Path) -> None:
    api = FakeBotAPI(token=REAL_LOOKING)
    await api.start()
    api.fail("getMe", 401, times=100, description="Unauthorized")
    env = run_env(api, tmp_path / "bot.sqlite3")
    env.pop("LOG_LEVEL", None)
    try:
        process = await start_run(env, tmp_path)
        _, stderr = await asyncio.wait_for(process.communicate(), 60)
    finally:
        await api.stop()
    lines = [line for line in stderr.decode().splitlines() if line.strip()]
    assert process.returncode == 4
    # The start-up line, then the reason in one line: no traceback, no error record of PTB's.
    assert " INFO bot.app: starting: " in lines[0]
    assert lines[1:] == [
        "Telegram rejected TELEGRAM_BOT_TOKEN (getMe answered 401/404): check the token"
        " with @BotFather and the TELEGRAM_API_BASE_URL."
    ], lines


@pytest.fixture
def log_stream() -> Iterator[io.StringIO]:
    stream = io.StringIO()
    yield stream
    configure_logging("WARNING", [])
    logging.getLogger().handlers.clear()


def test_httpx_urls_are_redacted_even_at_debug(log_stream: io.StringIO) -> None:
    configure_logging("DEBUG", ["123456:TEST-token-not-real"], stream=log_stream)
    httpx_log = logging.getLogger("httpx")
    httpx_log.setLevel(logging.DEBUG)  # an operator turns it up: the URLs still hide the token
    httpx_log.info(
        'HTTP Request: POST %s "HTTP/1.1 200 OK"', "https://x/bot123456:TEST-token-not-real/getMe"
    )
    httpx_log.debug("unknown token https://api.telegram.org/bot42:abcDEF-ghi_jkl/sendMessage")
    logs = log_stream.getvalue()
    assert "TEST-token-not-real" not in logs and "abcDEF-ghi_jkl" not in logs
    assert logs.count(REDACTED) == 2


def test_exception_text_and_stack_are_redacted(log_stream: io.StringIO) -> None:
    configure_logging("DEBUG", [], stream=log_stream)
    log = logging.getLogger("bot.test")
    try:
        raise RuntimeError(f"The token `{REAL_LOOKING}` was rejected by the server.")
    except RuntimeError:
        log.exception("failed with %s", REAL_LOOKING)
    log.warning("where %s", REAL_LOOKING, stack_info=True)
    logs = log_stream.getvalue()
    assert "Traceback" in logs and "RuntimeError" in logs
    assert REAL_LOOKING.split(":")[1] not in logs


def test_redact_leaves_ordinary_text_alone() -> None:
    text = "chat -100123: 12:30 daily at 08:30, update 4242, ratio 3:2"
    assert redact(text) == text


@pytest.mark.parametrize("status", [401, 404])
async def test_a_token_rejected_while_polling_stops_the_run_with_its_status(
    status: int, tmp_path: Path
) -> None:
    # The fault sweep's case: one 401 (a token revoked with /revoke) or 404 (a proxy before
    # a self-hosted Bot API) on getUpdates mid-run ended polling in silence, the process
    # stayed up serving nothing, and then did not stop on SIGTERM.
    api = FakeBotAPI(token=REAL_LOOKING)
    await api.start()
    try:
        async with polling_run(api, tmp_path) as process:
            api.fail(
                "getUpdates", status, description="Unauthorized" if status == 401 else "Not Found"
            )
            _, stderr = await asyncio.wait_for(process.communicate(), 30)
    finally:
        await api.stop()
    output = stderr.decode()
    assert process.returncode == 4, output[-2000:]
    last = [line for line in output.splitlines() if line.strip()][-1]
    assert last.startswith("Telegram rejected TELEGRAM_BOT_TOKEN while the bot was running"), last
    # The log says when and why it stopped, before the last line says what to do.
    assert "Telegram rejected the token while polling: stopping" in output
    assert REAL_LOOKING.split(":", 1)[1] not in output
