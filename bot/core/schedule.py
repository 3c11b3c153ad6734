"""Daily prompts: reading `/daily` arguments and computing when a chat is next due.

A schedule is a local wall-clock time, a set of days and an IANA zone. Occurrences are
computed per local date and converted to UTC with zoneinfo, so 08:30 Europe/Berlin is 08:30
local on both sides of a DST change. A time that does not exist that day (spring-forward gap)
moves forward by the gap; a time that exists twice (fall-back) is taken once, the first time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from enum import StrEnum
from zoneinfo import ZoneInfo

from bot.core.timezones import ambiguous_timezone, resolve_timezone

DEFAULT_DAILY_TIME = time(9, 0)  # a chat's daily time before it chose one (and /start's offer)


class Days(StrEnum):
    EVERY_DAY = "daily"
    WEEKDAYS = "weekdays"

    def includes(self, day: date) -> bool:
        return self is Days.EVERY_DAY or day.weekday() < 5


@dataclass(frozen=True, slots=True)
class DailySchedule:
    at: time
    days: Days
    zone: str

    def local_instant(self, day: date) -> datetime:
        """The UTC instant of this schedule's time on local `day` (gap: shifted forward)."""
        # fold=0: a time that exists twice is taken the first time; a time in a DST gap is
        # read with the offset before the gap, which lands just after it.
        local = datetime.combine(day, self.at, tzinfo=ZoneInfo(self.zone))
        return local.astimezone(UTC)


@dataclass(frozen=True, slots=True)
class Occurrence:
    day: date  # the local date the prompt belongs to (one prompt per chat and local date)
    at: datetime  # UTC


def next_occurrence(schedule: DailySchedule, after: datetime) -> Occurrence:
    """The first occurrence strictly after `after` (an aware instant)."""
    zone = ZoneInfo(schedule.zone)
    day = after.astimezone(zone).date() - timedelta(days=1)
    for _ in range(10):
        if schedule.days.includes(day):
            at = schedule.local_instant(day)
            if at > after:
                return Occurrence(day, at)
        day += timedelta(days=1)
    raise AssertionError("a schedule always has an occurrence within a week")


class Due(StrEnum):
    WAIT = "wait"
    SEND = "send"  # on time or late within the grace period
    SKIP = "skip"  # missed by more than the grace period: never sent in a burst


def due_state(occurrence_at: datetime, now: datetime, grace: timedelta) -> Due:
    if now < occurrence_at:
        return Due.WAIT
    return Due.SEND if now - occurrence_at <= grace else Due.SKIP


def resume_after(occurrence_at: datetime, now: datetime, grace: timedelta) -> datetime:
    """Where to look for the next occurrence after handling one: never further back than grace."""
    return max(occurrence_at, now - grace)


# -- /daily arguments ------------------------------------------------------------------------

_TIME_RE = re.compile(
    r"^(?P<h>\d{1,2})(?:[:.：](?P<m>\d{2}))?\s*(?P<ampm>am|pm|a\.m\.|p\.m\.)?$", re.IGNORECASE
)
_DAY_PERIODS = ("凌晨", "早上", "早晨", "上午", "中午", "下午", "傍晚", "晚上")
_CN_TIME_RE = re.compile(
    rf"^(?P<ampm>{'|'.join(_DAY_PERIODS)})?(?P<h>\d{{1,2}})[点點时](?:(?P<m>\d{{1,2}})分?|(?P<half>半))?$"
)
OFF_WORDS = frozenset({"off", "stop", "disable", "关闭", "关"})
ON_WORDS = frozenset({"on", "start", "enable", "开启", "开", "打开"})
_WEEKDAYS = {
    "weekdays", "weekday", "workdays", "mon-fri", "工作日", "周一到周五", "周一至周五", "周一~周五",
}  # fmt: skip
_EVERY_DAY = {"every day", "everyday", "daily", "all", "每天", "每日"}


def parse_switch(text: str) -> bool | None:
    """The one set of on/off words (/daily, /reminders): True, False, or None if neither."""
    word = text.strip().lower()
    if word in ON_WORDS:
        return True
    if word in OFF_WORDS:
        return False
    return None


def parse_time(text: str) -> time | None:
    """08:30, 8:30, 8.30, 8am, 8:30 pm, 20点, 8点半 -> a time; None if not a valid time."""
    text = text.strip().lower()
    hour: int
    minute: int
    if m := _TIME_RE.match(text):
        hour, minute = int(m.group("h")), int(m.group("m") or 0)
        ampm = (m.group("ampm") or "").replace(".", "")
        if ampm:
            if not 1 <= hour <= 12:
                return None
            hour = hour % 12 + (12 if ampm == "pm" else 0)
    elif m := _CN_TIME_RE.match(text.replace(" ", "")):  # 8 点, 8 点半 as 8点, 8点半
        hour = int(m.group("h"))
        minute = 30 if m.group("half") else int(m.group("m") or 0)
        period = m.group("ampm")
        if period in ("下午", "傍晚", "晚上") and hour < 12:
            hour += 12
        elif period in ("晚上", "凌晨") and hour == 12:
            hour = 0  # 晚上12点 is midnight
        elif period == "中午" and hour < 11:
            hour += 12  # 中午1点 is 13:00; 中午12点 stays noon
    else:
        return None
    if not (0 <= hour <= 23 and 0 <= minute <= 59):
        return None
    return time(hour, minute)


