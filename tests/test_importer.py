"""Importing an interview guide in the seed's format into a draft pack."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from bot.cli import main
from bot.core.content import parse_pack
from bot.core.importer import ImportError_, import_document, repair_wraps
from tests.conftest import SEED


def test_seed_imports_as_twelve_questions_with_levels() -> None:
    pack, warnings = import_document(SEED.read_text(encoding="utf-8"), "seed")
    assert warnings == []
    questions = pack["questions"]
    assert [q["id"] for q in questions] == [f"seed-q{i}" for i in range(1, 13)]
    assert [q["level"] for q in questions] == ["beginner"] * 3 + ["intermediate"] * 4 + [
        "advanced"
    ] * 5
    assert questions[0]["question"].startswith("Triton Inference Server 的核心定位是什么")
    assert questions[5]["answer"].startswith("它是 backend 执行推理的核心回调")
    # The chapter summary after Q12 is not part of its answer.
    assert "本章小结" not in questions[-1]["answer"]
    assert questions[-1]["answer"].rstrip().endswith("重心转移到 Dynamo。")


def test_seed_line_wraps_are_repaired() -> None:
    pack, _ = import_document(SEED.read_text(encoding="utf-8"), "seed")
    answers = {q["id"]: q["answer"] for q in pack["questions"]}
    assert "通过 input_map/output_map 编排。" in answers["seed-q4"]
    assert "如果同时存在，backend 优先级更高。" in answers["seed-q2"]
    assert "- 看 nv_inference_compute_infer：如果高" in answers["seed-q10"]
    # Run-in list items get their own lines.
    assert "\n- 通过 instance group 控制每卡实例数" in answers["seed-q8"]
    for answer in answers.values():
        for line in answer.splitlines():
            assert not line.startswith(("nv_", "backend优先", "input_map")), line


def _phrases(concept: dict[str, object]) -> list[str]:
    """What names a suggested concept: aliases and key terms (not its subject)."""
    aliases = list(concept.get("aliases", []))  # type: ignore[call-overload]
    terms = [t for group in concept.get("terms", []) for t in group]  # type: ignore[attr-defined]
    return aliases + terms


def test_suggested_concepts_include_identifiers_and_terms() -> None:
    pack, _ = import_document(SEED.read_text(encoding="utf-8"), "seed")
    named = {q["id"]: [p for c in q["concepts"] for p in _phrases(c)] for q in pack["questions"]}
    subjects = {
        q["id"]: [s for c in q["concepts"] for s in c.get("subject", [])] for q in pack["questions"]
    }
    q3 = set(named["seed-q3"]) | set(subjects["seed-q3"])
    assert {"preferred_batch_size", "max_queue_delay_microseconds", "max_batch_size"} <= q3
    assert "Continuous Batching" in named["seed-q5"]
    assert any("\u4e00" <= ch <= "\u9fff" for term in named["seed-q1"] for ch in term)
    # Words of the question itself are no evidence of knowing the answer.
    assert "TRITONBACKEND_ModelExecute" not in named["seed-q6"]


def test_repair_wraps_joins_latin_with_a_space() -> None:
    assert (
        repair_wraps(["Client -> vLLM backend", "-> Python backend"])
        == "Client -> vLLM backend -> Python backend"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("just some notes\nno questions here", "no questions found", id="no-questions"),
        pytest.param("初级\nQ1：什么是缓存？\n", "Q1 has no reference answer", id="no-answer"),
        pytest.param(
            "初级\nQ1：A?\n参考答案：B\nQ1：C?\n参考答案：D\n", "Q1 appears twice", id="duplicate"
        ),
    ],
)
def test_broken_documents_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ImportError_, match=message):
        import_document(text, "x")


def test_cli_import_writes_a_valid_pack(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "seed.yaml"
    assert main(["content", "import", str(SEED), "--pack", "seed", "--out", str(out)]) == 0
    assert "12 questions (3 beginner, 4 intermediate, 5 advanced)" in capsys.readouterr().out
    pack = parse_pack(out.read_text(encoding="utf-8"), str(out))
    assert len(pack.questions) == 12
    # Refuses to overwrite without --force.
    assert main(["content", "import", str(SEED), "--pack", "seed", "--out", str(out)]) == 1
    assert "exists" in capsys.readouterr().err


def test_cli_import_rejects_bad_pack_id(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["content", "import", str(SEED), "--pack", "Bad Id"])
    assert "--pack" in capsys.readouterr().err


def test_imported_yaml_keeps_multiline_answers_readable(tmp_path: Path) -> None:
    out = tmp_path / "seed.yaml"
    main(["content", "import", str(SEED), "--pack", "seed", "--out", str(out)])
    data = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert "\n- Sequence Batching" in data["questions"][3]["answer"]
    assert "answer: |" in out.read_text(encoding="utf-8")
    json.dumps(data)  # plain data, no custom tags
