"""The daily question's schedule: saving it (a /daily, a zone change, a settings tap) so its
next occurrence moves with it, and reading it back for the scheduler.
"""

from __future__ import annotations

from datetime import time

from bot.core.models import ChatRecord, UserProfile
from bot.core.schedule import DailySchedule, Days, next_occurrence
from bot.core.timezones import zone_of
from bot.services import Services


def schedule_of(chat: ChatRecord, default_zone: str) -> DailySchedule:
    return DailySchedule(chat.daily_time, chat.daily_days, zone_of(default_zone, chat))


async def save_schedule(
    svc: Services,
    record: ChatRecord,
    user: UserProfile | None,
    *,
    enabled: bool,
    at: time,
    days: Days,
    zone: str,
) -> None:
    """Save the chat's daily question; its next occurrence moves with the time and zone."""
    schedule = DailySchedule(at, days, zone)
    next_due = next_occurrence(schedule, svc.practice.clock()) if enabled else None
    await svc.storage.set_schedule(
        record.chat_id, enabled=enabled, at=at, days=days, zone=zone, next_due=next_due
    )
