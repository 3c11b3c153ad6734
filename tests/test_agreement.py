"""Agreement with people's grades, measured as `content eval` measures it.

Every graded file was written and graded by someone who had not seen the scorer, before any
scoring. The floors below are the figures measured when the scorer was last changed, less a
little; the issue's targets are noted where they are not met yet.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bot.cli import main
from bot.core.content import Library, Pack
from bot.core.evaluation import (
    GAMING_KINDS,
    Agreement,
    agreement,
    parse_graded,
    spearman,
)
from bot.core.glossary import load_glossary
from bot.core.importer import import_document
from bot.core.scoring import score_answer

DATA = Path(__file__).parent / "data"
CONTENT = Path(__file__).resolve().parent.parent / "content"


def measure(pack: Pack, graded: str) -> Agreement:
    data = yaml.safe_load((DATA / graded).read_text(encoding="utf-8"))
    return agreement({q.id: q for q in pack.questions}, parse_graded(data, graded))


def imported(guide: Path, pack_id: str) -> Pack:
    glossary = load_glossary([CONTENT / "glossary"])
    raw, _ = import_document(guide.read_text(encoding="utf-8"), pack_id, glossary=glossary)
    return Pack.model_validate(raw)


def holds_its_floors(
    folder: str, guide: str, pack_id: str, graded: str, rho: float, pairwise: float, gamed: float
) -> None:
    """A bank of tests/data/<folder>, imported as is, agrees with its grades at least this
    well, and the answers that game a keyword score average at most `gamed`."""
    result = measure(imported(DATA / folder / guide, pack_id), f"{folder}/{graded}")
    assert result.spearman >= rho
    assert result.pairwise >= pairwise
    gaming = result.mean_of(GAMING_KINDS)
    assert gaming is not None and gaming <= gamed


def test_triton_pack_keeps_its_agreement_with_the_original_grades(library: Library) -> None:
    result = measure(library.packs["triton"], "graded_answers.yaml")
    assert result.spearman >= 0.94
    assert result.pairwise >= 0.94


def test_triton_pack_is_not_fooled_by_term_lists_denials_swaps_or_the_question(
    library: Library,
) -> None:
    result = measure(library.packs["triton"], "graded_triton_gaming.yaml")
    gaming = result.mean_of(GAMING_KINDS)
    assert gaming is not None and gaming <= 0.35
    for kind in ("term-list", "negated", "swapped", "question-echo"):
        assert result.mean_by_kind[kind] <= 0.35, kind
    for kind in ("excellent-en", "short-correct"):
        assert result.mean_by_kind[kind] >= 0.70, kind
    # Measured 0.886 / 0.939.
    assert result.pairwise >= 0.92
    assert result.spearman >= 0.85


def test_second_bank_after_review(library: Library) -> None:
    result = measure(library.packs["llm"], "graded_llm_inference.yaml")
    assert result.spearman >= 0.90
    assert result.pairwise >= 0.95
    for kind in ("term-list", "negated", "swapped", "question-echo"):
        assert result.mean_by_kind[kind] <= 0.35, kind
    for kind in ("excellent-en", "short-correct"):
        assert result.mean_by_kind[kind] >= 0.70, kind


# Issue 30's gate for a shipped pack: rho >= 0.88, pairwise >= 0.92, gamed <= 0.20, on answers
# graded before the pack was reviewed. Measured 0.883 / 0.950 / 0.06 (quant) and 0.885 /
# 0.936 / 0.16 (dep); 0.856 / 0.929 and 0.841 / 0.897 / 0.21 for their first reviews, before
# their disagreements were read. The English versions, on their graded answers translated
# from the originals' by someone who had not seen the scorer: 0.916 / 0.933 / 0.16
# (triton-en; 0.904 / 0.929 / 0.15 first), 0.885 / 0.950 / 0.08 (quant-en; 0.850 /
# 0.918 / 0.09 first; several rounds of measuring, so the least independent figure),
# 0.893 / 0.928 / 0.09 (llm-en; 0.877 / 0.913 first) and 0.889 / 0.933 / 0.16 (dep-en;
# 0.851 / 0.908 / 0.18 as translated, 0.871 / 0.913 after its first review). dtrain: 0.885 /
# 0.934 / 0.09 after its second review (0.812 / 0.892 / 0.13 first, 0.875 / 0.924 after its
# first review, 0.879 / 0.928 on the evening's scorer). gpu: 0.880
# (0.8802) / 0.929 / 0.08 after its second review (0.868 / 0.919 first, after several
# readings of its disagreements; 0.876 / 0.926 with the evening's scorer), on the gate. k8s: 0.888 /
# 0.938 / 0.14 after its second review (0.787 / 0.868 / 0.21 first, 0.862 / 0.926 once its
# disagreements were read, 0.871 / 0.932 on the scorer of 2026-12-07 evening).
# RAG and LLM applications (rag): 0.887 / 0.937 / 0.10 after its second review (0.790 /
# 0.872 / 0.14 first, 0.858 / 0.911 after its disagreements were read once, 0.864 / 0.917
# with the scorer's later rules).
# MySQL internals (sql): 0.882 / 0.931 / 0.07 after its review (0.683 / 0.815 imported as is,
# 0.799 / 0.893 / 0.11 first, before its disagreements were read once).
# Computer networking in English (net-en), on the held-out networking bank's own graded
# answers: 0.883 / 0.941 / 0.11 after its second review (0.756 / 0.860 / 0.19 first, 0.854 /
# 0.921 / 0.13 after its disagreements were read once).
# GPU and CUDA basics in English (gpu-en), on gpu's graded answers translated: 0.886 / 0.932 /
# 0.07 with the scorer's rules of 2026-12-07 night, the pack unchanged since its third review
# (0.776 / 0.856 / 0.13 first, 0.848 / 0.899 after one reading, 0.871 / 0.924 / 0.09 after
# its third, on the scorer before those rules).
# System design in English (sd-en), on the held-out system design bank's own graded answers:
# 0.895 / 0.925 / 0.06 after its second review (0.778 / 0.865 / 0.16 first, 0.838 / 0.897
# after its disagreements were read once, 0.840 / 0.897 with the scorer's later rules).
# `strong`: the kinds of full answers that must score well (an English set has no -zh ones).
@pytest.mark.parametrize(
    ("pack_id", "graded", "strong"),
    [
        pytest.param(
            "quant",
            "heldout/graded_quantization.yaml",
            ("excellent-en", "excellent-zh"),
            id="quant",
        ),
        pytest.param(
            "dep", "heldout/graded_deploy_scaling.yaml", ("excellent-en", "excellent-zh"), id="dep"
        ),
        pytest.param(
            "dtrain",
            "heldout/graded_dist_training.yaml",
            ("excellent-en", "excellent-zh"),
            id="dtrain",
        ),
        pytest.param(
            "gpu", "heldout/graded_gpu_inference.yaml", ("excellent-en", "excellent-zh"), id="gpu"
        ),
        pytest.param(
            "rag", "heldout/graded_rag_engineering.yaml", ("excellent-en", "excellent-zh"), id="rag"
        ),
        pytest.param(
            "sql", "heldout/graded_mysql_internals.yaml", ("excellent-en", "excellent-zh"), id="sql"
        ),
        pytest.param(
            "triton-en",
            "graded/triton-en.yaml",
            ("excellent-en", "complete", "complete-en"),
            id="triton-en",
        ),
        pytest.param(
            "quant-en", "graded/quant-en.yaml", ("excellent", "excellent-en"), id="quant-en"
        ),
        pytest.param("llm-en", "graded/llm-en.yaml", ("excellent-en", "excellent-zh"), id="llm-en"),
        pytest.param("dep-en", "graded/dep-en.yaml", ("excellent-en", "excellent-zh"), id="dep-en"),
        pytest.param(
            "k8s", "heldout/graded_k8s_serving.yaml", ("excellent-en", "excellent-zh"), id="k8s"
        ),
        pytest.param("net-en", "graded/net-en.yaml", ("excellent-en", "excellent-zh"), id="net-en"),
        pytest.param("gpu-en", "graded/gpu-en.yaml", ("excellent", "excellent-en"), id="gpu-en"),
        pytest.param("sd-en", "graded/sd-en.yaml", ("excellent-en", "excellent-zh"), id="sd-en"),
    ],
)
def test_a_shipped_pack_passes_the_pack_gate(
    library: Library, pack_id: str, graded: str, strong: tuple[str, ...]
) -> None:
    result = measure(library.packs[pack_id], graded)
    assert result.spearman >= 0.88
    assert result.pairwise >= 0.92
    gaming = result.mean_of(GAMING_KINDS)
    assert gaming is not None and gaming <= 0.20
    for kind in strong:
        assert result.mean_by_kind[kind] >= 0.70, kind


def test_second_bank_imported_as_is() -> None:
    # Issue 9's targets: rho >= 0.80 and pairwise >= 0.88; measured 0.822 / 0.882.
    result = measure(
        imported(CONTENT / "guides" / "llm_inference.txt", "llm"), "graded_llm_inference.yaml"
    )
    assert result.spearman >= 0.80
    assert result.pairwise >= 0.88
    gaming = result.mean_of(GAMING_KINDS)
    assert gaming is not None and gaming <= 0.35


def test_prefill_and_decode_given_other_meanings_earn_nothing_on_the_imported_bank() -> None:
    # Graded 0 by people (graded_llm_inference.yaml, kind "wrong"): both names said, each
    # with something else's meaning. Its phrases that the reference puts nearer another
    # subject are read no way at all only in a claim that has a subject of its own.
    pack = imported(CONTENT / "guides" / "llm_inference.txt", "llm")
    question = next(q for q in pack.questions if q.id == "llm-q2")
    wrong = (
        "prefill 是服务启动时把模型权重预先加载到 GPU 上的过程，"
        "decode 是把输出的 token id 解码成文字，也就是 detokenize。"
    )
    assert score_answer(question, wrong).score == 0


# Banks no rule was written for when they were made: what a new author's import gets.
# quantization: the misses the fourth round (scales, siblings' short names, the terms that
# tell) was read from. perf_capacity: held out, only its overall figures ever looked at.
@pytest.mark.parametrize(
    ("guide", "pack_id", "graded", "rho", "pairwise"),
    [
        # Q10-Q12 and their answers added on 2026-12-07 evening (a helper who never saw the
        # scorer): 0.853 / 0.923 on Q1-Q9 (held below), 0.756 / 0.842 on all twelve (0.750 / 0.838
        # after the second reader's fixes), the scorer unchanged.
        pytest.param("k8s_serving.txt", "k8s", "graded_k8s_serving.yaml", 0.73, 0.82, id="k8s"),
        pytest.param(
            "quantization.txt", "quant", "graded_quantization.yaml", 0.78, 0.87, id="quant"
        ),
        pytest.param(
            "perf_capacity.txt", "perf", "graded_perf_capacity.yaml", 0.73, 0.85, id="perf"
        ),
        # English, Markdown: written and graded by a helper who never saw the scorer; its
        # term lists and swaps were read to write the rules of 2026-12-02 (0.679/0.834 before).
        # The general glossary of 2026-12-07 cost it 0.764/0.876 -> 0.747/0.860 ("DB" and
        # "database" one term, carrying claims a wrong answer names too).
        pytest.param(
            "redis_caching.md", "bank", "graded_redis_caching.yaml", 0.72, 0.84, id="redis-en"
        ),
        # Held out: written and graded on 2026-12-02 by a helper who never saw the code;
        # only its totals were looked at. First measured 0.712 / 0.831 (the scorer of the
        # start of that day: 0.703 / 0.822).
        pytest.param(
            "deploy_scaling.txt", "dep", "graded_deploy_scaling.yaml", 0.70, 0.82, id="deploy"
        ),
        # Five fields beyond ML serving, written and graded on 2026-12-07 by a helper who
        # never saw the scorer, then used to develop the rules of that day (contrast
        # subjects, the general glossary). Measured 0.651 / 0.787 (os), 0.649 / 0.797 (net),
        # 0.696 / 0.809 (sql), 0.633 / 0.793 (algo), 0.563 / 0.760 (dist); 0.56-0.63 /
        # 0.76-0.78 before. The target is 0.85 / 0.92. Later the same day os, net,
        # sql and redis grew to 12 questions (new questions and answers by other helpers who
        # never saw the scorer): os 0.617 / 0.774, net 0.647 / 0.801, sql 0.683 / 0.815,
        # redis 0.736 / 0.850 on the larger sets, the scorer unchanged; dist grew to 12 on
        # 2026-12-07 late (Q9-Q12 by a helper who never saw the scorer): 0.622 / 0.808 on all
        # twelve, 0.599 / 0.788 on Q1-Q8, 0.673 / 0.848 on Q9-Q12 alone, measured on arrival
        # (0.622 / 0.809 after the second reader's fixes; reviewed: content/drafts/dist.yaml).
        pytest.param("os_basics.txt", "os", "graded_os_basics.yaml", 0.59, 0.75, id="os"),
        pytest.param("networking.md", "net", "graded_networking.yaml", 0.62, 0.77, id="net"),
        pytest.param(
            "mysql_internals.md", "sql", "graded_mysql_internals.yaml", 0.66, 0.78, id="sql"
        ),
        pytest.param("algorithms.md", "algo", "graded_algorithms.yaml", 0.60, 0.77, id="algo"),
        pytest.param(
            "distributed_systems.txt",
            "dist",
            "graded_distributed_systems.yaml",
            0.51,
            0.74,
            id="dist",
        ),
        # Three banks of the seed's neighbourhood, written and graded on 2026-12-07 evening
        # by helpers who never saw the scorer, measured once on arrival and never tuned on:
        # 0.677 / 0.808 (GPU and CUDA), 0.554 / 0.756 (RAG), 0.588 / 0.775 (distributed
        # training).
        pytest.param("gpu_inference.txt", "gpu", "graded_gpu_inference.yaml", 0.65, 0.78, id="gpu"),
        pytest.param(
            "rag_engineering.txt", "rag", "graded_rag_engineering.yaml", 0.53, 0.73, id="rag"
        ),
        pytest.param(
            "dist_training.txt", "dtrain", "graded_dist_training.yaml", 0.56, 0.75, id="dtrain"
        ),
        # Java JVM and concurrency, written and graded on 2026-12-07 evening by a helper who
        # never saw the scorer, measured once on arrival: 0.616 / 0.776 (gamed 0.16); 0.620 /
        # 0.779 after the second reader's fixes (reviewed: content/drafts/java.yaml).
        pytest.param("java_jvm.txt", "java", "graded_java_jvm.yaml", 0.59, 0.75, id="java"),
        # System design in English (Markdown), written and graded on 2026-12-07 evening by a
        # helper who never saw the scorer, measured once on arrival: 0.674 / 0.809.
        pytest.param(
            "system_design_en.md", "sde", "graded_system_design_en.yaml", 0.65, 0.78, id="sd-en"
        ),
    ],
)
def test_held_out_banks_imported_as_is(
    guide: str, pack_id: str, graded: str, rho: float, pairwise: float
) -> None:
    # Measured 0.813 / 0.892 (quant), 0.760 / 0.868 (perf),
    # 0.747 / 0.860 (redis-en), 0.729 / 0.846 (deploy) on 2026-12-07.
    holds_its_floors("heldout", guide, pack_id, graded, rho, pairwise, gamed=0.35)


def test_k8s_bank_imported_as_is_on_its_first_nine_questions() -> None:
    # Q1-Q9 were held out until the third round of rules, two of which came from reading their
    # misses: measured 0.853 / 0.923, 0.855 / 0.919 on 2026-12-07. Q10-Q12 came that day from
    # another helper and no rule was read from them: the whole bank imported measures 0.750 /
    # 0.838 (Q10-Q12 alone 0.556 / 0.733), the reviewed pack (content/k8s.yaml) 0.888 / 0.938.
    data = yaml.safe_load((DATA / "heldout" / "graded_k8s_serving.yaml").read_text("utf-8"))
    first_nine = {qid: data[qid] for qid in (f"k8s-q{n}" for n in range(1, 10))}
    pack = imported(DATA / "heldout" / "k8s_serving.txt", "k8s")
    result = agreement({q.id: q for q in pack.questions}, parse_graded(first_nine, "k8s"))
    assert result.spearman >= 0.82
    assert result.pairwise >= 0.90
    gaming = result.mean_of(GAMING_KINDS)
    assert gaming is not None and gaming <= 0.35


def test_spearman_and_pairwise_on_known_values() -> None:
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    # Ties take the mean rank: ranks (1.5, 1.5, 3) against (1, 2, 3).
    assert spearman([1, 1, 2], [1, 2, 3]) == pytest.approx(0.8660254, abs=1e-6)


def test_content_eval_prints_the_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = tmp_path / "p.yaml"
    pack.write_text(
        "id: p\ntitle: P\nlanguage: en\nquestions:\n"
        "  - id: p-q1\n    level: beginner\n    question: What does the KV cache hold?\n"
        "    answer: Keys and values of earlier tokens, so decode does not recompute them.\n"
        "    concepts:\n"
        "      - label: keys and values\n        aliases: [keys and values, K/V]\n"
        "      - label: no recomputation\n        aliases: [recompute, recomputation]\n",
        encoding="utf-8",
    )
    graded = tmp_path / "g.yaml"
    graded.write_text(
        "p-q1:\n"
        "  - {grade: 2, kind: excellent-en,\n"
        "     answer: It keeps keys and values so we never recompute them.}\n"
        "  - {grade: 1, answer: It keeps keys and values.}\n"
        "  - {grade: 0, kind: term-list, answer: 'keys and values, recompute'}\n",
        encoding="utf-8",
    )
    assert main(["content", "eval", str(pack), str(graded)]) == 0
    out = capsys.readouterr().out
    assert "answers: 3   same-question pairs: 3" in out
    assert "Spearman rho: 1.000" in out
    assert "pairwise order: 1.000" in out
    assert "  term-list: 0.30" in out  # both concepts listed: 30% of the weight each


def test_content_eval_explains_a_broken_graded_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    graded = tmp_path / "g.yaml"
    graded.write_text("triton-q1:\n  - {answer: no grade}\n", encoding="utf-8")
    assert main(["content", "eval", "triton", str(graded)]) == 1
    assert "triton-q1 answer 1: needs 'grade' and 'answer'" in capsys.readouterr().err


def test_content_eval_names_the_line_of_a_yaml_mistake_in_the_graded_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    graded = tmp_path / "g.yaml"
    graded.write_text("triton-q1:\n  - {answer: batching, grade: [5}\n", encoding="utf-8")
    assert main(["content", "eval", "triton", str(graded)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"Cannot evaluate {graded}: ") and "(line 2, column " in err
    assert "<unicode string>" not in err


def test_the_same_answer_in_english_and_in_chinese_scores_about_the_same(library: Library) -> None:
    # tests/data/translated_pairs.yaml: for every question of the two shipped packs, answers
    # of three qualities written in Chinese and translated into English by a helper who never
    # saw the scorer. Measured: mean |zh - en| 0.021, 71 of 72 pairs within 0.10 once the
    # packs had the English and Chinese phrasings the pairs showed missing (0.064 and 55
    # before); issue 27 asks for every pair within 0.10.
    data = yaml.safe_load((DATA / "translated_pairs.yaml").read_text(encoding="utf-8"))
    gaps = [
        abs(
            score_answer(library.questions[qid], item["zh"]).score
            - score_answer(library.questions[qid], item["en"]).score
        )
        for qid, items in data.items()
        for item in items
    ]
    assert len(gaps) == 72
    assert sum(gaps) / len(gaps) <= 0.03
    assert sum(g <= 0.10 for g in gaps) >= 71


# Held out from every rule: four banks written and graded on 2026-12-07 by a helper who never
# saw the scorer, measured once the day's rules were written (0.650/0.794, 0.693/0.839,
# 0.671/0.819, 0.637/0.798 with the scorer of the start of that day).
@pytest.mark.parametrize(
    ("guide", "pack_id", "graded", "rho", "pairwise"),
    [
        pytest.param("go_concurrency.md", "go", "graded_go_concurrency.yaml", 0.62, 0.77, id="go"),
        pytest.param(
            "python_internals.md", "py", "graded_python_internals.yaml", 0.66, 0.82, id="py"
        ),
        pytest.param("system_design.txt", "sd", "graded_system_design.yaml", 0.63, 0.79, id="sd"),
        pytest.param("web_security.md", "sec", "graded_web_security.yaml", 0.63, 0.79, id="sec"),
    ],
)
def test_banks_held_out_from_every_rule_imported_as_is(
    guide: str, pack_id: str, graded: str, rho: float, pairwise: float
) -> None:
    # Measured 0.648 / 0.794 (go), 0.691 / 0.845 (py), 0.661 / 0.814 (sd), 0.665 / 0.821 (sec).
    holds_its_floors("heldout2", guide, pack_id, graded, rho, pairwise, gamed=0.20)
