"""Wall-clock steps: when the wall clock moved other than as time passed, and how to say it.

Pure rules (no I/O): bot/jobs/clock.py reads the clocks and applies them. The monotonic
clock only moves forward with time; the wall clock can be stepped (NTP correcting a wrong
clock, an operator setting it). A difference between the two beyond `STEP_TOLERANCE` is a
step: lateness already being measured then (prompts due and owed) is kept as it was, not
read again on the moved wall clock.
"""

from __future__ import annotations

from datetime import datetime, timedelta

# Corrections smaller than this pass silently (NTP slews or steps by far less); a busy event
# loop does not count, as both clocks move on together.
STEP_TOLERANCE = timedelta(seconds=60)


def clock_step(
    expected: datetime, wall: datetime, tolerance: timedelta = STEP_TOLERANCE
) -> timedelta | None:
    """The step the wall clock took, if it reads `wall` where time passed says `expected`."""
    step = wall - expected
    return step if abs(step) > tolerance else None


def step_words(step: timedelta) -> str:
    """A step as an operator reads it: "3 h forward", "1 h 30 min back", "90 s forward"."""
    seconds = round(abs(step.total_seconds()))
    hours, rest = divmod(seconds, 3600)
    minutes = round(rest / 60) if hours else rest // 60
    if hours and minutes == 60:
        hours, minutes = hours + 1, 0
    if hours:
        size = f"{hours} h" + (f" {minutes} min" if minutes else "")
    elif seconds >= 600:
        size = f"{round(seconds / 60)} min"
    else:
        size = f"{seconds} s"
    return f"{size} {'forward' if step > timedelta(0) else 'back'}"
