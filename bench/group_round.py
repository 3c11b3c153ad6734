"""A busy group round: 200 members reply within a second; all are scored and ranked.

Reports the time until every answer is stored, the time from /reveal to the ranked results
being sent, and peak memory (RSS of the process, which also runs the fake server here).
"""

from __future__ import annotations

import asyncio
import random
import resource
import tempfile
import time
from pathlib import Path

from bench.scoring import mixed_answer
from bot.app import build_application, running
from bot.config import Settings
from bot.core.content import load_library
from tests.support.fake_bot_api import FakeBotAPI, FakeUser

CONTENT = Path(__file__).resolve().parent.parent / "content"
MEMBERS = 200
GROUP = -100777


async def _until(condition, limit: float = 120.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + limit
    while not await condition():
        if time.monotonic() > deadline:
            raise TimeoutError("benchmark did not finish")
        await asyncio.sleep(0.01)


async def measure() -> dict[str, float]:
    api = FakeBotAPI()
    await api.start()
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            _env_file=None,  # type: ignore[call-arg]
            telegram_bot_token=api.token,
            telegram_api_base_url=api.base_url,
            database_path=Path(tmp) / "group.sqlite3",
            content_dir=CONTENT,
        )
        app = build_application(settings, load_library([CONTENT]), scheduler=False)
        async with running(app, poll_timeout=1):
            storage = app.bot_data["services"].storage
            opener = FakeUser(1, "Opener")
            api.message(opener, "/quiz beginner triton", chat_id=GROUP)  # Chinese: by name
            (question,) = await api.wait_for(GROUP, 1)
            rng = random.Random(9)
            members = [FakeUser(1000 + i, f"Member{i}") for i in range(MEMBERS)]
            started = time.perf_counter()
            for i, member in enumerate(members):  # 200 replies spread over one second
                text = mixed_answer(rng, rng.randint(60, 600))
                api.message(member, text, chat_id=GROUP, reply_to=question.message_id)
                if i % 20 == 19:
                    await asyncio.sleep(0.1)

            async def all_stored() -> bool:
                row = await storage._one("SELECT COUNT(*) FROM round_answers")
                return bool(row and row[0] == MEMBERS)

            await _until(all_stored)
            scored = time.perf_counter() - started
            before = len(api.to(GROUP))
            reveal_at = time.perf_counter()
            api.message(opener, "/reveal", chat_id=GROUP)

            async def results_started() -> bool:
                return any(s.method == "sendMessage" for s in api.to(GROUP)[before:])

            async def results_sent() -> bool:
                new = [s for s in api.to(GROUP)[before:] if s.method == "sendMessage"]
                return any("Reference answer" in s.visible for s in new)

            await _until(results_started)
            first = time.perf_counter() - reveal_at
            await _until(results_sent)
            closed = time.perf_counter() - reveal_at
            results = [s for s in api.to(GROUP)[before:] if s.method == "sendMessage"]
            listed = sum(s.visible.count("Member") for s in results)
    await api.stop()
    assert not api.violations, api.violations[:3]
    return {
        "members": MEMBERS,
        "ranked": listed,
        "messages": len(results),
        "scored_s": scored,
        "first_s": first,
        "close_s": closed,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def run() -> dict[str, float]:
    return asyncio.run(measure())


def report() -> None:
    f = run()
    print(f"Group round ({MEMBERS} members replying within a second)")
    print(f"  all answers scored and stored: {f['scored_s']:6.2f} s after the first reply")
    print(f"  /reveal to the ranking:        {f['first_s']:6.2f} s")
    print(f"  /reveal to the last results message: {f['close_s']:6.2f} s (20/min group pacing)")
    print(f"  members in the results:        {f['ranked']:6.0f} in {f['messages']:.0f} message(s)")
    print(f"  peak RSS:                      {f['peak_rss_mb']:6.0f} MB (bot and fake server)")


if __name__ == "__main__":
    report()
