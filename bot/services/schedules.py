"""The daily question's schedule: saving it (a /daily, a zone change, a settings tap) so its
next occurrence moves with it, and reading it back for the scheduler.
"""

from __future__ import annotations

from bot.core.models import ChatRecord, UserProfile
from bot.core.schedule import DailySchedule, Days, next_occurrence, parse_time
from bot.services import Services

DEFAULT_DAILY_TIME = "09:00"  # what /start offers before a chat has chosen a time


def schedule_of(chat: ChatRecord, default_zone: str) -> DailySchedule:
    at = parse_time(chat.daily_time)
    assert at is not None, chat.daily_time  # written by /daily from a parsed time
    return DailySchedule(at, Days(chat.daily_days), chat.timezone or default_zone)


def zone_for(svc: Services, chat: ChatRecord, user: UserProfile | None) -> str:
    """The zone a chat's daily question follows: the chat's, else its private user's."""
    if chat.timezone:
        return chat.timezone
    if chat.kind == "private" and user is not None and user.timezone:
        return user.timezone
    return svc.settings.default_timezone


async def save_schedule(
    svc: Services,
    record: ChatRecord,
    user: UserProfile | None,
    *,
    enabled: bool,
    at: str,
    days: Days,
    zone: str,
) -> None:
    parsed = parse_time(at)
    assert parsed is not None
    schedule = DailySchedule(parsed, days, zone)
    next_due = next_occurrence(schedule, svc.practice.clock()) if enabled else None
    await svc.storage.set_schedule(
        record.chat_id, enabled=enabled, at=at, days=days.value, zone=zone, next_due=next_due
    )
