"""PostgreSQL stopped under the real `interview-bot run` (a restart, a failover, the server
stopped for a while), then started again: an answer that arrives meanwhile is scored once
the server is back, and nothing is lost, as with a SQLite file locked by another process.

The server is the session's (tests/support/postgres.py), stopped with `pg_ctl stop -m
fast` (every connection dropped, as a restart does) and started again on the same port.
"""

from __future__ import annotations

import asyncio
import signal
from collections import Counter
from pathlib import Path

import asyncpg
import pytest

from bot.storage import Storage
from tests.support.fake_bot_api import FakeBotAPI, FakeUser
from tests.support.postgres import PostgresServer
from tests.support.run import FAST_RUN, run_env, start_run
from tests.support.seed import seed_open_questions
from tests.support.wait import until

QUESTION = "triton-q1"
ANSWER = "Triton serves models from many frameworks with dynamic batching and a model repository"
PEOPLE = 3
WATCHER = FakeUser(999_999, "Sentinel")
WAIT = 120.0  # a bound, not a measurement: the machine is shared


def _scores(api: FakeBotAPI) -> Counter[int]:
    return Counter(
        s.chat_id
        for s in api.sent
        if s.method == "sendMessage" and s.chat_id > 60_000 and "Score:" in s.visible
    )


async def _answers(url: str) -> Counter[int]:
    storage = Storage.at(url)
    await storage.open()
    try:
        rows = await storage._all("SELECT user_id, COUNT(*) FROM answers GROUP BY user_id")
    finally:
        await storage.close()
    return Counter({int(user): int(count) for user, count in rows})


@pytest.mark.parametrize(
    "down",
    [3.0, 20.0],
    ids=["back-within-the-busy-timeout", "down-past-the-busy-timeout"],
)
async def test_answers_sent_while_postgresql_is_down_are_scored_once_it_is_back(
    api: FakeBotAPI,
    tmp_path: Path,
    postgres_url: str,
    postgres_server: PostgresServer,
    down: float,
) -> None:
    # 3 s: the writes wait for the server (BUSY_TIMEOUT_MS, 15 s) and go through. 20 s:
    # past that wait the inbox cannot record the answers; they stay with Telegram (not
    # confirmed) and are fetched again once the server is back.
    users = await seed_open_questions(postgres_url, PEOPLE, QUESTION)
    env = run_env(api, tmp_path / "bot.sqlite3", **FAST_RUN, DATABASE_URL=postgres_url)
    process = await start_run(env, tmp_path)
    try:
        await until(lambda: api.calls["getUpdates"] >= 1, 60, "the first poll")
        await asyncio.to_thread(postgres_server.pause)
        try:
            for user_id in users:
                api.message(FakeUser(user_id, "u"), ANSWER)
            await asyncio.sleep(down)  # the outage's length, not a wait for the bot
        finally:
            await asyncio.to_thread(postgres_server.resume)
        await until(lambda: len(_scores(api)) == PEOPLE, WAIT, "everyone's score")
        before = len(api.to(WATCHER.id))  # a later message answered: nothing else on its way
        api.message(WATCHER, "/help")
        await api.wait_for(WATCHER.id, before + 1, timeout=WAIT)
        assert process.returncode is None, "the run stopped during the outage"
        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), 30)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    log = stderr.decode()
    assert process.returncode == 0, log[-3000:]
    assert _scores(api) == Counter(dict.fromkeys(users, 1)), "a score missing or sent twice"
    for user_id in users:  # the score, nothing else: no apology, no "send it again"
        (only,) = api.to(user_id)
        assert only.visible.startswith("Score: "), only.visible
    assert await _answers(postgres_url) == Counter(dict.fromkeys(users, 1))


BUSY = (
    "⏳ I am busy saving other work and could not save that. Nothing was recorded; please"
    " send it again in a minute."
)


async def _waiting_on_a_lock(locker: asyncpg.Connection) -> bool:
    waiting = await locker.fetchval(
        "SELECT COUNT(*) FROM pg_stat_activity"
        " WHERE wait_event_type = 'Lock' AND datname = current_database()"
    )
    return bool(waiting)


