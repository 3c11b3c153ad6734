"""The database object: every SQL statement of the bot, one module per aggregate.

`Storage` is the one object the rest of the bot holds; it is composed of the aggregates'
stores, which share its connection and write lock (see `database.py`): users, chats, the
daily question, group rounds, practice (answers, reviews), mock interviews (`mock.py`), the
packs a chat follows, the interview date and its plan (`interview.py`), the evening
reminder (`reminders.py`), the outbox and lease (`outbox.py`), incoming updates and
retention.
"""

from __future__ import annotations

from bot.storage.chats import ChatsStore
from bot.storage.daily import DailyStore
from bot.storage.database import migrations, schema_version
from bot.storage.interview import InterviewStore
from bot.storage.mock import MockStore
from bot.storage.outbox import OutboxStore
from bot.storage.packs import PacksStore
from bot.storage.practice import PracticeStore, RecordedAnswer, ReviewUpdate
from bot.storage.reminders import ReminderStore
from bot.storage.retention import RetentionStore
from bot.storage.rounds import RoundsStore
from bot.storage.updates import UpdatesStore
from bot.storage.users import UsersStore

__all__ = ["RecordedAnswer", "ReviewUpdate", "Storage", "migrations", "schema_version"]


class Storage(
    UpdatesStore,
    ChatsStore,
    DailyStore,
    RoundsStore,  # rounds and practice move streaks: they build on the users' store
    PracticeStore,
    MockStore,
    PacksStore,
    InterviewStore,
    UsersStore,
    RetentionStore,
    OutboxStore,
    ReminderStore,
):
    """Async access to the bot's SQLite database (one object, one aggregate per module)."""
