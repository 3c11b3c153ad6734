"""Instructions per scored answer (valgrind): scoring speed, deterministic on a noisy machine.

bench.scoring's answers per second move with the VM's load and its hour (the same code gave
5,387/s at 05:22 and 3,946/s at 06:45 on 2026-12-02); the instructions an answer takes do
not. A child process loads every pack, warms each question's compiled form as bench.scoring
does, and scores N of bench.scoring's 300-character answers (the same seeded 500, in turn)
under `valgrind --tool=cachegrind --cache-sim=no`; N = 0 and N = 500 are both run, and their
difference over 500 is one answer's instructions, start-up and imports left out. About a
minute in all.

`python -m bench.scoring_instructions`
"""

from __future__ import annotations

import shutil

from bench.valgrind import run_child

ANSWERS = 500

CHILD = """
import random, sys
from bench.scoring import CONTENT, mixed_answer
from bot.core.content import load_library
from bot.core.scoring import score_answer

questions = list(load_library([CONTENT]).questions.values())
rng = random.Random(1)
answers = [(rng.choice(questions), mixed_answer(rng, 300)) for _ in range(500)]
for question in questions:
    score_answer(question, "warm-up")
for question, text in answers[:50]:
    score_answer(question, text)
for i in range(int(sys.argv[1])):
    question, text = answers[i % len(answers)]
    score_answer(question, text)
"""


def _instructions(answers: int) -> int:
    return run_child(CHILD, str(answers))


def report() -> None:
    if shutil.which("valgrind") is None:
        print("Instructions per scored answer: skipped (valgrind is not installed)")
        return
    per_answer = (_instructions(ANSWERS) - _instructions(0)) / ANSWERS
    print("Instructions per scored answer (valgrind; bench.scoring's 300-character answers)")
    print(f"  {per_answer / 1e6:.3f} million instructions an answer")


if __name__ == "__main__":
    report()
