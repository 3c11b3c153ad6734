"""The wire log (which requests were written) and the lease's "surely still ours".

The wire log tells, after a crash, a row marked in flight whose request left from one that
never did (bot/storage/wire.py); the lease check keeps a stalled process from sending once
another may have taken the database over (bot/jobs/lease.py).
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import bot.storage.wire
from bot.jobs.lease import Lease
from bot.storage import Storage
from bot.storage.files import DatabaseFileError
from bot.storage.wire import WireLog, check_wire_log, parse, wire_log_path


def test_the_wire_log_lists_what_was_written_and_no_log_is_not_an_empty_one(
    tmp_path: Path,
) -> None:
    path = wire_log_path(tmp_path / "bot.sqlite3")
    assert path == tmp_path / "bot.sqlite3-wire"
    assert wire_log_path(":memory:") is None
    log = WireLog(path)
    assert log.read() is None  # no file: nothing says any request did not leave
    log.start()
    assert log.read() == set()  # a log with no line in it: no request left
    log.written(7, 1)
    log.written(9, 3)
    log.written(7, 2)  # row 7's second attempt
    log.close()
    assert log.read() == {(7, 1), (9, 3), (7, 2)}
    assert path is not None
    whole = path.read_bytes()
    with path.open("a") as f:
        f.write("12 ")  # a line cut short: any row may have left, not "these did not"
    assert log.read() is None
    path.write_bytes(whole)
    log.start()  # the next run begins with no line
    assert log.read() == set()
    log.close()
    assert WireLog(None).read() is None


def test_a_damaged_wire_log_says_nothing_left_unsaid(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = wire_log_path(tmp_path / "bot.sqlite3")
    assert path is not None
    log = WireLog(path)
    log.start()
    for row in (502, 503, 504):
        log.written(row, 1)
    log.close()
    whole = path.read_bytes()
    assert whole.splitlines()[0] == b"wire 2"
    assert parse(whole) == {(502, 1), (503, 1), (504, 1)}
    # A digit changed reads, without a checksum, as another row: with it, as damage.
    assert parse(whole.replace(b"503 1", b"593 1")) is None
    assert parse(whole.replace(b"503 1", b"503 2")) is None
    assert parse(whole[:-4]) is None  # the last line torn
    assert parse(whole[: whole.index(b"503")]) == {(502, 1)}  # whole lines only: read
    assert parse(b"") is None  # 0 bytes: not even the header
    assert parse(whole + b"\x00\xff garbage\n") is None
    path.write_bytes(whole.replace(b"504 1", b"5x4 1"))
    assert log.read() is None
    assert f"{path} is damaged" in caplog.text


def test_the_previous_versions_wire_log_is_read_as_it_was(tmp_path: Path) -> None:
    # An upgrade over a killed run: its lines are believed, so nothing is sent twice.
    path = wire_log_path(tmp_path / "bot.sqlite3")
    assert path is not None
    path.write_bytes(b"7 1\n9 3\n7 2\n")
    assert WireLog(path).read() == {(7, 1), (9, 3), (7, 2)}
    path.write_bytes(b"7 1\n9 3\n7 ")  # torn, as any torn tail
    assert WireLog(path).read() is None


def test_anything_but_a_file_at_the_wire_logs_path_is_a_database_error(tmp_path: Path) -> None:
    path = wire_log_path(tmp_path / "bot.sqlite3")
    assert path is not None
    path.mkdir()
    with pytest.raises(DatabaseFileError, match="is a folder"):
        WireLog(path).read()
    with pytest.raises(DatabaseFileError, match="is a folder"):
        WireLog(path).start()
    path.rmdir()
    os.mkfifo(path)
    with pytest.raises(DatabaseFileError, match="not a regular file"):
        check_wire_log(path)


def test_the_wire_log_keeps_only_what_is_still_out_when_it_grows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bot.storage.wire, "ROTATE_BYTES", 100)
    path = wire_log_path(tmp_path / "bot.sqlite3")
    assert path is not None
    log = WireLog(path)
    log.start()
    # The header (7 bytes), then "1 1 crc\n" … "9 1 crc\n" (13 bytes each), "10 1 crc\n" …
    # (14 each).
    for row in range(1, 6):
        log.written(row, 1)
        if row != 4:
            log.settled(row)  # its outcome is recorded
    assert path.stat().st_size == 7 + 5 * 13  # 72
    log.written(6, 1)  # 85
    log.written(7, 1)  # 98
    log.written(8, 1)  # 111: past the limit, which the next line finds
    assert path.stat().st_size == 111
    log.written(9, 1)  # rewritten first, with the four still out, then 9
    log.close()
    lines = path.read_text().splitlines()
    assert lines[0] == "wire 2"
    assert [line.rsplit(" ", 1)[0] for line in lines[1:]] == ["4 1", "6 1", "7 1", "8 1", "9 1"]
    assert log.read() == {(4, 1), (6, 1), (7, 1), (8, 1), (9, 1)}


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
