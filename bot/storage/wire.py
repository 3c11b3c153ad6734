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

The file is started empty by each run once the previous run's rows are settled, and when it
grows past `ROTATE_BYTES` it is rewritten with only the requests still out (their outcome
not yet recorded), so it stays a few kilobytes however long the bot runs.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

ROTATE_BYTES = 1 << 20


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

    def read(self) -> set[tuple[int, int]] | None:
        """What an earlier run wrote: (row id, attempt) pairs; None if there is no log."""
        if self.path is None:
            return None
        try:
            text = self.path.read_text(encoding="ascii", errors="replace")
        except FileNotFoundError:
            return None
        written: set[tuple[int, int]] = set()
        for line in text.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0].isdigit() and parts[1].isdigit():
                written.add((int(parts[0]), int(parts[1])))
        return written

    def start(self) -> None:
        """Begin this run's log, empty (call once the previous run's rows are settled)."""
        self.close()
        self.out.clear()
        if self.path is not None:
            flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND
            self._fd = os.open(self.path, flags, 0o600)
            self._size = 0

    def written(self, row_id: int, attempt: int) -> None:
        """The request of `row_id`'s attempt `attempt` is about to be written (synchronous).

        Raises OSError if it cannot be noted: the request must not leave then.
        """
        if self._fd is not None and self._size >= ROTATE_BYTES:
            self._rotate()
        self.out[row_id] = attempt
        if self._fd is not None:
            line = f"{row_id} {attempt}\n".encode("ascii")
            os.write(self._fd, line)
            self._size += len(line)

    def settled(self, row_id: int) -> None:
        """The row's outcome is recorded in the database: its line is not needed any more."""
        self.out.pop(row_id, None)

    def _rotate(self) -> None:
        assert self.path is not None
        assert self._fd is not None
        fresh = self.path.with_name(self.path.name + ".new")
        body = "".join(f"{row} {attempt}\n" for row, attempt in self.out.items()).encode()
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
