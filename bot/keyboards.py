"""Inline keyboards and their callback data (each at most 64 bytes, checked in tests).

Each kind of data is made here and read back here, by one strict parser per kind: a parser
returns the tap's meaning only for exactly the data this module makes (or made in an older
version), and None for anything else, which the handler answers as an expired button.
Callback data comes from the client, so it can be anything.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, time
from typing import NamedTuple
from urllib.parse import quote

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.core.content import ID_PATTERN
from bot.core.interview import OUTCOMES
from bot.core.levels import LEVEL_ORDER, Level
from bot.core.schedule import Days
from bot.core.timezones import resolve_timezone, zone_label
from bot.i18n import LANGUAGES, Strings

QUESTION_LINK_PREFIX = "q_"  # t.me/<bot>?start=q_<question id> opens that question
PACK_LINK_PREFIX = "pack_"  # t.me/<bot>?start=pack_<pack id> follows it, opens its first
ALL_FIELDS = "*"  # the "all fields" button's field
BUTTON_TITLE = 40  # characters of a pack's title on its button
PACKS_FROM_SETTINGS = "grp"  # a pack tap's last field: the list a group's settings opened


def pack_link(bot_username: str, pack_id: str) -> str:
    return f"https://t.me/{bot_username}?start={PACK_LINK_PREFIX}{pack_id}"


def question_link(bot_username: str, question_id: str) -> str:
    return f"https://t.me/{bot_username}?start={QUESTION_LINK_PREFIX}{question_id}"


def question_keyboard(
    t: Strings, lang: str, question_id: str, bot_username: str | None = None
) -> InlineKeyboardMarkup:
    """Hint, show answer, skip; and, when the bot's username is known, share the question."""
    rows = [
        [
            InlineKeyboardButton(t(lang, "button_hint"), callback_data=f"hint:{question_id}"),
            InlineKeyboardButton(
                t(lang, "button_show_answer"), callback_data=f"show:{question_id}"
            ),
            InlineKeyboardButton(t(lang, "button_skip"), callback_data=f"skip:{question_id}"),
        ]
    ]
    if bot_username:
        link = question_link(bot_username, question_id)
        share = f"https://t.me/share/url?url={quote(link, safe='')}"
        rows.append([InlineKeyboardButton(t(lang, "button_share"), url=share)])
    return InlineKeyboardMarkup(rows)


def still_open_keyboard(
    t: Strings, lang: str, question_id: str, level: Level | None
) -> InlineKeyboardMarkup:
    """Under an open question shown again (/quiz while it is open): keep answering it, or
    skip it for a new one (at `level`, the one /quiz asked for, if any)."""
    wanted = LEVEL_CODES[level] if level is not None else "-"
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    t(lang, "button_keep_answering"), callback_data=f"keep:{question_id}"
                )
            ],
            [
                InlineKeyboardButton(
                    t(lang, "button_skip_new"), callback_data=f"renew:{question_id}:{wanted}"
                )
            ],
        ]
    )


def shared_still_open_keyboard(
    t: Strings, lang: str, open_id: str, shared_id: str
) -> InlineKeyboardMarkup:
    """Under an open question shown again (a shared link to another one was followed):
    keep answering it, or switch to the shared question."""
    switch = f"switch:{shared_id}:{question_tag(open_id)}"
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    t(lang, "button_keep_answering"), callback_data=f"keep:{open_id}"
                )
            ],
            [InlineKeyboardButton(t(lang, "button_switch_shared"), callback_data=switch)],
        ]
    )


def question_tag(question_id: str) -> str:
    """A short stand-in for a question id, where two ids would not fit in 64 bytes: enough
    to tell whether the question open now is the one the button was shown under."""
    return f"{zlib.crc32(question_id.encode()):08x}"


def chat_link_keyboard(t: Strings, lang: str, bot_username: str) -> InlineKeyboardMarkup:
    """One button that opens the private chat with the bot."""
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(t(lang, "button_open_private"), url=f"https://t.me/{bot_username}")]]
    )


