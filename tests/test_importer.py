"""Importing an interview guide in the seed's format into a draft pack."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from bot.cli import main
from bot.core.content import parse_pack
from bot.core.glossary import load_glossary
from bot.core.importer import ImportError_, import_document, repair_wraps
from bot.core.scoring import score_answer
from tests.conftest import CONTENT, SEED


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
    written = out.read_text(encoding="utf-8")
    pack = parse_pack(written, str(out))
    assert len(pack.questions) == 12
    assert "\nfield: general\n" in written  # for the reviewer to set (docs/packs.md)
    assert "set the\n# field" in written
    # Refuses to overwrite without --force.
    assert main(["content", "import", str(SEED), "--pack", "seed", "--out", str(out)]) == 1
    assert "exists" in capsys.readouterr().err


def test_cli_import_run_from_another_folder_still_uses_the_shipped_glossary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Run where CONTENT_DIR (./content) has no glossary: the English alias of 可观测性 still
    # comes from the glossary shipped with the bot, and nothing warns.
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CONTENT_DIR", raising=False)
    out = tmp_path / "seed.yaml"
    assert main(["content", "import", str(SEED), "--pack", "seed", "--out", str(out)]) == 0
    assert "observability" in out.read_text(encoding="utf-8")
    assert "glossary" not in capsys.readouterr().err


def test_cli_import_without_any_glossary_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CONTENT_DIR", raising=False)
    monkeypatch.setattr("bot.cli.SHIPPED_GLOSSARY", tmp_path / "gone" / "glossary")
    out = tmp_path / "seed.yaml"
    assert main(["content", "import", str(SEED), "--pack", "seed", "--out", str(out)]) == 0
    assert "observability" not in out.read_text(encoding="utf-8")
    err = capsys.readouterr().err
    assert "no glossary found" in err
    assert "--glossary" in err


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


# -- formats ---------------------------------------------------------------------------------

MARKDOWN = """# LLM Serving Interview Notes

## Beginner

### Q1: What is continuous batching?

Continuous batching admits new requests at every decode step.
Finished sequences leave at once, so the GPU stays busy.

**What does `--max-model-len` limit? [advanced]**

It caps the context length of one request (prompt plus output).

## 中级

