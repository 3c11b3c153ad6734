"""Print the kill rate of the last `mutmut run`, per module, equivalent mutants excluded.

`make mutation` runs this after mutmut. Equivalent mutants (no test can tell them from the
original, because the program behaves the same) are listed by name, each with the reason,
in tests/mutation_equivalents.txt; they are left out of the rate, never counted away.
Mutants no test runs ("no tests") count as survivors; timeouts count as killed.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

EQUIVALENTS = Path(__file__).resolve().parent.parent / "mutation_equivalents.txt"
KILLED = {"killed", "timeout", "caught by type check"}


def equivalents() -> dict[str, str]:
    found: dict[str, str] = {}
    for line in EQUIVALENTS.read_text(encoding="utf-8").splitlines():
        name, _, why = line.partition("#")
        if name.strip():
            found[name.strip()] = why.strip()
    return found


def _row(c: Counter[str]) -> str:
    """Killed, survived, equivalent, not checked, and the rate of the checked ("–" if none)."""
    counted = c["killed"] + c["survived"]
    rate = f"{c['killed'] / counted:7.1%}" if counted else f"{'–':>7}"
    return f"{c['killed']:7} {c['survived']:8} {c['equivalent']:6} {c['not checked']:9} {rate}"


def mutant_statuses(cwd: Path | None = None) -> dict[str, str]:
    """Every mutant of the run in `cwd` (default: here) and its status ("killed", "survived",
    "no tests", "not checked", …), as `mutmut results --all true` lists them."""
    out = subprocess.run(
        [str(Path(sys.executable).parent / "mutmut"), "results", "--all", "true"],
        capture_output=True,
        text=True,
        check=True,
        cwd=cwd,
    ).stdout
    found: dict[str, str] = {}
    for line in out.splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if sep and "__mutmut_" in name:
            found[name] = status
    return found


def main() -> int:
    excluded = equivalents()
    by_module: dict[str, Counter[str]] = defaultdict(Counter)
    survivors: list[str] = []
    seen_equivalents: set[str] = set()
    for name, status in mutant_statuses().items():
        module = name.split(".x")[0]
        if name in excluded:
            seen_equivalents.add(name)
            by_module[module]["equivalent"] += 1
            continue
        verdict = "killed" if status in KILLED else "survived"
        if status == "not checked":
            verdict = "not checked"
        by_module[module][verdict] += 1
        if verdict == "survived":
            survivors.append(f"{name}: {status}")
    total = Counter[str]()
    print(f"{'module':32} {'killed':>7} {'survived':>8} {'equiv.':>6} {'unchecked':>9} {'rate':>7}")
    for module in sorted(by_module):
        c = by_module[module]
        total.update(c)
        print(f"{module:32} {_row(c)}")
    print(f"{'all':32} {_row(total)}")
    if total["not checked"]:
        print(f"{total['not checked']} mutants not checked yet (run interrupted?)")
    # Only of the modules this run mutated: the list also names other runs' (mutation_layers).
    listed_here = {name for name in excluded if name.split(".x")[0] in by_module}
    if stale := sorted(listed_here - seen_equivalents):
        print("listed as equivalent but not found (code moved?):", *stale, sep="\n  ")
    if survivors:
        print("survivors:", *survivors, sep="\n  ")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