MOCK_LINK = "mock"  # t.me/<bot>?start=mock starts a mock interview in the private chat


def mock_link_keyboard(t: Strings, lang: str, bot_username: str) -> InlineKeyboardMarkup:
    """One button that opens the private chat with a mock interview started."""
    url = f"https://t.me/{bot_username}?start={MOCK_LINK}"
    return InlineKeyboardMarkup([[InlineKeyboardButton(t(lang, "button_open_mock"), url=url)]])


def next_keyboard(t: Strings, lang: str, level: Level) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(t(lang, "button_next"), callback_data=f"next:{level.value}")]]
    )


def rate_buttons(
    t: Strings, lang: str, answer_id: int, chosen: str | None = None
) -> list[InlineKeyboardButton]:
    """The three ratings of an answer; the one `chosen` (tapped) marked ✓."""
    buttons = []
    for choice in RATE_CHOICES:
        label = t(lang, f"button_rate_{choice}")
        if choice == chosen:
            label = t(lang, "button_rate_chosen", label=rating_word(t, lang, choice))
        buttons.append(InlineKeyboardButton(label, callback_data=f"rate:{answer_id}:{choice}"))
    return buttons


def rating_word(t: Strings, lang: str, choice: str) -> str:
    """A rating's button label without its mark: "Partly" of "🤏 Partly", to say what was chosen."""
    return t(lang, f"button_rate_{choice}").split(" ", 1)[-1]


def with_rating_chosen(
    t: Strings, lang: str, markup: InlineKeyboardMarkup, tap: RateTap
) -> InlineKeyboardMarkup:
    """`markup` (a feedback keyboard as shown) with its rating row marking `tap`'s choice."""
    rows = [
        rate_buttons(t, lang, tap.answer_id, tap.choice)
        if any(str(b.callback_data or "").startswith("rate:") for b in row)
        else list(row)
        for row in markup.inline_keyboard
    ]
    return InlineKeyboardMarkup(rows)


def feedback_keyboard(
    t: Strings, lang: str, level: Level, answer_id: int, level_up: Level | None
) -> InlineKeyboardMarkup:
    """Overrule the automatic rating with one tap; next question; maybe move up a level."""
    rate = rate_buttons(t, lang, answer_id)
    rows = [
        rate,
        [InlineKeyboardButton(t(lang, "button_next"), callback_data=f"next:{level.value}")],
    ]
    if level_up is not None:
        name = t(lang, f"level_{level_up.value}")
        rows.append(
            [
                InlineKeyboardButton(
                    t(lang, "button_level_up", level=name), callback_data=f"level:{level_up.value}"
                )
            ]
        )
    return InlineKeyboardMarkup(rows)


def level_keyboard(t: Strings, lang: str, current: Level | None) -> InlineKeyboardMarkup:
    row = [
        InlineKeyboardButton(
            ("✅ " if level is current else "") + t(lang, f"level_{level.value}"),
            callback_data=f"level:{level.value}",
        )
        for level in LEVEL_ORDER
    ]
    return InlineKeyboardMarkup([row])


def start_keyboard(
    t: Strings, lang: str, current: Level | None, daily_time: str, bot_username: str | None = None
) -> InlineKeyboardMarkup:
    levels = level_keyboard(t, lang, current).inline_keyboard[0]
    # The time travels with the button, so a tap sets exactly the time its label shows.
    daily = InlineKeyboardButton(
        t(lang, "button_daily_on", time=daily_time), callback_data=f"daily:on:{daily_time}"
    )
    rows = [list(levels), [daily]]
    if bot_username:  # Telegram's add-to-group picker, then the bot introduces itself there
        add = f"https://t.me/{bot_username}?startgroup=start"
        rows.append([InlineKeyboardButton(t(lang, "button_add_to_group"), url=add)])
    return InlineKeyboardMarkup(rows)


