"""Streaks: consecutive local days with at least one answer, with earned freezes.

A day is a local calendar date in the user's time zone (the caller converts the instant).
One freeze is earned for each 7 consecutive days (at most `MAX_FREEZES` held); a freeze is
spent automatically for each missed day, so one or two missed days do not reset the streak.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, datetime, tzinfo

FREEZE_EVERY = 7
MAX_FREEZES = 2


@dataclass(frozen=True, slots=True)
class StreakState:
    current: int = 0
    best: int = 0
    last_day: date | None = None
    freezes: int = 0


def local_day(instant: datetime, zone: tzinfo) -> date:
    """The calendar date of an aware instant in a time zone."""
    return instant.astimezone(zone).date()


def record_answer(state: StreakState, day: date) -> StreakState:
    """Count an answer given on local `day`; spend freezes on missed days, earn them weekly."""
    if state.last_day is not None and day <= state.last_day:
        # Same day, or an earlier date after moving west across time zones: nothing new.
        return state
    current, freezes = state.current, state.freezes
    if state.last_day is None:
        current = 1
    else:
        missed = (day - state.last_day).days - 1
        if missed == 0:
            current += 1
        elif missed <= freezes:
            freezes -= missed
            current += 1
        else:
            current = 1
    if current % FREEZE_EVERY == 0:
        freezes = min(MAX_FREEZES, freezes + 1)
    return StreakState(current, max(state.best, current), day, freezes)


def visible_streak(state: StreakState, today: date) -> StreakState:
    """The streak as it stands today: zero once missed days exceed the freezes held."""
    if state.last_day is None:
        return state
    missed = (today - state.last_day).days - 1
    if missed <= state.freezes:
        return state
    return replace(state, current=0)


def at_risk(state: StreakState, today: date) -> bool:
    """True when the streak is alive but today has no answer yet (evening reminder)."""
    shown = visible_streak(state, today)
    return shown.current > 0 and shown.last_day is not None and shown.last_day < today
