"""Daily prompts end to end: /daily, the sender's ticks, restarts, faults, reminders."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from datetime import time
from pathlib import Path

import pytest

from bot.core.schedule import DailySchedule, Days, next_occurrence
from tests.conftest import BotHarness
from tests.support.fake_bot_api import FakeBotAPI, FakeUser, Sent

ADA = FakeUser(2001, "Ada", "en")
GROUP = -100200


def _question(message: Sent) -> str:
    return next(d for _, d in message.buttons if d.startswith("hint:")).split(":", 1)[1]


def dailies(api: FakeBotAPI, chat_id: int) -> list[Sent]:
    return [s for s in api.to(chat_id) if s.visible.startswith("☀️ Daily question")]


async def subscribe(bot: BotHarness, chat_id: int, at: str = "09:00", zone: str = "UTC") -> None:
    """Subscribe a private chat straight in storage (for many chats at once)."""
    storage = bot.storage
    await storage.ensure_user(chat_id, f"user{chat_id}", "en")
    await storage.ensure_chat(chat_id, "private")
    schedule = DailySchedule(time.fromisoformat(at), Days.EVERY_DAY, zone)
    await storage.set_schedule(
        chat_id, enabled=True, at=schedule.at, days=schedule.days, zone=zone,
        next_due=next_occurrence(schedule, bot.clock()),
    )  # fmt: skip


async def test_daily_command_sets_shows_and_turns_off(bot: BotHarness) -> None:
    (reply,) = await bot.say(ADA, "/daily")
    assert "Daily question: off" in reply.visible and "/daily 08:30" in reply.visible
    (reply,) = await bot.say(ADA, "/daily 08:30 Asia/Shanghai")
    assert "Daily question at 08:30 every day (Asia/Shanghai)" in reply.visible
    assert "Next: Tue 03 Mar 08:30" in reply.visible  # clock: Mon 2 Mar 09:00 UTC = 17:00 there
    user = await bot.storage.get_user(ADA.id)
    assert user is not None and user.timezone == "Asia/Shanghai"
    (reply,) = await bot.say(ADA, "/daily weekdays")
    assert "08:30 on weekdays" in reply.visible
    (reply,) = await bot.say(ADA, "/daily off")
    assert "turned off" in reply.visible
    (reply,) = await bot.say(ADA, "/daily")
    assert "off" in reply.visible
    (reply,) = await bot.say(ADA, "/daily on")
    assert "08:30 on weekdays" in reply.visible


async def test_changing_the_time_zone_moves_the_daily_question(bot: BotHarness) -> None:
    (reply,) = await bot.say(ADA, "/daily 08:30")
    assert "That is UTC time" in reply.visible  # no zone set yet: the bot says whose 08:30
    await bot.say(ADA, "/timezone Asia/Tokyo")
    chat = await bot.storage.get_chat(ADA.id)
    assert chat is not None and chat.next_due_at is not None
    assert chat.next_due_at.isoformat() == "2026-03-02T23:30:00+00:00"  # 08:30 Tue in Tokyo
    (reply,) = await bot.say(ADA, "/daily")
    assert "08:30 every day (Asia/Tokyo)" in reply.visible and "That is" not in reply.visible


async def test_a_zone_change_is_one_transaction(bot: BotHarness) -> None:
    """The user's zone, their reminder instant and their daily question's next occurrence
    commit together: no state where one moved and the other did not."""
    await bot.say(ADA, "/daily 08:30")
    statements: list[str] = []
    await bot.storage.db.set_trace_callback(statements.append)
    await bot.say(ADA, "/timezone Asia/Tokyo")
    await bot.storage.db.set_trace_callback(None)
    moved = [
        i
        for i, s in enumerate(statements)
        if s.startswith(("UPDATE users SET timezone", "UPDATE users SET remind_at"))
        or (s.startswith("UPDATE chats SET") and f"chat_id = {ADA.id}" in s)
    ]
    assert len(moved) >= 3, statements
    begin = max(i for i, s in enumerate(statements[: moved[0]]) if s.startswith("BEGIN"))
    between = statements[begin : moved[-1]]
    assert not any(s.startswith(("COMMIT", "BEGIN")) for s in between[1:]), between
    chat = await bot.storage.get_chat(ADA.id)
    assert chat is not None and chat.next_due_at is not None
    assert chat.next_due_at.isoformat() == "2026-03-02T23:30:00+00:00"  # 08:30 Tue in Tokyo


async def test_bad_daily_arguments_get_examples(bot: BotHarness) -> None:
    for text, expected in (
        ("/daily 25:99", "couldn't read the time “25:99”"),
        ("/daily 08:30 Mars/Olympus", "don't know the time zone “Mars/Olympus”"),
        ("/daily sometimes", "didn't understand “sometimes”"),
    ):
        (reply,) = await bot.say(ADA, text)
        assert expected in reply.visible
        assert "/daily 08:30 Asia/Shanghai" in reply.visible


async def test_start_button_turns_the_daily_question_on(bot: BotHarness) -> None:
    (welcome,) = await bot.say(ADA, "/start")
    (welcome,) = await bot.press(ADA, welcome, "tz:start:Europe/London")  # asked first
    data = next(d for label, d in welcome.buttons if "09:00" in label)
    (reply,) = await bot.press(ADA, welcome, data)
    assert "Daily question at 09:00 every day (Europe/London)" in reply.visible


async def test_one_prompt_per_day_at_the_local_time(bot: BotHarness, api: FakeBotAPI) -> None:
    await bot.say(ADA, "/daily 10:00")
    await bot.tick()
    assert dailies(api, ADA.id) == []  # 09:00: not yet
    bot.clock.advance(hours=1)
    report = await bot.tick()
    assert report.outcomes["sent"] == 1
    (prompt,) = dailies(api, ADA.id)
    assert "❓" in prompt.visible and prompt.buttons
    await bot.tick()
    bot.clock.advance(hours=5)
    await bot.tick()
    assert len(dailies(api, ADA.id)) == 1
    # It is a real question: the next message is scored against it.
    feedback = await bot.say(ADA, "max_batch_size preferred batch size")
    assert "Score:" in "\n".join(m.visible for m in feedback)
    bot.clock.advance(hours=19)  # next day 10:00
    await bot.tick()
    assert len(dailies(api, ADA.id)) == 2


async def test_a_daily_question_that_replaces_an_open_one_says_so(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await bot.say(ADA, "/daily 10:00")
    (left,) = await bot.say(ADA, "/quiz")  # left unanswered for an hour: she is not on it
    bot.clock.advance(hours=1)
    await bot.tick()
    (prompt,) = dailies(api, ADA.id)
    assert (
        "(The question left open earlier, “Triton Inference Server 的核心定位是什么？它与 vLLM、"
        "TensorRT-LLM 有什么区别？”, is closed unanswered; it will come up again.)"
    ) in prompt.visible
    assert _question(left) == "triton-q1"
    # The next day, with nothing open, there is no such note.
    await bot.say(ADA, "这个我完全不会")
    bot.clock.advance(hours=24)
    await bot.tick()
    assert "previous question" not in dailies(api, ADA.id)[-1].visible


async def test_a_prompt_that_opened_its_question_then_stopped_sends_that_question(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    """A process that claimed the day's prompt and opened its question, then stopped before
    recording it: the next attempt sends that question (it does not wait for it, nor close
    it for another)."""
    await bot.say(ADA, "/daily 10:00")
    bot.clock.advance(hours=1)
    user = await bot.storage.get_user(ADA.id)
    assert user is not None
    assert await bot.storage.claim_daily(ADA.id, "2026-03-02", bot.clock())
    practice = bot.app.bot_data["services"].practice
    asked = await practice.ask(ADA.id, user, None, None, "en")
    await bot.tick()
    (prompt,) = dailies(api, ADA.id)
    assert _question(prompt) == asked.question.id
    assert "closed" not in prompt.visible


async def test_missed_prompts_are_sent_late_within_grace_and_skipped_after(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await subscribe(bot, 3001, "10:00")
    await subscribe(bot, 3002, "10:00")
    bot.clock.advance(hours=1, minutes=90)  # down from 09:00 to 11:30: 90 min late
    report = await bot.tick()
    assert report.outcomes["sent"] == 2
    bot.clock.advance(days=3, hours=2)  # down three days; now 13:30, 3.5 h after 10:00
    report = await bot.tick()
    assert report.outcomes["skipped"] == 2 and report.outcomes["sent"] == 0
    assert len(dailies(api, 3001)) == 1  # no burst of missed days
    bot.clock.advance(hours=21)  # next day 10:30
    await bot.tick()
    assert len(dailies(api, 3001)) == 2


async def test_restart_in_the_middle_of_a_fan_out_sends_exactly_one(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    chats = list(range(4001, 4031))
    for chat_id in chats:
        await subscribe(bot, chat_id, "09:30")
    bot.clock.advance(minutes=30)
    api.latency = 0.5
    await bot.sender.tick()  # all 30 recorded; the sender starts on the first ones
    # Stop while the first batch (send_concurrency = 16) is at the server and the rest
    # wait their turn: those out are answered within the grace, the rest are handed back.
    while api.calls["sendMessage"] < bot.settings.send_concurrency:  # noqa: ASYNC110
        await asyncio.sleep(0.01)
    await bot.stop()
    partly = sum(1 for c in chats if dailies(api, c))
    assert partly == bot.settings.send_concurrency
    statuses = await _statuses(bot)
    assert statuses == {"sent": 16, "pending": 14}
    api.latency = 0.0
    await bot.start()
    await bot.settle()
    assert [len(dailies(api, c)) for c in chats] == [1] * len(chats)


async def _statuses(bot: BotHarness) -> dict[str, int]:
    from bot.storage import Storage

    storage = Storage(bot.settings.database_path)
    await storage.open()
    try:
        return await storage.outbox_statuses()
    finally:
        await storage.close()


async def test_429_is_waited_out_and_delivered(bot: BotHarness, api: FakeBotAPI) -> None:
    await subscribe(bot, 5001, "09:30")
    bot.clock.advance(minutes=30)
    api.fail("sendMessage", 429, chat_id=5001, retry_after=1)
    report = await bot.tick()
    assert report.outcomes["sent"] == 1
    assert len(dailies(api, 5001)) == 1


async def test_blocked_chat_is_unreachable_and_others_still_served(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    for chat_id in (6001, 6002, 6003):
        await subscribe(bot, chat_id, "09:30")
    bot.clock.advance(minutes=30)
    api.fail("sendMessage", 403, chat_id=6002)
    api.fail("sendMessage", 500, chat_id=6003, times=10)
    report = await bot.tick()
    assert report.outcomes["queued"] == 3
    assert report.outcomes["failed"] == 1  # 6002 blocked the bot
    assert report.outcomes["sent"] == 2  # 6003 too: retried until the server answered
    assert len(dailies(api, 6001)) == 1
    assert len(dailies(api, 6003)) == 1
    assert api.calls["sendMessage"] == 1 + 1 + 11
    chat = await bot.storage.get_chat(6002)
    # Unreachable, but still subscribed: the question comes back if the user unblocks.
    assert chat is not None and chat.daily_enabled and not chat.active


async def test_transient_error_then_success(bot: BotHarness, api: FakeBotAPI) -> None:
    await subscribe(bot, 6101, "09:30")
    bot.clock.advance(minutes=30)
    api.fail("sendMessage", 502, chat_id=6101, times=1)
    report = await bot.tick()
    assert report.outcomes["sent"] == 1
    assert api.calls["sendMessage"] == 2
    assert len(dailies(api, 6101)) == 1


async def test_retries_stop_at_the_grace_period(bot: BotHarness, api: FakeBotAPI) -> None:
    await subscribe(bot, 6201, "09:30")
    bot.clock.advance(minutes=30)
    api.fail("sendMessage", 502, chat_id=6201, times=1000)
    await bot.sender.tick()
    while api.calls["sendMessage"] < 3:  # noqa: ASYNC110 - failing and being retried
        await asyncio.sleep(0.01)
    bot.clock.advance(minutes=bot.settings.daily_grace_minutes)
    assert (await bot.settle())["expired"] == 1
    assert dailies(api, 6201) == []
    assert await _daily_status(bot, 6201) == "expired"


async def _daily_status(bot: BotHarness, chat_id: int) -> str:
    row = await bot.storage._one("SELECT status FROM daily_sends WHERE chat_id = ?", (chat_id,))
    assert row is not None
    return str(row[0])


async def test_group_migration_moves_the_schedule(bot: BotHarness, api: FakeBotAPI) -> None:
    new_id = -1001234567890
    await bot.storage.ensure_chat(GROUP, "group", "Study group")
    schedule = DailySchedule(time(9, 30), Days.EVERY_DAY, "UTC")
    await bot.storage.set_schedule(
        GROUP, enabled=True, at=time(9, 30), days=Days.EVERY_DAY, zone="UTC",
        next_due=next_occurrence(schedule, bot.clock()),
    )  # fmt: skip
    bot.clock.advance(minutes=30)
    api.fail("sendMessage", 400, chat_id=GROUP, migrate_to_chat_id=new_id)
    report = await bot.tick()
    assert report.outcomes["sent"] == 1
    assert api.to(GROUP) == []
    assert any("Round" in s.visible for s in api.to(new_id))
    moved = await bot.storage.get_chat(new_id)
    assert moved is not None and moved.daily_enabled and await bot.storage.get_chat(GROUP) is None
    bot.clock.advance(days=1)
    await bot.tick()
    assert api.to(GROUP) == []


async def test_evening_reminder_once_for_a_streak_at_risk(bot: BotHarness, api: FakeBotAPI) -> None:
    await bot.say(ADA, "/quiz")
    await bot.say(ADA, "max_batch_size 是单次最大 batch")  # Monday: streak 1
    bot.clock.advance(days=1, hours=10)  # Tuesday 19:00 UTC: not evening yet (20:00)
    await bot.tick()
    assert not [s for s in api.to(ADA.id) if "at risk" in s.visible]
    bot.clock.advance(hours=1, minutes=5)
    report = await bot.tick()
    assert report.reminders == 1
    bot.clock.advance(minutes=30)
    assert (await bot.tick()).reminders == 0
    reminders = [s for s in api.to(ADA.id) if "at risk" in s.visible]
    assert len(reminders) == 1 and "1-day streak" in reminders[0].visible
    assert reminders[0].buttons == [("▶️ Next question", "next:beginner")]  # one tap: a question
    (reply,) = await bot.say(ADA, "/reminders off")
    assert "off" in reply.visible
    bot.clock.advance(days=1)
    assert (await bot.tick()).reminders == 0


async def test_no_reminder_after_answering_today(bot: BotHarness, api: FakeBotAPI) -> None:
    await bot.say(ADA, "/quiz")
    await bot.say(ADA, "max_batch_size 是单次最大 batch")
    bot.clock.advance(hours=11, minutes=30)  # Monday 20:30, answered today
    assert (await bot.tick()).reminders == 0


async def test_only_admins_change_the_group_schedule(bot: BotHarness, api: FakeBotAPI) -> None:
    member, admin = FakeUser(7001, "Bo"), FakeUser(7002, "Cy")
    api.admins[GROUP] = {admin.id}
    (reply,) = await bot.say(member, "/daily 08:00", chat_id=GROUP)
    assert "Only group admins" in reply.visible
    (reply,) = await bot.say(member, "/daily", chat_id=GROUP)
    assert "Daily question: off" in reply.visible  # anyone may look
    (reply,) = await bot.say(admin, "/daily 08:00 Europe/Berlin", chat_id=GROUP)
    assert "08:00 every day (Europe/Berlin)" in reply.visible
    anonymous = FakeUser(1087968824, "Group", None)  # GroupAnonymousBot posting as the group
    sender_chat = {"id": GROUP, "type": "supergroup", "title": "Study group"}
    (reply,) = await bot.say(
        anonymous, "/daily off", chat_id=GROUP, extra={"sender_chat": sender_chat}
    )
    assert "turned off" in reply.visible


async def test_a_private_chats_zone_is_stored_once_on_its_user(bot: BotHarness) -> None:
    """/daily with a zone and /timezone both set the user's zone; the chat row keeps none,
    and reading the chat gives the user's zone (a group keeps its own)."""
    await bot.say(ADA, "/daily 08:30 Asia/Shanghai")
    await bot.say(ADA, "/timezone Asia/Tokyo")
    row = await bot.storage._one("SELECT timezone FROM chats WHERE chat_id = ?", (ADA.id,))
    assert row is not None and row[0] is None
    user, chat = await bot.storage.get_user(ADA.id), await bot.storage.get_chat(ADA.id)
    assert user is not None and chat is not None
    assert user.timezone == chat.timezone == "Asia/Tokyo"
    (reply,) = await bot.say(ADA, "/daily")
    assert "08:30 every day (Asia/Tokyo)" in reply.visible


