"""Counting instructions under valgrind: the deterministic figures of the *_instructions benches."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Instructions only (no cache simulation): about 30 times slower than a plain run.
CACHEGRIND = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]


def instructions_in(stderr: str) -> int | None:
    """The instruction count valgrind printed, or None."""
    found = re.search(r"I\s+refs:\s+([\d,]+)", stderr)
    return int(found.group(1).replace(",", "")) if found else None


def run_child(code: str, *args: str) -> int:
    """Instructions of `python -c code args…` run from the repository, hash seed fixed (set
    iteration order, and with it a few branches, is the same each run)."""
    argv = [*CACHEGRIND, sys.executable, "-c", code, *args]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)  # noqa: S603
    count = instructions_in(done.stderr)
    if done.returncode != 0 or count is None:
        raise RuntimeError(f"{args} exited with {done.returncode}: {done.stderr[-800:]}")
    return count
