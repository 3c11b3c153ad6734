"""Costs as the audience grows: databases of 1k, 10k and 100k users built through the storage layer.

Per size (users, 10 answers each, 10% subscribed to the daily question, 10% with a live
streak, one group with a tenth of the users as members and 20 rounds over four weeks, three
days of daily-send bookkeeping, pruned to steady state): the scheduler tick with nothing due,
the evening reminder pass (a tenth at risk, 50 ms API latency: time to send all, and a /quiz
reply's latency during it against idle), the tick at the reminder hour after it, /stats
(progress of a user), /top (week and all time of the big group), /forget, a group's
migration to a supergroup, the database size, and the real `interview-bot run` in its own
process: start-up to the first getUpdates and idle RSS (beside a bare python-telegram-bot
bot), and RSS after 10k, 20k and 40k updates (/quiz and an answer from many users) against a
zero-latency fake Bot API running in this process.

Built databases are cached in data/bench-scale/ (gitignored), one per size and UTC day (the
schedule and streaks are relative to the build day). `python -m bench.scale 1k 10k` picks
sizes; `--no-run` skips the subprocess part; `--no-pass` the reminder pass; `--no-lanes` runs
the pass with broadcasts and replies in one queue (as before the priority lane);
`--updates=N` changes the 40k.
"""

from __future__ import annotations

import asyncio
import compileall
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bot.app import build_application, running
from bot.config import Settings
from bot.core.content import load_library
from bot.core.levels import Level
from bot.core.models import AnswerRecord
from bot.core.schedule import DEFAULT_DAILY_TIME, Days, Occurrence
from bot.core.streaks import StreakState
from bot.jobs.daily import DailySender
from bot.jobs.retention import prune_once
from bot.picture import first_day
from bot.storage import Storage
from tests.support.fake_bot_api import FakeBotAPI, FakeUser

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content"
CACHE = ROOT / "data" / "bench-scale"
SIZES = {"1k": 1_000, "10k": 10_000, "100k": 100_000}
ANSWERS_PER_USER = 10
GROUP = -1_000_000_001
SMALL_GROUP = -1_000_000_002
ROUNDS = 20
UPDATES = 40_000
ANSWER = "max_batch_size 和 preferred batch size，max_queue_delay_microseconds 控制等待"
BUILD_VERSION = 5  # 5: reminder instants (migration 009)
LATENCY = 0.05  # the Bot API round trip during the reminder pass
QUIZ_SAMPLES = 10  # idle /quiz replies timed before the pass


def _now() -> datetime:
    """The build's reference instant: today 10:00 UTC (before the reminder hour)."""
    today = datetime.now(UTC).date()
    return datetime(today.year, today.month, today.day, 10, 0, tzinfo=UTC)


def _keep(state: StreakState) -> StreakState:
    return state