async def test_upgrading_keeps_each_private_chats_zone_on_its_user(tmp_path: Path) -> None:
    """Migration 010 drops the private chats' copy of the zone: the user's (what /timezone
    last set) is the chat's from then on; a group's own zone stays."""
    from bot.storage import Storage
    from bot.storage.database import migrations

    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as db:
        for version, sql in (m for m in migrations() if m[0] <= 9):
            db.executescript(f"BEGIN;\n{sql}\nPRAGMA user_version = {version};\nCOMMIT;")
        db.executemany(
            "INSERT INTO users (user_id, first_name, timezone, created_at) VALUES (?, 'u', ?, '')",
            [(1, "Asia/Tokyo"), (2, None), (3, "Asia/Tokyo")],
        )
        db.executemany(
            "INSERT INTO chats (chat_id, kind, timezone, created_at) VALUES (?, ?, ?, '')",
            [(1, "private", "Asia/Tokyo"), (2, "private", "UTC"), (3, "private", "Europe/Paris"),
             (-5, "group", "Europe/Berlin")],
        )  # fmt: skip
    storage = Storage(path)
    await storage.open()
    try:
        zones = {c: (await storage.get_chat(c)).timezone for c in (1, 2, 3, -5)}  # type: ignore[union-attr]
        stored = await storage._all("SELECT chat_id, timezone FROM chats ORDER BY chat_id")
    finally:
        await storage.close()
    assert zones == {1: "Asia/Tokyo", 2: None, 3: "Asia/Tokyo", -5: "Europe/Berlin"}
    assert [tuple(r) for r in stored] == [(-5, "Europe/Berlin"), (1, None), (2, None), (3, None)]


