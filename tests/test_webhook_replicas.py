"""Replicas on PostgreSQL in webhook mode: every one takes updates and sends what is owed.

Two real `interview-bot run` on one PostgreSQL database, each with its own listener, its own
folder (its wire log there) and its own path on the fake Bot API (`replica_url`), so the
server tells whose requests it took. Answers are posted to either replica, each one again
to the other (Telegram retrying it elsewhere): scored and stored once. Then 2,000
subscribers fall due, and the replica that runs the scheduler is killed with kill -9 in the
middle of the fan-out: every chat gets its prompt once, or the survivor reports it as one
that may have arrived (its request was out at the kill); none gets it twice, and both
replicas sent part of it.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections import Counter
from pathlib import Path

from bot.storage import Storage
from tests.support.fake_bot_api import FakeBotAPI
from tests.support.run import FAST_RUN, SENDERS, free_port, prompts_sent, run_env, start_run
from tests.support.seed import seed_due_subscribers, seed_open_questions
from tests.support.wait import until
from tests.test_inbox_restarts import (
    QUESTION,
    WATCHER,
    _answer_update,
    _scores,
)
from tests.test_replicas import Replica
from tests.test_webhook import SECRET, exchange, post_head

CHATS = int(os.environ.get("REPLICA_CHATS", "2000"))  # subscribers due in the fan-out
ANSWERERS = 20
LEASE_SECONDS = 5.0
WAIT = 240.0  # a bound for a loaded 2-core machine, not a measurement


async def _healthy(port: int, replica: Replica) -> None:
    async def answers() -> bool:
        try:
            return await exchange(port, f"GET /healthz HTTP/1.1\r\nHost: x:{port}\r\n") == 200
        except OSError:
            return False

    loop = asyncio.get_running_loop()
    end = loop.time() + WAIT
    while not await answers():
        assert replica.process.returncode is None, replica.text
        assert loop.time() < end, f"the webhook listener never became healthy\n{replica.text}"
        await asyncio.sleep(0.2)


async def _replica(api: FakeBotAPI, tmp_path: Path, name: str, url: str, port: int) -> Replica:
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    env = run_env(
        api, folder / "bot.sqlite3", **FAST_RUN,
        DATABASE_URL=url, TELEGRAM_API_BASE_URL=api.replica_url(name),
        LEASE_SECONDS=str(LEASE_SECONDS),
        TELEGRAM_WEBHOOK_URL=f"http://127.0.0.1:{port}/telegram",
        WEBHOOK_LISTEN="127.0.0.1", WEBHOOK_PORT=str(port), WEBHOOK_SECRET_TOKEN=SECRET,
    )  # fmt: skip
    replica = Replica(await start_run(env, folder))
    await _healthy(port, replica)
    return replica


async def _post(port: int, update: dict[str, object]) -> int | None:
    body = json.dumps(update).encode()
    return await exchange(port, post_head(port, len(body)), body)


def _help(update_id: int) -> dict[str, object]:
    update = _answer_update(update_id, WATCHER.id)
    update["message"] |= {  # type: ignore[operator]
        "text": "/help", "entities": [{"type": "bot_command", "offset": 0, "length": 5}],
    }  # fmt: skip
    return update


async def _rows(url: str, sql: str) -> list[tuple[int, ...]]:
    storage = Storage.at(url)
    await storage.open()
    try:
        return [tuple(r) for r in await storage._all(sql)]
    finally:
        await storage.close()


async def _unknown_chats(url: str) -> set[int]:
    return {r[0] for r in await _rows(url, "SELECT chat_id FROM outbox WHERE status = 'unknown'")}


async def test_two_webhook_replicas_share_the_fan_out_and_a_kill_9_sends_no_prompt_twice(
    api: FakeBotAPI, tmp_path: Path, postgres_url: str
) -> None:
    users = await seed_open_questions(postgres_url, ANSWERERS, QUESTION)
    ports = {"a": free_port(), "b": free_port()}
    a = await _replica(api, tmp_path, "a", postgres_url, ports["a"])  # the scheduler's
    b: Replica | None = None
    try:
        b = await _replica(api, tmp_path, "b", postgres_url, ports["b"])
        # Each keeps to half of the limits (FAST_RUN's 300 a second) while both are live.
        await until(lambda: a.said("replicas sending: 2"), WAIT, "a sharing the limits")
        assert b.said("replicas sending: 2; this one keeps to 150 messages/s"), b.text
        # Each answer posted to one replica, then again to the other (a retry).
        for update_id, user in enumerate(users, start=1):
            first, other = ("a", "b") if update_id % 2 else ("b", "a")
            assert await _post(ports[first], _answer_update(update_id, user)) == 200
            assert await _post(ports[other], _answer_update(update_id, user)) == 200
        await until(lambda: set(_scores(api)) == set(users), WAIT, "every answer scored")
        # A later message answered: no second score on its way.
        assert await _post(ports["b"], _help(10_000)) == 200
        await api.wait_for(WATCHER.id, 1, timeout=WAIT)
        scores = _scores(api)

        before = dict(api.sends_by)
        api.latency = 0.05  # each replica has requests out at any moment of the fan-out
        chats = await seed_due_subscribers(postgres_url, CHATS)

        def prompted() -> set[int]:
            return set(prompts_sent(api)) & set(chats)  # the answerers' scores left out

        def sent_by(name: str) -> int:
            return api.sends_by[name] - before.get(name, 0)

        await until(
            lambda: len(prompted()) >= CHATS // 4 and sent_by("a") and sent_by("b"),
            WAIT,
            "a quarter of the fan-out sent, by both replicas",
        )
        a.process.kill()
        await a.end()
        at_kill = len(prompted())
        by_a, by_b = sent_by("a"), sent_by("b")

        async def settled() -> bool:
            return len(prompted() | await _unknown_chats(postgres_url)) >= CHATS

        loop = asyncio.get_running_loop()
        end = loop.time() + WAIT
        while not await settled():
            assert b.process.returncode is None, b.text
            assert loop.time() < end, f"{len(prompted())} of {CHATS} prompted\n{b.text}"
            await asyncio.sleep(0.5)
        # Alone now, b keeps to the whole of the limits again.
        await until(lambda: b.said("replicas sending: 1"), WAIT, "b alone")
        # A later message answered by b: anything sent before it has reached the server.
        assert await _post(ports["b"], _help(10_001)) == 200
        await api.wait_for(WATCHER.id, 2, timeout=WAIT)
        b.process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(b.process.wait(), 60)
    finally:
        await a.end()
        if b is not None:
            await b.end()
    assert b.process.returncode == 0, b.text
    print(
        f"{CHATS} prompts: {at_kill} out at the kill ({by_a} sent by a, {by_b} by b);"
        f" {len(await _unknown_chats(postgres_url))} may have arrived"
    )
    assert 0 < at_kill < CHATS
    assert by_a > 0 and by_b > 0  # both replicas sent part of it
    per_chat = Counter({c: n for c, n in prompts_sent(api).items() if c in set(chats)})
    assert per_chat.most_common(1)[0][1] == 1  # none twice
    unknown = await _unknown_chats(postgres_url)
    never = set(chats) - set(per_chat)
    assert never <= unknown  # one not prompted was in flight at the kill: reported
    assert set(per_chat) | unknown == set(chats)
    assert len(unknown) <= SENDERS
    assert len(b.said("may or may not have arrived")) == len(unknown), b.text
    assert scores == Counter({u: 1 for u in users})
    answers = Counter(
        dict(await _rows(postgres_url, "SELECT user_id, COUNT(*) FROM answers GROUP BY user_id"))
    )
    assert answers == Counter({u: 1 for u in users})  # each stored once


async def test_an_answer_a_killed_replica_had_in_hand_is_handled_by_the_other_once(
    api: FakeBotAPI, tmp_path: Path, postgres_url: str
) -> None:
    # Telegram never posts an update again once a replica answered 200: what that replica
    # took and had not finished when it died is the survivors' to handle.
    [user] = await seed_open_questions(postgres_url, 1, QUESTION)
    ports = {"a": free_port(), "b": free_port()}
    a = await _replica(api, tmp_path, "a", postgres_url, ports["a"])
    b: Replica | None = None
    try:
        b = await _replica(api, tmp_path, "b", postgres_url, ports["b"])
        api.fail("sendMessage", 429, chat_id=user, retry_after=10)  # a's score held back
        assert await _post(ports["a"], _answer_update(1, user)) == 200
        await until(lambda: api.floods[user] >= 1, WAIT, "a's score refused")
        a.process.kill()
        await a.end()
        await until(lambda: _scores(api)[user] >= 1, WAIT, "the answer scored by b")
        # A later message answered by b: no second score on its way.
        assert await _post(ports["b"], _help(10_000)) == 200
        await api.wait_for(WATCHER.id, 1, timeout=WAIT)
        b.process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(b.process.wait(), 60)
    finally:
        await a.end()
        if b is not None:
            await b.end()
    assert b.process.returncode == 0, b.text
    assert _scores(api) == Counter({user: 1})
    answers = await _rows(postgres_url, "SELECT user_id, COUNT(*) FROM answers GROUP BY user_id")
    assert answers == [(user, 1)]  # stored once
