"""`interview-bot migrate-db` on the 10k-user database of bench/scale.py (10 answers each, a
group of 1,000 members with 20 rounds, daily bookkeeping): the real command in its own
process into an empty database of a real PostgreSQL (tests/support/postgres.py), its wall
time (three runs, each into a new database), and every table's rows counted on both sides
here (sqlite3 and asyncpg), not taken from the command's output. Then the real
`interview-bot run` on the copy against the fake Bot API: start-up to its first getUpdates,
and a user's /stats, which must count the answers the SQLite file holds for them.
`python -m bench.migrate_db 1k` picks another size.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import asyncpg

from bench.scale import SIZES, _cached, _now, build
from tests.support.fake_bot_api import FakeBotAPI, FakeUser
from tests.support.postgres import start_server
from tests.support.run import run_env, start_run
from tests.support.wait import until

RUNS = 3
USER = FakeUser(1, "user1")  # bench/scale.py's first user: 10 answers, a live streak


def _sqlite_counts(path: Path) -> dict[str, int]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [
            r[0]
            for r in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        return {t: db.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in tables}  # noqa: S608
    finally:
        db.close()


async def _pg_counts(url: str) -> dict[str, int]:
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(
            "SELECT table_name FROM information_schema.tables"
            " WHERE table_schema = 'public' AND table_type = 'BASE TABLE'"
        )
        return {
            r[0]: await conn.fetchval(f'SELECT COUNT(*) FROM "{r[0]}"')  # noqa: S608
            for r in rows
        }
    finally:
        await conn.close()


async def _bot_on(url: str, folder: Path, answers: int) -> tuple[float, float]:
    """The real run on the copy: seconds to its first getUpdates, then to USER's /stats,
    which must say the answers the SQLite file holds for USER."""
    api = FakeBotAPI()
    await api.start()
    started = time.perf_counter()
    process = await start_run(run_env(api, folder / "unused.sqlite3", DATABASE_URL=url), folder)
    try:
        await until(lambda: api.calls["getUpdates"] >= 1, 120, "the first poll")
        polling = time.perf_counter() - started
        asked = time.perf_counter()
        api.message(USER, "/stats")
        await until(lambda: any("📊" in s.visible for s in api.to(USER.id)), 60, "/stats")
        replied = time.perf_counter() - asked
        said = "\n".join(s.visible for s in api.to(USER.id))
        if f"{answers} answers" not in said:
            raise AssertionError(f"/stats on the copy does not say {answers} answers: {said}")
        return polling, replied
    finally:
        process.kill()
        await process.wait()
        await api.stop()


def main() -> int:
    name = (sys.argv[1:] or ["10k"])[0]
    users = SIZES[name]
    now = _now()
    path = _cached(name, now)
    if not path.exists():
        took = asyncio.run(build(path, users, now))
        print(f"built the {name} database in {took:.0f} s")
    server = start_server()
    try:
        env = {**os.environ, "DATABASE_PATH": str(path)}
        env.pop("DATABASE_URL", None)
        times: list[float] = []
        for _ in range(RUNS):
            url = asyncio.run(server.create_database())
            started = time.perf_counter()
            done = subprocess.run(  # noqa: S603
                [sys.executable, "-m", "bot", "migrate-db", "--to", url],
                env=env, capture_output=True, text=True, check=False,
            )  # fmt: skip
            times.append(time.perf_counter() - started)
            if done.returncode != 0:
                print(done.stdout, done.stderr)
                return 1
        source = _sqlite_counts(path)
        target = asyncio.run(_pg_counts(url))
        target.pop("schema_version")
        source.pop("instance_lease")  # the stopped bot's lease: not copied
        target.pop("instance_lease")
        rows = sum(source.values())
        size = path.stat().st_size / 1e6
        print(f"migrate-db, {name} users ({size:.0f} MB SQLite file, {rows:,} rows):")
        for table in sorted(source, key=lambda t: -source[t]):
            mark = "" if target.get(table) == source[table] else f"  MISMATCH: {target.get(table)}"
            print(f"  {table:<18} {source[table]:>9,}{mark}")
        equal = target == source
        best = min(times)
        print(
            f"  wall time of the whole command (start-up included), {RUNS} runs:"
            f" {', '.join(f'{t:.1f}' for t in times)} s ({rows / best:,.0f} rows/s at best);"
            f" counts equal on both sides: {equal}"
        )
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        answers = db.execute("SELECT COUNT(*) FROM answers WHERE user_id = ?", (USER.id,))
        mine = int(answers.fetchone()[0])
        db.close()
        with tempfile.TemporaryDirectory() as folder:
            polling, replied = asyncio.run(_bot_on(url, Path(folder), mine))
        print(
            f"  the bot on the copy: first getUpdates {polling:.1f} s after the start;"
            f" /stats of a user ({mine} answers, said) in {replied * 1000:.0f} ms"
        )
        return 0 if equal else 1
    finally:
        server.stop()


if __name__ == "__main__":
    raise SystemExit(main())