def field_rows(
    t: Strings, lang: str, fields: list[tuple[str, str]]
) -> list[list[InlineKeyboardButton]]:
    """The welcome's field buttons, two a row, then "All fields"; `fields`: (id, name)."""
    buttons = [InlineKeyboardButton(name, callback_data=f"field:{fid}") for fid, name in fields]
    rows = [buttons[i : i + 2] for i in range(0, len(buttons), 2)]
    all_ = InlineKeyboardButton(t(lang, "button_field_all"), callback_data=f"field:{ALL_FIELDS}")
    return [*rows, [all_]]


def with_rows_first(
    rows: list[list[InlineKeyboardButton]], markup: InlineKeyboardMarkup
) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([*rows, *(list(row) for row in markup.inline_keyboard)])


def packs_keyboard(
    t: Strings, lang: str, packs: list[tuple[str, str, bool]], *, in_settings: bool = False
) -> InlineKeyboardMarkup:
    """/packs: one button a pack, (id, title, followed): a tap follows or unfollows it.
    `in_settings`: the list a group's settings screen opened, its taps marked to keep the
    "← Back" to that screen (`pack:f:<pack>:grp`, at most 59 bytes)."""
    rows = []
    mark = f":{PACKS_FROM_SETTINGS}" if in_settings else ""
    for pid, title, followed in packs:
        short = title if len(title) <= BUTTON_TITLE else title[: BUTTON_TITLE - 1] + "…"
        key, action = ("button_pack_unfollow", "u") if followed else ("button_pack_follow", "f")
        data = f"pack:{action}:{pid}{mark}"
        rows.append([InlineKeyboardButton(t(lang, key, title=short), callback_data=data)])
    if in_settings:
        rows.append([InlineKeyboardButton(t(lang, "button_zone_back"), callback_data="grp:show")])
    return InlineKeyboardMarkup(rows)


def forget_keyboard(t: Strings, lang: str, token: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    t(lang, "button_forget_yes"), callback_data=f"forget:yes:{token}"
                ),
                InlineKeyboardButton(t(lang, "button_cancel"), callback_data=f"forget:no:{token}"),
            ]
        ]
    )


def settings_keyboard(
    t: Strings,
    lang: str,
    *,
    level: Level,
    daily_on: bool,
    daily_time: str,
    reminders: bool,
    zone: str,
) -> InlineKeyboardMarkup:
    """The /settings screen: each button changes one setting and the screen is redrawn."""
    levels = [
        InlineKeyboardButton(
            ("✅ " if each is level else "") + t(lang, f"level_{each.value}"),
            callback_data=f"set:level:{each.value}",
        )
        for each in LEVEL_ORDER
    ]
    languages = [
        InlineKeyboardButton(
            ("✅ " if code == lang else "") + name, callback_data=f"set:lang:{code}"
        )
        for code, name in LANGUAGE_NAMES
    ]
    daily_key = "button_settings_daily_on" if daily_on else "button_settings_daily_off"
    reminders_key = "button_settings_reminders_on" if reminders else "button_settings_reminders_off"
    return InlineKeyboardMarkup(
        [
            levels,
            languages,
            [
                InlineKeyboardButton(
                    t(lang, "button_settings_zone", zone=zone), callback_data="set:tz"
                )
            ],
            [
                InlineKeyboardButton(
                    t(lang, daily_key, time=daily_time),
                    callback_data=f"set:daily:{'off' if daily_on else 'on'}",
                )
            ],
            [
                InlineKeyboardButton(
                    t(lang, reminders_key), callback_data=f"set:rem:{'off' if reminders else 'on'}"
                )
            ],
        ]
    )


