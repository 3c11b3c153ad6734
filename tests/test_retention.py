"""Retention, running totals and aggregates: what stays, what goes, what /top and /stats read."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from bot.core.levels import Level
from bot.core.models import AnswerRecord
from bot.core.outbox import Draft, Kind, Status
from bot.core.streaks import StreakState
from bot.handlers import groups
from bot.jobs.retention import prune_once
from bot.storage import Storage
from bot.storage.repository import migrations

NOW = datetime(2026, 3, 12, 10, 0, tzinfo=UTC)  # a Thursday
GROUP = -100500
ANA, BEN = 501, 502


def same(state: StreakState) -> StreakState:
    return state


@pytest.fixture
async def storage(database_target: str | Path) -> AsyncIterator[Storage]:
    store = Storage.at(database_target)
    await store.open()
    for user in (ANA, BEN):
        await store.ensure_user(user, f"u{user}")
    await store.ensure_chat(GROUP, "supergroup", "Study")
    yield store
    await store.close()


async def count(storage: Storage, table: str) -> int:
    row = await storage._one(f"SELECT COUNT(*) FROM {table}")  # noqa: S608
    assert row is not None
    return int(row[0])


async def play_round(
    storage: Storage, opened: datetime, scores: dict[int, float], *, close: bool = True
) -> int:
    round_id = await storage.open_round(
        GROUP, "triton-q3", None, opened, opened + timedelta(minutes=10), daily=False
    )
    assert round_id is not None
    for i, (user, score) in enumerate(scores.items()):
        await storage.record_round_answer(
            round_id,
            user_id=user,
            first_name=f"u{user}",
            message_id=100 + i,
            answer="max_batch_size",
            score=score,
            covered=["max_batch_size"],
            missed=[],
            now=opened + timedelta(minutes=1),
            local_day=opened.date().isoformat(),
            update_streak=same,
        )
    if close:
        closed = await storage.close_round(round_id, opened + timedelta(minutes=10), Level.BEGINNER)
        assert closed is not None
    return round_id


async def test_retention_keeps_what_still_matters_and_deletes_the_old(
    storage: Storage, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="bot.jobs.retention")
    today, old = NOW.date(), NOW.date() - timedelta(days=5)
    for day in (today, today - timedelta(days=1), old):
        assert await storage.claim_daily(ANA, day.isoformat(), NOW)
        assert await storage.claim_reminder(ANA, day.isoformat(), NOW)
    await play_round(storage, NOW - timedelta(days=30), {ANA: 0.5, BEN: 0.25})  # long closed
    await play_round(storage, NOW - timedelta(days=2), {ANA: 1.0})  # this week
    open_id = await play_round(storage, NOW - timedelta(minutes=5), {BEN: 0.75}, close=False)
    answers_before = await count(storage, "answers")
    assert answers_before == 3  # closed rounds' answers went into the history

    deleted = await prune_once(storage, NOW)

    assert deleted == {"daily_sends": 1, "reminders_sent": 1, "round_answers": 2, "outbox": 0}
    # The operator's log says what a pass deleted (and a pass that deletes nothing, nothing).
    said = [r.getMessage() for r in caplog.records if r.name == "bot.jobs.retention"]
    assert said == [
        "retention: deleted"
        " {'daily_sends': 1, 'reminders_sent': 1, 'round_answers': 2, 'outbox': 0}"
    ]
    kept_days = await storage._all("SELECT local_day FROM daily_sends ORDER BY local_day")
    assert [r[0] for r in kept_days] == ["2026-03-11", "2026-03-12"]
    assert not await storage.claim_reminder(ANA, today.isoformat(), NOW)  # still once a day
    assert await count(storage, "answers") == answers_before
    open_answers = await storage._all(
        "SELECT user_id FROM round_answers WHERE round_id = ?", (open_id,)
    )
    assert [r[0] for r in open_answers] == [BEN]
    assert await storage.open_round_of(GROUP) is not None
    # /top: the week from what is left, all time from the totals (old rounds included).
    week = await storage.leaderboard(GROUP, datetime(2026, 3, 9, tzinfo=UTC))
    assert [(r.user_id, r.total_score, r.answers) for r in week] == [(ANA, 1.0, 1)]
    overall = await storage.leaderboard(GROUP, None)
    assert [(r.user_id, r.total_score, r.answers) for r in overall] == [
        (ANA, 1.5, 2),
        (BEN, 0.25, 1),
    ]
    # A second pass finds nothing more.
    again = await prune_once(storage, NOW + timedelta(hours=1), NOW - timedelta(days=10))
    assert again == {"daily_sends": 0, "reminders_sent": 0, "round_answers": 0, "outbox": 0}
    assert len([r for r in caplog.records if r.name == "bot.jobs.retention"]) == 1


async def test_pruning_deletes_in_batches(storage: Storage) -> None:
    for chat in range(1, 12):
        assert await storage.claim_daily(chat, "2026-01-01", NOW)
    from bot.core.retention import cutoffs

    deleted = await storage.prune(cutoffs(NOW), batch=5)
    assert deleted["daily_sends"] == 11
    assert await count(storage, "daily_sends") == 0


async def test_all_time_totals_follow_closing_rounds(storage: Storage) -> None:
    await play_round(storage, NOW - timedelta(hours=3), {ANA: 0.5, BEN: 0.75})
    await play_round(storage, NOW - timedelta(hours=2), {ANA: 1.0})
    await play_round(storage, NOW - timedelta(hours=1), {BEN: 0.5}, close=False)  # not yet
    overall = await storage.leaderboard(GROUP, None)
    assert [(r.user_id, r.total_score, r.answers) for r in overall] == [
        (ANA, 1.5, 2),
        (BEN, 0.75, 1),
    ]
    # A round closes only once: closing again adds nothing.
    round_ = await storage.open_round_of(GROUP)
    assert round_ is not None
    await storage.close_round(round_.round_id, NOW, Level.BEGINNER)
    assert await storage.close_round(round_.round_id, NOW, Level.BEGINNER) is None
    overall = await storage.leaderboard(GROUP, None)
    assert [(r.user_id, r.total_score, r.answers) for r in overall] == [
        (ANA, 1.5, 2),
        (BEN, 1.25, 2),
    ]
    # Forgetting a member removes them from the board; a migration moves the board.
    await storage.forget_user(BEN)
    await storage.migrate_chat(GROUP, GROUP - 1)
    assert await storage.leaderboard(GROUP, None) == []
    moved = await storage.leaderboard(GROUP - 1, None)
    assert [(r.user_id, r.total_score) for r in moved] == [(ANA, 1.5)]


async def test_migration_backfills_totals_and_keeps_the_latest_asking(tmp_path: Path) -> None:
    """A database from before the totals: closed rounds are summed, repeats in `asked` merged."""
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as db:
        for version, sql in migrations():
            if version <= 4:
                db.executescript(sql)
        db.execute("PRAGMA user_version = 4")
        db.execute("INSERT INTO users (user_id, created_at) VALUES (1, 'x'), (2, 'x')")
        db.executemany(
            "INSERT INTO rounds (id, chat_id, question_id, opened_at, closes_at, closed_at)"
            " VALUES (?, ?, 'q', 'a', 'b', ?)",
            [(1, GROUP, "2026-01-01"), (2, GROUP, "2026-01-02"), (3, GROUP, None)],
        )
        db.executemany(
            "INSERT INTO round_answers VALUES (?, ?, ?, 1, 'a', ?, '[]', '[]', 'x', 'd')",
            [(1, 1, "Ann", 0.5), (2, 1, "Ann", 0.25), (2, 2, "Bo", 1.0), (3, 2, "Bo", 1.0)],
        )
        db.executemany(
            "INSERT INTO asked (chat_id, question_id, asked_at) VALUES (?, ?, 'x')",
            [(7, "a"), (7, "b"), (7, "a"), (8, "a")],
        )
    storage = Storage(path)
    await storage.open()
    try:
        overall = await storage.leaderboard(GROUP, None)
        assert [(r.user_id, r.first_name, r.total_score, r.answers) for r in overall] == [
            (2, "Bo", 1.0, 1),
            (1, "Ann", 0.75, 2),
        ]
        assert await storage.recent_questions(7) == ["a", "b"]
        assert await count(storage, "asked") == 3
    finally:
        await storage.close()


async def test_asking_again_replaces_the_old_row(storage: Storage) -> None:
    for question in ("triton-q1", "triton-q2", "triton-q1", "triton-q3", "triton-q1"):
        await storage.open_question(ANA, ANA, question, NOW)
    assert await storage.recent_questions(ANA) == ["triton-q1", "triton-q3", "triton-q2"]
    assert await count(storage, "asked") == 3


async def test_stats_from_aggregates(storage: Storage) -> None:
    rows = [
        ("triton-q1", Level.BEGINNER, 0.5),
        ("triton-q1", Level.BEGINNER, 1.0),
        ("triton-q3", Level.BEGINNER, 0.0),
        ("triton-q9", Level.ADVANCED, 0.25),
    ]
    for i, (question, level, score) in enumerate(rows):
        record = AnswerRecord(
            user_id=ANA,
            chat_id=ANA,
            question_id=question,
            level=level,
            answer="x",
            score=score,
            covered=[],
            missed=[],
            hints=0,
            answered_at=NOW + timedelta(minutes=i),
            local_day=date(2026, 3, 12).isoformat(),
        )
        await storage.add_answers([record])
    stats = await storage.user_stats(ANA)
    assert stats.answers == 4
    assert stats.questions == 3
    assert [(s.level, s.answers, s.average) for s in stats.by_level] == [
        (Level.BEGINNER, 3, 0.5),
        (Level.ADVANCED, 1, 0.25),
    ]
    assert (await storage.user_stats(BEN)).answers == 0


def test_reaction_windows_of_quiet_groups_are_swept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(groups, "_acks_swept", 0.0)  # the clock below starts at 1000 s
    groups._acks.clear()
    for chat in range(1000):
        assert groups._ack_allowed(-chat, now=1000.0)
    assert len(groups._acks) == 1000
    assert groups._ack_allowed(-5000, now=1000.0 + groups.ACK_WINDOW + 1)
    assert list(groups._acks) == [-5000]
    groups._acks.clear()


async def test_finished_outbox_rows_go_after_three_days_and_waiting_ones_stay(
    storage: Storage,
) -> None:
    def draft(key: str, chat: int, created: datetime) -> Draft:
        return Draft(Kind.DAILY, key, chat, ("☀️",), created + timedelta(hours=2))

    async def record(key: str, chat: int, created: datetime) -> None:
        assert await storage.enqueue(draft(key, chat, created), created)

    async def finish(key: str, status: Status, when: datetime) -> None:
        rows = await storage.claim_outbox("me", 100)
        for row in rows:
            if row.id == ids[key]:
                await storage.finish_outbox(row.id, "me", status, when)
        await storage.release_outbox("me", when, ())  # the others go back to waiting

    assert await storage.take_lease("me", 1, "here", NOW, timedelta(days=9)) is None  # may claim
    days = [NOW - timedelta(days=d) for d in range(6)]
    plan = {  # key: (chat, created, finished as, finished when)
        "sent-5-days-ago": (601, days[5], Status.SENT, days[5]),
        "expired-4-days-ago": (602, days[5], Status.EXPIRED, days[4]),
        "unknown-2-days-ago": (603, days[5], Status.UNKNOWN, days[2]),
        "sent-today": (604, NOW - timedelta(hours=3), Status.SENT, NOW - timedelta(hours=2)),
        "waiting-since-5-days": (605, days[5], None, None),
        "waiting-today": (606, NOW, None, None),
    }
    for key, (chat, created, _, _) in plan.items():
        await record(key, chat, created)
    ids = {r[1]: r[0] for r in await storage._all("SELECT id, dedup_key FROM outbox")}
    for key, (_, _, status, when) in plan.items():
        if status is not None and when is not None:
            await finish(key, status, when)
    # Dropped for a chat that blocked the bot, 4 days ago: no finish time, only its creation.
    await record("dropped-4-days-ago", 607, days[4])
    await storage.mark_unreachable(607)

    deleted = await prune_once(storage, NOW)

    assert deleted["outbox"] == 3
    left = await storage._all("SELECT dedup_key, status FROM outbox ORDER BY id")
    assert [(r[0], r[1]) for r in left] == [
        ("unknown-2-days-ago", "unknown"),
        ("sent-today", "sent"),
        ("waiting-since-5-days", "pending"),
        ("waiting-today", "pending"),
    ]
    # What is kept still makes its message once-only.
    assert not await storage.enqueue(draft("sent-today", 604, NOW), NOW)