async def build(path: Path, users: int, now: datetime) -> float:
    """Fill a fresh database through the storage layer; returns seconds taken."""
    started = time.perf_counter()
    library = load_library([CONTENT])
    questions = list(library.questions.values())
    rng = random.Random(users)
    storage = Storage(path)
    await storage.open()
    today = now.date()
    tomorrow = Occurrence(today + timedelta(days=1), now + timedelta(hours=23))
    for uid in range(1, users + 1):
        await storage.ensure_user(uid, f"user{uid}", "en")
        if uid % 10 == 0:  # a tenth subscribe to the daily question
            await storage.ensure_chat(uid, "private", "", "en")
            await storage.set_schedule(
                uid,
                enabled=True,
                at=DEFAULT_DAILY_TIME,
                days=Days.EVERY_DAY,
                zone="UTC",
                next_due=tomorrow,
            )
            for back in range(3):  # the bookkeeping retention keeps
                day = (today - timedelta(days=back)).isoformat()
                await storage.claim_daily(uid, day, now)
    batch: list[AnswerRecord] = []
    for uid in range(1, users + 1):
        for i in range(ANSWERS_PER_USER):
            q = rng.choice(questions)
            when = now - timedelta(days=rng.randrange(0, 365), minutes=i)
            batch.append(
                AnswerRecord(uid, uid, q.id, q.level, ANSWER, rng.random(), [], [], 0, when,
                             when.date().isoformat())
            )  # fmt: skip
        if len(batch) >= 20_000:
            await storage.add_answers(batch)
            batch.clear()
    await storage.add_answers(batch)
    # A tenth keep a streak alive (their last answer was today): the reminder candidates.
    for uid in range(1, users + 1, 10):
        q = rng.choice(questions)
        record = AnswerRecord(uid, uid, q.id, q.level, ANSWER, 0.5, [], [], 0, now,
                              today.isoformat())  # fmt: skip

        def today_streak(s: StreakState) -> StreakState:
            return StreakState(current=3, best=3, last_day=today, freezes=0)

        await storage.open_question(uid, uid, q.id, now)  # answered as a user would
        await storage.record_answer(record, today_streak)
    # One big group: a tenth of the users are members; 20 rounds over four weeks, each
    # answered by half of them.
    await storage.ensure_chat(GROUP, "supergroup", "Big study group", "en")
    members = list(range(1, users + 1, 10))
    for n in range(ROUNDS):
        opened = now - timedelta(days=28) + timedelta(days=n * 28 / ROUNDS)
        q = questions[n % len(questions)]
        round_id = await storage.open_round(
            GROUP, q.id, None, opened, opened + timedelta(minutes=10), daily=False
        )
        assert round_id is not None
        await storage.set_round_message(round_id, 1000 + n)
        for i, uid in enumerate(rng.sample(members, len(members) // 2)):
            await storage.record_round_answer(
                round_id, user_id=uid, first_name=f"user{uid}", message_id=2000 + i,
                answer=ANSWER, score=rng.random(), covered=[], missed=[], now=opened,
                local_day=opened.date().isoformat(), update_streak=_keep,
            )  # fmt: skip
        await storage.close_round(round_id, opened + timedelta(minutes=10), Level.BEGINNER)
    # A small group (20 members, 20 rounds): what most groups look like.
    await storage.ensure_chat(SMALL_GROUP, "supergroup", "Small study group", "en")
    for n in range(ROUNDS):
        opened = now - timedelta(days=28) + timedelta(days=n * 28 / ROUNDS)
        round_id = await storage.open_round(
            SMALL_GROUP, questions[n % len(questions)].id, None, opened,
            opened + timedelta(minutes=10), daily=False,
        )  # fmt: skip
        assert round_id is not None
        for i, uid in enumerate(members[:20]):
            await storage.record_round_answer(
                round_id, user_id=uid, first_name=f"user{uid}", message_id=2000 + i,
                answer=ANSWER, score=rng.random(), covered=[], missed=[], now=opened,
                local_day=opened.date().isoformat(), update_streak=_keep,
            )  # fmt: skip
        await storage.close_round(round_id, opened + timedelta(minutes=10), Level.BEGINNER)
    await prune_once(storage, now)  # steady state: what retention would have left
    for sql in ("VACUUM", "PRAGMA wal_checkpoint(TRUNCATE)"):
        async with storage.db.execute(sql) as cursor:
            await cursor.fetchall()
    await storage.close()
    return time.perf_counter() - started


async def _timed(fn: Callable[[], Awaitable[Any]], repeat: int) -> float:
    """Median milliseconds of `repeat` calls."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        await fn()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def _settings(path: Path, api_url: str = "http://127.0.0.1:9/bot") -> Settings:
    return Settings(
        _env_file=None,  # type: ignore[call-arg]
        telegram_bot_token=FakeBotAPI.token,
        telegram_api_base_url=api_url,
        database_path=path,
        content_dir=CONTENT,
    )


async def operations(path: Path, users: int, now: datetime) -> dict[str, float]:
    """Per-operation times on a copy of the database (forget and migration change it)."""
    clock = [now + timedelta(minutes=30)]
    app = build_application(
        _settings(path), load_library([CONTENT]), clock=lambda: clock[0], scheduler=False
    )
    svc = app.bot_data["services"]
    sender: DailySender = app.bot_data["daily_sender"]
    storage: Storage = svc.storage
    await storage.open()
    rng = random.Random(7)
    figures: dict[str, float] = {}
    try:
        report = await sender.tick()
        assert not report.outcomes, report  # nothing is due
        assert not report.reminders, report
        figures["tick_ms"] = await _timed(sender.tick, 5)
        figures["reminder_query_ms"] = await _timed(lambda: storage.due_reminders(clock[0]), 5)
        sample = [rng.randrange(1, users + 1) for _ in range(20)]
        profiles = [await storage.get_user(uid) for uid in sample]

        async def stats() -> None:
            user = profiles.pop()
            assert user is not None
            await svc.practice.progress(user, since=first_day)

        figures["stats_ms"] = await _timed(stats, 20)
        week_start = now - timedelta(days=now.weekday())

        async def top() -> None:
            week = await storage.leaderboard(GROUP, week_start)
            overall = await storage.leaderboard(GROUP, None)
            assert overall
            assert week is not None

        figures["top_ms"] = await _timed(top, 20)
        members = iter(rng.sample(range(1, users + 1, 10), 20))

        async def forget() -> None:
            await storage.forget_user(next(members))

        figures["forget_ms"] = await _timed(forget, 20)
        figures["migration_small_ms"] = await _timed(_back_and_forth(storage, SMALL_GROUP), 6)
        figures["migration_ms"] = await _timed(_back_and_forth(storage, GROUP), 3)
    finally:
        await storage.close()
    return figures


async def reminder_pass(path: Path, users: int, now: datetime) -> dict[str, float]:
    """The evening after the build: a tenth of the users have a streak at risk.

    The bot runs against the fake Bot API (in this process) answering every request after
    LATENCY, at the default 30 messages/s. One tick records the reminders; the outbox
    sender delivers them while other users send /quiz, one every half second, each timed
    from the update's arrival to the question's arrival; the same /quiz idle, before.
    Then the tick at the reminder hour, with every reminder recorded (nothing due).
    """
    clock = [now + timedelta(days=1, hours=10, seconds=30)]  # tomorrow 20:00:30 UTC
    api = FakeBotAPI(latency=LATENCY)
    await api.start()
    app = build_application(
        _settings(path, api.base_url), load_library([CONTENT]), clock=lambda: clock[0],
        scheduler=False,
    )  # fmt: skip
    if "--no-lanes" in sys.argv:  # for comparison: broadcasts in the replies' lane, one queue
        import bot.jobs.outbox

        bot.jobs.outbox.bulk_lane = lambda: None  # type: ignore[assignment]
    sender: DailySender = app.bot_data["daily_sender"]
    storage: Storage = app.bot_data["services"].storage
    askers = iter(range(5, users + 1, 10))  # not at risk: their chat has no reminder queued
    figures: dict[str, float] = {}

    async def quiz() -> float:
        user = FakeUser(next(askers), "u")
        before = len(api.to(user.id))
        started = time.perf_counter()
        api.message(user, "/quiz triton")  # the packs are Chinese: chosen by name
        await api.wait_for(user.id, before + 1, timeout=60)
        return time.perf_counter() - started

    try:
        async with running(app, poll_timeout=1):
            idle = [await quiz() for _ in range(QUIZ_SAMPLES)]
            started = time.perf_counter()
            report = await sender.tick()
            figures["pass_tick_s"] = time.perf_counter() - started
            during: list[asyncio.Task[float]] = []
            while await storage.outbox_open_count():
                during.append(asyncio.create_task(quiz()))
                await asyncio.sleep(0.5)
            figures["pass_s"] = time.perf_counter() - started
            busy = await asyncio.gather(*during)
            figures["reminders"] = report.reminders
            figures["reminders_sent"] = sum("at risk" in s.visible for s in api.sent)
            figures["quiz_idle_ms"] = statistics.median(idle) * 1000
            figures["quiz_during_ms"] = statistics.median(busy) * 1000 if busy else float("nan")
            figures["quiz_during_max_ms"] = max(busy) * 1000 if busy else float("nan")
            figures["quiz_during_n"] = len(busy)
            clock[0] += timedelta(minutes=30)
            figures["tick_evening_ms"] = await _timed(sender.tick, 5)
    finally:
        await api.stop()
    return figures


def _back_and_forth(storage: Storage, chat_id: int) -> Callable[[], Awaitable[None]]:
    """Each call moves the group to a new id, the next one back (as if migrated again)."""
    where = [chat_id]

    async def migrate() -> None:
        target = chat_id - 1 if where[0] == chat_id else chat_id
        await storage.migrate_chat(where[0], target)
        where[0] = target

    return migrate


# -- the real `interview-bot run` in its own process ------------------------------------------

BARE_BOT = """
import os
from telegram.ext import Application, MessageHandler, filters
async def echo(update, context):
    await update.effective_message.reply_text(update.effective_message.text)
app = (Application.builder().token(os.environ["TELEGRAM_BOT_TOKEN"])
       .base_url(os.environ["TELEGRAM_API_BASE_URL"]).build())
app.add_handler(MessageHandler(filters.TEXT, echo))
app.run_polling()
"""


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def _start(api: FakeBotAPI, argv: list[str], env: dict[str, str]) -> tuple[Any, float]:
    """Start a bot process; return it and the seconds until its first getUpdates."""
    before = api.calls["getUpdates"]
    started = time.perf_counter()
    process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL)  # noqa: S603, ASYNC220
    while api.calls["getUpdates"] == before:
        if process.poll() is not None:
            raise RuntimeError(f"{argv} exited with {process.returncode}")
        await asyncio.sleep(0.002)
    return process, time.perf_counter() - started


async def _stop(process: Any) -> None:
    """SIGTERM, then wait without blocking the loop: the fake must answer the bot's last calls."""
    process.terminate()
    for _ in range(400):
        if process.poll() is not None:
            return
        await asyncio.sleep(0.05)
    process.kill()
    process.wait()


def compile_bot() -> None:
    """Write the bot's bytecode, as `pip install .` does for the Docker image (and for PTB in
    both bots' site-packages). A checkout installed editable, run with
    PYTHONDONTWRITEBYTECODE=1, never gets any: each start would compile all of bot/ from
    source again (about 0.12 s here), which no installed bot does."""
    compileall.compile_dir(ROOT / "bot", quiet=1)


async def startup(api: FakeBotAPI, path: Path | None, runs: int = 3) -> dict[str, float]:
    """Median start-up to the first getUpdates and idle RSS: the bot (path) or a bare PTB bot."""
    compile_bot()
    env = {
        **os.environ,
        "TELEGRAM_BOT_TOKEN": api.token,
        "TELEGRAM_API_BASE_URL": api.base_url,
        "CONTENT_DIR": str(CONTENT),
        "LOG_LEVEL": "WARNING",
    }
    if path is not None:
        env["DATABASE_PATH"] = str(path)
        argv = [sys.executable, "-m", "bot", "run"]
    else:
        argv = [sys.executable, "-c", BARE_BOT]
    times, rss = [], []
    for _ in range(runs):
        process, seconds = await _start(api, argv, env)
        await asyncio.sleep(2.0)
        rss.append(_rss_mb(process.pid))
        times.append(seconds)
        await _stop(process)
    return {"startup_s": statistics.median(times), "idle_rss_mb": statistics.median(rss)}


async def traffic(api: FakeBotAPI, path: Path, users: int, updates: int) -> dict[str, float]:
    """RSS of `interview-bot run` after 10k, 20k and 40k updates from many users."""
    env = {
        **os.environ,
        "TELEGRAM_BOT_TOKEN": api.token,
        "TELEGRAM_API_BASE_URL": api.base_url,
        "CONTENT_DIR": str(CONTENT),
        "DATABASE_PATH": str(path),
        "LOG_LEVEL": "WARNING",
        # Telegram's 30 messages/s would make this a benchmark of the limiter, not of memory.
        "RATE_LIMIT_PER_SECOND": "100000",
    }
    process, _ = await _start(api, [sys.executable, "-m", "bot", "run"], env)
    figures: dict[str, float] = {"rss_idle_mb": _rss_mb(process.pid)}
    rng = random.Random(40)
    try:
        pushed = 0
        replied = api.calls["sendMessage"]  # each /quiz and each answer gets one message
        started = time.perf_counter()
        for mark in (updates // 4, updates // 2, updates):
            while pushed < mark:
                # At most 200 updates unanswered: the bot's own pace. A backlog would measure
                # the queue's peak (Python keeps freed memory), not what the bot holds on to.
                while pushed - (api.calls["sendMessage"] - replied) > 200:  # noqa: ASYNC110
                    await asyncio.sleep(0.005)
                user = FakeUser(pushed // 2 % users + 1, "u")
                api.message(user, "/quiz triton" if pushed % 2 == 0 else _answer(rng))
                pushed += 1
            await _settle(api)
            figures[f"rss_{mark}"] = _rss_mb(process.pid)
            rate = pushed / (time.perf_counter() - started)
            print(f"      {pushed:,} updates, {rate:.0f}/s, RSS {_rss_mb(process.pid):.0f} MB",
                  flush=True)  # fmt: skip
        figures["updates"] = updates
        figures["updates_per_s"] = updates / (time.perf_counter() - started)
    finally:
        await _stop(process)
    return figures


def _answer(rng: random.Random) -> str:
    """An answer with a few words nobody wrote before, as real answers have (typos, names):
    caches keyed by words see new keys all the time, as they would in production."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = ["".join(rng.choices(letters, k=rng.randint(5, 9))) for _ in range(3)]
    return f"{ANSWER} {' '.join(words)}"


async def _settle(api: FakeBotAPI) -> None:
    """Wait until the bot fetched everything and stopped sending for half a second."""
    last = -1
    while True:
        await asyncio.sleep(0.5)
        sent = api.calls["sendMessage"]
        if sent == last and not api._updates:
            return
        last = sent


def _cached(name: str, now: datetime) -> Path:
    CACHE.mkdir(parents=True, exist_ok=True)
    return CACHE / f"{name}-v{BUILD_VERSION}-{now:%Y%m%d}.sqlite3"


async def measure(name: str, run_bot: bool, updates: int = UPDATES) -> dict[str, float]:
    users = SIZES[name]
    now = _now()
    cached = _cached(name, now)
    figures: dict[str, float] = {"users": users}
    if not cached.exists():
        for old in CACHE.glob(f"{name}-v*.sqlite3*"):
            old.unlink()
        partial = cached.with_suffix(".partial")
        partial.unlink(missing_ok=True)
        figures["build_s"] = await build(partial, users, now)
        partial.rename(cached)
    figures["db_mb"] = cached.stat().st_size / 1e6
    with sqlite3.connect(cached) as db:
        figures["answers"] = db.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "bot.sqlite3"
        shutil.copyfile(cached, copy)
        figures |= await operations(copy, users, now)
        if "--no-pass" not in sys.argv:
            shutil.copyfile(cached, copy)
            figures |= await reminder_pass(copy, users, now)
        if run_bot:
            shutil.copyfile(cached, copy)
            api = FakeBotAPI()
            await api.start()
            try:
                figures |= await startup(api, copy)
                bare = await startup(api, None)
                figures["bare_startup_s"] = bare["startup_s"]
                figures["bare_idle_rss_mb"] = bare["idle_rss_mb"]
                figures |= await traffic(api, copy, users, updates)
            finally:
                await api.stop()
    return figures


def report() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    run_bot = "--no-run" not in sys.argv
    updates = next((int(a.split("=")[1]) for a in sys.argv if a.startswith("--updates=")), UPDATES)
    names = args or list(SIZES)
    print("Scale (databases built through the storage layer; medians)")
    for name in names:
        f = asyncio.run(measure(name, run_bot, updates))
        n = int(f["users"])
        built = f" (built in {f['build_s']:.0f} s)" if "build_s" in f else " (cached)"
        print(f"  {name}: {f['users']:,.0f} users, {f['answers']:,.0f} answers, "
              f"database {f['db_mb']:.0f} MB{built}")  # fmt: skip
        print(f"    scheduler tick, nothing due: {f['tick_ms']:8.1f} ms "
              f"(of which the reminder query {f['reminder_query_ms']:.1f} ms)")  # fmt: skip
        if "pass_s" in f:
            print(f"    tick at the reminder hour:   {f['tick_evening_ms']:8.1f} ms "
                  "(every reminder recorded, nothing due)")  # fmt: skip
            print(f"    reminder pass: {f['reminders']:,.0f} recorded in "
                  f"{f['pass_tick_s']:.2f} s (one tick), {f['reminders_sent']:,.0f} sent in "
                  f"{f['pass_s']:.1f} s at 30/s with {LATENCY * 1000:.0f} ms latency")  # fmt: skip
            print(f"    /quiz reply idle {f['quiz_idle_ms']:.0f} ms, during the pass "
                  f"{f['quiz_during_ms']:.0f} ms median, {f['quiz_during_max_ms']:.0f} ms max "
                  f"({f['quiz_during_n']:.0f} samples)")  # fmt: skip
        print(f"    /stats (progress):           {f['stats_ms']:8.1f} ms")
        print(f"    /top (week + all time):      {f['top_ms']:8.1f} ms")
        print(f"    /forget:                     {f['forget_ms']:8.1f} ms")
        print(f"    group migration, 20 members: {f['migration_small_ms']:8.1f} ms")
        big = f"{ROUNDS * (n // 20):,} answers: {ROUNDS} rounds x {n // 20:,} members"
        print(f"    group migration, big group:  {f['migration_ms']:8.1f} ms ({big})")
        if run_bot:
            print(f"    start-up to getUpdates:      {f['startup_s']:8.2f} s "
                  f"(bare PTB {f['bare_startup_s']:.2f} s, "
                  f"ratio {f['startup_s'] / f['bare_startup_s']:.2f})")  # fmt: skip
            print(f"    idle RSS:                    {f['idle_rss_mb']:8.0f} MB "
                  f"(bare PTB {f['bare_idle_rss_mb']:.0f} MB)")  # fmt: skip
            u = int(f["updates"])
            print(f"    RSS after {u // 4:,}/{u // 2:,}/{u:,} updates: {f[f'rss_{u // 4}']:.0f} / "
                  f"{f[f'rss_{u // 2}']:.0f} / {f[f'rss_{u}']:.0f} MB "
                  f"({f['updates_per_s']:.0f} updates/s)")  # fmt: skip
        sys.stdout.flush()


if __name__ == "__main__":
    report()
