"""The bot's commands per audience: what each menu offers, and which work only in groups.

Data only: bot/handlers/menus.py registers these menus with Telegram; the private chat's
fallback tells a group-only command from an unknown one by them.
"""

from __future__ import annotations

# (command, string key of its description) in menu order, per audience.
PRIVATE_MENU: tuple[tuple[str, str], ...] = (
    ("quiz", "cmd_quiz"),
    ("mock", "cmd_mock"),
    ("packs", "cmd_packs"),
    ("hint", "cmd_hint"),
    ("skip", "cmd_skip"),
    ("reveal", "cmd_reveal"),
    ("stats", "cmd_stats"),
    ("settings", "cmd_settings"),
    ("level", "cmd_level"),
    ("daily", "cmd_daily"),
    ("interview", "cmd_interview"),
    ("reminders", "cmd_reminders"),
    ("timezone", "cmd_timezone"),
    ("lang", "cmd_lang"),
    ("export", "cmd_export"),
    ("forget", "cmd_forget"),
    ("help", "cmd_help"),
    ("start", "cmd_start"),
)
GROUP_MENU: tuple[tuple[str, str], ...] = (
    ("quiz", "cmd_group_quiz"),
    ("reveal", "cmd_group_reveal"),
    ("top", "cmd_top"),
    ("packs", "cmd_group_packs"),
    ("help", "cmd_help"),
)
GROUP_ADMIN_MENU: tuple[tuple[str, str], ...] = (
    *GROUP_MENU[:-1],
    ("settings", "cmd_group_settings"),
    ("daily", "cmd_group_daily"),
    ("level", "cmd_group_level"),
    ("roundlength", "cmd_roundlength"),
    ("timezone", "cmd_group_timezone"),
    ("lang", "cmd_group_lang"),
    ("help", "cmd_help"),
)

# Commands a group offers and a private chat does not (a round to time or to rank).
GROUP_ONLY: frozenset[str] = frozenset(c for c, _ in GROUP_ADMIN_MENU) - frozenset(
    c for c, _ in PRIVATE_MENU
)