# Where a tapped zone leads: `set` (a suggestion for a mistyped zone: set it, say so),
# `start` (/start's question: then offer the daily time), `scr` (the /settings screen,
# redrawn), `grp` (a group's settings screen, redrawn; admins only).
ZONE_PURPOSES = ("set", "start", "scr", "grp")
ZONE_TYPED = "?"  # the "type a city" button in place of a zone
LANGUAGE_NAMES = (("en", "English"), ("zh", "中文"))  # each named in itself
GROUP_ROUND_MINUTES = (5, 10, 15, 30)
GROUP_DAILY_TIMES = ("08:00", "09:00", "12:00", "20:00")  # offered; /daily sets any other


def zone_keyboard(
    t: Strings,
    lang: str,
    zones: tuple[str, ...],
    purpose: str,
    *,
    typing: bool = False,
    back: str | None = None,
) -> InlineKeyboardMarkup | None:
    """A button per zone (`tz:<purpose>:<zone>`), then "type a city" and "back" if asked for;
    None when there is nothing to tap."""
    rows = [
        [InlineKeyboardButton(zone_label(zone), callback_data=f"tz:{purpose}:{zone}")]
        for zone in zones
    ]
    if typing:
        rows.append(
            [
                InlineKeyboardButton(
                    t(lang, "button_zone_type"), callback_data=f"tz:{purpose}:{ZONE_TYPED}"
                )
            ]
        )
    if back is not None:
        rows.append([InlineKeyboardButton(t(lang, "button_zone_back"), callback_data=back)])
    return InlineKeyboardMarkup(rows) if rows else None


_DAYS_CODES = {Days.EVERY_DAY: "d", Days.WEEKDAYS: "w", None: "-"}


def daily_zone_keyboard(
    zones: tuple[str, ...], at: time, days: Days | None
) -> InlineKeyboardMarkup | None:
    """`/daily 08:30 Shanghia`: a button per zone it may mean, each setting the daily
    question at that time in that zone (`tzd:<HHMM>:<d|w|->:<zone>`)."""
    if not zones:
        return None
    code = _DAYS_CODES[days]
    return InlineKeyboardMarkup(
        [
            [InlineKeyboardButton(zone_label(zone), callback_data=f"tzd:{at:%H%M}:{code}:{zone}")]
            for zone in zones
        ]
    )


def start_zone_keyboard(
    t: Strings,
    lang: str,
    current: Level | None,
    zones: tuple[str, ...],
    bot_username: str | None = None,
) -> InlineKeyboardMarkup:
    """/start for someone who never said their zone: levels, the zone question's buttons,
    and the add-to-group link; the daily button comes once the zone is known."""
    levels = level_keyboard(t, lang, current).inline_keyboard[0]
    picker = zone_keyboard(t, lang, zones, "start", typing=True)
    assert picker is not None  # "type a city" at least
    rows = [list(levels), *(list(row) for row in picker.inline_keyboard)]
    if bot_username:
        add = f"https://t.me/{bot_username}?startgroup=start"
        rows.append([InlineKeyboardButton(t(lang, "button_add_to_group"), url=add)])
    return InlineKeyboardMarkup(rows)


def language_keyboard(current: str, prefix: str = "lang") -> InlineKeyboardMarkup:
    """One button per interface language (`<prefix>:<code>`), the current one ticked."""
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    ("✅ " if code == current else "") + name, callback_data=f"{prefix}:{code}"
                )
                for code, name in LANGUAGE_NAMES
            ]
        ]
    )


def group_settings_keyboard(
    t: Strings, lang: str, *, daily_on: bool, daily_time: str, minutes: int, zone: str
) -> InlineKeyboardMarkup:
    """A group's settings screen (admins): language, zone, daily round (on/off, its time),
    round length, and its packs (the /packs list, on the same message)."""
    times = [
        InlineKeyboardButton(
            ("✅ " if each == daily_time and daily_on else "") + each,
            callback_data=f"grp:at:{each.replace(':', '')}",
        )
        for each in GROUP_DAILY_TIMES
    ]
    daily_key = "button_group_daily_on" if daily_on else "button_group_daily_off"
    lengths = [
        InlineKeyboardButton(
            ("✅ " if each == minutes else "") + t(lang, "button_round_minutes", minutes=each),
            callback_data=f"grp:len:{each}",
        )
        for each in GROUP_ROUND_MINUTES
    ]
    return InlineKeyboardMarkup(
        [
            list(language_keyboard(lang, "grp:lang").inline_keyboard[0]),
            [
                InlineKeyboardButton(
                    t(lang, "button_settings_zone", zone=zone), callback_data="grp:tz"
                )
            ],
            [
                InlineKeyboardButton(
                    t(lang, daily_key, time=daily_time),
                    callback_data=f"grp:daily:{'off' if daily_on else 'on'}",
                )
            ],
            times,
            lengths,
            [InlineKeyboardButton(t(lang, "button_group_packs"), callback_data="grp:packs")],
        ]
    )


