"""Time to render the /stats picture, and the memory it takes."""

from __future__ import annotations

import statistics
import time
import tracemalloc
from datetime import date, timedelta
from pathlib import Path

from bot.i18n import Strings
from bot.picture import LevelBar, WeakBar, render_stats_picture

CONTENT = Path(__file__).resolve().parent.parent / "content"
ROUNDS = 30


def _render(strings: Strings, lang: str) -> bytes:
    today = date(2026, 3, 4)
    per_day = {today - timedelta(days=i): i % 4 for i in range(84)}
    levels = [LevelBar(strings(lang, f"level_{n}"), a, t) for n, a, t in
              (("beginner", 3, 4), ("intermediate", 1, 4), ("advanced", 0, 5))]  # fmt: skip
    weeks = [None, None, 0.2, 0.35, None, 0.5, 0.41, 0.6, 0.58, 0.7, None, 0.82]
    weak = [WeakBar("preferred_batch_size（期望的 batch 大小）", 4), WeakBar("KV cache", 3)]
    return render_stats_picture(
        strings=strings, lang=lang, fonts=CONTENT / "fonts", today=today, per_day=per_day,
        current=5, best=12, weeks=weeks, levels=levels, weak=weak,
    )  # fmt: skip


def run() -> dict[str, float]:
    strings = Strings.load(CONTENT / "strings")
    figures: dict[str, float] = {}
    for lang in ("en", "zh"):
        _render(strings, lang)  # load the font once
        times = []
        for _ in range(ROUNDS):
            started = time.perf_counter()
            png = _render(strings, lang)
            times.append(time.perf_counter() - started)
        figures[f"{lang}_ms"] = statistics.median(times) * 1000
        figures[f"{lang}_kb"] = len(png) / 1024
    tracemalloc.start()
    _render(strings, "zh")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    figures["peak_mb"] = peak / 1024 / 1024
    return figures


def report() -> None:
    f = run()
    print(f"Stats picture (1080 px wide PNG, median of {ROUNDS})")
    for lang in ("en", "zh"):
        print(f"  {lang}: {f[f'{lang}_ms']:6.1f} ms, {f[f'{lang}_kb']:5.1f} KB")
    pixels = 1080 * 1100 * 3 / 1024 / 1024
    print(
        f"  memory: {pixels:.1f} MB image buffer + {f['peak_mb']:.1f} MB Python peak (tracemalloc)"
    )


if __name__ == "__main__":
    report()
