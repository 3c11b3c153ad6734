"""Start-up to the first getUpdates: the real `interview-bot run` against a bare PTB bot.

The same measure as bench.scale's `startup()` (a process started, timed until the fake Bot
API in this process sees its first getUpdates), without the rest of the scale benchmark,
and alternating: bot, bare, bot, bare… so a change in the machine's load falls on both.
`python -m bench.startup [ROUNDS] [--db=1k|10k|100k|empty]`: ROUNDS pairs (default 7); the
database is bench.scale's cached one of that size (built on first use), or a new empty file.
The bot's bytecode is written first (bench.scale.compile_bot), as an installed bot has it.
Each start after the first finds the parsed-YAML cache beside the database, as a restart does.
After each of the bot's starts a new user sends `/quiz` and then an answer: the seconds from
the answer's arrival in the fake to its feedback are the first answer's latency (the scorer
is loaded and the question compiled by it), reported beside the start-up.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.scale import (
    BARE_BOT,
    CACHE,
    CONTENT,
    SIZES,
    _cached,
    _now,
    _start,
    _stop,
    build,
    compile_bot,
)
from tests.support.fake_bot_api import FakeBotAPI, FakeUser


async def _database(name: str, folder: Path) -> Path:
    copy = folder / "bot.sqlite3"
    if name == "empty":
        return copy
    now = _now()
    cached = _cached(name, now)
    if not cached.exists():
        for old in CACHE.glob(f"{name}-v*.sqlite3*"):
            old.unlink()
        partial = cached.with_suffix(".partial")
        partial.unlink(missing_ok=True)
        await build(partial, SIZES[name], now)
        partial.rename(cached)
    shutil.copyfile(cached, copy)
    return copy


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system) the process has used so far: less sensitive to the load."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


Figures = tuple[list[float], list[float]]

# A 300-character answer of the kind the scoring benchmark uses: scored against whichever
# question `/quiz` gave, so the first answer's work (scorer, the question's compile) is done.
ANSWER = (
    "Batching several requests together raises GPU utilisation and throughput, at the cost "
    "of some latency for each request; dynamic batching waits up to a small delay to fill a "
    "batch, and the KV cache must fit in memory, so the batch size is bounded by memory and "
    "by the latency target of the service."
)


async def first_answer(api: FakeBotAPI, user: FakeUser, pid: int) -> tuple[float, float, float]:
    """Seconds from `/quiz` to its question, and from the answer to its feedback; and the
    bot's CPU seconds meanwhile (steadier on a loaded machine; in clock ticks of 10 ms)."""
    started = time.perf_counter()
    api.message(user, "/quiz")
    await api.wait_for(user.id, 1, timeout=60)
    asked = time.perf_counter()
    cpu = _cpu_s(pid)
    api.message(user, ANSWER)
    await api.wait_for(user.id, 2, timeout=60)
    return asked - started, time.perf_counter() - asked, _cpu_s(pid) - cpu


async def measure(
    rounds: int, name: str
) -> tuple[Figures, Figures, tuple[list[float], list[float], list[float]]]:
    """Wall and CPU seconds to the first getUpdates: (bot, bot CPU), (bare, bare CPU); and
    the bot's first `/quiz` and first answer after each start: (quiz, answer, answer CPU)."""
    compile_bot()
    api = FakeBotAPI()
    await api.start()
    bot_times: list[float] = []
    bare_times: list[float] = []
    bot_cpu: list[float] = []
    bare_cpu: list[float] = []
    quizzes: list[float] = []
    answers: list[float] = []
    answer_cpu: list[float] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = await _database(name, Path(tmp))
            env = {
                **os.environ,
                "TELEGRAM_BOT_TOKEN": api.token,
                "TELEGRAM_API_BASE_URL": api.base_url,
                "CONTENT_DIR": str(CONTENT),
                "LOG_LEVEL": "WARNING",
                "DATABASE_PATH": str(path),
            }
            bot = [sys.executable, "-m", "bot", "run"]
            bare = [sys.executable, "-c", BARE_BOT]
            for round_ in range(rounds):
                for argv, times, cpus in ((bot, bot_times, bot_cpu), (bare, bare_times, bare_cpu)):
                    process, seconds = await _start(api, argv, env)
                    times.append(seconds)
                    cpus.append(_cpu_s(process.pid))
                    if argv is bot:  # a user the database has never seen, each start
                        user = FakeUser(900_000_001 + round_)
                        quiz, answer, cpu = await first_answer(api, user, process.pid)
                        quizzes.append(quiz)
                        answers.append(answer)
                        answer_cpu.append(cpu)
                    await _stop(process)
    finally:
        await api.stop()
    return (bot_times, bot_cpu), (bare_times, bare_cpu), (quizzes, answers, answer_cpu)


def _line(label: str, times: list[float]) -> str:
    return (
        f"  {label}: median {statistics.median(times):.3f} s "
        f"[{min(times):.3f}–{max(times):.3f}]  ({' '.join(f'{t:.3f}' for t in times)})"
    )


def report() -> None:
    logging.getLogger("aiohttp.server").setLevel(logging.CRITICAL)  # a stopped bot's cut-off poll
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    rounds = int(args[0]) if args else 7
    name = next((a.split("=")[1] for a in sys.argv if a.startswith("--db=")), "1k")
    load = os.getloadavg()
    print(f"Start-up to the first getUpdates, {rounds} alternating pairs, database {name}")
    print(f"  load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    (bot, bot_cpu), (bare, bare_cpu), first = asyncio.run(measure(rounds, name))
    quizzes, answers, answer_cpu = first
    print(_line("interview-bot run", bot))
    print(_line("bare PTB bot     ", bare))
    print(_line("interview-bot run, CPU", bot_cpu))
    print(_line("bare PTB bot, CPU     ", bare_cpu))
    print(f"  CPU ratio of medians {statistics.median(bot_cpu) / statistics.median(bare_cpu):.2f}")
    ratios = [b / p for b, p in zip(bot, bare, strict=True)]
    print(
        f"  ratio of medians {statistics.median(bot) / statistics.median(bare):.2f} "
        f"(per pair: median {statistics.median(ratios):.2f}, "
        f"[{min(ratios):.2f}–{max(ratios):.2f}])"
    )
    print(_line("first /quiz after a start", quizzes))
    print(_line("first answer's feedback  ", answers))
    print(_line("first answer, bot CPU    ", answer_cpu))
    load = os.getloadavg()
    print(f"  load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    report()