# -- reading callback data back ------------------------------------------------------------

PRACTICE_ACTIONS = ("hint", "show", "skip")
RATE_CHOICES = ("good", "hard", "again")
# A level in one letter: callback data holds a question id of up to 48 characters besides.
LEVEL_CODES = {Level.BEGINNER: "b", Level.INTERMEDIATE: "i", Level.ADVANCED: "a"}
_ANSWER_ID = re.compile(r"[1-9][0-9]{0,17}")  # a row id, as str(int) writes it
_FORGET_TOKEN = re.compile(r"[0-9a-f]{12}")  # secrets.token_hex(6)
_CLOCK = re.compile(r"([01][0-9]|2[0-3]):([0-5][0-9])")  # render.clock_time: 08:30


class PracticeTap(NamedTuple):
    """hint:, show:, skip: and the question the buttons were under."""

    action: str
    question_id: str


class StillOpenTap(NamedTuple):
    """keep:<question> (keep answering it) or renew:<question>:<level code or -> (skip it
    for a new question)."""

    renew: bool
    question_id: str
    level: Level | None


class SwitchTap(NamedTuple):
    """switch:<shared question>:<tag of the question open when the button was made>."""

    question_id: str
    open_tag: str


class RateTap(NamedTuple):
    answer_id: int
    choice: str


class ForgetTap(NamedTuple):
    confirmed: bool
    token: str  # "" for a button from before tokens


class SettingsTap(NamedTuple):
    """set:tz, set:level:<level>, set:lang:<code>, set:rem:on|off, set:daily:on|off."""

    what: str
    value: str


class ZoneTap(NamedTuple):
    """tz:<purpose>:<zone> (a zone tapped) or tz:<purpose>:? (type a city instead)."""

    purpose: str
    zone: str | None  # None: the person will type it


class DailyZoneTap(NamedTuple):
    at: time
    days: Days | None  # None: the days the chat had
    zone: str


class PackTap(NamedTuple):
    """pack:f:<pack> (follow it) or pack:u:<pack> (unfollow it); `:grp` after it: on the
    list a group's settings screen opened."""

    follow: bool
    pack_id: str
    in_settings: bool = False


class DailyTap(NamedTuple):
    at: time | None  # None: the older `daily:on`, the chat's stored time


def _fields(data: str | None, prefix: str, count: int) -> list[str] | None:
    """The `count` fields after `prefix:`, or None if the data has another shape."""
    parts = (data or "").split(":")
    if parts[0] != prefix or len(parts) != count + 1:
        return None
    return parts[1:]


def _level(value: str) -> Level | None:
    return next((level for level in LEVEL_ORDER if level.value == value), None)


def parse_practice(data: str | None) -> PracticeTap | None:
    for action in PRACTICE_ACTIONS:
        fields = _fields(data, action, 1)
        if fields is not None and re.fullmatch(ID_PATTERN, fields[0]):
            return PracticeTap(action, fields[0])
    return None


