"""Time zones as people write them: offsets resolve to the zone they mean, labels read right."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from bot.core.timezones import (
    likely_zones,
    resolve_timezone,
    suggest_timezones,
    zone_choices,
    zone_label,
)

NOON_UTC = datetime(2026, 7, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("written", "local_hour"),
    [
        ("GMT+8", 20), ("UTC+8", 20), ("+8", 20), ("+08:00", 20), ("+0800", 20),
        ("utc +8", 20), ("东八区", 20), ("东8区", 20), ("UTC-5", 7), ("−5", 7), ("西五区", 7),
        ("UTC+14", 2), ("东十二区", 0), ("UTC-12", 0), ("+0", 12), ("GMT", 12),
    ],
)  # fmt: skip
def test_offsets_give_the_local_time_people_expect(written: str, local_hour: int) -> None:
    zone = resolve_timezone(written)
    assert zone is not None, written
    assert NOON_UTC.astimezone(ZoneInfo(zone)).hour == local_hour


@pytest.mark.parametrize(
    ("written", "zone"),
    [("+05:30", "Asia/Kolkata"), ("UTC+5:45", "Asia/Kathmandu"), ("+9:30", "Australia/Darwin")],
)
def test_part_hour_offsets_use_a_zone_that_keeps_them(written: str, zone: str) -> None:
    assert resolve_timezone(written) == zone


@pytest.mark.parametrize("written", ["+15", "UTC+99", "东十三区", "+8:75", "+05:10", "8"])
def test_impossible_offsets_are_refused(written: str) -> None:
    assert resolve_timezone(written) is None


def test_explicit_etc_names_keep_their_posix_meaning_and_are_labelled_plainly() -> None:
    assert resolve_timezone("Etc/GMT+8") == "Etc/GMT+8"
    assert zone_label("Etc/GMT+8") == "UTC-08:00"
    assert zone_label("Etc/GMT-8") == "UTC+08:00"
    assert zone_label("Etc/GMT-14") == "UTC+14:00"
    assert zone_label("Asia/Shanghai") == "Asia/Shanghai"
    assert zone_label("UTC") == "UTC"


def test_offsets_are_never_suggested_backwards() -> None:
    assert not any(s.startswith("Etc/") for s in suggest_timezones("GMT+9x"))


@pytest.mark.parametrize(
    ("written", "zone"),
    [("东十区", "Etc/GMT-10"), ("东十一区", "Etc/GMT-11"), ("西十二区", "Etc/GMT+12"),
     ("UTC-12", "Etc/GMT+12"), ("UTC+14", "Etc/GMT-14")],
)  # fmt: skip
def test_the_ends_of_the_offset_range(written: str, zone: str) -> None:
    assert resolve_timezone(written) == zone


@pytest.mark.parametrize("written", ["UTC-13", "UTC+15", "东十三区", "东十一二区", "东零区"])
def test_offsets_past_the_ends_are_refused(written: str) -> None:
    assert resolve_timezone(written) is None


def test_suggestions_read_spaces_as_underscores_and_the_city_after_the_last_slash() -> None:
    assert suggest_timezones("New Yrok")[0] == "America/New_York"
    assert suggest_timezones("Beulha")[0] == "America/North_Dakota/Beulah"  # three parts
    (one,) = suggest_timezones("Buenos Aries", limit=1)
    assert one.endswith("/Buenos_Aires")
    assert len(suggest_timezones("Santa", limit=2)) == 2


@pytest.mark.parametrize(
    ("written", "zone"),
    [("+0", "UTC"), ("+00:00", "UTC"), ("+1", "Etc/GMT-1"), ("-1", "Etc/GMT+1"),
     ("东一区", "Etc/GMT-1"), ("西一区", "Etc/GMT+1"), ("UTC-0530", None), ("+15:00", None),
     ("+8:60", None), ("+08:61", None)],
)  # fmt: skip
def test_offsets_near_the_edges(written: str, zone: str | None) -> None:
    assert resolve_timezone(written) == zone


@pytest.mark.parametrize(
    ("typed", "suggested"),
    [
        ("Ho Chi Mihn", {"Asia/Ho_Chi_Minh"}),
        ("Buenos Aries", {"America/Buenos_Aires", "America/Argentina/Buenos_Aires"}),
        ("St Johns", {"America/St_Johns"}),
        ("Pari", {"Europe/Paris"}),
        ("Hong Kng", {"Asia/Hong_Kong", "Asia/Chongqing", "Asia/Chungking"}),
        ("Europe/Berln", {"Europe/Berlin", "Europe/Dublin"}),
    ],
)
def test_suggestions_for_common_typos(typed: str, suggested: set[str]) -> None:
    """Pins the matching: city names by plain ratio (cut-off 70), full names by WRatio (80)."""
    found = suggest_timezones(typed)
    assert set(found) == suggested and len(found) == len(suggested)


@pytest.mark.parametrize(
    ("written", "zone"), [("Z", "UTC"), ("utc0", "UTC"), ("GMT", "UTC"), ("utc", "UTC"),
                          ("tokyo", "Asia/Tokyo"), ("Sao Paulo", "America/Sao_Paulo")],
)  # fmt: skip
def test_short_names_and_cities_alone(written: str, zone: str) -> None:
    assert resolve_timezone(written) == zone


@pytest.mark.parametrize(
    ("code", "first"),
    [("zh-hans", "Asia/Shanghai"), ("zh", "Asia/Shanghai"), ("zh-CN", "Asia/Shanghai"),
     ("zh-hant", "Asia/Taipei"), ("zh-HK", "Asia/Hong_Kong"), ("ja", "Asia/Tokyo"),
     ("de-AT", "Europe/Berlin"), ("en", "America/New_York"), ("en-GB", "America/New_York"),
     (None, "America/New_York"), ("", "America/New_York"), ("xx-YY", "America/New_York")],
)  # fmt: skip
def test_zones_suggested_from_the_telegram_language_start_with_the_likeliest(
    code: str | None, first: str
) -> None:
    zones = likely_zones(code)
    assert zones[0] == first
    assert 3 <= len(zones) <= 4 and len(set(zones)) == len(zones)
    assert all(resolve_timezone(zone) == zone for zone in zones)  # each one a tap can set


@pytest.mark.parametrize(
    ("written", "offered"),
    [("Shanghia", ("Asia/Shanghai",)), ("CST", ("Asia/Shanghai", "America/Chicago")),
     ("qqqq", ())],
)  # fmt: skip
def test_a_zone_that_names_none_offers_its_matches_to_tap(
    written: str, offered: tuple[str, ...]
) -> None:
    assert zone_choices(written) == offered


def test_every_zone_the_system_lists_resolves_to_itself_and_its_special_folders_do_not() -> None:
    """DEFAULT_TIMEZONE is read at every start, by its exact name without listing every zone
    (issue 30): the answer is the same as the listing's, for every name the system has."""
    import zoneinfo

    listed = {n for n in zoneinfo.available_timezones() if "/" in n or n == "UTC"}
    assert "Asia/Shanghai" in listed
    for name in listed:
        assert resolve_timezone(name) == name, name
    for name in ("posix/Asia/Shanghai", "right/UTC", "posixrules", "Asia/../Asia/Tokyo"):
        assert resolve_timezone(name) is None, name
