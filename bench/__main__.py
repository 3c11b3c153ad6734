"""Run every benchmark in turn: `python -m bench` (or `make bench`)."""

from __future__ import annotations

import platform
import sys
from datetime import UTC, datetime

from bench import bot_throughput, fanout, group_round, scoring, stats_picture

BENCHES = {
    "scoring": scoring.report,
    "throughput": bot_throughput.report,
    "fanout": fanout.report,
    "group": group_round.report,
    "picture": stats_picture.report,
}


def main() -> None:
    chosen = sys.argv[1:] or list(BENCHES)
    print(f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC · {platform.node()} · {platform.machine()}")
    print(f"Python {platform.python_version()} · {platform.processor() or 'cpu'}\n")
    for name in chosen:
        BENCHES[name]()
        print()


if __name__ == "__main__":
    main()
