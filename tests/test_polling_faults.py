"""What the real `interview-bot run` says of faults it runs on: getUpdates answered but not
with updates, and an empty database file.

A second poller on the same token (another host, another database: the lease cannot see it)
makes Telegram answer 409 Conflict to every poll; the bot keeps polling, and says so in a
line a minute, not a traceback per poll.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

from tests.support.fake_bot_api import FakeBotAPI, FakeUser
from tests.support.run import polling_run
from tests.support.wait import until

ADA = FakeUser(9301, "Ada", "en")
CONFLICT = (
    "Conflict: terminated by other getUpdates request;"
    " make sure that only one bot instance is running"
)


async def test_409s_on_getupdates_are_one_line_and_polling_goes_on(tmp_path: Path) -> None:
    api = FakeBotAPI()
    await api.start()
    try:
        async with polling_run(api, tmp_path) as process:
            polls = api.calls["getUpdates"]
            api.fail("getUpdates", 409, times=4, description=CONFLICT)
            # The poll out now ends (10 s), then four are answered 409, then one polls again.
            await until(lambda: api.calls["getUpdates"] >= polls + 5, 90, "polls past the 409s")
            api.message(ADA, "/help")
            await until(lambda: api.to(ADA.id), 60, "the reply to /help")
            process.send_signal(signal.SIGTERM)
            _, stderr = await asyncio.wait_for(process.communicate(), 30)
    finally:
        await api.stop()
    output = stderr.decode()
    assert process.returncode == 0, output[-2000:]
    assert "Traceback" not in output, output[-3000:]
    conflicts = [line for line in output.splitlines() if "409 Conflict" in line]
    assert len(conflicts) == 1, output[-3000:]
    assert "another process polls with this token" in conflicts[0]


async def test_an_empty_database_file_is_started_with_a_warning(tmp_path: Path) -> None:
    # The fault sweep's case: SQLite takes a 0-byte file for a new database, and the log
    # read like any first start, so an operator could not tell a lost database from a new one.
    (tmp_path / "bot.sqlite3").write_bytes(b"")
    api = FakeBotAPI()
    await api.start()
    try:
        async with polling_run(api, tmp_path) as process:
            process.send_signal(signal.SIGTERM)
            _, stderr = await asyncio.wait_for(process.communicate(), 30)
    finally:
        await api.stop()
    warnings = [line for line in stderr.decode().splitlines() if " WARNING " in line]
    assert [w.split(" WARNING ", 1)[1] for w in warnings] == [
        f"bot.app: {tmp_path / 'bot.sqlite3'} was an empty file (0 bytes): it is a new, empty"
        " database now; if it held answers before, stop the bot and restore it from a backup"
    ]
    assert process.returncode == 0
