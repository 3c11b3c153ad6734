"""Instructions per update (valgrind): the bot's CPU against the echo bot's, deterministic.

bench.bot_throughput's updates per second move with the VM's load; the instructions each
bot executes per update move much less. Each bot runs bench.bot_throughput's set-up (the
fake Bot API in its own process, 50 ms latency, the same warm-up) under
`valgrind --tool=cachegrind --cache-sim=no`, once with 30 users and once with 90 (each
sends /quiz and an answer); the difference over the 120 extra updates is one update's
instructions, start-up and warm-up left out. The driver polls the server once a second
here, not every 10 ms: under valgrind the runs are slow, and the polls are not the bots'
work. A few minutes in all.

Not exact: what depends on timing rather than on the updates (connections httpx opens,
getUpdates batches, the timers of the extra seconds the 90-user run lasts under valgrind)
moves the figure by about ±0.3 M between runs of the same code (BENCHMARKS.md, 2026-12-02
"Round trips…"): compare medians of three runs or more.

`python -m bench.throughput_instructions [bot|echo]...` (default: both)
"""

from __future__ import annotations

import sys

from bench.valgrind import run_child

FEW, MANY = 30, 90

CHILD = """
import asyncio, sys
import bench.bot_throughput as B

B.USERS = int(sys.argv[2])
B.WARM_UP_USERS = 10

async def push_and_wait(api, messages, total):
    await asyncio.to_thread(api.messages, messages)
    while True:
        stats = await asyncio.to_thread(api.stats)
        if sum(stats["per_chat"].values()) >= total:
            return stats
        await asyncio.sleep(1.0)

B._push_and_wait = push_and_wait
asyncio.run(B.measure_bot() if sys.argv[1] == "bot" else B.measure_echo(B.ECHO_BEST))
"""


def _instructions(which: str, users: int) -> int:
    return run_child(CHILD, which, str(users))


def per_update(which: str) -> float:
    extra_updates = 2 * (MANY - FEW)
    return (_instructions(which, MANY) - _instructions(which, FEW)) / extra_updates


def report(kinds: list[str]) -> None:
    figures = {kind: per_update(kind) for kind in kinds}
    print("Instructions per update (valgrind; /quiz and an answer per user, 50 ms latency)")
    for kind, value in figures.items():
        print(f"  {'interview bot' if kind == 'bot' else 'echo bot':<14} {value / 1e6:6.2f} M")
    if len(figures) == 2:
        print(f"  ratio, echo / bot: {figures['echo'] / figures['bot']:.2f}")


if __name__ == "__main__":
    chosen = sys.argv[1:] or ["bot", "echo"]
    if unknown := [k for k in chosen if k not in ("bot", "echo")]:
        usage = "python -m bench.throughput_instructions [bot|echo]..."
        print(f"unknown: {' '.join(unknown)}; usage: {usage}")
        raise SystemExit(2)
    report(chosen)