### 为什么 decode 是 memory-bound？
每步只生成一个 token，却要读全部权重。
"""


def test_markdown_questions_from_headings_and_bold_lines_with_levels() -> None:
    pack, warnings = import_document(MARKDOWN, "md", source_name="notes.md")
    assert warnings == []
    qs = pack["questions"]
    assert [q["question"] for q in qs] == [
        "What is continuous batching?",
        "What does `--max-model-len` limit?",
        "为什么 decode 是 memory-bound？",
    ]
    assert [q["level"] for q in qs] == ["beginner", "advanced", "intermediate"]
    assert qs[0]["answer"].startswith("Continuous batching admits new requests")
    assert pack["title"] == "LLM Serving Interview Notes"
    assert pack["draft"] is True


CSV = (
    "question,answer,level\n"
    '"What is TTFT?","Time to first token: queueing plus prefill.",beginner\n'
)


def test_csv_with_a_header_row() -> None:
    pack, _ = import_document(CSV, "csvpack", source_name="bank.csv")
    (q,) = pack["questions"]
    assert (q["question"], q["level"]) == ("What is TTFT?", "beginner")
    assert q["answer"] == "Time to first token: queueing plus prefill."


ANKI = (
    "#separator:tab\n#html:true\n#tags column:3\n"
    "什么是 KV cache？\t缓存历史 token 的 <b>Key</b> 和 Value，<br>避免重复计算。\tadvanced llm\n"
)


def test_anki_plain_text_export_is_tsv_with_html() -> None:
    pack, _ = import_document(ANKI, "anki", source_name="deck.txt")
    (q,) = pack["questions"]
    assert q["level"] == "advanced"
    assert q["answer"] == "缓存历史 token 的 Key 和 Value，\n避免重复计算。"


def test_tsv_without_header_reads_question_answer_level() -> None:
    text = "What is PagedAttention?\tKV cache in fixed-size blocks mapped by a block table.\t中级\n"
    pack, _ = import_document(text, "tsv", source_name="bank.tsv")
    assert pack["questions"][0]["level"] == "intermediate"


@pytest.mark.parametrize(
    ("text", "name", "message"),
    [
        pytest.param("# Title\n\nJust prose, no questions.", "x.md", "no questions", id="md-empty"),
        pytest.param("question,answer\n", "x.csv", "no questions", id="csv-header-only"),
        pytest.param('question,answer\n"Q?",""\n', "x.csv", "no reference answer", id="csv-no-a"),
    ],
)
def test_broken_markdown_and_tables_say_what_is_wrong(text: str, name: str, message: str) -> None:
    with pytest.raises(ImportError_, match=message):
        import_document(text, "x", source_name=name)


# -- what the importer suggests --------------------------------------------------------------


GLOSSARY = load_glossary([CONTENT / "glossary"])


def _concepts(answer: str, question: str = "问题？") -> list[dict[str, object]]:
    text = f"初级\nQ1：{question}\n参考答案：\n{answer}\n"
    pack, _ = import_document(text, "t", glossary=GLOSSARY)
    return pack["questions"][0]["concepts"]  # type: ignore[no-any-return]


def test_flags_and_identifiers_stay_whole_and_english_terms_of_any_case_are_kept() -> None:
    concepts = _concepts(
        "- --max-model-len：限制单个请求的上下文长度。\n"
        "- continuous batching 在每个迭代调度新请求，rejection sampling 保证分布不变。\n"
        "- TensorRT-LLM 用 in-flight batching。"
    )
    named = {p for c in concepts for p in _phrases(c)} | {
        s
        for c in concepts
        for s in c.get("subject", [])  # type: ignore[attr-defined]
    }
    assert {"--max-model-len", "continuous batching", "rejection sampling"} <= named
    assert "TensorRT-LLM" in named
    assert "TensorRT" not in named


def test_glossary_gives_aliases_in_the_other_language() -> None:
    concepts = _concepts("动态批处理通过合并请求提高吞吐量。")
    named = {p for c in concepts for p in _phrases(c)}
    assert {"dynamic batching", "throughput"} <= named


def test_a_claim_about_one_of_the_questions_subjects_gets_that_subject() -> None:
    concepts = _concepts(
        "- Prefill：一次处理整个 prompt，GEMM 算术强度高。\n"
        "- Decode：每步读全部权重，受显存带宽限制。",
        question="prefill 和 decode 有什么区别？",
    )
    subjects = [c.get("subject", [None])[0] for c in concepts]  # type: ignore[attr-defined]
    assert [s.casefold() if s else s for s in subjects] == ["prefill", "decode"]


def test_generic_words_are_not_concepts() -> None:
    concepts = _concepts("这种方式的原理和成本都和框架有关，KV cache 是关键。")
    named = {p for c in concepts for p in _phrases(c)}
    assert not {"方式", "原理", "成本", "框架"} & named
    assert "KV cache" in named


def test_words_every_answer_of_the_pack_uses_are_dropped() -> None:
    answers = [f"GPU 上的第 {i} 种做法：用 topic{i}_knob 调优。" for i in range(6)]
    text = "初级\n" + "".join(
        f"Q{i + 1}：问题{i}？\n参考答案：{a}\n" for i, a in enumerate(answers)
    )
    pack, _ = import_document(text, "t", glossary=GLOSSARY)
    named = {p for q in pack["questions"] for c in q["concepts"] for p in _phrases(c)}
    assert "GPU" not in named
    assert "topic3_knob" in named


def test_a_generic_title_becomes_the_packs_topic() -> None:
    pack, _ = import_document(SEED.read_text(encoding="utf-8"), "seed")
    assert pack["title"] == "Triton 面试题"
    assert pack["language"] == "zh"


def test_imported_draft_scores_its_own_reference_answers_fully() -> None:
    pack, _ = import_document(SEED.read_text(encoding="utf-8"), "seed")
    parsed = parse_pack(yaml.safe_dump(pack, allow_unicode=True), "seed")
    scores = [score_answer(q, q.answer).score for q in parsed.questions]
    assert min(scores) >= 0.85, scores


def _subjects(answer: str, question: str) -> list[str | None]:
    concepts = _concepts(answer, question=question)
    return [c.get("subject", [None])[0] for c in concepts]  # type: ignore[attr-defined]


def test_a_flag_heading_a_claim_is_its_subject() -> None:
    subjects = _subjects(
        "- --max-model-len：单个请求的最大上下文长度。\n"
        "- --max-num-seqs：同时运行的序列数上限，影响吞吐。",
        question="--max-model-len 和 --max-num-seqs 分别控制什么？",
    )
    assert subjects == ["--max-model-len", "--max-num-seqs"]


def test_a_gloss_in_parentheses_belongs_to_the_head() -> None:
    subjects = _subjects(
        "- FP8（W8A8，常用 E4M3）：权重和激活都量化，用 Tensor Core 计算。\n"
        "- INT4（W4A16）：只压权重，反量化开销随 batch 增大。",
        question="两种量化方式有什么区别？",
    )
    assert [s.casefold() if s else s for s in subjects] == ["fp8", "int4"]


def test_a_head_the_glossary_spells_another_way_is_still_the_subject() -> None:
    # The glossary's name is `readiness probe`; the guide writes `readinessProbe`.
    subjects = _subjects(
        "- readinessProbe：判断 Pod 能否接收流量，失败时从 endpoint 摘除。\n"
        "- livenessProbe：判断进程是否卡死，失败后 kubelet 重启容器。",
        question="readinessProbe 和 livenessProbe 有什么区别？",
    )
    assert all(s is not None for s in subjects)
    assert [s.replace(" ", "").casefold() for s in subjects if s] == [
        "readinessprobe",
        "livenessprobe",
    ]


def test_a_head_the_question_names_is_a_subject_without_the_glossary() -> None:
    subjects = _subjects(
        "- Canary：新版本先承接少量流量（如 KServe 的 canaryTrafficPercent）。\n"
        "- Blue-green：新旧两套环境同时运行，一次性切换路由。",
        question="如何做 canary 和 blue-green 发布？",
    )
    assert [s.casefold() if s else s for s in subjects] == ["canary", "blue-green"]


def test_glossary_synonyms_are_one_term_not_two() -> None:
    # 矩阵乘 and GEMM name each other: one word must not earn a two-term claim.
    concepts = _concepts("大量 token 一起做矩阵乘（GEMM），算术强度高。")
    for concept in concepts:
        groups = concept.get("terms", [])  # type: ignore[attr-defined]
        firsts = [{a.casefold() for a in g} for g in groups]
        for i, a in enumerate(firsts):
            for b in firsts[i + 1 :]:
                assert not a & b, (a, b)


def test_idioms_are_not_terms() -> None:
    # The tagger calls 始终保持 "always keeps" an idiom: it names nothing an answer must say.
    concepts = _concepts("这样 GPU 始终保持较满的 batch，吞吐大幅提高，排队延迟也更低。")
    named = {p for c in concepts for p in _phrases(c)}
    assert "始终保持" not in named
    assert "排队延迟" in named or "queueing delay" in named
