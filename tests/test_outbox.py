"""The outbox end to end: outages, one rule for an unreachable chat, rankings after a restart.

The real Application talks to the fake Bot API server; faults are injected there (the port
closed, 502s, hangs). Retry timings are scaled down by the `bot_settings` fixture.
"""

from __future__ import annotations

import asyncio
import logging
import re
import sqlite3
from collections import Counter
from datetime import time
from typing import Any

import pytest

from bot.config import Settings
from bot.core.content import Library
from bot.core.outbox import Status
from bot.core.schedule import DailySchedule, Days, next_occurrence
from bot.handlers import groups
from tests.conftest import BotHarness, FakeClock
from tests.support.fake_bot_api import FakeBotAPI, FakeUser, Sent
from tests.support.sql import sql
from tests.support.wait import until
from tests.test_daily_flow import dailies, subscribe

ADA = FakeUser(2101, "Ada", "en")
GROUP = -100900
ANA = FakeUser(8101, "Ana")


def prompts_per_chat(api: FakeBotAPI, chats: list[int]) -> list[int]:
    return [len(dailies(api, c)) for c in chats]


async def _sentinel(bot: BotHarness, user: FakeUser) -> None:
    """Something sent after everything else: a later message has been answered."""
    await bot.say(user, "/help")


async def test_an_outage_around_the_prompt_minute_ends_with_every_chat_prompted_once(
    bot: BotHarness, api: FakeBotAPI, caplog: pytest.LogCaptureFixture
) -> None:
    chats = list(range(30001, 30301))  # 300 chats due at 09:30
    for chat_id in chats:
        await subscribe(bot, chat_id, "09:30")
    bot.clock.advance(minutes=30)
    caplog.set_level(logging.INFO)
    # The API goes away (connections refused), the prompts fall due, then the API answers
    # 502 for a while, then recovers: the one-minute outage, on a test's time scale.
    await api.close_port()
    await bot.sender.tick()
    await asyncio.sleep(1.5)
    await api.open_port()
    api.bad_gateway(1.5)
    outcomes = await bot.settle(timeout=60)
    await _sentinel(bot, ADA)
    assert prompts_per_chat(api, chats) == [1] * len(chats)
    assert outcomes["sent"] == len(chats)
    assert api.violations == []
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len([w for w in warnings if "Telegram is not answering" in w]) == 1, warnings
    assert len([w for w in warnings if "Telegram answers again" in w]) == 1, warnings
    assert not [r for r in caplog.records if r.exc_info], "no traceback per failed request"


async def test_an_outage_does_not_burn_retries(bot: BotHarness, api: FakeBotAPI) -> None:
    """While the API is down the sender probes with one request at a time, not every row."""
    chats = list(range(31001, 31101))
    for chat_id in chats:
        await subscribe(bot, chat_id, "09:30")
    bot.clock.advance(minutes=30)
    api.bad_gateway(2.0)
    await bot.sender.tick()
    await bot.settle(timeout=30)
    # With every row retried on its own, 100 rows x (2 s / <=0.4 s backoff) would be 500+;
    # paused, the sender spends a few probes (and the requests out when the pause began).
    assert api.bad_gateways["sendMessage"] < 60
    assert prompts_per_chat(api, chats) == [1] * len(chats)


async def test_prompts_due_during_an_outage_wait_in_the_database_until_it_ends(
    bot: BotHarness, api: FakeBotAPI, caplog: pytest.LogCaptureFixture
) -> None:
    """Sending paused by an outage claims nothing new: prompts that fall due meanwhile stay
    'pending' in the database (safe whatever happens to this process) through the probes,
    and each is sent once Telegram answers again."""
    first = list(range(37001, 37006))  # five sends failed in a row pause sending
    later = list(range(37101, 37121))
    for chat_id in first:
        await subscribe(bot, chat_id, "09:30")
    for chat_id in later:
        await subscribe(bot, chat_id, "09:31")
    caplog.set_level(logging.INFO, logger="bot.jobs.outbox")
    api.bad_gateway(600)
    bot.clock.advance(minutes=30)
    await bot.sender.tick()
    await until(lambda: any("sending paused" in m for m in caplog.messages), 30, "the pause")
    bot.clock.advance(minutes=1)
    await bot.sender.tick()  # the later prompts are written to the outbox, due now
    probes = api.bad_gateways["sendMessage"]
    await until(lambda: api.bad_gateways["sendMessage"] > probes, 30, "a probe after that")
    statuses = await sql(
        bot.settings, "SELECT status, COUNT(*) FROM outbox WHERE chat_id >= 37101 GROUP BY status"
    )
    assert statuses == [("pending", len(later))]
    api.bad_gateway(0)
    await bot.settle(timeout=60)
    await _sentinel(bot, ADA)
    assert prompts_per_chat(api, first + later) == [1] * len(first + later)


