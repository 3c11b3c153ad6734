"""A full disk: said once when writes start failing for lack of space, once when they can go
on, with the count of writes refused in between.

A full disk fails every write: each daily claim, each outbox mark, each update's record. Each
of those places logged its own traceback, one per due chat per tick (2,700 in 75 s with 300
subscribers, issue 28). Here the condition is one state: `refused` counts a write that
failed for lack of space (SQLite's SQLITE_FULL, or ENOSPC/EDQUOT from the wire log) and logs
the first; `wrote` ends it once a write succeeded and there is room again: the file system
has `ROOM` free when it had less as the spell began, or else (a size limit or a quota,
which fill no file system) no write was refused for `QUIET` seconds. A write that fits in
space SQLite already holds (its write-ahead log's) succeeds on a full disk too: a success
alone would say one spell as many. The places that fail stay quiet about it:
`QuietWhileFull` drops their log records that carry such an error.
"""

from __future__ import annotations

import errno
import logging
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)

# Free bytes on the database's file system that count as room again: a few hundred pages.
ROOM = 1 << 20
QUIET = 10.0  # seconds without a refused write before a spell counts as over
_NO_SPACE = (errno.ENOSPC, errno.EDQUOT)


def is_full(exc: BaseException | None) -> bool:
    """The error, or one it was raised from, is a write refused for lack of space (or for
    the database's size limit, which SQLite reports alike)."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        code = getattr(exc, "sqlite_errorcode", None)
        if isinstance(code, int) and code & 0xFF == sqlite3.SQLITE_FULL:
            return True
        if isinstance(exc, OSError) and exc.errno in _NO_SPACE:
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def free_bytes(folder: Path) -> int | None:
    """Bytes an unprivileged writer may still use in `folder`'s file system (None: unknown)."""
    try:
        st = os.statvfs(folder)
    except OSError:
        return None
    return st.f_bavail * st.f_frsize


class SpaceWatch:
    """Whether the database's disk is full now, said in two lines per full spell."""

    def __init__(self, path: Path | str) -> None:
        self.folder = Path(path).parent if str(path) != ":memory:" else None
        self.full = False
        self.refusals = 0
        self._last_refusal = 0.0
        self._disk_filled = False  # the file system itself was full as the spell began
        # Called once when a full spell ends (held updates are handled again).
        self.on_room: list[Callable[[], None]] = []

    def refused(self, exc: BaseException) -> bool:
        """Count `exc` if it is a write refused for lack of space (the first one of a spell
        logged); whether it was."""
        if not is_full(exc):
            return False
        self.refusals += 1
        self._last_refusal = time.monotonic()
        if not self.full:
            self.full = True
            room = free_bytes(self.folder) if self.folder is not None else None
            self._disk_filled = room is not None and room < ROOM
            log.error(
                "the disk is full (%s: %s): nothing new can be saved; people who write are"
                " told so, and what is owed waits until there is room",
                self.folder if self.folder is not None else "in memory",
                _plain(exc),
            )
        return True

    def wrote(self) -> None:
        """A write succeeded: the spell ends if there is room again (see the module)."""
        if not self.full:
            return
        if self._disk_filled:
            room = free_bytes(self.folder) if self.folder is not None else None
            if room is None or room < ROOM:
                return
        elif time.monotonic() - self._last_refusal < QUIET:
            return
        self.full = False
        refused, self.refusals = self.refusals, 0
        log.warning(
            "the disk has room again: %d writes were refused while it was full; what waited"
            " is handled now",
            refused,
        )
        for callback in self.on_room:
            callback()


def _plain(exc: BaseException) -> str:
    """The refusal in its own words ("database or disk is full", "No space left on
    device"), found where it was raised from."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in _NO_SPACE:
            return current.strerror or str(current)
        if isinstance(getattr(current, "sqlite_errorcode", None), int):
            return str(current)
        current = current.__cause__ or current.__context__
    return str(exc)


class QuietWhileFull(logging.Filter):
    """Drop a record whose exception (or an exception among its arguments) is a full disk:
    `SpaceWatch` says it once, not once for each write that failed."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and is_full(record.exc_info[1]):
            return False
        args = record.args if isinstance(record.args, tuple) else ()
        return not any(isinstance(a, BaseException) and is_full(a) for a in args)
