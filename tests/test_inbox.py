"""The inbox: updates recorded before Telegram hears they arrived, handled from there once.

The real process killed and stopped mid-burst is in test_inbox_restarts.py; here the steps:
the storage's states, the migration, an answer handled twice, the update processor's stop.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from telegram import Update

from bot.app import PerChatUpdateProcessor
from bot.core.practice import NothingOpen
from bot.delivery import reachability
from bot.handlers.updates import MAX_TRIES, DoneMarks
from bot.services.practice import Practice
from bot.storage import Storage
from bot.storage.database import migrations
from tests.conftest import BotHarness
from tests.support.fake_bot_api import FakeUser

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
ADA = FakeUser(1001, "Ada", "en")


def _raw(update_id: int, text: str = "hello") -> dict[str, Any]:
    return {
        "update_id": update_id,
        "message": {
            "message_id": update_id, "date": 0, "text": text,
            "chat": {"id": 7, "type": "private", "first_name": "Ada"},
            "from": {"id": 7, "is_bot": False, "first_name": "Ada"},
        },
    }  # fmt: skip


async def test_an_update_is_recorded_taken_once_and_done(storage: Storage) -> None:
    assert await storage.record_updates([_raw(1), _raw(2)], NOW) == 2
    assert await storage.record_updates([_raw(2), _raw(3)], NOW) == 1  # 2 came again
    assert await storage.claim_update(1, NOW)
    assert not await storage.claim_update(1, NOW)  # a second delivery while it is handled
    await storage.finish_update(1)
    assert not await storage.claim_update(1, NOW)  # nor once it was handled
    assert await storage.claim_update(9, NOW)  # never recorded (handed in directly): taken
    assert not await storage.claim_update(9, NOW)
    rows = await storage._all(
        "SELECT update_id, state, body IS NULL FROM processed_updates ORDER BY update_id"
    )
    assert [tuple(r) for r in rows] == [
        (1, "done", 1), (2, "received", 0), (3, "received", 0), (9, "handling", 1),
    ]  # fmt: skip


async def test_a_start_gets_what_the_last_run_did_not_finish_in_order(storage: Storage) -> None:
    await storage.record_updates([_raw(3), _raw(1), _raw(2), _raw(4)], NOW)
    assert await storage.claim_update(1, NOW)
    await storage.finish_update(1)
    assert await storage.claim_update(2, NOW)  # taken, then the process died
    assert await storage.claim_update(9, NOW)  # taken without the inbox: nothing to read
    # 2 (taken, not done), 3 and 4 (received): handled again, in update_id order.
    unfinished = await storage.unfinished_updates(MAX_TRIES)
    assert [(i, raw) for i, raw in unfinished.again] == [(2, _raw(2)), (3, _raw(3)), (4, _raw(4))]
    assert unfinished.given_up == []
    assert await storage.claim_update(2, NOW)  # 'received' again: taken once more
    assert not await storage.claim_update(2, NOW)


async def test_an_update_that_kills_every_start_is_given_up(storage: Storage) -> None:
    # 5 kills every run that takes it; 7 is left untaken by each (a stop's grace ran out).
    await storage.record_updates([_raw(5), _raw(7)], NOW)
    for _ in range(MAX_TRIES):
        unfinished = await storage.unfinished_updates(MAX_TRIES)
        assert ([i for i, _ in unfinished.again], unfinished.given_up) == ([5, 7], [])
        assert await storage.claim_update(5, NOW)  # and the process dies handling it
    unfinished = await storage.unfinished_updates(MAX_TRIES)
    assert ([i for i, _ in unfinished.again], unfinished.given_up) == ([7], [5])
    assert not await storage.claim_update(5, NOW)  # done: never handled again


async def test_pruning_keeps_updates_not_handled_yet(storage: Storage) -> None:
    await storage.record_updates([_raw(1), _raw(2)], NOW)
    assert await storage.claim_update(1, NOW)
    await storage.finish_update(1)
    assert await storage.forget_updates_before(NOW + timedelta(days=2)) == 1
    unfinished = await storage.unfinished_updates(MAX_TRIES)
    assert [i for i, _ in unfinished.again] == [2]


async def test_upgrading_counts_every_earlier_claim_as_handled(tmp_path: Path) -> None:
    database = tmp_path / "bot.sqlite3"
    with sqlite3.connect(database) as db:
        for version, sql in (m for m in migrations() if m[0] <= 13):
            db.executescript(f"BEGIN;\n{sql}\nPRAGMA user_version = {version};\nCOMMIT;")
        db.execute("INSERT INTO processed_updates VALUES (41, ?)", (NOW.isoformat(),))
    db.close()
    storage = Storage(database)
    await storage.open()
    try:
        assert (await storage.unfinished_updates(MAX_TRIES)).again == []
        assert not await storage.claim_update(41, NOW)  # handled before the upgrade
    finally:
        await storage.close()


async def test_an_answer_handled_again_is_scored_once_and_its_feedback_given_again(
    practice: Practice,
) -> None:
    ada = await practice.storage.ensure_user(501, "Ada", "en")
    await practice.ask_question(501, ada, practice.library.questions["triton-q3"])
    text = "max_batch_size 和 preferred batch size"
    first = await practice.answer(501, ada, text, update_id=77)
    assert first is not None
    ada = await practice.storage.get_user(501)
    assert ada is not None
    again = await practice.answer(501, ada, text, update_id=77)  # after a crash
    assert again is not None
    assert (again.answer_id, again.result, again.hints, again.streak) == (
        first.answer_id, first.result, first.hints, first.streak,
    )  # fmt: skip
    assert len(await practice.storage.answers_for(501)) == 1
    # Another message with the same text is a new answer: nothing is open any more.
    assert isinstance(await practice.answer(501, ada, text, update_id=78), NothingOpen)


async def test_a_stop_handles_updates_for_the_grace_then_leaves_the_rest() -> None:
    done: list[int] = []
    processor = PerChatUpdateProcessor(256, finished=lambda u: _done(done, u))
    started: list[int] = []

    async def handle(update_id: int, seconds: float) -> None:
        started.append(update_id)
        await asyncio.sleep(seconds)

    def update(update_id: int, chat: int) -> Update:
        return Update.de_json(_raw(update_id) | {"message": {**_raw(update_id)["message"],
            "chat": {"id": chat, "type": "private", "first_name": "A"}}}, None)  # fmt: skip

    quick = asyncio.create_task(processor.process_update(update(1, 1), handle(1, 0.01)))
    slow = asyncio.create_task(processor.process_update(update(2, 2), handle(2, 5)))
    queued = asyncio.create_task(processor.process_update(update(3, 2), handle(3, 0.01)))
    await asyncio.sleep(0.05)
    processor.close_within(0.1)
    await asyncio.wait_for(asyncio.gather(quick, slow, queued, return_exceptions=True), 1)
    assert slow.cancelled()
    late = handle(4, 0.01)
    await processor.process_update(update(4, 3), late)  # after the grace: not started
    assert started == [1, 2]
    assert done == [1]  # only the one handled whole is done: 2, 3 and 4 stay in the inbox


async def _done(done: list[int], update: object) -> None:
    assert isinstance(update, Update)
    done.append(update.update_id)


async def test_a_batch_the_inbox_cannot_take_is_polled_again_not_an_outage(
    bot: BotHarness, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    caplog.set_level(logging.INFO)
    real = bot.storage.record_updates
    failures = [sqlite3.OperationalError("disk I/O error")]

    async def record(*args: Any, **kwargs: Any) -> int:
        if failures:
            raise failures.pop()
        return await real(*args, **kwargs)

    monkeypatch.setattr(bot.storage, "record_updates", record)
    (welcome,) = await bot.say(ADA, "/start")  # after PTB's backoff (1 s)
    assert "Hi Ada" in welcome.visible
    assert not failures  # it failed once, and the same update came again
    assert not reachability.down
    # (`interview-bot run` logs it in one line, bot/handlers/errors.py; PTB's polling here.)
    lines = [
        f"{r.getMessage()} {r.exc_info[1] if r.exc_info else ''}"
        for r in caplog.records
        if r.levelno >= logging.WARNING
    ]
    assert not any("Telegram is not answering" in line for line in lines), lines
    assert any("could not be recorded (disk I/O error)" in line for line in lines), lines


async def test_done_marks_that_come_together_are_written_together(
    storage: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    await storage.record_updates([_raw(i) for i in range(1, 6)], NOW)
    for i in range(1, 6):
        assert await storage.claim_update(i, NOW)
    writes: list[list[int]] = []
    real = storage.finish_updates

    async def finish_updates(update_ids: list[int]) -> None:
        writes.append(list(update_ids))
        await real(update_ids)

    monkeypatch.setattr(storage, "finish_updates", finish_updates)
    taken = {1, 2, 3, 4}  # 5 was taken by another delivery's handling: not this one's mark
    marks = DoneMarks(storage, taken)
    ones = [asyncio.create_task(marks.finished(Update(update_id=i))) for i in (1, 2, 3, 5)]
    cut = asyncio.create_task(marks.finished(Update(update_id=4)))
    await asyncio.sleep(0)
    cut.cancel()  # a stop's grace ran out while its mark was being written
    await asyncio.gather(*ones)
    await marks.drain()
    assert writes == [[1, 2, 3, 4]]  # one write for the marks that came together
    rows = await storage._all("SELECT update_id FROM processed_updates WHERE state = 'done'")
    assert [r[0] for r in rows] == [1, 2, 3, 4]
    assert taken == set()
