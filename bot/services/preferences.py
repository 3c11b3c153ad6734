"""A user's own settings: level, interface language, evening reminders, forgetting them, and
what /settings shows (the interview date among them). (The time zone and the daily question
are `schedules`: they move the schedule with them.)
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import date

from bot.core.levels import Level
from bot.core.models import ChatRecord, UserProfile
from bot.core.streaks import local_day
from bot.services import Services


@dataclass(frozen=True, slots=True)
class Preferences:
    """What the settings screen shows: the user's settings and their chat's daily question."""

    user: UserProfile
    chat: ChatRecord | None  # None: no schedule was ever saved for the chat
    # The interview date (/interview) and the days to it; None: none set, or it has passed.
    interview: tuple[date, int] | None = None


async def preferences(svc: Services, user_id: int, chat_id: int) -> Preferences:
    """The user's settings as stored now, with the chat's daily question and the interview
    date still to come."""
    user = await svc.storage.get_user(user_id)
    assert user is not None  # the sender is stored before any handler runs
    plan = await svc.storage.interview_plan(user_id)
    today = local_day(svc.practice.clock(), svc.practice.zone(user))
    coming = (plan.day, (plan.day - today).days) if plan and plan.day >= today else None
    return Preferences(user, await svc.storage.get_chat(chat_id), coming)


async def set_level(svc: Services, user_id: int, level: Level) -> None:
    """The level questions are asked at when none is named."""
    await svc.storage.update_user(user_id, level=level)


async def set_language(svc: Services, user_id: int, language: str) -> None:
    """The interface language chosen with /lang (it wins over the client's)."""
    await svc.storage.update_user(user_id, language=language)


async def set_reminders(svc: Services, user_id: int, enabled: bool) -> None:
    """Evening reminders on or off; the next reminder instant is computed again, and off
    withdraws one recorded but not yet sent."""
    await svc.storage.update_user(user_id, reminders=int(enabled))


async def ask_forget(svc: Services, user_id: int) -> str:
    """A new /forget confirmation: its token, which its buttons carry. Older confirmations
    stop working."""
    token = secrets.token_hex(6)
    await svc.storage.open_forget(user_id, token)
    return token


async def cancel_forget(svc: Services, user_id: int, token: str) -> None:
    """The confirmation `token` is cancelled (an older one's cancel changes nothing)."""
    await svc.storage.cancel_forget(user_id, token)


async def forget_user(svc: Services, user_id: int, token: str) -> bool:
    """Delete everything stored about the user if `token` is their open confirmation (see
    `Storage.forget_user`); False, and nothing deleted, for a stale or used one."""
    return await svc.storage.forget_user(user_id, token)
