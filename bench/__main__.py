"""Run every benchmark in turn: `python -m bench` (or `make bench`)."""

from __future__ import annotations

import platform
from datetime import UTC, datetime

from bench import bot_throughput, scoring


def main() -> None:
    print(f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC · {platform.node()} · {platform.machine()}")
    print(f"Python {platform.python_version()} · {platform.processor() or 'cpu'}\n")
    scoring.report()
    print()
    bot_throughput.report()


if __name__ == "__main__":
    main()
