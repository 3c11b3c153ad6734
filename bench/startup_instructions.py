"""Instructions to the first getUpdates (valgrind): start-up, deterministic on a noisy machine.

Wall and CPU seconds of bench.startup move with the VM's load (CPU time too: a busy core is
a slower core); the instructions a start executes do not. Each process runs under
`valgrind --tool=cachegrind --cache-sim=no` against the fake Bot API in this process and
exits (os._exit) the moment it would send its first getUpdates: `interview-bot run` on a
copy of bench.scale's 1k database, and the bare PTB bot of bench.scale. About 30 s a run.

`python -m bench.startup_instructions [bot|bare|cold]...` (default: bare bot): `bot` starts
twice on the same copy and reports the second start (the parsed-YAML cache written by the
first, as on any restart); `cold` reports the first. The bot's bytecode is written first,
as for bench.startup.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path

from bench.scale import BARE_BOT, CONTENT, ROOT, _cached, _now, build, compile_bot
from bench.valgrind import CACHEGRIND, instructions_in
from tests.support.fake_bot_api import FakeBotAPI

# Run in the child: replace the first getUpdates by an exit, then start the bot or bare PTB.
# The bot starts through its entry module, which loads with the cyclic collector off: so
# does the child, from its first import on.
CHILD = """
import os, sys
if sys.argv[1] == "bot":
    import gc
    gc.disable()
import telegram.ext

async def first_poll(self, *args, **kwargs):
    os._exit(0)

telegram.ext.ExtBot.get_updates = first_poll
if sys.argv[1] == "bot":
    import bot.incoming
    bot.incoming.TolerantBot.get_updates = first_poll
    from bot.entry import main
    sys.argv = ["interview-bot", "run"]
    raise SystemExit(main())
exec(sys.argv[2])
"""


async def _instructions(api: FakeBotAPI, which: str, env: dict[str, str]) -> int:
    argv = [*CACHEGRIND, sys.executable, "-c", CHILD, which, BARE_BOT]
    process = await asyncio.create_subprocess_exec(
        *argv, env=env, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE
    )
    _, err = await process.communicate()
    count = instructions_in(err.decode())
    if process.returncode != 0 or count is None:
        raise RuntimeError(f"{which} exited with {process.returncode}: {err.decode()[-800:]}")
    return count


async def measure(kinds: list[str]) -> dict[str, int]:
    compile_bot()
    now = _now()
    cached = _cached("1k", now)
    if not cached.exists():
        partial = cached.with_suffix(".partial")
        partial.unlink(missing_ok=True)
        await build(partial, 1_000, now)
        partial.rename(cached)
    api = FakeBotAPI()
    await api.start()
    figures: dict[str, int] = {}
    try:
        for kind in kinds:
            with tempfile.TemporaryDirectory() as tmp:
                database = Path(tmp) / "bot.sqlite3"
                shutil.copyfile(cached, database)
                env = {
                    **os.environ,
                    "TELEGRAM_BOT_TOKEN": api.token,
                    "TELEGRAM_API_BASE_URL": api.base_url,
                    "CONTENT_DIR": str(CONTENT),
                    "LOG_LEVEL": "WARNING",
                    "DATABASE_PATH": str(database),
                    "PYTHONHASHSEED": "0",
                    "PYTHONPATH": str(ROOT),
                }
                if kind == "bare":
                    figures[kind] = await _instructions(api, "bare", env)
                    continue
                first = await _instructions(api, "bot", env)
                figures[kind] = first if kind == "cold" else await _instructions(api, "bot", env)
    finally:
        await api.stop()
    return figures


def report() -> None:
    logging.getLogger("aiohttp.server").setLevel(logging.CRITICAL)  # a cut-off request
    kinds = [a for a in sys.argv[1:] if not a.startswith("--")] or ["bare", "bot"]
    if shutil.which("valgrind") is None:
        print("Instructions to the first getUpdates: skipped (valgrind is not installed)")
        return
    figures = asyncio.run(measure(kinds))
    print("Instructions to the first getUpdates (valgrind, 1k database)")
    for kind, count in figures.items():
        ratio = f"  ({count / figures['bare']:.2f}x bare)" if "bare" in figures else ""
        print(f"  {kind:5s} {count / 1e6:8,.0f} M{ratio}")


if __name__ == "__main__":
    report()