async def test_a_later_time_the_same_day_is_not_a_second_prompt_and_tomorrow_comes(
    bot: BotHarness, api: FakeBotAPI, caplog: pytest.LogCaptureFixture
) -> None:
    """Today's prompt came at 10:00; moved to 18:00 the same day, the 18:00 tick finds the
    day already served: the operator's tick line says so, nothing fails, and tomorrow's
    prompt comes at 18:00."""
    await bot.say(ADA, "/daily 10:00")
    bot.clock.advance(hours=1)  # Monday 10:00
    assert (await bot.tick()).outcomes["sent"] == 1
    await bot.say(ADA, "/daily 18:00")
    bot.clock.advance(hours=8)  # Monday 18:00
    caplog.set_level(logging.INFO)
    report = await bot.tick()
    assert report.outcomes == {"already-sent": 1}
    assert "daily tick: 1 already sent that day" in caplog.messages
    bot.clock.advance(minutes=1)
    assert (await bot.tick()).outcomes == {}  # the chat moved on to Tuesday 18:00
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(dailies(api, ADA.id)) == 1
    bot.clock.advance(days=1, minutes=-1)  # Tuesday 18:00
    assert (await bot.tick()).outcomes["sent"] == 1
    assert len(dailies(api, ADA.id)) == 2
