"""The use cases: practice (ask, answer, hint, review), rounds (open, answer, close, rank, group
settings, the leaderboard), schedules (the daily question, the time zone), preferences (a
user's level, language, reminders, forgetting them), packs (the packs a chat follows), mock
(mock interviews), chats (registering senders and chats, an unreachable chat, a migrated
group) and voice (a recording sent as an answer, transcribed). Handlers, the terminal and
background jobs all call these; none of them imports telegram handlers, and SQL stays in
`bot.storage`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from bot.config import Settings
from bot.core.content import Library
from bot.i18n import Strings
from bot.services.chats import Chats
from bot.services.mock import Mock
from bot.services.packs import Packs
from bot.services.practice import Practice
from bot.services.voice import Voice
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
    chats: Chats = field(init=False)
    packs: Packs = field(init=False)
    voice: Voice = field(init=False)
    mock: Mock = field(init=False)

    def __post_init__(self) -> None:
        self.chats = Chats(self.storage)
        self.voice = Voice(self.settings)
        self.packs = Packs(self.storage, self.library, self.practice.clock)
        self.mock = Mock(self.practice)