async def _due_in_a_hang(bot: BotHarness, api: FakeBotAPI) -> Counter[str]:
    """The 09:30 prompts fall due while the API accepts requests and never answers (each
    times out after 0.5 s); the outcomes once they are settled, then the API answers again."""
    bot.clock.advance(minutes=30)
    bot.app.bot._request[1]._client.timeout.read = 0.5
    api.hang()
    await bot.sender.tick()
    outcomes = await bot.settle(timeout=30)
    api.unhang()
    return outcomes


async def test_a_hang_is_the_only_maybe_and_is_not_resent(
    bot: BotHarness, api: FakeBotAPI, caplog: pytest.LogCaptureFixture
) -> None:
    await subscribe(bot, 32001, "09:30")
    outcomes = await _due_in_a_hang(bot, api)
    assert outcomes["unknown"] == 1
    # The operator is told which message it was, and that it will not be sent again.
    (maybe,) = [m for m in caplog.messages if "may or may not have arrived" in m]
    assert maybe.startswith("daily message ") and "to chat 32001" in maybe
    assert maybe.endswith(": not sent again")
    # Its row keeps why, for whoever looks into it later: Telegram never answered in time.
    ((why,),) = await sql(bot.settings, "SELECT last_error FROM outbox WHERE status = 'unknown'")
    assert why == "Timed out" and f"({why})" in maybe
    assert len(dailies(api, 32001)) == 1  # it had arrived; it is not sent a second time
    bot.clock.advance(minutes=30)
    await bot.tick()
    assert len(dailies(api, 32001)) == 1


