"""Persistence: the one place that speaks SQL (`Storage`: one module per aggregate)."""

from bot.storage.files import DatabaseFileError, backup_database, is_busy
from bot.storage.repository import Storage, schema_version
from bot.storage.space import is_full

__all__ = [
    "DatabaseFileError",
    "Storage",
    "backup_database",
    "is_busy",
    "is_full",
    "schema_version",
]
