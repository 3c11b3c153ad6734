"""A wall-clock step mid fan-out, against the real `interview-bot run`.

The process's wall clock is stepped through its test-only seam (INTERVIEW_BOT_TEST_CLOCK_
OFFSET_FILE, bot/jobs/clock.py: an offset in seconds added to the wall clock; the monotonic
clock stays real) while every sender has a request out and most prompts wait in the outbox.
Every prompt that was due is delivered once, whichever way the clock moved, and the step is
logged once, in words.
"""

from __future__ import annotations

import asyncio
import signal
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.config import Settings
from bot.core.clock import clock_step, step_words
from bot.core.content import Library
from bot.jobs.clock import SteadyClock
from tests.conftest import BotHarness, FakeClock
from tests.support.fake_bot_api import FakeBotAPI, FakeUser
from tests.support.run import (
    FAST_RUN,
    SENDERS,
    outbox_open_rows,
    outbox_statuses,
    prompts_sent,
    run_env,
    start_run,
)
from tests.support.seed import seed_due_subscribers
from tests.support.wait import until
from tests.test_daily_flow import dailies, subscribe

CHATS = 1000
CONCURRENCY = SENDERS
WAIT = 120.0  # seconds a step of a fan-out may take on a busy machine
WATCHER = FakeUser(999_999, "Sentinel")
ADA = FakeUser(2001, "Ada", "en")


@pytest.mark.parametrize(
    ("hours", "words"), [(3, "3 h forward"), (-3, "3 h back")], ids=["3 h forward", "3 h back"]
)
async def test_a_wall_clock_step_mid_fan_out_delivers_every_due_prompt_once(
    api: FakeBotAPI, tmp_path: Path, hours: int, words: str
) -> None:
    database = tmp_path / "bot.sqlite3"
    offset = tmp_path / "clock-offset"
    chats = await seed_due_subscribers(database, CHATS)
    env = run_env(api, database, **FAST_RUN, INTERVIEW_BOT_TEST_CLOCK_OFFSET_FILE=str(offset))
    process = await start_run(env, tmp_path)
    try:
        await until(lambda: len(prompts_sent(api)) >= CHATS // 4, WAIT, "a quarter of the fan-out")
        # Every sender with a request out, the rest of the fan-out waiting: then the step.
        api.hang()
        await until(lambda: api.hanging == CONCURRENCY, WAIT, "every sender with a request out")
        # And every prompt recorded (the tick done): the step is taken up by the next tick
        # while most of them wait in the outbox.
        for _ in range(int(WAIT / 0.1)):
            if sum((await outbox_statuses(database)).values()) >= CHATS:
                break
            await asyncio.sleep(0.1)
        reached = len(prompts_sent(api))
        offset.write_text(str(hours * 3600))
        api.unhang()
        for _ in range(int(WAIT / 0.1)):
            if await outbox_open_rows(database) == 0:
                break
            await asyncio.sleep(0.1)
        # A later message answered: anything sent before it has reached the server.
        before = len(api.to(WATCHER.id))
        api.message(WATCHER, "/help")
        await api.wait_for(WATCHER.id, before + 1, timeout=WAIT)
        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), WAIT)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    logs = stderr.decode()
    assert process.returncode == 0, logs[-2000:]
    assert reached < CHATS // 2  # stepped in the middle
    per_chat = prompts_sent(api)
    assert Counter(per_chat[c] for c in chats) == {1: CHATS}, logs[-2000:]
    assert logs.count(f"the wall clock jumped {words}") == 1, logs[-3000:]
    assert logs.count("the wall clock jumped") == 1


@pytest.mark.parametrize(
    ("seconds", "words"),
    [
        (3 * 3600, "3 h forward"),
        (-3 * 3600, "3 h back"),
        (5400, "1 h 30 min forward"),
        (-900, "15 min back"),
        (90, "90 s forward"),
        (3 * 3600 - 15, "3 h forward"),  # 2 h 59 min 45 s: the minutes round up to the hour
        (600, "10 min forward"),  # ten minutes and more are said in minutes
    ],
)
def test_a_step_is_said_in_hours_minutes_or_seconds(seconds: int, words: str) -> None:
    assert step_words(timedelta(seconds=seconds)) == words


def test_a_correction_under_a_minute_is_no_step() -> None:
    at = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
    assert clock_step(at, at + timedelta(seconds=59)) is None
    assert clock_step(at, at - timedelta(seconds=61)) == timedelta(seconds=-61)


async def test_a_chat_due_when_the_clock_jumps_forward_gets_its_prompt_not_a_skip(
    api: FakeBotAPI, bot_settings: Settings, flow_library: Library
) -> None:
    # The bot's clock over a wall clock and a monotonic clock the test moves. A chat due at
    # 09:00 (grace 2 h); at 09:00:05 the wall clock jumps 3 h forward, and a user's message
    # reads the clock before the next tick does: that tick must not find the chat 3 h late.
    wall = FakeClock(datetime(2026, 3, 2, 8, 59, 50, tzinfo=UTC))
    passed = [0.0]
    steady = SteadyClock(wall=wall, monotonic=lambda: passed[0])
    harness = BotHarness(api, bot_settings, flow_library, steady)  # type: ignore[arg-type]
    await harness.start()
    try:
        await subscribe(harness, 3001, "09:00")
        passed[0] += 15
        wall.advance(seconds=15 + 3 * 3600)
        await harness.say(ADA, "/help")  # handling it reads the clock: the step is noticed
        await harness.tick()
        assert len(dailies(api, 3001)) == 1
    finally:
        await harness.stop()
