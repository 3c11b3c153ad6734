"""The wire log: which outbox requests were written, kept in a small file beside the database.

An outbox row is marked 'sending' in the database before its request starts (that write also
checks the row is still this process's to send). A crash after that mark and before the
request's body is written would leave a row that looks in flight but never left; the old
rule (every 'sending' row may have arrived) lost that chat's message. So just before the
body's bytes go to the socket, in the same synchronous step (no await between the two, so
no other task runs in between), the row and its attempt number are appended here. After a
crash the next run reads the file: a 'sending' row listed here may have arrived ('unknown',
never resent); one not listed never left and is queued again.

Appending is one `os.write` (no fsync): it survives the process being killed, which is what
it is for. A database restored from a backup has no wire log beside it: then every 'sending'
row counts as 'unknown', as before (`read` returns None when there is no file).

The file is started by each run once the previous run's rows are settled (a header line,
`wire 2`, then `run OWNER crc`: the run's lease owner), and when it grows past
`ROTATE_BYTES` it is rewritten with only the requests still out (their outcome not yet
recorded), so it stays a few kilobytes however long the bot runs.

Each line checks itself: `row attempt crc`, the CRC32 of `row attempt` in eight hex digits.
A file that does not read whole and right (a line whose CRC does not match or that is not a
line at all, a last line cut short, a file of 0 bytes) cannot say which requests left: a
damaged line may have named any row, and a torn tail may have lost any number of lines. It
is then read as no log at all (every 'sending' row may have arrived, none is sent again),
with one warning naming the file: a message possibly lost is logged, never sent twice. A
file of the previous version (`row attempt` lines, no header) is read as before, so an
upgrade resends nothing. The file speaks only for its own run's requests: with PostgreSQL
replicas the run before a takeover was another replica's, whose file is elsewhere, so a
'sending' row of another owner than the one named here may have arrived (`previous_run`;
a file without a run line, of the version before, speaks for all). Anything other than a
regular file at the path (a folder, a pipe) is a `DatabaseFileError`: one line, status 3
(bot/cli.py).
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import stat
import zlib
from pathlib import Path

from bot.storage.files import DatabaseFileError

log = logging.getLogger(__name__)

ROTATE_BYTES = 1 << 20
HEADER = b"wire 2\n"
_LINE = re.compile(rb"(\d{1,19}) (\d{1,9}) ([0-9a-f]{8})")
_OLD_LINE = re.compile(rb"(\d{1,19}) (\d{1,9})")
_RUN = re.compile(rb"run ([0-9a-f]{1,64}) ([0-9a-f]{8})")


def _record(row_id: int, attempt: int) -> bytes:
    body = f"{row_id} {attempt}".encode("ascii")
    return body + f" {zlib.crc32(body):08x}\n".encode("ascii")


def _run_line(owner: str | None) -> bytes:
    if owner is None:
        return b""
    body = f"run {owner}".encode("ascii")
    return body + f" {zlib.crc32(body):08x}\n".encode("ascii")


def parse(data: bytes) -> set[tuple[int, int]] | None:
    """The (row id, attempt) pairs of a wire log's bytes; None if they cannot be trusted
    whole (see the module's docstring): then any 'sending' row may have left."""
    return parse_run(data)[0]


def parse_run(data: bytes) -> tuple[set[tuple[int, int]] | None, str | None]:
    """`parse`, and the owner of the run that wrote the log (None: not named)."""
    if not data or not data.endswith(b"\n"):
        return None, None  # nothing at all where a header should be, or a torn last line
    lines = data.split(b"\n")[:-1]
    written: set[tuple[int, int]] = set()
    if lines[0] + b"\n" == HEADER:
        run = _RUN.fullmatch(lines[1]) if len(lines) > 1 else None
        owner = None
        if run is not None and int(run[2], 16) == zlib.crc32(lines[1][: run.start(2) - 1]):
            owner = run[1].decode("ascii")
        for line in lines[2 if owner else 1 :]:
            m = _LINE.fullmatch(line)
            if m is None or int(m[3], 16) != zlib.crc32(line[: m.start(3) - 1]):
                return None, None
            written.add((int(m[1]), int(m[2])))
        return written, owner
    for line in lines:  # the previous version's lines: no header, no checksum
        m = _OLD_LINE.fullmatch(line)
        if m is None:
            return None, None
        written.add((int(m[1]), int(m[2])))
    return written, None


def check_wire_log(path: Path | None) -> None:
    """Raise DatabaseFileError if something other than a regular file is at `path`."""
    if path is None:
        return
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise DatabaseFileError(path, f"cannot be read ({exc.strerror})") from None
    if stat.S_ISDIR(mode):
        raise DatabaseFileError(
            path, "is a folder, not the bot's wire log (a file): move it away and start again"
        )
    if not stat.S_ISREG(mode):
        raise DatabaseFileError(
            path, "is not a regular file (the bot's wire log): move it away and start again"
        )
    if not os.access(path, os.R_OK | os.W_OK):
        raise DatabaseFileError(path, "cannot be read and written by this user (permissions)")


def wire_log_path(database: Path | str) -> Path | None:
    """The wire log of a database file (None for an in-memory database)."""
    return None if str(database) == ":memory:" else Path(f"{database}-wire")


class WireLog:
    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._fd: int | None = None
        self._size = 0
        # Requests written whose outcome is not recorded yet: row id -> attempt.
        self.out: dict[int, int] = {}
        # The owner of the run that wrote the log `read` found (None: not named there).
        self.previous_run: str | None = None
        self._run = b""  # this run's line, after the header

    def read(self) -> set[tuple[int, int]] | None:
        """What an earlier run wrote: (row id, attempt) pairs; None if there is no log, or if
        it is damaged (logged): then nothing says any request did not leave."""
        if self.path is None:
            return None
        check_wire_log(self.path)
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise DatabaseFileError(self.path, f"cannot be read ({exc.strerror})") from None
        written, self.previous_run = parse_run(data)
        if written is None:
            log.warning(
                "%s is damaged (%d bytes that do not read whole): which requests the previous"
                " run wrote is unknown, so each it marked in flight counts as may have arrived"
                " and is not sent again",
                self.path,
                len(data),
            )
        return written

    def start(self, owner: str | None = None) -> None:
        """Begin this run's log, its header and the run's `owner` only (call once the
        previous run's rows are settled)."""
        self.close()
        self.out.clear()
        self._run = _run_line(owner)
        if self.path is not None:
            check_wire_log(self.path)
            flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND
            self._fd = os.open(self.path, flags, 0o600)
            os.write(self._fd, HEADER + self._run)
            self._size = len(HEADER) + len(self._run)

    def written(self, row_id: int, attempt: int) -> None:
        """The request of `row_id`'s attempt `attempt` is about to be written (synchronous).

        Raises OSError if it cannot be noted: the request must not leave then.
        """
        if self._fd is not None and self._size >= ROTATE_BYTES:
            self._rotate()
        self.out[row_id] = attempt
        if self._fd is not None:
            line = _record(row_id, attempt)
            os.write(self._fd, line)
            self._size += len(line)

    def settled(self, row_id: int) -> None:
        """The row's outcome is recorded in the database: its line is not needed any more."""
        self.out.pop(row_id, None)

    def _rotate(self) -> None:
        assert self.path is not None
        assert self._fd is not None
        fresh = self.path.with_name(self.path.name + ".new")
        lines = b"".join(_record(row, attempt) for row, attempt in self.out.items())
        body = HEADER + self._run + lines
        fresh.write_bytes(body)
        os.replace(fresh, self.path)  # either the old log or the new one, whatever happens
        os.close(self._fd)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        self._size = len(body)

    def close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None
