"""The use cases: practice (ask, answer, hint, review), rounds (open, answer, close, rank) and
schedules (the daily question). Handlers, the terminal and background jobs all call these;
none of them imports telegram handlers, and SQL stays in `bot.storage`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from bot.config import Settings
from bot.core.content import Library
from bot.i18n import Strings
from bot.services.practice import Practice
from bot.storage import Storage


@dataclass
class Services:
    settings: Settings
    storage: Storage
    library: Library
    strings: Strings
    practice: Practice
    # Tells the outbox sender that rows were recorded (set by the application).
    notify_outbox: Callable[[], None] = field(default=lambda: None)
