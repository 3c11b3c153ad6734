"""IANA time zone names: validation and close-match suggestions."""

from __future__ import annotations

import zoneinfo
from functools import cache

from rapidfuzz import fuzz, process


@cache
def _zones() -> dict[str, str]:
    names = zoneinfo.available_timezones()
    return {n.casefold(): n for n in names if "/" in n or n == "UTC"}


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


def resolve_timezone(name: str) -> str | None:
    """Return the canonical IANA name for `name` (any case, spaces for underscores) or None.

    Besides IANA names (`asia/shanghai`, `Europe/Berlin`) this accepts a zone's city alone
    (`Tokyo`, `berlin`) and common names (`北京`, `上海`, `Beijing`).
    """
    key = name.strip().replace(" ", "_").casefold()
    if not key:
        return None
    if key in ("utc", "gmt", "z"):
        return "UTC"
    if key in _COMMON_NAMES:
        return _COMMON_NAMES[key]
    zones = _zones()
    if key in zones:
        return zones[key]
    cities = _cities()
    return cities.get(key)


@cache
def _cities() -> dict[str, str]:
    """City part -> zone, for cities that name exactly one zone (tokyo -> Asia/Tokyo)."""
    found: dict[str, list[str]] = {}
    for key, zone in _zones().items():
        found.setdefault(key.rsplit("/", 1)[-1], []).append(zone)
    return {city: zones[0] for city, zones in found.items() if len(zones) == 1}


def suggest_timezones(name: str, limit: int = 3) -> list[str]:
    """Close matches for a mistyped zone, by city name first (`shanghai` -> Asia/Shanghai)."""
    key = name.strip().replace(" ", "_").casefold()
    if not key:
        return []
    zones = _zones()
    cities = {k.rsplit("/", 1)[-1]: v for k, v in zones.items()}
    by_city = process.extract(key, list(cities), scorer=fuzz.ratio, limit=limit, score_cutoff=70)
    found = [cities[m[0]] for m in by_city]
    by_full = process.extract(key, list(zones), scorer=fuzz.WRatio, limit=limit, score_cutoff=80)
    for m in by_full:
        if zones[m[0]] not in found:
            found.append(zones[m[0]])
    return found[:limit]
