"""A stop with updates still being handled: after the grace, the operator is told how many
were left for the next start (they stay in the inbox; tests/test_inbox_restarts.py runs
real processes through that)."""

from __future__ import annotations

import pytest

from bot.config import Settings
from bot.core.content import Library
from tests.conftest import BotHarness, FakeClock
from tests.support.fake_bot_api import FakeBotAPI, FakeUser
from tests.support.wait import until

ADA = FakeUser(7701, "Ada", "en")


async def test_updates_not_handled_within_the_grace_are_counted_in_the_log(
    api: FakeBotAPI,
    bot_settings: Settings,
    flow_library: Library,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    settings = bot_settings.model_copy(update={"stop_grace_seconds": 0.0})
    bot = BotHarness(api, settings, flow_library, clock)
    await bot.start()
    try:
        api.hang({ADA.id})  # the reply reaches Telegram and is never answered
        api.message(ADA, "/help")
        await until(lambda: api.hanging == 1, 30, "the reply to /help held at the server")
    finally:
        await bot.stop()
        api.unhang()
    said = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert "stopping: 1 updates not handled in time are left for the next start" in said, said