async def test_an_answer_whose_write_the_restart_cut_off_is_refused_and_can_be_sent_again(
    api: FakeBotAPI, tmp_path: Path, postgres_url: str, postgres_server: PostgresServer
) -> None:
    """The restart lands in the middle of the answer's write (recorded in the inbox, the
    question closed, the answer not yet inserted): as on a SQLite file locked past its busy
    timeout, the person is told nothing was recorded, nothing of the write stays (the
    question is still open), and the answer sent again once the server is back is scored."""
    (user_id,) = await seed_open_questions(postgres_url, 1, QUESTION)
    person = FakeUser(user_id, "u")
    env = run_env(api, tmp_path / "bot.sqlite3", **FAST_RUN, DATABASE_URL=postgres_url)
    process = await start_run(env, tmp_path)
    try:
        await until(lambda: api.calls["getUpdates"] >= 1, 60, "the first poll")
        # Another session holds inserts into `answers` back, so the restart finds the write
        # half done; the fast shutdown ends that session too.
        locker = await asyncpg.connect(postgres_url)
        try:
            await locker.execute("BEGIN; LOCK TABLE answers IN SHARE MODE")
            api.message(person, ANSWER)
            loop = asyncio.get_running_loop()
            deadline = loop.time() + WAIT
            while not await _waiting_on_a_lock(locker):
                if loop.time() > deadline or process.returncode is not None:
                    process.kill()
                    _, stderr = await process.communicate()
                    raise AssertionError(
                        "the answer's write never reached the lock:\n" + stderr.decode()[-4000:]
                    )
                await asyncio.sleep(0.05)
            await asyncio.to_thread(postgres_server.pause)
        finally:
            locker.terminate()
        try:
            (told,) = await api.wait_for(user_id, 1, timeout=WAIT)
        finally:
            await asyncio.to_thread(postgres_server.resume)
        api.message(person, ANSWER)  # sent again, as the message asks
        (_, scored) = await api.wait_for(user_id, 2, timeout=WAIT)
        assert scored.visible.startswith("Score: "), scored.visible
        before = len(api.to(WATCHER.id))
        api.message(WATCHER, "/help")
        await api.wait_for(WATCHER.id, before + 1, timeout=WAIT)
        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), 30)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    log = stderr.decode()
    assert process.returncode == 0, log[-3000:]
    assert told.visible == BUSY, log[-6000:]
    # The operator's log says why, in one line: not a traceback, not "locked".
    assert (
        f"database busy or out of reach: not stored (update 1, chat {user_id}, user {user_id}):"
        " PostgreSQL cannot be reached: " in log
    )
    assert len(api.to(user_id)) == 2  # told once, scored once
    assert await _answers(postgres_url) == Counter({user_id: 1})


class CommitAnswerLost:
    """A TCP proxy in front of PostgreSQL that loses the server's answer to the COMMIT of
    the first transaction inserting into `answers`: the server has committed it, and the
    bot's connection ends before it hears so (a network cut at that moment)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.dropped = asyncio.Event()
        self._server: asyncio.Server | None = None

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._client, "127.0.0.1", 0)
        return int(self._server.sockets[0].getsockname()[1])

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.port)
        state = {"inserting": False, "committing": False}

        async def upstream() -> None:
            while data := await reader.read(65536):
                if not self.dropped.is_set() and b"INSERT INTO answers" in data:
                    state["inserting"] = True
                if state["inserting"] and b"COMMIT" in data:
                    state["committing"] = True
                up_writer.write(data)
                await up_writer.drain()

        async def downstream() -> None:
            while data := await up_reader.read(65536):
                if state["committing"] and not self.dropped.is_set():
                    self.dropped.set()  # the server's CommandComplete: committed, not told
                    return
                writer.write(data)
                await writer.drain()

        pumps = [asyncio.create_task(upstream()), asyncio.create_task(downstream())]
        try:
            await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for pump in pumps:
                pump.cancel()
            writer.close()
            up_writer.close()


async def test_an_answer_whose_commit_landed_but_whose_reply_was_lost_is_scored(
    api: FakeBotAPI, tmp_path: Path, postgres_url: str, postgres_server: PostgresServer
) -> None:
    """The answer's COMMIT reached the server and the connection was cut before its answer
    came back: the answer is stored, so the person gets their score, not "nothing was
    recorded; send it again" (their question is closed: sent again, it would find none)."""
    (user_id,) = await seed_open_questions(postgres_url, 1, QUESTION)
    proxy = CommitAnswerLost(postgres_server.port)
    port = await proxy.start()
    through = postgres_url.replace(f":{postgres_server.port}/", f":{port}/")
    env = run_env(api, tmp_path / "bot.sqlite3", **FAST_RUN, DATABASE_URL=through)
    process = await start_run(env, tmp_path)
    try:
        await until(lambda: api.calls["getUpdates"] >= 1, 60, "the first poll")
        api.message(FakeUser(user_id, "u"), ANSWER)
        await asyncio.wait_for(proxy.dropped.wait(), WAIT)
        (reply,) = await api.wait_for(user_id, 1, timeout=WAIT)
        before = len(api.to(WATCHER.id))
        api.message(WATCHER, "/help")
        await api.wait_for(WATCHER.id, before + 1, timeout=WAIT)
        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), 30)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        await proxy.stop()
    log = stderr.decode()
    assert process.returncode == 0, log[-3000:]
    assert reply.visible.startswith("Score: "), reply.visible
    assert len(api.to(user_id)) == 1
    assert await _answers(postgres_url) == Counter({user_id: 1})
