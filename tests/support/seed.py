"""Databases for tests and benchmarks that run the real `interview-bot run`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.storage import Storage


async def seed_due_subscribers(
    database: Path | str,
    chats: int,
    due_in: timedelta = timedelta(minutes=-1),
    language: str = "zh",
) -> list[int]:
    """`chats` subscribers whose prompt falls due `due_in` from now (by default it fell due a
    minute ago; real time: the bot's clock). They read Chinese by default, the language of the
    shipped packs: an English reader, with no pack in English, is offered the packs once
    instead of a question. `database`: a SQLite file, or a PostgreSQL URL."""
    storage = Storage.at(database)
    await storage.open()
    now = datetime.now(UTC)
    due = now + due_in
    ids = list(range(50_001, 50_001 + chats))
    try:
        async with storage.transaction() as db:
            await db.executemany(
                "INSERT INTO users (user_id, first_name, language, timezone, created_at, started)"
                " VALUES (?, 'u', ?, 'UTC', ?, 1)",
                [(i, language, now.isoformat()) for i in ids],
            )
            await db.executemany(
                "INSERT INTO chats (chat_id, kind, created_at, daily_enabled, daily_time,"
                " next_due_at, next_due_day) VALUES (?, 'private', ?, 1, ?, ?, ?)",
                [
                    (i, now.isoformat(), due.strftime("%H:%M"), due.isoformat(),
                     due.date().isoformat())
                    for i in ids
                ],
            )  # fmt: skip
    finally:
        await storage.close()
    return ids


async def seed_open_questions(database: Path | str, users: int, question_id: str) -> list[int]:
    """`users` people in private chats, each with `question_id` open (asked a minute ago)."""
    storage = Storage.at(database)
    await storage.open()
    now = datetime.now(UTC)
    asked = (now - timedelta(minutes=1)).isoformat()
    ids = list(range(60_001, 60_001 + users))
    try:
        async with storage.transaction() as db:
            await db.executemany(
                "INSERT INTO users (user_id, first_name, language, timezone, created_at, started)"
                " VALUES (?, 'u', 'en', 'UTC', ?, 1)",
                [(i, now.isoformat()) for i in ids],
            )
            await db.executemany(
                "INSERT INTO chats (chat_id, kind, created_at) VALUES (?, 'private', ?)",
                [(i, now.isoformat()) for i in ids],
            )
            await db.executemany(
                "INSERT INTO open_questions (chat_id, user_id, question_id, asked_at)"
                " VALUES (?, ?, ?, ?)",
                [(i, i, question_id, asked) for i in ids],
            )
    finally:
        await storage.close()
    return ids
