"""A test reads or edits what the bot stored, outside the bot, on either backend.

One statement in SQLite's dialect, committed at once: through sqlite3 on the file, as the
tests always did, or, with DATABASE_URL set, through asyncpg with the statement translated
as the storage's own are (bot/storage/postgres.py).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from bot.config import Settings
from bot.storage.postgres import translate


async def sql(
    settings: Settings, statement: str, params: Sequence[Any] = ()
) -> list[tuple[Any, ...]]:
    """The statement's rows (none for a write), as tuples."""
    if settings.database_url is None:
        db = sqlite3.connect(settings.database_path)
        try:
            with db:
                return [tuple(r) for r in db.execute(statement, tuple(params)).fetchall()]
        finally:
            db.close()
    import asyncpg

    statements, _ = translate(statement)
    conn = await asyncpg.connect(settings.database_url.get_secret_value())
    try:
        for before in statements[:-1]:
            await conn.execute(before, *params)
        return [tuple(r) for r in await conn.fetch(statements[-1], *params)]
    finally:
        await conn.close()
