"""Shared fixtures: the real content library and question lookups."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from bot.core import yamlcache
from bot.core.content import Library, Question, load_library

# Property tests draw the same examples on every run (seeded from each test), as every other
# random choice in the tests is seeded: a run that fails fails again, and CI does not pass or
# fail by luck. A counterexample found once is kept as an @example beside its test.
settings.register_profile("seeded", derandomize=True, database=None)
settings.load_profile("seeded")

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content"
# A copy of shared/seeds/000_d8bd3570adfa3e3b.txt: the guide content/triton.yaml was built from.
SEED = ROOT / "tests" / "data" / "triton_seed.txt"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked `sqlite_only` (they check SQLite's own mechanism: its database thread,
    its read connection) are not run on PostgreSQL; see `database_target`.

    Under mutmut, a mutant's tests run fastest first (by the timings of its coverage run).

    mutmut stops at a mutant's first failing test (-x) but hands its tests over as a set, so
    a killed mutant often waited for slow flow tests before the quick one that kills it.
    Outside a mutant's run (no MUTANT_UNDER_TEST naming one), the order is left alone.
    """
    elsewhere = [
        item
        for item in items
        if item.get_closest_marker("sqlite_only")
        and getattr(item, "callspec", None) is not None
        and item.callspec.params.get("database_target") == "postgresql"  # type: ignore[attr-defined]
    ]
    if elsewhere:
        config.hook.pytest_deselected(items=elsewhere)
        items[:] = [item for item in items if item not in elsewhere]
    if "__mutmut_" not in os.environ.get("MUTANT_UNDER_TEST", ""):
        return
    try:
        durations = json.loads(Path("mutmut-stats.json").read_text())["duration_by_test"]
    except (OSError, ValueError, KeyError):
        return
    items.sort(key=lambda item: durations.get(item.nodeid, float("inf")))


@pytest.fixture(scope="session")
def library() -> Library:
    return load_library([CONTENT])


