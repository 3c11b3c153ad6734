"""Replicas on PostgreSQL with long polling: one polls, the others stand by and take over.

Two real `interview-bot run` on one PostgreSQL database, each in its own folder (its own
files) and on its own path of the fake Bot API (`replica_url`), so the server tells whose
getUpdates it is. The active one is killed with kill -9 while an answer it took is still
unanswered (its score held back by a 429), and another answer is sent while nobody polls:
the standby takes over, and each person is scored once, each answer stored once.
"""

from __future__ import annotations

import asyncio
import signal
from collections import Counter
from pathlib import Path

from tests.support.fake_bot_api import FakeBotAPI, FakeUser
from tests.support.run import FAST_RUN, SENDERS, prompts_sent, run_env, start_run
from tests.support.seed import seed_due_subscribers, seed_open_questions
from tests.support.wait import until
from tests.test_inbox_restarts import ANSWER, ENV, QUESTION, WATCHER, _answers_per_user, _scores

LEASE_SECONDS = 10.0
# A bound, not a measurement: the lease, plus a loaded machine's start of the standby's
# polling (its getMe, the database's checks).
TAKEOVER_BOUND = LEASE_SECONDS + 50
WAIT = 120.0


class Replica:
    """One `interview-bot run`, its log lines read as they come."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []
        self._reading = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.process.stderr is not None
        async for line in self.process.stderr:
            self.lines.append(line.decode(errors="replace").rstrip())

    def said(self, words: str) -> list[str]:
        return [line for line in self.lines if words in line]

    async def end(self) -> None:
        if self.process.returncode is None:
            self.process.kill()
        await self.process.wait()
        await self._reading

    @property
    def text(self) -> str:
        return "\n".join(self.lines[-40:])


async def _replica(api: FakeBotAPI, tmp_path: Path, name: str, url: str, **extra: str) -> Replica:
    """Replica `name`: its own folder (its wire log there), its own path on the server."""
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    env = run_env(
        api,
        folder / "bot.sqlite3",
        **{**ENV, **extra},
        DATABASE_URL=url,
        TELEGRAM_API_BASE_URL=api.replica_url(name),
        LEASE_SECONDS=str(LEASE_SECONDS),
    )
    return Replica(await start_run(env, folder))


async def test_one_replica_polls_and_the_standby_takes_over_after_kill_9_answering_once(
    api: FakeBotAPI, tmp_path: Path, postgres_url: str
) -> None:
    users = await seed_open_questions(postgres_url, 2, QUESTION)
    taken, unpolled = users
    loop = asyncio.get_running_loop()
    active = await _replica(api, tmp_path, "a", postgres_url)
    standby: Replica | None = None
    try:
        await until(lambda: api.polls["a"] >= 1, WAIT, "replica a polling")
        standby = await _replica(api, tmp_path, "b", postgres_url)
        await until(lambda: standby.said("standby"), WAIT, "replica b standing by")
        # A later message answered (by a): b, standing by, polled nothing meanwhile.
        api.message(WATCHER, "/help")
        await api.wait_for(WATCHER.id, 1, timeout=WAIT)
        assert api.polls["b"] == 0, standby.text
        assert standby.process.returncode is None, standby.text
        [line] = standby.said("standby")  # said once
        assert f"pid {active.process.pid}" in line, line

        # An answer a takes, whose score Telegram refuses for 10 s: killed meanwhile.
        api.fail("sendMessage", 429, chat_id=taken, retry_after=10)
        api.message(FakeUser(taken, "u"), ANSWER)
        await until(lambda: api.floods[taken] >= 1, WAIT, "a's score refused")
        active.process.kill()
        await active.end()
        killed = loop.time()
        polled_by_a = api.polls["a"]
        api.message(FakeUser(unpolled, "u"), ANSWER)  # nobody polls now
        await until(lambda: api.polls["b"] >= 1, TAKEOVER_BOUND, "replica b polling")
        took = loop.time() - killed
        await until(lambda: set(_scores(api)) == set(users), WAIT, "both scored")
        # A later message answered: no second score on its way.
        api.message(WATCHER, "/help")
        await api.wait_for(WATCHER.id, 2, timeout=WAIT)
        standby.process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(standby.process.wait(), 30)
    finally:
        await active.end()
        if standby is not None:
            await standby.end()
    print(f"replica b polled {took:.1f} s after a was killed (LEASE_SECONDS={LEASE_SECONDS:g})")
    assert standby.process.returncode == 0, standby.text
    assert api.polls["a"] == polled_by_a  # a dead replica polls nothing
    assert standby.said("standby over"), standby.text
    assert _scores(api) == Counter({taken: 1, unpolled: 1})
    answers = await _answers_per_user(postgres_url)
    assert [answers[u] for u in users] == [1, 1]  # none lost, none stored twice


async def test_a_stalled_active_is_taken_over_when_its_lease_runs_out_and_then_exits_6(
    api: FakeBotAPI, tmp_path: Path, postgres_url: str
) -> None:
    # SIGSTOP: the process is still there (its pid, its connections: a machine gone dark or
    # cut off looks so), so only the lease's expiry can say it is gone.
    [user] = await seed_open_questions(postgres_url, 1, QUESTION)
    loop = asyncio.get_running_loop()
    active = await _replica(api, tmp_path, "a", postgres_url)
    standby: Replica | None = None
    try:
        await until(lambda: api.polls["a"] >= 1, WAIT, "replica a polling")
        standby = await _replica(api, tmp_path, "b", postgres_url)
        await until(lambda: standby.said("standby"), WAIT, "replica b standing by")
        active.process.send_signal(signal.SIGSTOP)
        stalled = loop.time()
        api.message(FakeUser(user, "u"), ANSWER)
        await until(lambda: api.polls["b"] >= 1, TAKEOVER_BOUND, "replica b polling")
        took = loop.time() - stalled
        await until(lambda: _scores(api)[user] >= 1, WAIT, "the answer scored")
        polled_before = api.polls["a"]
        active.process.send_signal(signal.SIGCONT)
        await asyncio.wait_for(active.process.wait(), WAIT)
        polled_after = api.polls["a"] - polled_before
        # A later message answered by b: nothing else on its way.
        api.message(WATCHER, "/help")
        await api.wait_for(WATCHER.id, 1, timeout=WAIT)
        standby.process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(standby.process.wait(), 30)
    finally:
        if active.process.returncode is None:
            active.process.send_signal(signal.SIGCONT)
        await active.end()
        if standby is not None:
            await standby.end()
    print(f"replica b polled {took:.1f} s after a stalled (LEASE_SECONDS={LEASE_SECONDS:g})")
    assert active.process.returncode == 6, active.text
    assert active.said(f"pid {standby.process.pid}"), active.text  # who took it over
    assert polled_after == 0  # resumed, it took nothing from the active one
    assert standby.process.returncode == 0, standby.text
    assert _scores(api) == Counter({user: 1})
    assert (await _answers_per_user(postgres_url))[user] == 1


async def test_a_takeover_sends_none_of_the_requests_the_dead_active_had_out_again(
    api: FakeBotAPI, tmp_path: Path, postgres_url: str
) -> None:
    # b was the active replica once: its wire log (in its own folder) is of that run, and
    # says nothing of the requests a had out when it died.
    earlier = await _replica(api, tmp_path, "b", postgres_url, **FAST_RUN)
    try:
        await until(lambda: api.polls["b"] >= 1, WAIT, "replica b polling alone")
        earlier.process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(earlier.process.wait(), 30)
    finally:
        await earlier.end()
    assert earlier.process.returncode == 0, earlier.text
    chats = await seed_due_subscribers(postgres_url, 100)
    api.hang()  # a's requests reach the server and get no answer
    active = await _replica(api, tmp_path, "a", postgres_url, **FAST_RUN)
    standby: Replica | None = None
    try:
        await until(lambda: api.hanging == SENDERS, WAIT, "every worker of a with a request out")
        standby = await _replica(api, tmp_path, "b", postgres_url, **FAST_RUN)
        await until(lambda: standby.said("standby"), WAIT, "replica b standing by")
        active.process.kill()
        await active.end()
        api.unhang()
        await until(lambda: len(prompts_sent(api)) == len(chats), WAIT, "every chat prompted")
        # A later message answered: anything sent before it has reached the server.
        api.message(WATCHER, "/help")
        await api.wait_for(WATCHER.id, 1, timeout=WAIT)
        standby.process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(standby.process.wait(), 30)
    finally:
        await active.end()
        if standby is not None:
            await standby.end()
    assert standby.process.returncode == 0, standby.text
    per_chat = prompts_sent(api)
    assert [per_chat[c] for c in chats] == [1] * len(chats), per_chat.most_common(3)
    # What a had out when it died may have arrived: not sent again, each said once.
    assert len(standby.said("may or may not have arrived")) == SENDERS, standby.text


async def test_sigterm_stops_a_standby_at_once_having_polled_and_sent_nothing(
    api: FakeBotAPI, tmp_path: Path, postgres_url: str
) -> None:
    active = await _replica(api, tmp_path, "a", postgres_url)
    standby: Replica | None = None
    try:
        await until(lambda: api.polls["a"] >= 1, WAIT, "replica a polling")
        standby = await _replica(api, tmp_path, "b", postgres_url)
        await until(lambda: standby.said("standby"), WAIT, "replica b standing by")
        standby.process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(standby.process.wait(), 30)
        # A later message answered by a: it still serves.
        api.message(WATCHER, "/help")
        await api.wait_for(WATCHER.id, 1, timeout=WAIT)
        active.process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(active.process.wait(), 30)
    finally:
        await active.end()
        if standby is not None:
            await standby.end()
    assert standby.process.returncode == 0, standby.text
    assert standby.said("stopped while standing by"), standby.text
    assert "Traceback" not in standby.text, standby.text
    assert api.polls["b"] == 0
    assert active.process.returncode == 0, active.text