async def test_after_a_hang_that_left_nothing_to_retry_later_prompts_still_go_out(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    # The fault sweep's case: enough sends time out in a hang to pause sending for everyone,
    # and each of them is 'unknown' (never sent again), so no row of the pause is left to
    # probe with. Prompts that fall due once the API answers again must still go out.
    hung = list(range(32101, 32109))
    for chat_id in hung:
        await subscribe(bot, chat_id, "09:30")
    later = list(range(32201, 32204))
    for chat_id in later:
        await subscribe(bot, chat_id, "10:00")
    outcomes = await _due_in_a_hang(bot, api)
    assert outcomes["unknown"] == len(hung)
    bot.clock.advance(minutes=30)  # 10:00
    outcomes = await bot.tick()
    assert outcomes.outcomes["sent"] == len(later)
    assert prompts_per_chat(api, later) == [1] * len(later)


async def _blocked_by_the_scheduler(bot: BotHarness, api: FakeBotAPI) -> None:
    api.fail("sendMessage", 403, chat_id=ADA.id)
    bot.clock.advance(hours=1)  # 10:00: the prompt is refused
    assert (await bot.tick()).outcomes["failed"] == 1


async def _blocked_noticed_by_a_handler(bot: BotHarness, api: FakeBotAPI) -> None:
    api.fail("sendMessage", 403, chat_id=ADA.id)
    calls = api.calls["sendMessage"]
    api.message(ADA, "/help")  # the reply is refused: the handler's send notices
    for _ in range(200):
        user = await bot.storage.get_user(ADA.id)
        if user is not None and not user.active:
            break
        await asyncio.sleep(0.02)
    assert api.calls["sendMessage"] == calls + 1  # the refused reply
    bot.clock.advance(hours=1)
    await bot.tick()  # 10:00: not sent to an unreachable chat
    assert api.calls["sendMessage"] == calls + 1


@pytest.mark.parametrize(
    "notice",
    [_blocked_by_the_scheduler, _blocked_noticed_by_a_handler],
    ids=["scheduler-noticed", "handler-noticed"],
)
async def test_after_unblocking_the_daily_question_comes_back_whoever_noticed(
    bot: BotHarness, api: FakeBotAPI, notice: object
) -> None:
    await bot.say(ADA, "/start")
    await bot.say(ADA, "/daily 10:00")
    assert callable(notice)
    await notice(bot, api)
    chat = await bot.storage.get_chat(ADA.id)
    user = await bot.storage.get_user(ADA.id)
    assert chat is not None and user is not None
    assert (chat.active, chat.daily_enabled, user.active) == (False, True, False)
    assert dailies(api, ADA.id) == []
    api.my_chat_member(ADA, ADA.id, "kicked", "member")  # unblocked
    for _ in range(200):
        chat = await bot.storage.get_chat(ADA.id)
        if chat is not None and chat.active:
            break
        await asyncio.sleep(0.02)
    bot.clock.advance(days=1)  # the next day's 10:00
    report = await bot.tick()
    assert report.outcomes["sent"] == 1
    assert len(dailies(api, ADA.id)) == 1


async def _group_with_an_answer(bot: BotHarness, api: FakeBotAPI) -> Sent:
    await bot.storage.ensure_chat(GROUP, "group", "Study group")
    (question,) = await bot.say(ANA, "/quiz beginner", chat_id=GROUP)
    before = len([s for s in api.to(GROUP) if s.method == "setMessageReaction"])
    api.message(
        ANA, "max_batch_size 和 preferred batch size", chat_id=GROUP, reply_to=question.message_id
    )
    for _ in range(250):
        if len([s for s in api.to(GROUP) if s.method == "setMessageReaction"]) > before:
            break
        await asyncio.sleep(0.02)
    return question


async def test_the_ranking_is_posted_after_a_restart_if_it_was_not(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    groups._acks.clear()
    await _group_with_an_answer(bot, api)
    rankings = lambda: [s for s in api.to(GROUP) if "Round closed" in s.visible]  # noqa: E731
    await api.close_port()  # Telegram unreachable when the round closes
    bot.clock.advance(minutes=15)  # past the round's 10 minutes
    await bot.sender.tick()
    round_ = await bot.storage.open_round_of(GROUP)
    assert round_ is None  # closed, and its ranking recorded with the close
    await bot.stop()  # the process goes away before the ranking could be posted
    assert rankings() == []
    await api.open_port()
    await bot.start()
    await bot.settle()
    await _sentinel(bot, ANA)
    assert len(rankings()) == 1 and "🥇 Ana" in rankings()[0].visible


async def test_feedback_is_recorded_with_the_answer(bot: BotHarness, api: FakeBotAPI) -> None:
    groups._acks.clear()
    await bot.say(ANA, "/start")
    await _group_with_an_answer(bot, api)
    await bot.settle()
    private = [s for s in api.to(ANA.id) if "Study group" in s.visible]
    assert len(private) == 1
    statuses = await bot.storage.outbox_statuses()
    assert statuses.get("sent", 0) >= 1 and set(statuses) <= {"sent"}


async def test_a_group_daily_round_records_its_question_message(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    await bot.storage.ensure_chat(GROUP, "group", "Study group")
    schedule = DailySchedule(time(9, 30), Days.EVERY_DAY, "UTC")
    await bot.storage.set_schedule(
        GROUP, enabled=True, at=time(9, 30), days=Days.EVERY_DAY, zone="UTC",
        next_due=next_occurrence(schedule, bot.clock()),
    )  # fmt: skip
    bot.clock.advance(minutes=30)
    api.fail("sendMessage", 502, chat_id=GROUP, times=2)
    assert (await bot.tick()).outcomes["sent"] == 1
    (question,) = [s for s in api.to(GROUP) if s.method == "sendMessage"]
    round_ = await bot.storage.open_round_of(GROUP)
    assert round_ is not None and round_.message_id == question.message_id
    assert Counter(await bot.storage.outbox_statuses()) == Counter(sent=1)


async def test_rows_waiting_in_the_rate_limiter_are_not_in_flight(
    api: FakeBotAPI,
    bot_settings: Settings,
    library: Library,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Only a request that left is 'sending'; after a crash the rest are sent, those not,
    and the next start tells the operator which message that was."""
    slow = bot_settings.model_copy(update={"rate_limit_per_second": 1.0})
    bot = BotHarness(api, slow, library, clock)
    await bot.start()
    chats = list(range(33001, 33006))
    for chat_id in chats:
        await subscribe(bot, chat_id, "09:30")
    bot.clock.advance(minutes=30)
    api.hang()  # what reaches the server is recorded and never answered
    await bot.sender.tick()
    await until(lambda: api.hanging == 1)
    # One request is out (1 a second); four wait their turn in the limiter.
    statuses = await bot.storage.outbox_statuses()
    assert statuses["sending"] == 1
    assert statuses.get("claimed", 0) + statuses.get("pending", 0) == 4
    # The process dies: nothing is handed back (its owner is gone with it).
    outbox = bot.outbox
    for task in outbox._tasks:
        task.cancel()
    await asyncio.gather(*outbox._tasks, return_exceptions=True)
    outbox._tasks, outbox.owner = [], "crashed"
    await bot.stop()
    api.unhang()
    again = BotHarness(api, bot_settings, library, clock)
    caplog.set_level(logging.INFO, logger="bot.jobs.outbox")
    await again.start()
    try:
        await again.settle()  # the four that waited in the limiter are sent now
        assert await again.storage.outbox_statuses() == {"unknown": 1, "sent": 4}
        ((out,),) = await sql(again.settings, "SELECT chat_id FROM outbox WHERE status = 'unknown'")
        told = [m for m in caplog.messages if "may or may not have arrived" in m]
        assert [re.sub(r"message \d+", "message N", m) for m in told] == [
            f"daily message N to chat {out} may or may not have arrived (the previous run"
            " stopped while sending it): not sent again"
        ]
        await _sentinel(again, ADA)
        assert prompts_per_chat(api, chats) == [1] * len(chats)
    finally:
        await again.stop()


async def test_a_stop_tells_the_operator_what_waits_for_the_next_run(
    api: FakeBotAPI,
    bot_settings: Settings,
    library: Library,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Stopped with five prompts due at one a second and Telegram hanging: one request is
    out (recorded as unknown, not sent again), four wait their turn and are handed back."""
    slow = bot_settings.model_copy(update={"rate_limit_per_second": 1.0, "stop_grace_seconds": 0.2})
    bot = BotHarness(api, slow, library, clock)
    await bot.start()
    for chat_id in range(36001, 36006):
        await subscribe(bot, chat_id, "09:30")
    bot.clock.advance(minutes=30)
    api.hang()
    await bot.sender.tick()
    await until(lambda: api.hanging == 1)
    # The four others claimed too (one claim may not take them all, when the tick records
    # them slower than the sender claims): what the stop hands back is then all four.
    for _ in range(1000):
        if await bot.storage.outbox_statuses() == {"claimed": 4, "sending": 1}:
            break
        await asyncio.sleep(0.01)
    caplog.set_level(logging.INFO, logger="bot.jobs.outbox")
    await bot.stop()
    api.unhang()
    assert (
        "outbox stopped: 4 messages wait for the next run (4 handed back now); 1 had their"
        " request out (recorded as unknown, not sent again)"
    ) in caplog.messages


@pytest.mark.parametrize(
    ("fault", "status"),
    [
        # The database refuses for a moment (another process holds the write lock): the
        # outcome is recorded once it takes writes again.
        (sqlite3.OperationalError("database is locked"), "sent"),
        # Anything else after the request left: it may have arrived.
        (RuntimeError("surprise"), "unknown"),
    ],
    ids=["database-locked", "unexpected"],
)
async def test_a_failure_to_record_a_sent_message_never_sends_it_again(
    bot: BotHarness,
    api: FakeBotAPI,
    monkeypatch: pytest.MonkeyPatch,
    fault: Exception,
    status: str,
) -> None:
    await subscribe(bot, 34001, "09:30")
    bot.clock.advance(minutes=30)
    storage = bot.storage
    finish = storage.finish_outbox
    failures = [fault, fault, fault]

    async def failing_finish(*args: Any, **kwargs: Any) -> None:
        if failures and args[2] is Status.SENT:  # Telegram took it; recording it fails
            raise failures.pop()
        await finish(*args, **kwargs)

    monkeypatch.setattr(storage, "finish_outbox", failing_finish)
    await bot.sender.tick()
    await bot.settle()
    await _sentinel(bot, ADA)
    assert len(dailies(api, 34001)) == 1
    assert await storage.outbox_statuses() == {status: 1}


async def test_a_refused_connection_never_puts_a_row_in_flight(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    """A row is in flight from the moment its request is written, not when it tries to
    connect: a crash while Telegram refuses connections leaves nothing 'unknown'."""
    chats = list(range(35001, 35011))
    for chat_id in chats:
        await subscribe(bot, chat_id, "09:30")
    bot.clock.advance(minutes=30)
    await api.close_port()
    await bot.sender.tick()
    await until(lambda: bot.outbox.outcomes["sent"] == 0 and bot.outbox._failures_in_row >= 5)
    await api.open_port()
    await bot.settle(timeout=30)
    await _sentinel(bot, ADA)
    assert prompts_per_chat(api, chats) == [1] * len(chats)
    # Each row went out once: the refused tries were never marked as leaving.
    rows = await bot.storage._all("SELECT attempts FROM outbox WHERE chat_id > 35000")
    assert [r[0] for r in rows] == [1] * len(chats)


class _Died(BaseException):
    """The process dies at this instant (raised where nothing catches it)."""


async def test_a_row_marked_in_flight_whose_body_never_left_is_sent_after_a_crash(
    api: FakeBotAPI, bot_settings: Settings, library: Library, clock: FakeClock
) -> None:
    """The crash lands after the row's in-flight mark and the request's headers, right
    before its body: nothing reached Telegram, so the next run sends it (it is not 'unknown')."""
    bot = BotHarness(api, bot_settings, library, clock)
    await bot.start()
    chats = [36001, 36002]
    for chat_id in chats:
        await subscribe(bot, chat_id, "09:30")
    bot.clock.advance(minutes=30)

    def dies_before_the_body() -> bool:
        raise _Died

    bot.outbox.may_send = dies_before_the_body  # asked right before the body is written
    try:
        await bot.sender.tick()
        dead = lambda: [t for t in bot.outbox._tasks if t.done()]  # noqa: E731
        await until(lambda: len(dead()) == 2)  # the two workers that took a row
        assert all(isinstance(t.exception(), _Died) for t in dead())
        assert await bot.storage.outbox_statuses() == {"sending": 2}  # both marked in flight
        outbox = bot.outbox  # the process is gone: nothing is handed back
        for task in outbox._tasks:
            task.cancel()
        await asyncio.gather(*outbox._tasks, return_exceptions=True)
        outbox._tasks, outbox.owner = [], "crashed"
    finally:
        await bot.stop()
    assert prompts_per_chat(api, chats) == [0, 0]
    again = BotHarness(api, bot_settings, library, clock)
    await again.start()
    try:
        await again.settle()
        assert await again.storage.outbox_statuses() == {"sent": 2}
        await _sentinel(again, ADA)
        assert prompts_per_chat(api, chats) == [1, 1]
    finally:
        await again.stop()


async def test_a_request_leaves_only_while_the_lease_is_surely_held(
    bot: BotHarness, api: FakeBotAPI, caplog: pytest.LogCaptureFixture
) -> None:
    """After a stall longer than the lease, another process may serve the database: until
    the lease is renewed, requests are held back right before their body, and sent after."""
    caplog.set_level(logging.INFO)
    held, asked = [False], [0]

    def may_send() -> bool:
        asked[0] += 1
        return held[0]

    bot.outbox.may_send = may_send
    await subscribe(bot, 36101, "09:30")
    bot.clock.advance(minutes=30)
    await bot.sender.tick()
    await until(lambda: asked[0] >= 2)
    assert dailies(api, 36101) == []  # tried twice, never let out
    # Said once, not once per try.
    assert caplog.text.count("held back: this process's lease may have") == 1
    held[0] = True  # renewed
    await bot.settle()
    await _sentinel(bot, ADA)
    assert len(dailies(api, 36101)) == 1
    assert await bot.storage.outbox_statuses() == {"sent": 1}


async def test_a_token_refused_while_sending_is_logged_with_telegrams_words(
    bot: BotHarness, api: FakeBotAPI, caplog: pytest.LogCaptureFixture
) -> None:
    """A revoked token answers 401 "Unauthorized": the operator's log says so, and which
    message met it, before sending stops."""
    await subscribe(bot, 37001, "09:30")
    bot.clock.advance(minutes=30)
    api.fail("sendMessage", 401, chat_id=37001, description="Unauthorized")
    await bot.sender.tick()
    await until(lambda: "rejected the token" in caplog.text)
    (line,) = [m for m in caplog.messages if "rejected the token" in m]
    assert line.startswith("Telegram rejected the token (Unauthorized) sending daily message")
    assert "to chat 37001: sending stops" in line


async def test_a_prompt_that_meets_one_502_is_sent_again_without_a_traceback(
    bot: BotHarness, api: FakeBotAPI, caplog: pytest.LogCaptureFixture
) -> None:
    """One failed request (no outage: the others go through) is routine: the prompt is
    retried after its backoff, arrives once, and the operator's log holds no traceback."""
    await subscribe(bot, 38001, "09:30")
    bot.clock.advance(minutes=30)
    api.fail("sendMessage", 502, chat_id=38001)
    await bot.sender.tick()
    await bot.settle(timeout=30)
    await _sentinel(bot, ADA)
    assert len(dailies(api, 38001)) == 1
    assert await bot.storage.outbox_statuses() == {"sent": 1}
    assert not [r for r in caplog.records if r.exc_info], "no traceback for one 502"


async def test_a_chat_told_to_wait_waits_even_when_an_outage_pauses_sending(
    bot: BotHarness,
    api: FakeBotAPI,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Telegram tells one chat to wait 5 s (429); while that is being recorded, an outage
    begins and sending pauses for everyone. When Telegram answers again the chat still waits
    out its 5 s: it is not asked again inside them (that would be refused, and a bot that
    keeps knocking is held longer)."""
    caplog.set_level(logging.INFO)
    await subscribe(bot, 39001, "09:30")
    others = list(range(39101, 39106))
    for chat_id in others:
        await subscribe(bot, chat_id, "09:31")
    bot.clock.advance(minutes=30)
    api.fail("sendMessage", 429, chat_id=39001, retry_after=5)
    storage = bot.storage
    record_retry = storage.outbox_retry
    outages: list[str] = []

    async def retry_meeting_an_outage(row_id: int, owner: str, error: str) -> None:
        if "Flood control" in error and not outages:
            outages.append(error)
            api.bad_gateway(2.0)
            bot.clock.advance(minutes=1)
            await bot.sender.tick()  # the 09:31 prompts meet the outage
            await until(lambda: "sending paused" in caplog.text, 10, "the pause")
        await record_retry(row_id, owner, error)

    monkeypatch.setattr(storage, "outbox_retry", retry_meeting_an_outage)
    await bot.sender.tick()
    await until(lambda: outages, 10, "the 429")
    await bot.settle(timeout=30)
    await _sentinel(bot, ADA)
    assert prompts_per_chat(api, [39001, *others]) == [1] * 6
    assert dict(api.floods) == {39001: 1}  # the one 429: nothing knocked inside the wait


async def test_a_prompt_told_to_wait_is_not_lost_by_a_stop_during_the_wait(
    bot: BotHarness, api: FakeBotAPI, caplog: pytest.LogCaptureFixture
) -> None:
    """Telegram tells a chat to wait 6 s (429), and the bot is stopped meanwhile (3 s of
    grace): Telegram took nothing, so the prompt waits for the next run, which sends it."""
    caplog.set_level(logging.INFO)
    await subscribe(bot, 39201, "09:30")
    bot.clock.advance(minutes=30)
    api.fail("sendMessage", 429, chat_id=39201, retry_after=6)
    await bot.sender.tick()
    await until(lambda: api.floods[39201] == 1, 10, "the 429")
    await bot.stop()
    (stopped,) = [m for m in caplog.messages if m.startswith("outbox stopped")]
    assert stopped.endswith("; 0 had their request out (recorded as unknown, not sent again)")
    await bot.start()
    await bot.settle(timeout=30)
    await _sentinel(bot, ADA)
    assert len(dailies(api, 39201)) == 1
    assert await bot.storage.outbox_statuses() == {"sent": 1}