def parse_still_open(data: str | None) -> StillOpenTap | None:
    keep = _fields(data, "keep", 1)
    if keep is not None and re.fullmatch(ID_PATTERN, keep[0]):
        return StillOpenTap(False, keep[0], None)
    renew = _fields(data, "renew", 2)
    if renew is None or not re.fullmatch(ID_PATTERN, renew[0]):
        return None
    levels = {code: level for level, code in LEVEL_CODES.items()}
    if renew[1] != "-" and renew[1] not in levels:
        return None
    return StillOpenTap(True, renew[0], levels.get(renew[1]))


def parse_switch(data: str | None) -> SwitchTap | None:
    fields = _fields(data, "switch", 2)
    if fields is None or not re.fullmatch(ID_PATTERN, fields[0]):
        return None
    if not re.fullmatch(r"[0-9a-f]{8}", fields[1]):
        return None
    return SwitchTap(fields[0], fields[1])


def parse_next(data: str | None) -> Level | None:
    fields = _fields(data, "next", 1)
    return None if fields is None else _level(fields[0])


def parse_rate(data: str | None) -> RateTap | None:
    fields = _fields(data, "rate", 2)
    if fields is None or not _ANSWER_ID.fullmatch(fields[0]) or fields[1] not in RATE_CHOICES:
        return None
    return RateTap(int(fields[0]), fields[1])


def parse_level_tap(data: str | None) -> Level | None:
    fields = _fields(data, "level", 1)
    return None if fields is None else _level(fields[0])


def parse_forget(data: str | None) -> ForgetTap | None:
    fields = _fields(data, "forget", 2) or _fields(data, "forget", 1)
    if fields is None or fields[0] not in ("yes", "no"):
        return None
    token = fields[1] if len(fields) == 2 else ""
    if len(fields) == 2 and not _FORGET_TOKEN.fullmatch(token):
        return None
    return ForgetTap(fields[0] == "yes", token)


def parse_settings(data: str | None) -> SettingsTap | None:
    if data in ("set:tz", "set:show"):
        return SettingsTap(data.removeprefix("set:"), "")
    fields = _fields(data, "set", 2)
    if fields is None:
        return None
    what, value = fields
    allowed = {
        "level": {level.value for level in LEVEL_ORDER},
        "lang": set(LANGUAGES),
        "rem": {"on", "off"},
        "daily": {"on", "off"},
    }
    return SettingsTap(what, value) if value in allowed.get(what, ()) else None


def parse_group_settings(data: str | None) -> SettingsTap | None:
    """grp:tz, grp:show, grp:packs, grp:lang:<code>, grp:daily:on|off, grp:at:<HHMM
    offered>, grp:len:<minutes offered>."""
    if data in ("grp:tz", "grp:show", "grp:packs"):
        return SettingsTap(data.removeprefix("grp:"), "")
    fields = _fields(data, "grp", 2)
    if fields is None:
        return None
    what, value = fields
    allowed = {
        "lang": set(LANGUAGES),
        "daily": {"on", "off"},
        "at": {each.replace(":", "") for each in GROUP_DAILY_TIMES},
        "len": {str(each) for each in GROUP_ROUND_MINUTES},
    }
    return SettingsTap(what, value) if value in allowed.get(what, ()) else None


def parse_zone_tap(data: str | None) -> ZoneTap | None:
    """A zone button's tap; only a zone as the bot writes it (canonical IANA) counts."""
    fields = _fields(data, "tz", 2)
    if fields is None or fields[0] not in ZONE_PURPOSES:
        return None
    purpose, zone = fields
    if zone == ZONE_TYPED:
        return ZoneTap(purpose, None)
    return ZoneTap(purpose, zone) if resolve_timezone(zone) == zone else None


def parse_daily_zone_tap(data: str | None) -> DailyZoneTap | None:
    fields = _fields(data, "tzd", 3)
    if fields is None:
        return None
    clock, code, zone = fields
    match = _CLOCK.fullmatch(f"{clock[:2]}:{clock[2:]}") if len(clock) == 4 else None
    days = {c: d for d, c in _DAYS_CODES.items()}
    if match is None or code not in days or resolve_timezone(zone) != zone:
        return None
    return DailyZoneTap(time(int(match[1]), int(match[2])), days[code], zone)


