"""IANA time zone names: validation and close-match suggestions."""

from __future__ import annotations

import zoneinfo
from functools import cache

from rapidfuzz import fuzz, process


@cache
def _zones() -> dict[str, str]:
    names = zoneinfo.available_timezones()
    return {n.casefold(): n for n in names if "/" in n or n == "UTC"}


def resolve_timezone(name: str) -> str | None:
    """Return the canonical IANA name for `name` (any case, spaces for underscores) or None."""
    key = name.strip().replace(" ", "_").casefold()
    if not key:
        return None
    if key in ("utc", "gmt", "z"):
        return "UTC"
    return _zones().get(key)


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
