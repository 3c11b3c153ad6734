"""Messages the bot owes a chat: their kinds, states, drafts, and the retry schedule.

Pure values and rules (no I/O): storage keeps the rows, bot/jobs/outbox.py delivers them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any


class Kind(StrEnum):
    DAILY = "daily"  # a private chat's daily question
    ROUND = "round"  # a group's daily round question (its message id goes to the round)
    RANKING = "ranking"  # a closed round's results
    FEEDBACK = "feedback"  # a member's private feedback on a round answer
    REMINDER = "reminder"  # the evening streak reminder
    INTERVIEW = "interview"  # after the interview date: how did it go? (asked once)


class Status(StrEnum):
    PENDING = "pending"  # waits for a sender
    CLAIMED = "claimed"  # a sender holds it; nothing of it is on the wire
    SENDING = "sending"  # its request left the process
    SENT = "sent"  # Telegram accepted every message of it
    FAILED = "failed"  # refused for good (blocked, gone, bad request)
    UNKNOWN = "unknown"  # may have arrived (timeout or stop after the request left): not resent
    EXPIRED = "expired"  # its deadline passed before Telegram took it


ACTIVE = (Status.PENDING, Status.CLAIMED, Status.SENDING)


@dataclass(frozen=True, slots=True)
class Draft:
    """A message to record: sent by the outbox sender, at most once per `dedup_key`."""

    kind: Kind
    dedup_key: str
    chat_id: int
    messages: tuple[str, ...]
    deadline: datetime
    keyboard: dict[str, Any] | None = None  # on the last message, as Bot API JSON
    reply_to: int | None = None  # the first message replies to this one
    local_day: str | None = None
    question_id: str | None = None
    round_id: int | None = None


@dataclass(slots=True)
class Row:
    """A recorded message as a sender holds it."""

    id: int
    kind: Kind
    chat_id: int
    messages: tuple[str, ...]
    keyboard: dict[str, Any] | None
    reply_to: int | None
    parts_sent: int
    deadline: datetime
    attempts: int
    local_day: str | None = None
    question_id: str | None = None
    round_id: int | None = None
    on_wire: bool = False  # a request of this attempt left the process
    current: bool = False  # the row its chat is being served (later ones wait behind it)
    flood: bool = False  # waits out a 429 (its chat's limit), not a network failure
    settled: bool = False  # its outcome is recorded: whatever fails after, it is not sent again
    epoch: int = 0  # the clock's steps adopted when it was claimed (bot/jobs/clock.py)


def backoff(attempt: int, base: float, cap: float, rng: random.Random) -> float:
    """Seconds to wait before retry number `attempt` (1, 2, ...): capped exponential, jittered.

    Full jitter spreads the retries of many chats that failed together, so a recovering API
    is not hit by all of them in the same instant.
    """
    ceiling = min(cap, base * 2 ** max(0, attempt - 1))
    return rng.uniform(min(base, ceiling) / 2, ceiling)