@pytest.fixture(scope="session")
def flow_content(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What the flow tests run on: the Triton pack alone (their answers are written for its
    questions, and a pool of one pack keeps "until triton-q3 comes up" short), with the real
    strings, glossary and font."""
    folder = tmp_path_factory.mktemp("content")
    for name in ("triton.yaml", "strings", "glossary", "fonts"):
        (folder / name).symlink_to(CONTENT / name)
    return folder


@pytest.fixture(scope="session")
def flow_library(flow_content: Path) -> Library:
    return load_library([flow_content])


@pytest.fixture(scope="session")
def q(library: Library):  # type: ignore[no-untyped-def]
    def get(question_id: str) -> Question:
        question = library.question(question_id)
        assert question is not None, question_id
        return question

    return get


# -- flow tests: the real Application against the fake Bot API server ------------------------

import asyncio  # noqa: E402
import random  # noqa: E402
from collections import Counter  # noqa: E402
from collections.abc import AsyncIterator, Iterator  # noqa: E402
from contextlib import AsyncExitStack  # noqa: E402
from datetime import UTC, datetime, timedelta  # noqa: E402

from bot.app import build_application, running  # noqa: E402
from bot.config import Settings  # noqa: E402
from bot.jobs.daily import DailySender, TickReport  # noqa: E402
from bot.jobs.outbox import OutboxSender  # noqa: E402
from bot.services.practice import Practice  # noqa: E402
from bot.storage import Storage  # noqa: E402
from tests.support.fake_bot_api import FakeBotAPI, FakeUser, Sent  # noqa: E402
from tests.support.postgres import REQUIRED, NoPostgres, PostgresServer, start_server  # noqa: E402


class FakeClock:
    """An injectable clock the tests move by hand."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
async def api() -> AsyncIterator[FakeBotAPI]:
    server = FakeBotAPI()
    await server.start()
    yield server
    await server.stop()
    # Every message the bot sent in the test was valid for Telegram.
    assert server.violations == []


class BotHarness:
    """The bot running against `api`, with helpers to talk to it as users do."""

    def __init__(
        self,
        api: FakeBotAPI,
        settings: Settings,
        library: Library,
        clock: FakeClock,
        *,
        chosen: tuple[str, ...] = ("triton",),
    ):
        self.api = api
        self.settings = settings
        self.library = library
        self.clock = clock
        # The packs every chat has chosen (see `_chosen_by_everyone`); () for none.
        self.chosen = tuple(p for p in chosen if p in library.offered)
        self._stack: AsyncExitStack | None = None
        self.app: Any = None

    async def start(self) -> None:
        # Seeded: which question comes up is the same in every run.
        self.app = build_application(
            self.settings,
            self.library,
            clock=self.clock,
            max_retries=3,
            scheduler=False,
            rng=random.Random(20260302),
        )
        if self.chosen:
            _chosen_by_everyone(self.storage, self.chosen)
        self._stack = AsyncExitStack()
        await self._stack.enter_async_context(running(self.app, poll_timeout=1))
        await self.app.bot_data["menus"]  # registered beside polling: done before the test

    async def stop(self) -> None:
        if self._stack is not None:
            await self._stack.aclose()
            self._stack = None

    async def restart(self) -> None:
        await self.stop()
        await self.start()

    @property
    def sender(self) -> DailySender:
        sender = self.app.bot_data["daily_sender"]
        assert isinstance(sender, DailySender)
        return sender

    @property
    def outbox(self) -> OutboxSender:
        outbox = self.app.bot_data["outbox"]
        assert isinstance(outbox, OutboxSender)
        return outbox

    async def settle(
        self,
        timeout: float = 20.0,  # noqa: ASYNC109
        before: Counter[str] | None = None,
    ) -> Counter[str]:
        """Wait until the outbox holds nothing open; the outcomes recorded since `before`."""
        before = Counter(self.outbox.outcomes) if before is None else before
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while await self.storage.outbox_open_count():
            if loop.time() > deadline:
                raise AssertionError(f"outbox still open: {await self.storage.outbox_statuses()}")
            await asyncio.sleep(0.01)
        async with self.storage._write_lock:
            pass
        return self.outbox.outcomes - before

    async def tick(self) -> TickReport:
        """One scheduler tick, then everything it recorded delivered (or given up)."""
        before = Counter(self.outbox.outcomes)
        report = await self.sender.tick()
        report.outcomes.update(await self.settle(before=before))
        return report

    @property
    def storage(self) -> Storage:
        storage = self.app.bot_data["services"].storage
        assert isinstance(storage, Storage)
        return storage

    async def say(
        self, user: FakeUser, text: str, *, expect: int = 1, chat_id: int | None = None, **kw: Any
    ) -> list[Sent]:
        """Send a message as `user`; wait for `expect` new messages in that chat."""
        chat = user.id if chat_id is None else chat_id
        before = len(self.api.to(chat))
        self.api.message(user, text, chat_id=chat_id, **kw)
        return (await self.api.wait_for(chat, before + expect))[before:]

    async def open_shared(self, user: FakeUser, question_id: str) -> Sent:
        """Open a question by its share link (no chance involved); the question message.

        A user who never answered gets the welcome first, anyone else the question alone.
        With another question open, the link shows that one with a choice: the user taps
        to switch to the shared one.
        """
        before = len(self.api.to(user.id))
        self.api.message(user, f"/start q_{question_id}")
        for count in range(before + 1, before + 4):
            sent = (await self.api.wait_for(user.id, count))[before:]
            asked = [m for m in sent if any(d.startswith("hint:") for _, d in m.buttons)]
            if asked:
                return asked[-1]
            switch = [d for m in sent for _, d in m.buttons if d.startswith("switch:")]
            if switch:
                choice = next(m for m in sent if any(d == switch[0] for _, d in m.buttons))
                sent = await self.press(user, choice, switch[0], expect=2)
                return sent[-1]
        raise AssertionError(f"question {question_id} was not opened: {[m.visible for m in sent]}")

    async def sentinel(self, user: FakeUser, chat_id: int | None = None) -> list[Sent]:
        """Send a last message and wait for its reply; return what came before that reply.

        Updates of one chat are handled one at a time in order, so once the sentinel is
        answered every earlier message of the chat was handled: a check that nothing was
        sent waits for the bot instead of sleeping and hoping. What those messages recorded
        in the outbox (a round's results) is delivered first, and counts as before.
        """
        chat = user.id if chat_id is None else chat_id
        marker = f"sentinel-{len(self.api.sent)}"
        self.api.message(user, f"/daily {marker}", chat_id=chat_id)
        for _ in range(100):
            sent = self.api.to(chat)
            for message in sent:
                if marker in message.visible:
                    await self.settle()
                    return [m for m in self.api.to(chat) if marker not in m.visible]
            await self.api.wait_for(chat, len(sent) + 1)
        raise AssertionError("the sentinel was never answered")

    async def press(
        self, user: FakeUser, message: Sent, data: str, *, expect: int = 1
    ) -> list[Sent]:
        before = len(self.api.to(message.chat_id))
        self.api.callback(user, data, message)
        return (await self.api.wait_for(message.chat_id, before + expect))[before:]


def _chosen_by_everyone(storage: Storage, packs: tuple[str, ...]) -> None:
    """Every chat that follows no pack reads as following `packs`: the flow tests' users,
    English speakers most of them, have chosen the Chinese Triton pack their answers are
    written for (as its link or /packs would record), not been handed it. The tests of
    choosing packs (test_choosing_packs.py) build their harness with `chosen=()`."""
    real = storage.followed_packs

    async def followed(chat_id: int) -> list[str]:
        return await real(chat_id) or list(packs)

    storage.followed_packs = followed  # type: ignore[method-assign]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))


# -- the two backends: SQLite (a file) and PostgreSQL (a real server, tests/support/postgres.py)

BACKENDS = ("sqlite", "postgresql")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One PostgreSQL server for the session; skipped (failed under REQUIRE_POSTGRES=1) when
    this machine has none."""
    try:
        server = start_server()
    except NoPostgres as exc:
        if os.environ.get(REQUIRED) == "1":
            pytest.fail(f"{REQUIRED}=1 but PostgreSQL cannot run here: {exc}", pytrace=False)
        pytest.skip(f"PostgreSQL tests skipped: {exc}")
    yield server
    server.stop()


@pytest.fixture
async def postgres_url(postgres_server: PostgresServer) -> AsyncIterator[str]:
    """A fresh, empty database on the session's server, dropped after the test."""
    url = await postgres_server.create_database()
    yield url
    await postgres_server.drop_database(url)


@pytest.fixture(params=BACKENDS)
def database_target(request: pytest.FixtureRequest, tmp_path: Path) -> str | Path:
    """Where a test's database lives, on each backend: a file, or a PostgreSQL URL."""
    if request.param == "postgresql":
        return str(request.getfixturevalue("postgres_url"))
    return tmp_path / "bot.sqlite3"


@pytest.fixture
async def storage(database_target: str | Path) -> AsyncIterator[Storage]:
    """An opened, empty database (a file in the test's own directory, or PostgreSQL)."""
    store = Storage.at(database_target)
    await store.open()
    yield store
    await store.close()


@pytest.fixture
async def practice(database_target: str | Path, library: Library) -> AsyncIterator[Practice]:
    """The practice steps on a fresh database, at the clock's Monday 09:00, choices seeded."""
    storage = Storage.at(database_target)
    await storage.open()
    clock = FakeClock(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
    yield Practice(storage, library, clock=clock, rng=random.Random(5))
    await storage.close()


@pytest.fixture
def bot_settings(
    api: FakeBotAPI, tmp_path: Path, flow_content: Path, database_target: str | Path
) -> Settings:
    """The flows' settings, on each backend (DATABASE_URL set for PostgreSQL)."""
    return Settings(
        _env_file=None,  # type: ignore[call-arg]
        telegram_bot_token=api.token,
        telegram_api_base_url=api.base_url,
        database_path=tmp_path / "bot.sqlite3",
        database_url=database_target if isinstance(database_target, str) else None,
        content_dir=flow_content,
        default_timezone="UTC",
        # Group pacing (3 s between messages at 20 a minute) has its own test; flows run fast.
        group_rate_limit_per_minute=100_000,
        # Retries and polling on a test's time scale.
        retry_base_seconds=0.05,
        retry_max_seconds=0.4,
        outbox_poll_seconds=0.05,
    )


@pytest.fixture
async def bot(
    api: FakeBotAPI, bot_settings: Settings, flow_library: Library, clock: FakeClock
) -> AsyncIterator[BotHarness]:
    harness = BotHarness(api, bot_settings, flow_library, clock)
    await harness.start()
    yield harness
    await harness.stop()


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text PyYAML parsed (the YAML cache tests: what was read from the cache was not)."""
    texts: list[str] = []
    real = yamlcache.parse_yaml

    def counting(text: str) -> Any:
        texts.append(text)
        return real(text)

    monkeypatch.setattr(yamlcache, "parse_yaml", counting)
    return texts
