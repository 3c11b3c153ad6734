"""Fan-out with webhook replicas on PostgreSQL: 1 and 2 real `interview-bot run` processes on
one database (tests/support/postgres.py's server) sending the daily prompt of 3,000 chats to
the fake Bot API at a 1,000 messages/s limit (RATE_LIMIT_PER_SECOND; each replica keeps
to 1,000/N of it, N the replicas live).

The replicas start first (webhook mode, each healthy), then the subscribers fall due: the
lease holder records the prompts, every replica claims and sends them. Reported per count:
the rate from the subscribers' falling due to the last prompt at the server, how many each
replica sent, duplicates (must be 0), and the replicas' CPU (user + system, from /proc) per
message. The fake server runs in this process; the machine's cores are shared by all of it.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

from tests.support.fake_bot_api import FakeBotAPI
from tests.support.postgres import start_server
from tests.support.run import free_port, run_env, start_run
from tests.support.seed import seed_due_subscribers
from tests.support.wait import until

CHATS = int(os.environ.get("BENCH_REPLICA_CHATS", "3000"))
LIMIT = 1000.0  # messages/s in all: paid broadcasts' ceiling
COUNTS = (1, 2)
WAIT = 600.0
SECRET = "bench-Secret_1"


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _healthy(port: int) -> None:
    async def answers() -> bool:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            return False
        writer.write(f"GET /healthz HTTP/1.1\r\nHost: x:{port}\r\n\r\n".encode())
        line = await reader.readline()
        writer.close()
        return b" 200 " in line

    loop = asyncio.get_running_loop()
    end = loop.time() + WAIT
    while not await answers():
        if loop.time() > end:
            raise TimeoutError("a replica's listener never became healthy")
        await asyncio.sleep(0.2)


async def measure(url: str, replicas: int) -> dict[str, float]:
    api = FakeBotAPI()
    await api.start()
    processes: list[asyncio.subprocess.Process] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for i in range(replicas):
                name, port = f"r{i}", free_port()
                folder = Path(tmp) / name
                folder.mkdir()
                env = run_env(
                    api, folder / "bot.sqlite3", DATABASE_URL=url, LOG_LEVEL="WARNING",
                    TELEGRAM_API_BASE_URL=api.replica_url(name),
                    RATE_LIMIT_PER_SECOND=str(LIMIT), SEND_CONCURRENCY="32",
                    SCHEDULER_INTERVAL_SECONDS="0.5", OUTBOX_POLL_SECONDS="0.1",
                    LEASE_SECONDS="10",
                    TELEGRAM_WEBHOOK_URL=f"http://127.0.0.1:{port}/telegram",
                    WEBHOOK_LISTEN="127.0.0.1", WEBHOOK_PORT=str(port),
                    WEBHOOK_SECRET_TOKEN=SECRET,
                )  # fmt: skip
                process = await start_run(env, folder, stderr=asyncio.subprocess.DEVNULL)
                processes.append(process)
                await _healthy(port)
            cpu = [_cpu_seconds(p.pid) for p in processes]
            chats = set(await seed_due_subscribers(url, CHATS))
            started = time.perf_counter()

            def prompted() -> int:
                return sum(1 for s in api.sent if s.method == "sendMessage" and s.chat_id in chats)

            await until(lambda: prompted() >= CHATS, WAIT, "every chat prompted")
            elapsed = time.perf_counter() - started
            used = sum(_cpu_seconds(p.pid) - c for p, c in zip(processes, cpu, strict=True))
            by = [api.sends_by[f"r{i}"] for i in range(replicas)]
            return {
                "seconds": elapsed,
                "rate": CHATS / elapsed,
                "duplicates": prompted() - len({s.chat_id for s in api.sent if s.chat_id in chats}),
                "cpu_ms_per_message": used / CHATS * 1000,
                **{f"sent_by_{i}": n for i, n in enumerate(by)},
            }
    finally:
        for process in processes:
            if process.returncode is None:
                process.kill()
            await process.wait()
        await api.stop()


def main() -> int:
    server = start_server()
    try:
        print(
            f"Fan-out with webhook replicas on PostgreSQL ({CHATS:,} chats due, limit"
            f" {LIMIT:.0f}/s, each of N replicas keeping to 1/N; {os.cpu_count()} cores)"
        )
        for n in COUNTS:
            url = asyncio.run(server.create_database())
            f = asyncio.run(measure(url, n))
            shares = ", ".join(f"{f[f'sent_by_{i}']:.0f}" for i in range(n))
            print(
                f"  {n} replica{'s' if n > 1 else ' '}: {f['rate']:6.0f} messages/s"
                f" ({f['seconds']:.1f} s), sent by each: {shares};"
                f" duplicates {f['duplicates']:.0f}; CPU {f['cpu_ms_per_message']:.2f} ms"
                " per message (all replicas)"
            )
        return 0
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
