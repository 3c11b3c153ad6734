"""Group rounds: ranking members' answers, when a round closes, leaderboard points."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

POINTS_PER_ANSWER = 100  # a perfect answer; points are the score times this


@dataclass(frozen=True, slots=True)
class MemberResult:
    user_id: int
    first_name: str
    score: float
    covered: int
    total: int
    answered_at: datetime
    partly: int = 0  # concepts credited only in part (not among `covered`)


def rank(results: list[MemberResult]) -> list[MemberResult]:
    """Best score first; on a tie, more concepts, then the earlier answer."""
    return sorted(results, key=lambda r: (-r.score, -r.covered, r.answered_at, r.user_id))


def points(total_score: float) -> int:
    """Leaderboard points for a sum of round scores: each round's score (0..1) times 100."""
    return round(max(0.0, total_score) * POINTS_PER_ANSWER)


def closes_at(
    opened: datetime, *, minutes: int, daily: bool, zone: str, evening_hour: int
) -> datetime:
    """A /quiz round closes after `minutes`; a daily round stays open until the local evening."""
    if daily:
        local = opened.astimezone(ZoneInfo(zone))
        evening = datetime.combine(local.date(), time(evening_hour), tzinfo=ZoneInfo(zone))
        if evening > opened + timedelta(minutes=minutes):
            return evening
    return opened + timedelta(minutes=minutes)


def week_start(now: datetime, zone: str) -> datetime:
    """Monday 00:00 of the current local week, as an aware instant."""
    local = now.astimezone(ZoneInfo(zone))
    monday: date = local.date() - timedelta(days=local.weekday())
    return datetime.combine(monday, time(0), tzinfo=ZoneInfo(zone))
