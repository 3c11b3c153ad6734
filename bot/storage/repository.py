"""The database object: every SQL statement of the bot, one module per aggregate.

`Storage` is the one object the rest of the bot holds; it is composed of the aggregates'
stores, which share its connection and write lock (see `database.py`): users, chats, the
daily question, group rounds, practice (answers, reviews), mock interviews (`mock.py`), the
packs a chat follows, the interview date and its plan (`interview.py`), the evening
reminder (`reminders.py`), the outbox and lease (`outbox.py`), incoming updates and
retention. `Storage.at` opens the one named by a path (SQLite) or DATABASE_URL (PostgreSQL,
`postgres.py`): the same stores, the same methods, on either.
"""

from __future__ import annotations

from pathlib import Path

from bot.core.reminders import ReminderRule
from bot.storage.chats import ChatsStore
from bot.storage.daily import DailyStore
from bot.storage.database import migrations, schema_version
from bot.storage.interview import InterviewStore
from bot.storage.mock import MockStore
from bot.storage.outbox import OutboxStore
from bot.storage.packs import PacksStore
from bot.storage.postgres import PostgresDatabase, is_postgres
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
    """Async access to the bot's database (one object, one aggregate per module)."""

    @staticmethod
    def at(
        target: Path | str, reminders: ReminderRule | None = None, files: Path | None = None
    ) -> Storage:
        """The storage of `target`: a SQLite file (or ":memory:"), or a PostgreSQL URL
        (`files`: the folder of the process's own files, see `PostgresDatabase`)."""
        if is_postgres(target):
            return PostgresStorage(str(target), reminders, files)
        return Storage(target, reminders)


class PostgresStorage(PostgresDatabase, Storage):
    """`Storage` on PostgreSQL: the stores' SQL through `PostgresDatabase`'s connections."""
