"""Time zones as people write them: IANA names, cities, UTC offsets; labels for display.

Offsets (`UTC+8`, `GMT+8`, `+8`, `+08:00`, `东八区`) mean what people mean: eight hours
ahead of UTC. They are stored as IANA `Etc/GMT-8` (the POSIX sign there is inverted: Etc/GMT-8
*is* UTC+8) and shown as `UTC+08:00` by `zone_label`, so nobody has to read the inverted name.
"""

from __future__ import annotations

import re
import zoneinfo
from functools import cache
from typing import Protocol


class ZonedChat(Protocol):
    """What the rule reads of a chat (bot.core.models.ChatRecord is one)."""

    @property
    def timezone(self) -> str | None: ...

    @property
    def kind(self) -> str: ...


class ZonedUser(Protocol):
    """What the rule reads of a user (bot.core.models.UserProfile is one)."""

    @property
    def timezone(self) -> str | None: ...


@cache
def _zones() -> dict[str, str]:
    names = zoneinfo.available_timezones()
    return {n.casefold(): n for n in names if "/" in n or n == "UTC"}


_OFFSET_RE = re.compile(
    r"^(?:utc|gmt|z)?(?P<sign>[+\-−])(?P<h>\d{1,2})(?:(?::|：)?(?P<m>\d{2}))?(?:h|小时)?$"
)
_CN_REGION_RE = re.compile(r"^(?P<side>[东西])(?P<n>[一二三四五六七八九十]{1,3}|\d{1,2})(?:时)?区$")
_CN_DIGITS = {c: i for i, c in enumerate("零一二三四五六七八九十")}
# Offsets that are not whole hours have no Etc/ zone: the zone that keeps that offset all year.
_PART_HOUR_ZONES = {
    (5, 30): "Asia/Kolkata",
    (5, 45): "Asia/Kathmandu",
    (6, 30): "Asia/Yangon",
    (4, 30): "Asia/Kabul",
    (3, 30): "Asia/Tehran",
    (9, 30): "Australia/Darwin",
    (8, 45): "Australia/Eucla",
    (-9, -30): "Pacific/Marquesas",
}


def _cn_number(text: str) -> int | None:
    if text.isdigit():
        return int(text)
    if text == "十":
        return 10
    if text.startswith("十"):  # 十一, 十二
        return 10 + _CN_DIGITS[text[1]] if len(text) == 2 else None
    if len(text) == 1:
        return _CN_DIGITS[text]
    return None


def offset_zone(hours: int, minutes: int = 0) -> str | None:
    """The zone that is always `hours:minutes` from UTC (signs alike), or None if none is."""
    if minutes == 0:
        if not -12 <= hours <= 14:
            return None
        # POSIX sign convention: Etc/GMT-8 is eight hours *ahead* of UTC.
        return "UTC" if hours == 0 else f"Etc/GMT{-hours:+d}"
    return _PART_HOUR_ZONES.get((hours, minutes))


def parse_offset(text: str) -> str | None:
    """`UTC+8`, `GMT+8`, `+8`, `+08:00`, `+0800`, `UTC-5`, `东八区`, `西五区` -> a zone name."""
    key = text.strip().replace(" ", "").casefold()
    if m := _OFFSET_RE.match(key):
        sign = 1 if m.group("sign") == "+" else -1
        hours, minutes = int(m.group("h")), int(m.group("m") or 0)
        return offset_zone(sign * hours, sign * minutes)  # None past ±14 h or odd minutes
    if m := _CN_REGION_RE.match(key):
        number = _cn_number(m.group("n"))
        if number is None or not 1 <= number <= 12:
            return None
        return offset_zone(number if m.group("side") == "东" else -number)
    return None


def zone_label(zone: str) -> str:
    """How a zone is shown: IANA names as they are, fixed offsets as `UTC+08:00`."""
    m = re.fullmatch(r"Etc/GMT([+-])(\d{1,2})", zone)
    if m is None:
        return zone
    hours = int(m.group(2)) * (-1 if m.group(1) == "+" else 1)  # POSIX sign: inverted
    return f"UTC{'+' if hours >= 0 else '-'}{abs(hours):02d}:00"


