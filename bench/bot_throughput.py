"""End-to-end updates per second against the fake Bot API with simulated latency.

Our bot (200 users each sending /quiz and then an answer: scoring, SQLite writes, streaks)
is measured side by side with a bare python-telegram-bot echo bot on the same server and the
same concurrency, and the ratio is printed. The fake server runs in its own process (as
Telegram runs on its own machines): its HTML checks and bookkeeping are not charged to
either bot.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from telegram import Update
from telegram.ext import Application, ContextTypes, MessageHandler, filters

from bench.remote import RemoteAPI, remote_api
from bot.app import build_application, running
from bot.config import Settings
from bot.core.content import load_library

CONTENT = Path(__file__).resolve().parent.parent / "content"
USERS = 200
LATENCY = 0.05
ANSWER = (
    "Triton 作为统一服务层，vLLM 是推理引擎，作为 backend 接入；"
    "max_batch_size 和 preferred batch size"
)


def _messages(users: int, first_id: int = 10_000) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(users):
        for text in ("/quiz triton", ANSWER):  # the packs are Chinese: chosen by name
            out.append({"user_id": first_id + i, "name": f"u{i}", "text": text})
    return out


# Before the clock starts, a few other users do the same: what happens once per process
# (the scorer's import on the first answer, each question's compiled form, the first
# database pages, PTB's first requests) is start-up, measured in bench.startup, not
# throughput. Both bots get the same warm-up.
WARM_UP_USERS = 20


async def _push_and_wait(
    api: RemoteAPI, messages: list[dict[str, Any]], total: int
) -> dict[str, Any]:
    """Push the messages, then wait until `total` replies have arrived in all.

    Messages sent are counted by the server once it has answered them (after its latency).
    It answers the wait when they are all there: a thread blocked on its socket here, not
    a poll every 10 ms, which took about 3% of the measured process's GIL (py-spy) and
    ended the window up to 10 ms late.
    """
    await asyncio.to_thread(api.messages, messages)
    return await asyncio.to_thread(api.wait_sent, total, 120.0)


async def _drive(api: RemoteAPI) -> float:
    """Warm up, then push every user's two messages at once; updates/s until every reply
    has arrived."""
    warm = _messages(WARM_UP_USERS, first_id=90_000)
    await _push_and_wait(api, warm, len(warm))
    messages = _messages(USERS)
    started = time.perf_counter()
    stats = await _push_and_wait(api, messages, len(warm) + len(messages))
    elapsed = time.perf_counter() - started
    assert not stats["violations"], stats["violations"][:3]
    # Each user got two replies: the question, then the feedback on the answer.
    assert len(stats["per_chat"]) == USERS + WARM_UP_USERS
    assert set(stats["per_chat"].values()) == {2}, sorted(set(stats["per_chat"].values()))
    return len(messages) / elapsed


async def measure_bot() -> float:
    with remote_api(latency=LATENCY) as api, tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            _env_file=None,  # type: ignore[call-arg]
            telegram_bot_token=api.token,
            telegram_api_base_url=api.base_url,
            database_path=Path(tmp) / "bench.sqlite3",
            content_dir=CONTENT,
            rate_limit_per_second=100_000,
        )
        app = build_application(settings, load_library([CONTENT]))
        async with running(app, poll_timeout=1):
            return await _drive(api)


async def _echo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    if update.effective_message and update.effective_message.text:
        await update.effective_message.reply_text(update.effective_message.text)


async def measure_echo(concurrency: int) -> float:
    with remote_api(latency=LATENCY) as api:
        app = (
            Application.builder()
            .token(api.token)
            .base_url(api.base_url)
            .concurrent_updates(concurrency)
            .build()
        )
        app.add_handler(MessageHandler(filters.TEXT, _echo))
        async with running(app, poll_timeout=1):
            return await _drive(api)


# The echo bot is measured at several concurrency settings once, for context; the ratio uses
# 16 in flight, its best setting (past about 16 requests in flight, httpx's pool on one event
# loop gets slower, not faster). One run is luck on a shared machine: the bot and the echo
# bot alternate (the order flips every round, so a drift in the machine's load hits both
# alike) and the ratio is quoted as the median of the rounds with its spread.
ECHO_CONCURRENCY = (1, 16, 256)
ECHO_BEST = 16
ROUNDS = 7


def _machine_speed() -> float:
    """Seconds a fixed pure-Python loop takes: the VM's speed at that moment.

    It moves by up to 2x within minutes on the shared 2-core VM (0.21-0.39 s, BENCHMARKS.md).
    The bot is bound by its CPU and the echo bot by latency, so a slow moment lowers the
    bot's figure more than the echo bot's. It reads one moment before a round of a few
    seconds: a hint for reading a run, not a correction (over 28 rounds it correlated with
    the ratio at r = -0.37 only).
    """
    started = time.perf_counter()
    x = 0
    for i in range(3_000_000):
        x += i * i % 7
    return time.perf_counter() - started


def run(rounds: int = ROUNDS) -> dict[str, Any]:
    bot: list[float] = []
    echo: list[float] = []
    ratios: list[float] = []
    machine: list[float] = []
    for i in range(rounds):
        machine.append(_machine_speed())
        if i % 2 == 0:
            b, e = asyncio.run(measure_bot()), asyncio.run(measure_echo(ECHO_BEST))
        else:
            e, b = asyncio.run(measure_echo(ECHO_BEST)), asyncio.run(measure_bot())
        bot.append(b)
        echo.append(e)
        ratios.append(b / e)
    context = {n: asyncio.run(measure_echo(n)) for n in ECHO_CONCURRENCY if n != ECHO_BEST}
    return {
        "bot": bot, "echo": echo, "ratios": ratios, "echo_other": context, "machine": machine,
    }  # fmt: skip


def report() -> None:
    f = run()
    med = statistics.median
    print(f"Bot throughput ({USERS} users x (/quiz + answer), {LATENCY * 1000:.0f} ms API latency,")
    print(f"  {len(f['ratios'])} alternating rounds; median [min - max])")
    print(f"  interview bot:              {med(f['bot']):8.0f} updates/s "
          f"[{min(f['bot']):.0f} - {max(f['bot']):.0f}]")  # fmt: skip
    print(f"  echo bot, {ECHO_BEST:>3} concurrent:    {med(f['echo']):8.0f} updates/s "
          f"[{min(f['echo']):.0f} - {max(f['echo']):.0f}]")  # fmt: skip
    for n, value in f["echo_other"].items():
        print(f"  echo bot, {n:>3} concurrent:    {value:8.0f} updates/s (one run)")
    print(f"  ratio, per round:           {med(f['ratios']):8.2f} "
          f"[{min(f['ratios']):.2f} - {max(f['ratios']):.2f}] (target >= 0.9)")  # fmt: skip
    print("  rounds: " + ", ".join(f"{r:.2f}" for r in f["ratios"]))
    print("  machine before each round (a fixed loop, s):   "
          + ", ".join(f"{m:.3f}" for m in f["machine"]))  # fmt: skip


if __name__ == "__main__":
    report()
