"""A running bot whose lease is taken over says which process took it, in the test's process
(tests/test_run_restarts.py runs real processes against each other; mutmut cannot see
into those)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.jobs.lease import Lease
from bot.storage import Storage


async def test_a_lease_taken_over_names_the_process_that_took_it(tmp_path: Path) -> None:
    database = tmp_path / "bot.sqlite3"
    storage = Storage(database)
    await storage.open()
    try:
        lease = Lease(storage, 0.3)  # renewed every 0.1 s
        await lease.take()
        # What a second instance does when this one looked dead: the lease is its own now.
        since = datetime(2026, 12, 7, 9, 30, tzinfo=UTC)
        async with storage.transaction() as db:
            await db.execute(
                "UPDATE instance_lease SET owner = 'other', pid = 4242, host = 'elsewhere',"
                " since = ?, expires_at = ?",
                (since.isoformat(), (datetime.now(UTC) + timedelta(minutes=5)).isoformat()),
            )
        told: list[bool] = []
        await asyncio.wait_for(lease.keep(lambda: told.append(True)), 30)
        assert told == [True]
        assert str(lease.lost) == (
            f"This interview-bot lost its hold on {database}: pid 4242 on elsewhere took it"
            " over (since 2026-12-07 09:30:00 UTC) after this one looked dead. It stopped"
            " sending and exits; only one may serve a database."
        )
    finally:
        await storage.close()