# Names people type that are not IANA names: Chinese city and country names, and the big
# cities whose zone is named after another city.
_COMMON_NAMES = {
    **dict.fromkeys(
        ["北京", "上海", "深圳", "广州", "杭州", "成都", "南京", "武汉", "西安", "中国",
         "北京时间", "beijing", "china", "peking", "shenzhen", "guangzhou", "hangzhou"],
        "Asia/Shanghai",
    ),
    **dict.fromkeys(["香港", "hongkong"], "Asia/Hong_Kong"),
    **dict.fromkeys(["台北", "台湾", "taiwan"], "Asia/Taipei"),
    **dict.fromkeys(["新加坡"], "Asia/Singapore"),
    **dict.fromkeys(["东京", "日本", "japan"], "Asia/Tokyo"),
    **dict.fromkeys(["首尔", "韩国", "korea"], "Asia/Seoul"),
    **dict.fromkeys(["伦敦", "英国", "uk"], "Europe/London"),
    **dict.fromkeys(["柏林", "德国", "germany"], "Europe/Berlin"),
    **dict.fromkeys(["巴黎", "法国", "france"], "Europe/Paris"),
    **dict.fromkeys(["纽约", "new_york_city", "nyc"], "America/New_York"),
    **dict.fromkeys(
        ["旧金山", "洛杉矶", "西雅图", "硅谷", "san_francisco", "seattle", "silicon_valley"],
        "America/Los_Angeles",
    ),
    **dict.fromkeys(["悉尼"], "Australia/Sydney"),
    **dict.fromkeys(["班加罗尔", "印度", "india", "bangalore", "bengaluru", "mumbai", "delhi"],
                    "Asia/Kolkata"),
}  # fmt: skip


# Abbreviations people write for the zone they live in; each names one zone (the one most
# people writing it mean), or, when it is used for several, the choices to ask about.
_ABBREVIATIONS = {
    **dict.fromkeys(["jst"], "Asia/Tokyo"),
    **dict.fromkeys(["kst"], "Asia/Seoul"),
    **dict.fromkeys(["ist"], "Asia/Kolkata"),
    **dict.fromkeys(["sgt"], "Asia/Singapore"),
    **dict.fromkeys(["hkt"], "Asia/Hong_Kong"),
    **dict.fromkeys(["pst", "pdt", "pt"], "America/Los_Angeles"),
    **dict.fromkeys(["mst", "mdt"], "America/Denver"),
    **dict.fromkeys(["est", "edt", "et"], "America/New_York"),
    **dict.fromkeys(["cet", "cest"], "Europe/Berlin"),
    **dict.fromkeys(["bst"], "Europe/London"),
    **dict.fromkeys(["aest", "aedt"], "Australia/Sydney"),
}  # fmt: skip
_AMBIGUOUS = {
    # China Standard Time, US Central (standard), Cuba: ask.
    "cst": ("Asia/Shanghai", "America/Chicago"),
}


def ambiguous_timezone(name: str) -> tuple[str, ...]:
    """The zones an abbreviation used for several may mean (`CST`), else ()."""
    return _AMBIGUOUS.get(name.strip().casefold(), ())


def resolve_timezone(name: str) -> str | None:
    """Return the canonical IANA name for `name` (any case, spaces for underscores) or None.

    Besides IANA names (`asia/shanghai`, `Europe/Berlin`) this accepts a zone's city alone
    (`Tokyo`, `berlin`), common names (`北京`, `上海`, `Beijing`) and UTC offsets written the
    way people mean them (`UTC+8`, `GMT+8`, `+8`, `+08:00`, `东八区`: Etc/GMT-8).
    """
    key = name.strip().replace(" ", "_").casefold()
    if not key:
        return None
    if key in ("gmt", "z", "utc0"):  # "utc" is an IANA name; "utc+0" an offset
        return "UTC"
    if (offset := parse_offset(name)) is not None:
        return offset
    if key in _ABBREVIATIONS:
        return _ABBREVIATIONS[key]
    # 上海市, 北京市: the city with its "city" suffix.
    plain = key.removesuffix("市") if len(key) > 1 else key
    if plain in _COMMON_NAMES:
        return _COMMON_NAMES[plain]
    exact = name.strip().replace(" ", "_")
    if _is_listed_zone(exact):
        return exact
    zones = _zones()
    if key in zones:
        return zones[key]
    cities = _cities()
    return cities.get(key)


