"""`make mutation-core-sample`: bot/core's kill rate on a seeded sample of its mutants.

`make mutation` checks every mutant of bot/core: hours on two cores, more than one sitting
when the machine is shared. Between full runs, a seeded random sample measures the same
rate: the mutants are generated in `mutants/` as `make mutation` makes them, `SIZE` of the
bot/core ones are drawn with `random.Random(f"{seed}:core")` over the sorted names (the same
seed and size on the same code draw the same mutants), written to `mutants/core-sample.txt`,
and given to mutmut by name.

    python -m tests.support.mutation_core run --sample 400 --seed 1 --jobs 1
    python -m tests.support.mutation_core continue    # the sampled mutants without a verdict
    python -m tests.support.mutation_core report
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from tests.support.mutation_layers import ROOT, all_mutants
from tests.support.mutation_report import KILLED, equivalents, mutant_statuses

SAMPLE = ROOT / "mutants" / "core-sample.txt"


def draw(size: int, seed: int, jobs: int) -> list[str]:
    names = [n for n in all_mutants(jobs, folder=ROOT) if n.startswith("bot.core.")]
    picked = sorted(random.Random(f"{seed}:core").sample(sorted(names), min(size, len(names))))
    header = f"# seed {seed}, {len(picked)} of {len(names)} bot/core mutants"
    SAMPLE.write_text("\n".join([header, *picked]) + "\n", encoding="utf-8")
    print(header)
    return picked


def read_sample() -> list[str]:
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line and not line.startswith("#")]


def check(names: list[str], jobs: int) -> None:
    started = time.monotonic()
    mutmut = str(Path(sys.executable).parent / "mutmut")
    subprocess.run([mutmut, "run", "--max-children", str(jobs), *names], cwd=ROOT, check=False)
    print(f"\n{len(names)} mutants named; {time.monotonic() - started:.0f} s wall time")


def report() -> int:
    names = read_sample()
    statuses = mutant_statuses(cwd=ROOT)
    excluded = equivalents()
    c: Counter[str] = Counter()
    survivors = []
    for name in names:
        status = statuses.get(name, "not checked")
        if name in excluded:
            c["equivalent"] += 1
        elif status == "not checked":
            c["not checked"] += 1
        elif status in KILLED:
            c["killed"] += 1
        else:
            c["survived"] += 1
            survivors.append(f"{name}: {status}")
    counted = c["killed"] + c["survived"]
    rate = f"{c['killed'] / counted:.1%}" if counted else "–"
    print(SAMPLE.read_text(encoding="utf-8").splitlines()[0])
    print(
        f"killed {c['killed']}, survived {c['survived']}, equivalent {c['equivalent']},"
        f" not checked {c['not checked']}: {rate} of the checked"
    )
    if survivors:
        print("survivors:", *survivors, sep="\n  ")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="a fresh sample, checked, then the report")
    run.add_argument("--sample", type=int, default=400)
    run.add_argument("--seed", type=int, default=1)
    run.add_argument("--jobs", type=int, default=1)
    run.add_argument("--draw-only", action="store_true", help="generate and draw; check none")
    cont = sub.add_parser("continue", help="check the sampled mutants without a verdict")
    cont.add_argument("--jobs", type=int, default=1)
    sub.add_parser("report", help="the kill rate of the last sample")
    args = parser.parse_args()
    if args.command == "run":
        names = draw(args.sample, args.seed, args.jobs)
        if not args.draw_only:
            check(names, args.jobs)
    elif args.command == "continue":
        statuses = mutant_statuses(cwd=ROOT)
        left = [n for n in read_sample() if statuses.get(n, "not checked") == "not checked"]
        print(f"{len(left)} sampled mutants without a verdict")
        if left:
            check(left, args.jobs)
    return report()


if __name__ == "__main__":
    raise SystemExit(main())
