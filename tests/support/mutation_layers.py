"""`make mutation-layers`: mutation testing of the layers above bot/core, on a seeded sample.

`make mutation` mutates every pure rule (bot/core) and the practice steps: thousands of
mutants, hours on two cores. The layers above them (handlers, services, jobs, storage,
delivery, the rate limiter, the webhook listener, the composition root) are mostly tested by
flow tests, which run the real Application against the fake Bot API (a second or so each), so
all of their mutants would take days. Instead, a seeded random sample of them is checked, and
the kill rate is reported per layer: the same seed and size draw the same mutants again.

It runs in its own folder, `mutants-layers/` (mutmut keeps its `mutants/` in the folder it
runs in), so it neither replaces nor reads `make mutation`'s `mutants/`. That folder links to
the project's files and holds its own pyproject.toml: the project's pytest settings, and
`[tool.mutmut]` with `only_mutate` set to the layers and the test selection below.

    python -m tests.support.mutation_layers run --sample 400 --seed 1 --jobs 2
    python -m tests.support.mutation_layers continue     # the sampled mutants not yet checked
    python -m tests.support.mutation_layers report

The sample is drawn per layer, in proportion to each layer's mutants but at least
`MIN_PER_LAYER` from each (all of a smaller one), so a small layer still gets a rate; within a
layer it is `random.Random(seed).sample` of the sorted names. It is written to
`mutants-layers/sample.txt`; `continue` and `report` read it back.
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import json
import os
import random
import shutil
import subprocess
import sys
import time
import tomllib
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from tests.support.mutation_report import KILLED, equivalents, mutant_statuses

ROOT = Path(__file__).resolve().parent.parent.parent
WORK = ROOT / "mutants-layers"
SAMPLE = WORK / "sample.txt"

# Each layer and its files, as in ARCHITECTURE.md (bot/services/practice.py is also in
# `make mutation`; here it is sampled with the other services).
LAYERS: dict[str, tuple[str, ...]] = {
    "handlers": ("bot/handlers/*",),
    "services": ("bot/services/*",),
    "jobs": ("bot/jobs/*",),
    "storage": ("bot/storage/*",),
    "delivery": ("bot/delivery.py",),
    "ratelimit": ("bot/ratelimit.py",),
    "webhook": ("bot/webhook.py",),
    "app": ("bot/app.py",),
}
MIN_PER_LAYER = 25

# What the folder links to: the sources, the tests and what they read, and `make mutation`'s
# also_copy (mutmut copies each into mutants-layers/mutants/).
LINKED = ("bot", "tests", "content", "bench", "requirements.lock", "requirements-dev.lock",
          "Makefile", "Dockerfile", ".env.example", "README.md")  # fmt: skip

# The test selection is `make mutation`'s, with two changes:
# - tests/test_ratelimit.py runs: it times the rate limiter, which is mutated here;
# - test files that cannot reach a layer are left out (they import nothing from bot/ outside
#   bot/core, no test helper that does, and take none of the fixtures that build the bot):
#   they could never kill a mutant here, and mutmut would still run them all once for its
#   coverage of tests to functions, and once more as the clean run.
RUN_HERE = ("--ignore=tests/test_ratelimit.py",)
# Tests that hold a rule by stopping the bot within a delay of the fake Bot API (0.5 s): under
# mutmut's tracing at low priority on a loaded machine the delay passes first, the coverage
# run fails, and mutmut stops before the first mutant. Their neighbours cover the same code.
# Likewise the reply lane's count of broadcasts a reply overtakes while they wait for the rate.
DESELECT_HERE = (
    "--deselect=tests/test_daily_flow.py::test_restart_in_the_middle_of_a_fan_out_sends_exactly_one",
    "--deselect=tests/test_reply_lane.py::test_a_reply_overtakes_the_broadcasts_waiting_for_the_rate_limit",
    # The flow tests' PostgreSQL twins run the same handlers, services and jobs on the other
    # backend, and these files PostgreSQL's own code (bot/storage/postgres.py, to_postgres.py;
    # the replicas as real processes): they would double the coverage run and fail it on
    # their timings under tracing, and see no mutant of the seed-1 sample (drawn before
    # PostgreSQL came) that a SQLite test misses.
    "-k",
    "not postgresql",
    "--ignore=tests/test_postgres.py",
    "--ignore=tests/test_migrate_db.py",
    "--ignore=tests/test_replicas.py",
)
SAFE_HELPERS = ("tests.support.questions", "tests.support.wait")
FLOW_FIXTURES = frozenset({"bot", "api", "storage", "practice", "bot_settings"})


def layer_of(name: str) -> str | None:
    """The layer of a mutant (`bot.handlers.settings.x_level__mutmut_3`), or None."""
    module = name.split(".x", 1)[0].removesuffix(".__init__")
    candidates = (module.replace(".", "/") + ".py", module.replace(".", "/") + "/__init__.py")
    for layer, patterns in LAYERS.items():
        if any(fnmatch.fnmatch(path, p) for path in candidates for p in patterns):
            return layer
    return None


def reaches_layers(test_file: Path) -> bool:
    """Whether a test file can run code of a layer (see RUN_HERE's comment); when unsure, yes."""
    tree = ast.parse(test_file.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        modules: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        for module in modules:
            if module == "bot" or (module.startswith("bot.") and not module.startswith("bot.core")):
                return True
            if module.startswith("tests") and module not in SAFE_HELPERS:
                return True
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            args = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
            if any(arg.arg in FLOW_FIXTURES for arg in args):
                return True
    return False


def layer_test_selection(base: list[str]) -> list[str]:
    selection = [arg for arg in base if arg not in RUN_HERE] + list(DESELECT_HERE)
    for test_file in sorted((ROOT / "tests").glob("test_*.py")):
        ignore = f"--ignore=tests/{test_file.name}"
        if ignore not in selection and not reaches_layers(test_file):
            selection.append(ignore)
    return selection


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[\n" + "".join(f"    {_toml(item)},\n" for item in value) + "]"
    raise TypeError(f"no TOML for {value!r}")


def pyproject() -> str:
    """The folder's pyproject.toml: the project's pytest settings and the layers' mutmut."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    pytest_options = project["tool"]["pytest"]["ini_options"]
    mutmut = dict(project["tool"]["mutmut"])
    mutmut["only_mutate"] = [p for patterns in LAYERS.values() for p in patterns]
    mutmut["pytest_add_cli_args_test_selection"] = layer_test_selection(
        list(mutmut["pytest_add_cli_args_test_selection"])
    )
    lines = ["# Written by tests/support/mutation_layers.py; do not edit.", ""]
    for table, options in (("tool.pytest.ini_options", pytest_options), ("tool.mutmut", mutmut)):
        lines.append(f"[{table}]")
        lines += [f"{key} = {_toml(value)}" for key, value in options.items()]
        lines.append("")
    return "\n".join(lines)


def prepare() -> None:
    WORK.mkdir(exist_ok=True)
    for name in LINKED:
        link = WORK / name
        if not link.is_symlink() and (ROOT / name).exists():
            link.symlink_to(ROOT / name)
    (WORK / "pyproject.toml").write_text(pyproject(), encoding="utf-8")


def all_mutants(jobs: int, folder: Path = WORK) -> list[str]:
    """Generate the mutants of `folder`'s mutmut settings (the layers' in WORK) as `mutmut run`
    begins, and name them all."""
    os.chdir(folder)
    import mutmut.__main__ as mutmut
    from mutmut.mutation.trampoline import set_mutant_under_test
    from mutmut.utils.file_utils import copy_also_copy_files, copy_src_dir, setup_source_paths

    set_mutant_under_test("mutant_generation")
    Path("mutants").mkdir(exist_ok=True)
    copy_src_dir()
    copy_also_copy_files()
    setup_source_paths()
    mutmut.store_lines_covered_by_tests()
    mutmut.create_mutants(jobs)
    found, _ = mutmut.collect_source_file_mutation_data(mutant_names=())
    return sorted(name for _, name, _ in found)


def draw(names: list[str], size: int, seed: int) -> dict[str, list[str]]:
    """The sample, per layer: in proportion to the layers' sizes, at least MIN_PER_LAYER each."""
    by_layer: dict[str, list[str]] = defaultdict(list)
    for name in names:
        layer = layer_of(name)
        if layer is not None:
            by_layer[layer].append(name)
    total = sum(len(v) for v in by_layer.values())
    sample: dict[str, list[str]] = {}
    for layer in LAYERS:
        pool = sorted(by_layer.get(layer, []))
        share = max(MIN_PER_LAYER, round(size * len(pool) / total)) if total else 0
        sample[layer] = sorted(random.Random(f"{seed}:{layer}").sample(pool, min(share, len(pool))))
    return sample


def write_sample(sample: dict[str, list[str]], seed: int, size: int, names: list[str]) -> None:
    sizes = Counter(layer_of(n) for n in names)
    lines = [f"# seed {seed}, size asked {size}, drawn {sum(len(v) for v in sample.values())}"]
    lines += [f"# {layer}: {len(sample[layer])} of {sizes[layer]}" for layer in LAYERS]
    lines += [name for layer in LAYERS for name in sample[layer]]
    SAMPLE.write_text("\n".join(lines) + "\n", encoding="utf-8")


def read_sample() -> tuple[list[str], dict[str, int]]:
    """The sampled names, and each layer's number of mutants in all."""
    names, sizes = [], {}
    for line in SAMPLE.read_text(encoding="utf-8").splitlines():
        if line.startswith("# ") and ": " in line and " of " in line:
            layer, _, counts = line[2:].partition(": ")
            sizes[layer] = int(counts.split(" of ")[1])
        elif line and not line.startswith("#"):
            names.append(line)
    return names, sizes


def check(names: list[str], jobs: int) -> None:
    """`mutmut run` on these names in WORK; say how long it took a mutant."""
    started = time.monotonic()
    mutmut = Path(sys.executable).parent / "mutmut"
    subprocess.run([str(mutmut), "run", "--max-children", str(jobs), *names], cwd=WORK, check=False)
    spent = time.monotonic() - started
    # Not per mutant: a run stopped part way leaves some named mutants unchecked. The report
    # gives the seconds each checked mutant's tests took (mutmut's own timing).
    print(f"\n{len(names)} mutants named; {spent:.0f} s wall time with {jobs} workers")


def durations() -> dict[str, float]:
    """Seconds each checked mutant's tests took (mutmut's timing, setup excluded)."""
    found: dict[str, float] = {}
    for meta in (WORK / "mutants").glob("**/*.meta"):
        data = json.loads(meta.read_text(encoding="utf-8"))
        codes = data.get("exit_code_by_key", {})
        for name, seconds in data.get("durations_by_key", {}).items():
            if codes.get(name) not in (None, 33):  # 33: no tests, nothing was run
                found[name] = seconds
    return found


def report() -> int:
    names, sizes = read_sample()
    statuses = mutant_statuses(cwd=WORK)
    excluded = equivalents()
    rows: dict[str, Counter[str]] = {layer: Counter() for layer in LAYERS}
    survivors: list[str] = []
    for name in names:
        c = rows[layer_of(name) or "?"]
        status = statuses.get(name, "not checked")
        if name in excluded:
            c["equivalent"] += 1
        elif status == "not checked":
            c["not checked"] += 1
        elif status in KILLED:
            c["killed"] += 1
        else:
            c["survived"] += 1
            c["no tests"] += status == "no tests"
            survivors.append(f"{name}: {status}")
    head = f"{'layer':10} {'mutants':>7} {'sampled':>7} {'killed':>7} {'survived':>8}"
    print(f"{head} {'(no tests)':>10} {'equiv.':>6} {'unchecked':>9} {'rate':>7}")
    total: Counter[str] = Counter()
    for layer in LAYERS:
        total.update(rows[layer])
        print(_row(layer, sizes.get(layer, 0), rows[layer]))
    print(_row("all", sum(sizes.values()), total))
    timed = durations()
    killed = [timed[n] for n in names if n in timed and statuses.get(n) in KILLED]
    lasted = [timed[n] for n in names if n in timed and statuses.get(n) not in KILLED]
    if killed or lasted:
        print(
            f"seconds a mutant (its tests, as mutmut timed them): killed {_mean(killed)}"
            f" ({len(killed)}), survived {_mean(lasted)} ({len(lasted)}),"
            f" all {_mean(killed + lasted)}"
        )
    if survivors:
        print("survivors:", *survivors, sep="\n  ")
    return 0


def _mean(values: list[float]) -> str:
    return f"{sum(values) / len(values):.1f}" if values else "–"


def _row(name: str, size: int, c: Counter[str]) -> str:
    sampled = sum(c[k] for k in ("killed", "survived", "equivalent", "not checked"))
    counted = c["killed"] + c["survived"]
    rate = f"{c['killed'] / counted:7.1%}" if counted else f"{'–':>7}"
    return (
        f"{name:10} {size:7} {sampled:7} {c['killed']:7} {c['survived']:8} {c['no tests']:10}"
        f" {c['equivalent']:6} {c['not checked']:9} {rate}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="a fresh sample, checked, then the report")
    run.add_argument("--sample", type=int, default=400, help="mutants to draw (default 400)")
    run.add_argument("--seed", type=int, default=1, help="the draw's seed (default 1)")
    run.add_argument("--jobs", type=int, default=2, help="mutmut's workers (default 2)")
    run.add_argument("--draw-only", action="store_true", help="generate and draw; check none")
    cont = sub.add_parser("continue", help="check the sampled mutants without a verdict")
    cont.add_argument("--jobs", type=int, default=2)
    sub.add_parser("report", help="the kill rate per layer of the last sample")
    args = parser.parse_args()

    if args.command == "run":
        shutil.rmtree(WORK, ignore_errors=True)
        prepare()
        names = all_mutants(args.jobs)
        sample = draw(names, args.sample, args.seed)
        write_sample(sample, args.seed, args.sample, names)
        print(SAMPLE.read_text(encoding="utf-8").split("\n# ", 1)[0])
        print("".join(f"  {line}\n" for line in SAMPLE.read_text().splitlines()[1:9]), end="")
        if args.draw_only:
            return 0
        check([n for layer in LAYERS for n in sample[layer]], args.jobs)
    elif args.command == "continue":
        prepare()  # the test selection as the tests are now
        names, _ = read_sample()
        statuses = mutant_statuses(cwd=WORK)
        left = [n for n in names if statuses.get(n, "not checked") == "not checked"]
        print(f"{len(left)} of {len(names)} sampled mutants without a verdict")
        if left:
            check(left, args.jobs)
    return report()


if __name__ == "__main__":
    raise SystemExit(main())