@dataclass(frozen=True, slots=True)
class DailyCommand:
    """What `/daily …` asks for; `problem` is set when the arguments make no sense."""

    show: bool = False
    enabled: bool | None = None
    at: time | None = None
    zone: str | None = None
    days: Days | None = None
    problem: str | None = None  # "time" | "zone" | "ambiguous_zone" | "words"
    bad_value: str = ""


_CN_DAY_WORDS = sorted((w for w in (*_WEEKDAYS, *_EVERY_DAY) if not w.isascii()), key=len)


def _joined_day_periods(words: list[str]) -> list[str]:
    """`早上 8点` typed with a space is one time, as `早上8点` is; `每天8点` is a day and a
    time, as `每天 8点` is; `8 点` is one time."""
    split: list[str] = []
    for word in words:
        day = next((d for d in reversed(_CN_DAY_WORDS) if word.startswith(d)), None)
        if day is not None and len(word) > len(day):
            split.extend((day, word[len(day) :]))
        else:
            split.append(word)
    out: list[str] = []
    for word in split:
        if out and _continues_time(out[-1], word):
            out[-1] += word
        else:
            out.append(word)
    return out


def _continues_time(before: str, word: str) -> bool:
    """Whether `word` goes on with the Chinese time `before` (早上 8, 8 点, 8点 30分, 8点30 分)."""
    return (
        (before in _DAY_PERIODS and word[:1].isdigit())
        # The hour may already carry its period: 早上 8 点 30 分 is 早上8, then 点, 30, 分.
        or (before[-1:].isdigit() and word[:1] in ("点", "點", "时"))
        or (before[-1] in "点點时" and re.fullmatch(r"\d{1,2}分?|半", word) is not None)
        or (re.search(r"\d{1,2}[点點时]\d{1,2}$", before) is not None and word == "分")
    )


def parse_daily(args: list[str]) -> DailyCommand:
    """Read `/daily` arguments: nothing, on/off, weekdays/every day, a time with a zone."""
    words = [a for a in args if a.strip()]
    if not words:
        return DailyCommand(show=True)
    joined = " ".join(words).strip().lower()
    if (switch := parse_switch(joined)) is not None:
        return DailyCommand(enabled=switch)
    if joined in _WEEKDAYS:
        return DailyCommand(days=Days.WEEKDAYS, enabled=True)
    if joined in _EVERY_DAY:
        return DailyCommand(days=Days.EVERY_DAY, enabled=True)
    # A day set anywhere (工作日 8点 as well as 8点 工作日), a time, then maybe a zone.
    days = None
    rest = []
    for word in _joined_day_periods(words):
        lowered = word.lower()
        if lowered in _WEEKDAYS:
            days = Days.WEEKDAYS
        elif lowered in _EVERY_DAY or lowered in {"every", "day"}:
            days = Days.EVERY_DAY
        else:
            rest.append(word)
    at = None
    if len(rest) >= 2 and re.fullmatch(r"\d{1,2}", rest[0]) and re.fullmatch(r"\d{2}", rest[1]):
        # "8 30": an hour and its minutes (a bare number is never a zone)
        at = parse_time(f"{rest[0]}:{rest[1]}")
        if at is None:
            return DailyCommand(problem="time", bad_value=" ".join(rest[:2]))
        rest = rest[2:]
    else:
        for take in (2, 1):
            if len(rest) >= take and (found := parse_time(" ".join(rest[:take]))) is not None:
                at, rest = found, rest[take:]
                break
    if at is not None and rest and rest[0].lower().replace(".", "") in ("am", "pm"):
        # "20:30 pm": a time, but not one with am/pm (it is not "pm" the zone)
        return DailyCommand(problem="time", bad_value=" ".join(words[:2]))
    if at is None:
        if not rest:  # only day words: "weekdays every day"
            return DailyCommand(days=days, enabled=True)
        first = rest[0]
        looks_like_time = bool(
            re.match(r"^[\d:.：]+\s*(am|pm)?$", first, re.IGNORECASE)
            or re.search("[点點时]", first)
        )
        return DailyCommand(problem="time" if looks_like_time else "words", bad_value=first)
    zone = None
    for word in rest:
        if (found_zone := resolve_timezone(word)) is not None:
            zone = found_zone
        elif ambiguous_timezone(word):
            return DailyCommand(problem="ambiguous_zone", bad_value=word)
        else:
            return DailyCommand(problem="zone", bad_value=word)
    return DailyCommand(enabled=True, at=at, zone=zone, days=days)


# A question opened this recently is one the user is on: the daily question waits for it
# (and comes when it is answered or skipped) instead of arriving in the middle of an answer.
ON_IT = timedelta(hours=1)


def daily_waits(open_since: datetime, now: datetime) -> bool:
    """Whether the daily question waits for the question open since `open_since`. One left
    open longer was left: the daily question comes on time, and says it closes that one."""
    return now - open_since < ON_IT
