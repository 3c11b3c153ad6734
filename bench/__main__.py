"""Run every benchmark, each in its own process (so peak memory is its own): `make bench`."""

from __future__ import annotations

import platform
import subprocess
import sys
from datetime import UTC, datetime

BENCHES = {
    "agreement": "bench.agreement",
    "scoring": "bench.scoring",
    "scoring_instructions": "bench.scoring_instructions",
    "throughput": "bench.bot_throughput",
    "throughput_instructions": "bench.throughput_instructions",
    "fanout": "bench.fanout",
    "replicas": "bench.replicas",
    "restarts": "bench.restarts",
    "group": "bench.group_round",
    "picture": "bench.stats_picture",
    "scale": "bench.scale",
    "migrate": "bench.migrate_db",
    "startup": "bench.startup",
    "startup_instructions": "bench.startup_instructions",
    "latency": "bench.backend_latency",
}


def main() -> int:
    chosen = sys.argv[1:] or list(BENCHES)
    unknown = [name for name in chosen if name not in BENCHES]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; choose from {', '.join(BENCHES)}")
        return 2
    print(f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC · {platform.node()} · {platform.machine()}")
    print(f"Python {platform.python_version()} · {platform.processor() or 'cpu'}\n", flush=True)
    failed = 0
    for name in chosen:
        done = subprocess.run([sys.executable, "-m", BENCHES[name]], check=False)  # noqa: S603
        failed += done.returncode != 0
        print(flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
