"""Retention: which bookkeeping rows can no longer matter, as of an instant (pure).

Answers are the user's history and are kept until /forget. What goes:

- daily sends and evening reminders of past local days: they exist so a prompt or reminder
  happens at most once per chat and local day, and a day can only be claimed while it is
  today somewhere (local dates are within a day of UTC's) or within the grace period after
  a missed prompt (hours). Three days back is safely out of reach.
- finished outbox rows (sent, failed, unknown, expired): a row's key makes its message
  once-only, and every key is per local day (a daily prompt, a reminder, a round's question)
  or per one-time event (a round's ranking, an answer's feedback), so like the daily sends
  they are out of reach three days after they finished. Rows still waiting or in flight
  are kept, however old.
- a closed round's answers once /top "this week" can no longer need them (a week that began
  on Monday 00:00 local time, anywhere, is at most 8 days old): each answer was copied into
  the answer history and added to the group's running totals when the round closed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

BOOKKEEPING_DAYS = 3
ROUND_ANSWER_DAYS = 9


@dataclass(frozen=True, slots=True)
class Cutoffs:
    before_day: date  # daily sends and reminders for local days before this are done
    rounds_closed_before: datetime  # answers of rounds closed before this are not needed
    outbox_finished_before: datetime  # outbox rows finished before this are done with


def cutoffs(now: datetime) -> Cutoffs:
    """The cutoffs as of `now` (an aware instant)."""
    utc = now.astimezone(UTC)
    return Cutoffs(
        before_day=utc.date() - timedelta(days=BOOKKEEPING_DAYS),
        rounds_closed_before=utc - timedelta(days=ROUND_ANSWER_DAYS),
        outbox_finished_before=utc - timedelta(days=BOOKKEEPING_DAYS),
    )
