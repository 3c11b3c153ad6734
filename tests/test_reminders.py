"""Evening reminders due by a stored instant: once per local day, never after an answer.

The rule in core (pure), the instant kept right by storage (answers, zone, the setting), and
the bot end to end: ticks, restarts between them, the outbox delivering.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from bot.core.levels import Level
from bot.core.models import AnswerRecord
from bot.core.outbox import Draft, Kind
from bot.core.reminders import ReminderRule, claim, first_reminder, next_reminder
from bot.core.streaks import StreakState
from bot.storage import Storage
from bot.storage.reminders import ReminderClaim
from tests.conftest import BotHarness
from tests.support.fake_bot_api import FakeBotAPI, FakeUser

ADA = FakeUser(3001, "Ada", "en")
RULE = ReminderRule(hour=20, default_zone="UTC")
MON, TUE, WED, THU = (date(2026, 3, d) for d in (2, 3, 4, 5))


def utc(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 3, day, hour, minute, tzinfo=UTC)


def reminders_to(api: FakeBotAPI, chat_id: int) -> list[str]:
    return [s.visible for s in api.to(chat_id) if "at risk" in s.visible]


# -- the rule ----------------------------------------------------------------------------------


def test_first_reminder_is_the_evening_after_the_last_answer() -> None:
    streak = StreakState(current=3, best=3, last_day=MON)
    assert first_reminder(streak, None, RULE) == utc(3, 20)
    assert first_reminder(streak, "Asia/Shanghai", RULE) == utc(3, 12)  # 20:00 at UTC+8
    assert first_reminder(streak, "America/New_York", RULE) == utc(4, 1)  # 20:00 at UTC-5
    assert first_reminder(StreakState(), None, RULE) is None  # no streak: nothing to remind


def test_next_reminder_follows_the_days_the_streak_is_at_risk() -> None:
    two_freezes = StreakState(current=14, best=14, last_day=MON, freezes=2)
    assert next_reminder(two_freezes, None, RULE, utc(3, 20, 5)) == utc(4, 20)
    assert next_reminder(two_freezes, None, RULE, utc(4, 20, 5)) == utc(5, 20)
    assert next_reminder(two_freezes, None, RULE, utc(5, 20, 5)) is None  # then it is lost
    no_freeze = StreakState(current=2, best=2, last_day=MON)
    assert next_reminder(no_freeze, None, RULE, utc(3, 20, 5)) is None
    assert next_reminder(no_freeze, None, RULE, utc(3, 9)) == utc(3, 20)


def test_claim_sends_on_the_day_after_the_hour_while_at_risk() -> None:
    streak = StreakState(current=2, best=2, last_day=MON)
    due = claim(streak, None, RULE, utc(3, 20), utc(3, 20, 1))
    assert due.send and due.day == TUE and due.next_at is None
    answered = StreakState(current=3, best=3, last_day=TUE)
    late = claim(answered, None, RULE, utc(3, 20), utc(3, 20, 1))
    assert not late.send and late.next_at == utc(4, 20)
    # An instant left from before a stop of the bot: yesterday's is not sent after midnight.
    frozen = StreakState(current=9, best=9, last_day=MON, freezes=1)
    stale = claim(frozen, None, RULE, utc(3, 20), utc(4, 0, 30))
    assert not stale.send and stale.next_at == utc(4, 20)
    # A provisional instant (an upgrade, a zone change) before the hour: moved, not sent.
    early = claim(streak, None, RULE, utc(3, 9), utc(3, 9, 1))
    assert not early.send and early.next_at == utc(3, 20)


# -- storage keeps the instant right ----------------------------------------------------------


async def _answer(storage: Storage, user_id: int, day: date, streak: StreakState) -> None:
    record = AnswerRecord(
        user_id, user_id, "q", Level.BEGINNER, "an answer", 0.5, [], [], 0,
        datetime(day.year, day.month, day.day, 12, tzinfo=UTC), day.isoformat(),
    )  # fmt: skip
    await storage.open_question(user_id, user_id, "q", record.answered_at)  # answered as asked
    await storage.record_answer(record, lambda _: streak)


def _reminder(user_id: int, day: date) -> Draft:
    return Draft(Kind.REMINDER, f"reminder:{user_id}:{day}", user_id, ("at risk",), utc(28, 0))


async def test_an_answer_withdraws_a_reminder_not_yet_sent(database_target: str | Path) -> None:
    storage = Storage.at(database_target, RULE)
    await storage.open()
    try:
        await storage.ensure_user(ADA.id, "Ada")
        await _answer(storage, ADA.id, MON, StreakState(current=1, best=1, last_day=MON))
        assert await storage.reminder_instant(ADA.id) == utc(3, 20)
        (due,) = await storage.due_reminders(utc(3, 20, 5))
        claims = [ReminderClaim(due, None, "2026-03-03", _reminder(ADA.id, TUE))]
        assert await storage.claim_reminders(claims, utc(3, 20, 5)) == 1
        lease = await storage.take_lease("sender", 1, "here", utc(3, 20), timedelta(hours=1))
        assert lease is None  # the sender holds the database (claims need it)
        (row,) = await storage.claim_outbox("sender", 10)  # a sender holds it, not yet sent
        await _answer(storage, ADA.id, TUE, StreakState(current=2, best=2, last_day=TUE))
        assert not await storage.outbox_on_wire(row.id, "sender")  # so it does not leave
        assert await storage.outbox_statuses() == {"expired": 1}
        assert await storage.reminder_instant(ADA.id) == utc(4, 20)  # tomorrow evening now
    finally:
        await storage.close()


async def test_turning_reminders_off_withdraws_one_not_yet_sent(
    database_target: str | Path,
) -> None:
    storage = Storage.at(database_target, RULE)
    await storage.open()
    try:
        await storage.ensure_user(ADA.id, "Ada")
        await _answer(storage, ADA.id, MON, StreakState(current=1, best=1, last_day=MON))
        (due,) = await storage.due_reminders(utc(3, 20, 5))
        claims = [ReminderClaim(due, None, "2026-03-03", _reminder(ADA.id, TUE))]
        assert await storage.claim_reminders(claims, utc(3, 20, 5)) == 1
        await storage.update_user(ADA.id, reminders=0)
        assert await storage.outbox_statuses() == {"expired": 1}
        assert await storage.reminder_instant(ADA.id) is None
    finally:
        await storage.close()


async def test_a_claim_read_before_an_answer_records_nothing(database_target: str | Path) -> None:
    storage = Storage.at(database_target, RULE)
    await storage.open()
    try:
        await storage.ensure_user(ADA.id, "Ada")
        await _answer(storage, ADA.id, MON, StreakState(current=1, best=1, last_day=MON))
        (due,) = await storage.due_reminders(utc(3, 20, 5))
        # The user answers between the scheduler's read and its claim.
        await _answer(storage, ADA.id, TUE, StreakState(current=2, best=2, last_day=TUE))
        claims = [ReminderClaim(due, None, "2026-03-03", _reminder(ADA.id, TUE))]
        assert await storage.claim_reminders(claims, utc(3, 20, 5)) == 0
        assert await storage.outbox_statuses() == {}
        assert await storage.reminder_instant(ADA.id) == utc(4, 20)
    finally:
        await storage.close()


async def test_only_due_instants_are_read(database_target: str | Path) -> None:
    storage = Storage.at(database_target, RULE)
    await storage.open()
    try:
        for uid, zone in ((1, "Asia/Shanghai"), (2, None), (3, "America/New_York")):
            await storage.ensure_user(uid, "u")
            if zone:
                await storage.update_user(uid, timezone=zone)
            await _answer(storage, uid, MON, StreakState(current=1, best=1, last_day=MON))
        await storage.ensure_user(4, "no streak")
        assert [d.user.user_id for d in await storage.due_reminders(utc(3, 11))] == []
        assert [d.user.user_id for d in await storage.due_reminders(utc(3, 20))] == [1, 2]
        page = await storage.due_reminders(utc(4, 2), limit=2)
        assert [d.user.user_id for d in page] == [1, 2]
        last = page[-1]
        rest = await storage.due_reminders(utc(4, 2), limit=2, after=(last.stamp, 2))
        assert [d.user.user_id for d in rest] == [3]
    finally:
        await storage.close()


async def test_upgrading_looks_at_every_streak_that_may_be_at_risk(tmp_path: Path) -> None:
    """Migration 009 gives live streaks an instant of 'now'; lost streaks get none."""
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as db:
        for version, sql in (m for m in _migrations() if m[0] <= 8):
            db.executescript(f"BEGIN;\n{sql}\nPRAGMA user_version = {version};\nCOMMIT;")
        today = datetime.now(UTC).date().isoformat()
        db.executemany(
            "INSERT INTO users (user_id, first_name, created_at, started, streak_current,"
            " streak_last_day, reminders) VALUES (?, 'u', '2026-01-01', 1, ?, ?, ?)",
            [(1, 4, today, 1), (2, 4, "2020-01-01", 1), (3, 0, None, 1), (4, 4, today, 0)],
        )
    storage = Storage(path, RULE)
    await storage.open()
    try:
        instants = {uid: await storage.reminder_instant(uid) for uid in (1, 2, 3, 4)}
    finally:
        await storage.close()
    assert instants[1] is not None and abs(instants[1] - datetime.now(UTC)).total_seconds() < 600
    assert (instants[2], instants[3], instants[4]) == (None, None, None)


def _migrations() -> list[tuple[int, str]]:
    from bot.storage.repository import migrations

    return migrations()


# -- the bot, end to end ----------------------------------------------------------------------


async def test_reminders_once_per_local_day_across_restarts(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    # Monday (the clock starts Mon 2 Mar 09:00 UTC): Ada answers, with two freezes held, so
    # her streak is at risk on Tuesday, Wednesday and Thursday evenings, then lost.
    await bot.storage.ensure_user(ADA.id, "Ada", "en")
    await _answer(
        bot.storage, ADA.id, MON, StreakState(current=14, best=14, last_day=MON, freezes=2)
    )
    assert await bot.storage.reminder_instant(ADA.id) == utc(3, 20)
    expected = 0
    for evening in (3, 4, 5, 6):
        bot.clock.now = utc(evening, 19, 55)
        assert (await bot.tick()).reminders == 0  # not the hour yet
        await bot.restart()
        bot.clock.now = utc(evening, 20, 1)
        first = await bot.tick()
        await bot.restart()
        bot.clock.now = utc(evening, 21, 30)
        again = await bot.tick()
        expected += evening < 6
        assert (first.reminders, again.reminders) == (int(evening < 6), 0), evening
        assert len(reminders_to(api, ADA.id)) == expected
    assert await bot.storage.reminder_instant(ADA.id) is None  # lost: nothing left to remind


async def test_no_reminder_for_an_answer_given_today(bot: BotHarness, api: FakeBotAPI) -> None:
    await bot.say(ADA, "/quiz")
    # Monday: streak 1; at risk on Tuesday evening
    await bot.say(ADA, "max_batch_size 是单次最大 batch")
    bot.clock.now = utc(3, 18)
    await bot.say(ADA, "/quiz")
    await bot.say(ADA, "max_batch_size 是单次最大 batch")  # Tuesday, before the evening
    bot.clock.now = utc(3, 20, 30)
    assert (await bot.tick()).reminders == 0
    bot.clock.now = utc(4, 20, 30)  # Wednesday evening, no answer yet: now it is at risk
    assert (await bot.tick()).reminders == 1
    assert len(reminders_to(api, ADA.id)) == 1 and "2-day streak" in reminders_to(api, ADA.id)[0]


async def test_a_zone_change_moves_the_reminder(bot: BotHarness, api: FakeBotAPI) -> None:
    await bot.say(ADA, "/quiz")
    await bot.say(ADA, "max_batch_size 是单次最大 batch")  # Monday
    assert await bot.storage.reminder_instant(ADA.id) == utc(3, 20)
    await bot.say(ADA, "/timezone Asia/Shanghai")
    assert await bot.storage.reminder_instant(ADA.id) == utc(3, 12)  # 20:00 at UTC+8
    await bot.say(ADA, "/reminders off")
    assert await bot.storage.reminder_instant(ADA.id) is None
    await bot.say(ADA, "/reminders on")
    assert await bot.storage.reminder_instant(ADA.id) == utc(3, 12)
    bot.clock.now = utc(3, 11, 55)
    assert (await bot.tick()).reminders == 0
    bot.clock.now = utc(3, 12, 5)  # 20:05 in Shanghai, 12:05 in UTC
    assert (await bot.tick()).reminders == 1
    assert len(reminders_to(api, ADA.id)) == 1
