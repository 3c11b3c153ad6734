"""The report `content eval` prints, from agreement figures given by hand."""

from __future__ import annotations

from bot.core.evaluation import Agreement, Graded, Scored, report


def _scored(qid: str, grade: float, score: float, answer: str, kind: str = "") -> Scored:
    return Scored(Graded(qid, grade, answer, kind), score)


def test_the_report_names_every_figure_and_the_worst_pairs() -> None:
    long_answer = "max_batch_size  and\n" + "x" * 80  # folded to one line, cut at 70
    good = _scored("t-q1", 3, 0.25, long_answer, "short-correct")
    bad = _scored("t-q1", 1, 0.5, "ensemble", "term-list")
    echo = _scored("t-q2", 0, 0.125, "what is it", "question-echo")
    result = Agreement(
        count=3,
        spearman=-0.5,
        pairwise=0.25,
        pairs=2,
        mean_by_grade={3.0: 0.25, 1.0: 0.5, 0.0: 0.125},
        mean_by_kind={"question-echo": 0.125, "short-correct": 0.25, "term-list": 0.5},
        worst=[(good, bad)],
        scored=[good, bad, echo],
    )
    clipped = "max_batch_size and " + "x" * 50 + "…"
    assert len(clipped) == 70
    assert report(result) == "\n".join(
        [
            "answers: 3   same-question pairs: 2",
            "Spearman rho: -0.500",
            "pairwise order: 0.250",
            "mean score by grade:",
            "  grade 3: 0.25",
            "  grade 1: 0.50",
            "  grade 0: 0.12",
            "mean score by kind:",
            "  question-echo: 0.12",
            "  short-correct: 0.25",
            "  term-list: 0.50",
            # gaming kinds here: term-list 0.5 and question-echo 0.125 -> 0.3125
            "  (gaming: negated, question-echo, swapped, term-list): 0.31",
            "  (strong: excellent-en, short-correct): 0.25",
            "worst disagreements (better answer scored lower):",
            "  t-q1: grade 3 scored 0.25 < grade 1 scored 0.50",
            f"    better: {clipped}",
            "    worse:  ensemble",
        ]
    )


def test_a_report_without_kinds_or_disagreements_is_short() -> None:
    seventy = "y" * 70  # exactly the limit: not cut
    one = _scored("t-q1", 2, 0.5, seventy)
    result = Agreement(1, 0.0, 1.0, 0, {2.0: 0.5}, {}, [(one, one)][:0], [one])
    assert report(result) == (
        "answers: 1   same-question pairs: 0\nSpearman rho: 0.000\npairwise order: 1.000\n"
        "mean score by grade:\n  grade 2: 0.50"
    )
    only_strong = Agreement(
        1,
        0.0,
        1.0,
        0,
        {2.0: 0.5},
        {"excellent-en": 0.5},
        [],
        [_scored("t-q1", 2, 0.5, seventy, "excellent-en")],
    )
    text = report(only_strong)
    assert "(gaming" not in text
    assert text.endswith("  excellent-en: 0.50\n  (strong: excellent-en, short-correct): 0.50")
    worst = Agreement(2, 0.0, 0.0, 1, {2.0: 0.5}, {}, [(one, one)], [one, one])
    assert report(worst).endswith(f"    better: {seventy}\n    worse:  {seventy}")