def _is_listed_zone(name: str) -> bool:
    """Whether `name`, as written, is one of `_zones()`'s names (DEFAULT_TIMEZONE's usual
    form, read at every start): one zone file opened, not every one on the system (listing
    them all opens some 600 files, tens of milliseconds; issue 30)."""
    if not ("/" in name or name == "UTC") or name.split("/", 1)[0] in ("posix", "right"):
        return False
    try:
        zoneinfo.ZoneInfo(name)
    except (ValueError, OSError, zoneinfo.ZoneInfoNotFoundError):
        return False
    return True


@cache
def _cities() -> dict[str, str]:
    """City part -> zone, for cities that name exactly one zone (tokyo -> Asia/Tokyo)."""
    found: dict[str, list[str]] = {}
    for key, zone in _zones().items():
        if key.startswith("etc/"):  # "gmt+8" is not a city: offsets are read by parse_offset
            continue
        found.setdefault(key.rsplit("/", 1)[-1], []).append(zone)
    return {city: zones[0] for city, zones in found.items() if len(zones) == 1}


def suggest_timezones(name: str, limit: int = 3) -> list[str]:
    """Close matches for a mistyped zone, by city name first (`shanghai` -> Asia/Shanghai)."""
    from rapidfuzz import fuzz, process  # only for a mistyped zone: not loaded at start-up

    key = name.strip().replace(" ", "_").casefold()
    if not key:
        return []
    # Etc/GMT±N read backwards to most people: offsets are resolved, never suggested.
    zones = {k: v for k, v in _zones().items() if not k.startswith("etc/")}
    cities = {k.rpartition("/")[2]: v for k, v in zones.items()}
    # Every match above the cut-off, best first; the list is cut to `limit` once, at the end.
    by_city = process.extract(key, list(cities), scorer=fuzz.ratio, limit=None, score_cutoff=70)
    found = [cities[m[0]] for m in by_city]
    by_full = process.extract(key, list(zones), scorer=fuzz.WRatio, limit=None, score_cutoff=80)
    for m in by_full:
        if zones[m[0]] not in found:
            found.append(zones[m[0]])
    return found[:limit]


def zone_choices(name: str) -> tuple[str, ...]:
    """The zones to offer as buttons for a name that names none: an abbreviation's choices
    (`CST`), else close matches (`Shanghia` -> Asia/Shanghai)."""
    return ambiguous_timezone(name) or tuple(suggest_timezones(name))


# The zones offered first when nobody has said theirs, by the Telegram app's language: a
# guess to tap and confirm, never applied unasked (a Chinese phone may be in Berlin).
_LIKELY_ZONES = {
    "zh-hant": ("Asia/Taipei", "Asia/Hong_Kong", "Asia/Shanghai"),
    "zh-tw": ("Asia/Taipei", "Asia/Hong_Kong", "Asia/Shanghai"),
    "zh-hk": ("Asia/Hong_Kong", "Asia/Taipei", "Asia/Shanghai"),
    "zh": ("Asia/Shanghai", "Asia/Hong_Kong", "Asia/Singapore"),
    "ja": ("Asia/Tokyo", "Asia/Shanghai", "America/Los_Angeles"),
    "ko": ("Asia/Seoul", "Asia/Tokyo", "America/Los_Angeles"),
    "de": ("Europe/Berlin", "Europe/Vienna", "Europe/Zurich"),
    "fr": ("Europe/Paris", "America/Toronto", "Africa/Casablanca"),
    "ru": ("Europe/Moscow", "Asia/Almaty", "Europe/Berlin"),
}
_LIKELY_ELSEWHERE = ("America/New_York", "America/Los_Angeles", "Europe/London", "Asia/Kolkata")


def likely_zones(language_code: str | None) -> tuple[str, ...]:
    """The zones to suggest to someone whose Telegram app speaks `language_code` (`zh-hans`,
    `en-US`): most likely first; English and unknown codes get a spread across the world."""
    code = (language_code or "").casefold().replace("_", "-")
    for prefix in (code[:7], code[:5], code.split("-", 1)[0]):
        if prefix in _LIKELY_ZONES:
            return _LIKELY_ZONES[prefix]
    return _LIKELY_ELSEWHERE


def zone_of(
    default: str, chat: ZonedChat | None = None, user: ZonedUser | str | None = None
) -> str:
    """The one rule for whose clock applies: the chat's zone; for a private chat (or no chat)
    the user's (`user`: the user, or the zone stored for them); else the bot's default."""
    if chat is not None and chat.timezone:
        return chat.timezone
    user_zone = user if user is None or isinstance(user, str) else user.timezone
    if user_zone and (chat is None or chat.kind == "private"):
        return user_zone
    return default
