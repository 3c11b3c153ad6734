"""The running bot's clock: the wall clock, with steps noticed and adopted at one point.

`interview-bot run` reads every instant from one `SteadyClock`. Between readings it checks
the wall clock against the monotonic clock; a step (bot/core/clock.py) is logged once, and
until the daily scheduler adopts it at the start of its next tick, the clock goes on as time
passed (the old timeline), so every decision in between is made on one timeline. Adopting
moves what was already owed by the step, in one transaction: the deadlines of messages in the
outbox and the due instants of chats already due, so their lateness is what time really
passed. The outbox sender claims rows under the same lock, and keeps the clock's epoch with
each row it holds, so a row claimed before a step is shifted as the database's rows were.

Test-only seam: when INTERVIEW_BOT_TEST_CLOCK_OFFSET_FILE names a file, its content (seconds,
a float; missing or empty: 0) is added to the wall clock on each reading, so a test can step
a real process's wall clock while its monotonic clock stays real. Unset, nothing is read.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, nullcontext
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.core.clock import clock_step, step_words

log = logging.getLogger(__name__)

OFFSET_FILE_ENV = "INTERVIEW_BOT_TEST_CLOCK_OFFSET_FILE"


def since_boot() -> float:
    """Seconds on a clock that only moves forward and counts a machine's sleep (Linux's
    CLOCK_BOOTTIME; the monotonic clock elsewhere): time asleep really passed, it is no step."""
    return time.clock_gettime(BOOTTIME) if BOOTTIME is not None else time.monotonic()


BOOTTIME: int | None = getattr(time, "CLOCK_BOOTTIME", None)


def wall_now() -> datetime:
    """The wall clock (UTC), plus the test seam's offset when its variable is set."""
    now = datetime.now(UTC)
    offset_file = os.environ.get(OFFSET_FILE_ENV)
    if offset_file:
        try:
            text = Path(offset_file).read_text().strip()
        except FileNotFoundError:
            text = ""
        if text:
            now += timedelta(seconds=float(text))
    return now


class SteadyClock:
    """A callable clock (UTC instants) that notices wall-clock steps; see the module."""

    def __init__(
        self,
        wall: Callable[[], datetime] = wall_now,
        monotonic: Callable[[], float] = since_boot,
    ) -> None:
        self.wall = wall
        self.monotonic = monotonic
        self._at = wall()  # the last reading, on the timeline in use
        self._at_mono = monotonic()
        self.pending = False  # a step was noticed and not yet adopted
        self.steps: list[timedelta] = []  # the steps adopted, in order (epoch = their count)
        # Held while a step is adopted, and by whoever reads rows whose instants it moves.
        self.lock = asyncio.Lock()

    def _passed(self) -> datetime:
        """Where the clock is by the time passed since the last reading."""
        return self._at + timedelta(seconds=self.monotonic() - self._at_mono)

    def __call__(self) -> datetime:
        expected = self._passed()
        mono = self.monotonic()
        if not self.pending:
            wall = self.wall()
            step = clock_step(expected, wall)
            if step is None:
                expected = wall
            else:
                self.pending = True
                log.warning(
                    "the wall clock jumped %s (it reads %s, the time passed says %s): what"
                    " was already due keeps the time it had left",
                    step_words(step),
                    wall.strftime("%H:%M:%S UTC"),
                    expected.strftime("%H:%M:%S UTC"),
                )
        self._at, self._at_mono = expected, mono
        return expected

    @property
    def epoch(self) -> int:
        return len(self.steps)

    def shift_since(self, epoch: int) -> timedelta:
        """How far the steps adopted since `epoch` moved the timeline."""
        return sum(self.steps[epoch:], timedelta(0))

    def step(self) -> timedelta | None:
        """The step noticed and not yet adopted, measured now."""
        if not self.pending:
            return None
        return self.wall() - self._passed()

    def adopt(self, step: timedelta) -> None:
        """Move onto the wall clock's timeline by `step` (what `step()` measured)."""
        self._at = self._passed() + step
        self._at_mono = self.monotonic()
        self.steps.append(step)
        self.pending = False


def steady_lock(clock: object) -> AbstractAsyncContextManager[object]:
    """The lock a step is adopted under, or none for a plain clock (tests' fake clocks)."""
    return clock.lock if isinstance(clock, SteadyClock) else nullcontext()


def shift_since(clock: object, epoch: int) -> timedelta:
    """What a plain clock never does: move by steps since `epoch`."""
    return clock.shift_since(epoch) if isinstance(clock, SteadyClock) else timedelta(0)


def epoch_of(clock: object) -> int:
    return clock.epoch if isinstance(clock, SteadyClock) else 0
