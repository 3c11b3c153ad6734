"""Evening reminders: when a user's streak is next at risk, and what a due reminder does.

Each user carries the instant of their next possible reminder (storage indexes it), so the
scheduler reads only users whose instant has come. The instant is the reminder hour (local
wall clock) of the first local day on which the streak can be at risk: the day after the
last answer. Storage recomputes it, without a clock, whenever the streak, the zone or the
reminder setting changes (`first_reminder`). When the instant comes, the scheduler decides
with the clock (`claim`): send only on that same local day, after the hour, while the streak
is at risk; and move the instant on to the next local day the streak can still be at risk,
or to none. An instant computed from an old answer (a day the bot was down, a zone change)
is therefore only ever corrected, never sent late. So is one computed with another
reminder hour (the operator changed it): the next claim moves it to the new hour.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from bot.core.streaks import StreakState, at_risk
from bot.core.timezones import zone_of


@dataclass(frozen=True, slots=True)
class ReminderRule:
    """The evening reminder's local hour, and the zone of users who never set one."""

    hour: int = 20
    default_zone: str = "UTC"

    def zone(self, user_zone: str | None) -> ZoneInfo:
        """The user's clock (no chat: their zone, else the default), by `zone_of`."""
        return ZoneInfo(zone_of(self.default_zone, user=user_zone))

    def instant(self, day: date, zone: ZoneInfo) -> datetime:
        """The UTC instant of the reminder hour on local `day`."""
        return datetime.combine(day, time(self.hour), tzinfo=zone).astimezone(UTC)


def first_reminder(
    streak: StreakState, user_zone: str | None, rule: ReminderRule
) -> datetime | None:
    """The reminder instant of the day after the last answer; None without a live streak.

    Needs no clock: if that day is already past, the scheduler finds the instant due at
    once and `claim` moves it to the right day without sending.
    """
    if streak.current <= 0 or streak.last_day is None:
        return None
    return rule.instant(streak.last_day + timedelta(days=1), rule.zone(user_zone))


def next_reminder(
    streak: StreakState, user_zone: str | None, rule: ReminderRule, after: datetime
) -> datetime | None:
    """The first reminder instant strictly after `after` on a day the streak is at risk."""
    if streak.last_day is None:
        return None
    zone = rule.zone(user_zone)
    day = max(after.astimezone(zone).date() - timedelta(days=1), streak.last_day)
    # At risk from the day after the last answer while freezes cover the missed days: at
    # most MAX_FREEZES + 1 days, so the loop is short.
    last_at_risk = streak.last_day + timedelta(days=1 + streak.freezes)
    while day <= last_at_risk:
        at = rule.instant(day, zone)
        if at > after and at_risk(streak, day):
            return at
        day += timedelta(days=1)
    return None


@dataclass(frozen=True, slots=True)
class Claim:
    send: bool  # record today's reminder now
    day: date  # the user's local date now (the reminder's once-a-day key)
    next_at: datetime | None  # the instant to store in place of the one claimed


def claim(
    streak: StreakState,
    user_zone: str | None,
    rule: ReminderRule,
    due_at: datetime,
    now: datetime,
) -> Claim:
    """What to do with a reminder instant `due_at` that has come (`due_at <= now`)."""
    zone = rule.zone(user_zone)
    local = now.astimezone(zone)
    today = local.date()
    send = (
        due_at.astimezone(zone).date() == today  # not yesterday's, sent after midnight
        and now >= rule.instant(today, zone)
        and at_risk(streak, today)
    )
    return Claim(send, today, next_reminder(streak, user_zone, rule, now))


def end_of_day(day: date, user_zone: str | None, rule: ReminderRule) -> datetime:
    """The UTC instant local `day` ends: a reminder is worth nothing after it."""
    zone = rule.zone(user_zone)
    return datetime.combine(day + timedelta(days=1), time(0), tzinfo=zone).astimezone(UTC)
