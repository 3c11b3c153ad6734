"""The wire log (which requests were written) and the lease's "surely still ours".

The wire log tells, after a crash, a row marked in flight whose request left from one that
never did (bot/storage/wire.py); the lease check keeps a stalled process from sending once
another may have taken the database over (bot/jobs/lease.py).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import bot.storage.wire
from bot.jobs.lease import Lease
from bot.storage import Storage
from bot.storage.wire import WireLog, wire_log_path


def test_the_wire_log_lists_what_was_written_and_no_log_is_not_an_empty_one(
    tmp_path: Path,
) -> None:
    path = wire_log_path(tmp_path / "bot.sqlite3")
    assert path == tmp_path / "bot.sqlite3-wire"
    assert wire_log_path(":memory:") is None
    log = WireLog(path)
    assert log.read() is None  # no file: nothing says any request did not leave
    log.start()
    assert log.read() == set()  # a file with nothing in it: no request left
    log.written(7, 1)
    log.written(9, 3)
    log.written(7, 2)  # row 7's second attempt
    log.close()
    assert log.read() == {(7, 1), (9, 3), (7, 2)}
    assert path is not None
    with path.open("a") as f:
        f.write("12 ")  # a line cut short is no line
    assert log.read() == {(7, 1), (9, 3), (7, 2)}
    log.start()  # the next run begins empty
    assert log.read() == set()
    log.close()
    assert WireLog(None).read() is None


def test_the_wire_log_keeps_only_what_is_still_out_when_it_grows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bot.storage.wire, "ROTATE_BYTES", 100)
    path = wire_log_path(tmp_path / "bot.sqlite3")
    assert path is not None
    log = WireLog(path)
    log.start()
    for row in range(1, 21):  # "1 1\n" … "9 1\n" (4 bytes each), "10 1\n" … (5 each)
        log.written(row, 1)
        if row not in (4, 17):
            log.settled(row)  # its outcome is recorded
    assert path.stat().st_size == 9 * 4 + 11 * 5  # 91
    log.written(21, 1)  # 96 bytes
    log.written(22, 1)  # 101: past the limit, which the next line finds
    assert path.stat().st_size == 101
    log.written(23, 1)  # rewritten first, with the four still out, then 23
    log.close()
    assert path.read_text() == "4 1\n17 1\n21 1\n22 1\n23 1\n"
    assert log.read() == {(4, 1), (17, 1), (21, 1), (22, 1), (23, 1)}


async def test_the_lease_is_surely_held_only_until_it_could_have_run_out(
    tmp_path: Path,
) -> None:
    now = [1000.0]
    storage = Storage(tmp_path / "bot.sqlite3")
    await storage.open()
    try:
        lease = Lease(storage, 30.0, "me", monotonic=lambda: now[0])
        assert not lease.surely_held()  # not taken yet
        await lease.take()
        assert lease.surely_held()
        now[0] += 28.9  # the 30 s lease less a second's margin for the clocks
        assert lease.surely_held()
        now[0] += 0.2
        assert not lease.surely_held()  # another process may take it over now
        # What another process sees: the expiry written counts from the taking.
        holder = await storage.lease_holder()
        assert holder is not None
        assert holder.expires_at - holder.heartbeat_at == timedelta(seconds=30)
        assert holder.heartbeat_at <= datetime.now(UTC)
    finally:
        await storage.close()