def parse_language_tap(data: str | None) -> str | None:
    fields = _fields(data, "lang", 1)
    return fields[0] if fields is not None and fields[0] in LANGUAGES else None


def parse_daily_tap(data: str | None) -> DailyTap | None:
    if data == "daily:on":
        return DailyTap(None)
    fields = _fields(data, "daily", 3)
    if fields is None or fields[0] != "on":
        return None
    match = _CLOCK.fullmatch(f"{fields[1]}:{fields[2]}")
    if match is None:
        return None
    return DailyTap(time(int(match[1]), int(match[2])))


def parse_pack_tap(data: str | None) -> PackTap | None:
    fields = _fields(data, "pack", 2) or _fields(data, "pack", 3)
    if fields is None or fields[0] not in ("f", "u") or not re.fullmatch(ID_PATTERN, fields[1]):
        return None
    if len(fields) == 3 and fields[2] != PACKS_FROM_SETTINGS:
        return None
    return PackTap(fields[0] == "f", fields[1], len(fields) == 3)


def parse_field_tap(data: str | None) -> str | None:
    """The field a welcome's button names (`ALL_FIELDS` for all), or None."""
    fields = _fields(data, "field", 1)
    if fields is None:
        return None
    if fields[0] == ALL_FIELDS or re.fullmatch(ID_PATTERN, fields[0]):
        return fields[0]
    return None


MOCK_REFERENCE = "mkref"  # mkref:<session id>:<question number>: that reference answer
MOCK_BUTTONS_PER_ROW = 5


def mock_report_keyboard(
    t: Strings, lang: str, session_id: int, numbers: Sequence[int]
) -> InlineKeyboardMarkup | None:
    """Under a mock interview's report: a button per question, showing its reference answer."""
    buttons = [
        InlineKeyboardButton(
            t(lang, "button_mock_reference", n=n),
            callback_data=f"{MOCK_REFERENCE}:{session_id}:{n}",
        )
        for n in numbers
    ]
    if not buttons:
        return None
    rows = [
        buttons[i : i + MOCK_BUTTONS_PER_ROW] for i in range(0, len(buttons), MOCK_BUTTONS_PER_ROW)
    ]
    return InlineKeyboardMarkup(rows)


class MockReferenceTap(NamedTuple):
    session_id: int
    number: int  # 1-based, as the button shows it


def parse_mock_reference(data: str | None) -> MockReferenceTap | None:
    fields = _fields(data, MOCK_REFERENCE, 2)
    if fields is None or not _ANSWER_ID.fullmatch(fields[0]) or not fields[1].isdigit():
        return None
    number = int(fields[1])
    return MockReferenceTap(int(fields[0]), number) if 1 <= number <= 99 else None


# -- after the interview date: how did it go? ------------------------------------------------


@dataclass(frozen=True, slots=True)
class WentTap:
    """A tap under "how did it go?": the interview's date and the answer."""

    day: date
    outcome: str


PLAN_START = "plan:start"


def plan_start_keyboard(t: Strings, lang: str) -> InlineKeyboardMarkup:
    """Under /interview's reply: today's plan now, not only from the next daily question."""
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(t(lang, "button_plan_start"), callback_data=PLAN_START)]]
    )


def how_it_went_keyboard(t: Strings, lang: str, day: date) -> InlineKeyboardMarkup:
    """One tap: how the interview of `day` went (the date keeps an old tap off a new plan)."""
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    t(lang, f"button_went_{outcome}"),
                    callback_data=f"went:{day.isoformat()}:{outcome}",
                )
                for outcome in OUTCOMES
            ]
        ]
    )


def parse_went(data: str | None) -> WentTap | None:
    fields = _fields(data, "went", 2)
    if fields is None or fields[1] not in OUTCOMES:
        return None
    try:
        return WentTap(date.fromisoformat(fields[0]), fields[1])
    except ValueError:
        return None
