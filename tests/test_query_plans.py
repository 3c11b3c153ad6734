"""No query on a path a user triggers scans a table: every lookup by user or chat has an index.

The real bot runs a session of private and group commands against the fake Bot API while
SQLite's trace callback records every statement the storage executes; each is then run
through EXPLAIN QUERY PLAN on the same (migrated) database. A full scan (`SCAN <table>`)
fails the test. Deletes cascading through foreign keys do not show in a plan, so every
foreign key is checked to lead an index.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from bot.storage import Storage
from tests.conftest import BotHarness, FakeClock
from tests.support.fake_bot_api import FakeBotAPI, FakeUser
from tests.support.wait import until

ADA = FakeUser(9101, "Ada")
BEN = FakeUser(9102, "Ben")
ADMIN = FakeUser(9109, "Root")
GROUP = -100900
SUPERGROUP = -1009009009
STRONG = "preferred_batch_size 期望的批大小, max_queue_delay_microseconds, max_batch_size"

# Tables small by construction that a plan may scan (none so far).
SCAN_ALLOWED: set[str] = set()
_SKIP = re.compile(r"^\s*(BEGIN|COMMIT|ROLLBACK|PRAGMA|SAVEPOINT|RELEASE)\b", re.IGNORECASE)
_SCAN = re.compile(r"^SCAN (\w+)")


def full_scans(db: sqlite3.Connection, statement: str) -> list[str]:
    """The plan lines of `statement` that scan a whole table (or a whole index)."""
    plan = db.execute(f"EXPLAIN QUERY PLAN {statement}").fetchall()
    return [
        row[3]
        for row in plan
        if (m := _SCAN.match(row[3])) is not None and m.group(1) not in SCAN_ALLOWED
    ]


def scanning(path: Path, statements: set[str]) -> dict[str, list[str]]:
    with sqlite3.connect(path) as db:
        found = {s: full_scans(db, s) for s in statements}
    return {s: scans for s, scans in found.items() if scans}


async def settle(bot: BotHarness, user: FakeUser, chat_id: int | None = None) -> None:
    """Wait until every update sent so far in the chat was handled (updates of a chat are
    handled in order, so the reply to a later /help is the sentinel)."""
    chat = user.id if chat_id is None else chat_id
    before = len(bot.api.to(chat))
    bot.api.message(user, "/help", chat_id=chat_id)
    marker = "/quiz"  # every help text, private or group, names /quiz

    def answered() -> bool:
        return any(
            marker in s.visible and s.method == "sendMessage" for s in bot.api.to(chat)[before:]
        )

    await until(answered)


async def user_session(bot: BotHarness, api: FakeBotAPI) -> None:
    """Everything a user can do, in private and in a group."""
    (welcome,) = await bot.say(ADA, "/start")
    await bot.press(ADA, welcome, "level:beginner")
    await bot.say(ADA, "/quiz beginner")
    feedback = await bot.say(ADA, STRONG)
    rate = next(d for _, d in feedback[-1].buttons if d.startswith("rate:"))
    api.callback(ADA, rate, feedback[-1])
    for text in ("/quiz", "/hint", "/skip", "/quiz", "/reveal", "/quiz advanced"):
        api.message(ADA, text)
    await settle(bot, ADA)
    await bot.say(ADA, "/stats", expect=2)
    for text in (
        "/export",
        "/level intermediate",
        "/timezone Tokyo",
        "/lang en",
        "/daily 08:30",
        "/interview 12/20",  # a plan: what it reads runs on the answer below
        "/interview",
        "/settings",
        "/daily off",
        "/reminders off",
        "an answer to the open question",
        "/quiz",
    ):
        api.message(ADA, text)
    await settle(bot, ADA)
    # A mock interview: an answer, a follow-up skipped, where it is, stopped, a reference.
    for text in ("/mock 2", "Triton 负责调度", "/skip", "/mock", "/mock stop"):
        api.message(ADA, text)
    await settle(bot, ADA)
    report = next(m for m in api.to(ADA.id) if any(d.startswith("mkref:") for _, d in m.buttons))
    await bot.press(ADA, report, report.buttons[0][1])

    # A group: a round, replies, an edit, the leaderboard, closing, migration.
    api.my_chat_member(ADMIN, GROUP, "left", "member", title="Study")
    api.admins[GROUP] = {ADMIN.id}
    await settle(bot, ADMIN, GROUP)
    round_question = (await bot.say(ADA, "/quiz beginner", chat_id=GROUP))[0]
    mine = api.message(ADA, STRONG, chat_id=GROUP, reply_to=round_question.message_id)
    api.message(
        BEN,
        "max_batch_size 和 preferred batch size",
        chat_id=GROUP,
        reply_to=round_question.message_id,
    )
    api.message(ADA, STRONG, chat_id=GROUP, reply_to=round_question.message_id, edited_from=mine)
    for text in ("/top", "/level advanced", "/roundlength 5", "/reveal", "/top", "/stats"):
        api.message(ADMIN if text.startswith(("/level", "/round")) else ADA, text, chat_id=GROUP)
    api.message(BEN, STRONG, chat_id=GROUP, reply_to=round_question.message_id)  # too late
    await settle(bot, ADA, GROUP)
    api.message(ADMIN, None, chat_id=GROUP, extra={"migrate_to_chat_id": SUPERGROUP})
    await settle(bot, ADA, GROUP)  # updates of one chat are handled in order; chats are not
    api.message(ADA, "/quiz", chat_id=SUPERGROUP)
    await settle(bot, ADA, SUPERGROUP)

    # Blocking and coming back, then forgetting everything.
    api.my_chat_member(BEN, BEN.id, "member", "kicked")
    await bot.say(BEN, "/start")
    (confirm,) = await bot.say(ADA, "/forget")
    (yes,) = [d for _, d in confirm.buttons if d.startswith("forget:yes:")]
    await bot.press(ADA, confirm, yes)
    await settle(bot, ADA)


async def test_no_user_triggered_query_scans_a_table(bot: BotHarness, api: FakeBotAPI) -> None:
    statements: set[str] = set()

    def seen(sql: str) -> None:
        if not _SKIP.match(sql):
            statements.add(sql)

    await bot.storage.db.set_trace_callback(seen)
    await user_session(bot, api)
    await bot.storage.db.set_trace_callback(None)

    # The session reached the queries it is meant to cover (a guard against a silent script).
    text = "\n".join(statements)
    for expected in (
        "FROM group_totals",  # /top all time
        "JOIN round_answers",  # /top this week
        "DELETE FROM round_answers WHERE user_id",  # /forget
        "UPDATE mock_sessions SET step_at",  # a mock interview's step
        "UPDATE OR REPLACE answers SET chat_id",  # migration
        "GROUP BY level, question_id",  # /stats
        "INSERT INTO group_totals",  # closing a round
        "INSERT INTO interview_plans",  # /interview 12/20
        f"FROM answers WHERE user_id = {ADA.id} AND local_day",  # the plan's day, on an answer
    ):
        assert expected in text, expected
    assert scanning(bot.settings.database_path, statements) == {}


async def test_the_check_catches_a_missing_index(tmp_path: Path) -> None:
    storage = Storage(tmp_path / "bot.sqlite3")
    await storage.open()
    await storage.close()
    forget = "DELETE FROM round_answers WHERE user_id = 7"
    assert scanning(tmp_path / "bot.sqlite3", {forget}) == {}
    with sqlite3.connect(tmp_path / "bot.sqlite3") as db:
        db.execute("DROP INDEX round_answers_by_user")
    assert scanning(tmp_path / "bot.sqlite3", {forget}) == {forget: ["SCAN round_answers"]}


async def test_every_foreign_key_leads_an_index(tmp_path: Path) -> None:
    """A user's deletion cascades to child rows: each child lookup must be indexed."""
    storage = Storage(tmp_path / "bot.sqlite3")
    await storage.open()
    await storage.close()
    missing = []
    with sqlite3.connect(tmp_path / "bot.sqlite3") as db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            for fk in db.execute(f"PRAGMA foreign_key_list({table})").fetchall():
                column = fk[3]
                plan = full_scans(db, f"SELECT 1 FROM {table} WHERE {column} = 1")  # noqa: S608
                if plan:
                    missing.append((table, column))
    assert missing == []


async def test_the_reminder_tick_reads_users_by_their_instant(
    bot: BotHarness, api: FakeBotAPI, clock: FakeClock
) -> None:
    """The scheduler's reminder pass reads only due users, through the instant's index."""
    await bot.say(ADA, "/start")
    await bot.say(ADA, "/quiz beginner")
    await bot.say(ADA, STRONG)  # Monday: a streak, at risk on Tuesday evening
    statements: set[str] = set()

    def seen(sql: str) -> None:
        if not _SKIP.match(sql):
            statements.add(sql)

    await bot.storage.db.set_trace_callback(seen)
    clock.advance(days=1, hours=11, minutes=5)  # Tuesday 20:05 UTC
    assert (await bot.tick()).reminders == 1
    await bot.storage.db.set_trace_callback(None)

    reading = [s for s in statements if "FROM users WHERE remind_at" in s]
    claiming = [s for s in statements if s.startswith("UPDATE users SET remind_at")]
    assert reading and claiming
    assert scanning(bot.settings.database_path, statements) == {}
    with sqlite3.connect(bot.settings.database_path) as db:
        for statement in reading:
            plan = " ".join(r[3] for r in db.execute(f"EXPLAIN QUERY PLAN {statement}"))
            assert "USING INDEX users_remind_at" in plan, plan
