"""The bilingual glossary as an author uses it: groups that merge, plurals, files that load.

Expected groups are worked out by hand from the rules in bot/core/glossary.py's docstrings:
a group shares a term with a known one -> merged into the earlier; fewer than two usable
terms -> ignored; later files add groups.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core.glossary import Glossary, GlossaryError, load_glossary, parse_glossary


def test_groups_sharing_a_term_merge_and_a_bridge_joins_two() -> None:
    glossary = Glossary([["batching", "批处理"], ["KV cache", "键值缓存"], ["组批", "batching"]])
    assert glossary.synonyms("batching") == ["batching", "批处理", "组批"]
    assert glossary.synonyms("KV cache") == ["KV cache", "键值缓存"]
    assert len(glossary) == 2
    glossary.add(["批处理", "KV cache"])  # names one term of each: the two groups become one
    assert glossary.synonyms("键值缓存") == ["键值缓存", "batching", "批处理", "组批", "KV cache"]
    assert glossary.synonyms("组批") == ["组批", "batching", "批处理", "KV cache", "键值缓存"]
    assert len(glossary) == 1
    # The emptied group is gone from lookups: a text naming terms of both is still scanned.
    assert glossary.find_in("We use batching and a KV cache.") == ["batching", "KV cache"]


def test_a_group_needs_two_usable_terms() -> None:
    glossary = Glossary([["solo"], ["alone", "  "], ["", "!!"], [3, "three"]])  # type: ignore[list-item]
    assert len(glossary) == 0
    assert "solo" not in glossary and "alone" not in glossary and "three" not in glossary
    assert glossary.synonyms("alone") == ["alone"]
    glossary.add(["two", "二"])
    assert len(glossary) == 1 and glossary.synonyms("二") == ["二", "two"]


def test_plurals_and_case_are_one_term() -> None:
    glossary = Glossary([["request", "请求"], ["batch", "批次"]])
    assert "Requests" in glossary and "batches" in glossary
    assert glossary.synonyms("requests") == ["requests", "请求"]
    glossary.add(["Batches", "组"])  # the plural names the known group: merged, not a new one
    assert len(glossary) == 2
    assert glossary.synonyms("批次") == ["批次", "batch", "组"]


def test_parse_glossary_names_the_file_and_the_entry() -> None:
    assert parse_glossary([[1, 2.5, "x"], ["a", "b"]], "g.yaml") == [["1", "2.5", "x"], ["a", "b"]]
    assert parse_glossary([], "g.yaml") == []
    with pytest.raises(GlossaryError) as info:
        parse_glossary({"a": "b"}, "g.yaml")
    assert str(info.value) == "g.yaml: a glossary is a YAML list of term groups"
    for bad in ("not a list", [["ok", {"no": "dict"}]]):
        with pytest.raises(GlossaryError) as info:
            parse_glossary([["a", "b"], bad], "g.yaml")
        assert str(info.value) == "g.yaml: entry 2: a group is a list of terms, e.g. [a, b]"


def test_load_glossary_reads_every_yaml_file_and_merges(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "a.yaml").write_text("- [batching, 批处理]\n", encoding="utf-8")
    (folder / "b.yml").write_text("- [批处理, 组批]\n- [prefill, 预填充]\n", encoding="utf-8")
    (folder / "notes.txt").write_text("- [ignored, 忽略]\n", encoding="utf-8")
    single = tmp_path / "extra.yaml"
    single.write_text("- [decode, 解码]\n", encoding="utf-8")
    # The default folder may be missing; a named path after it is still read.
    glossary = load_glossary([tmp_path / "glossary", folder, single])
    assert glossary.synonyms("batching") == ["batching", "批处理", "组批"]
    assert glossary.synonyms("预填充") == ["预填充", "prefill"]
    assert glossary.synonyms("decode") == ["decode", "解码"]
    assert "ignored" not in glossary
    assert len(glossary) == 3


def test_unreadable_glossary_files_are_named(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("- [a, b\n", encoding="utf-8")
    with pytest.raises(GlossaryError) as info:
        load_glossary([broken])
    assert str(info.value).startswith(f"{broken}: cannot read (")
    latin1 = tmp_path / "latin1.yaml"
    latin1.write_bytes("- [café, 咖啡]\n".encode("gb18030"))
    with pytest.raises(
        GlossaryError, match=r"latin1\.yaml: the file is not UTF-8 \(at byte 7\): save it as UTF-8"
    ):
        load_glossary([latin1])
    with pytest.raises(GlossaryError, match="elsewhere: no such file"):
        load_glossary([tmp_path / "elsewhere"])  # only the default folder may be missing
    shape = tmp_path / "shape.yaml"
    shape.write_text("a: b\n", encoding="utf-8")
    with pytest.raises(GlossaryError) as info:
        load_glossary([shape])
    assert str(info.value) == f"{shape}: a glossary is a YAML list of term groups"


def test_find_in_names_each_term_once_longest_first_in_text_order() -> None:
    glossary = Glossary(
        [
            ["cache pool", "缓存池"],
            ["cache", "缓存"],
            ["显存", "GPU memory"],
            ["batching", "批处理"],
            ["KV cache", "键值缓存"],
            ["缓存 pool", "cache pool group"],
        ]
    )
    # "cache" sits inside the longer "cache pool": the longer one is named, and the scan goes
    # on past the overlap to "batching".
    assert glossary.find_in("the cache pool grows; batching helps") == ["cache pool", "batching"]
    # A term at the very start counts; the first place a term is named is the one compared.
    assert glossary.find_in("Batching first, then the KV cache, then a cache") == [
        "batching",
        "KV cache",
    ]
    # The longest wins even when a shorter one starts earlier inside it.
    assert glossary.find_in("the kv cache pool group") == ["cache pool group"]
    # Chinese terms match inside a run, and two that touch are both named.
    assert glossary.find_in("我们的缓存显存都很重要") == ["缓存", "显存"]
    # A term ending in a Latin word ends at a word boundary: "pooling" is not "pool".
    assert glossary.find_in("缓存 pooling") == ["缓存"]


def test_find_in_word_boundaries_with_letters_beyond_ascii() -> None:
    glossary = Glossary([["Straße", "街道"], ["Zürich", "苏黎世"]])
    assert glossary.find_in("Straßen und Gezürich") == []
    assert glossary.find_in("die Straße in Zürich") == ["Straße", "Zürich"]


def test_a_plural_in_es_meets_its_singular_in_e_and_in_ch() -> None:
    glossary = Glossary([["KV cache", "KV缓存"], ["batch", "批"]])
    assert "KV缓存" in glossary.synonyms("KV caches")
    assert "批" in glossary.synonyms("batches")


def test_find_in_sees_groups_added_after_a_search() -> None:
    # The terms searched for are kept between searches: a group added later, or one merged
    # into another, is searched for from then on.
    glossary = Glossary([["batching", "批处理"]])
    text = "开启 batching 和 KV cache 复用"
    assert glossary.find_in(text) == ["batching"]
    glossary.add(["KV cache", "KV 缓存"])
    assert glossary.find_in(text) == ["batching", "KV cache"]
    glossary.add(["复用", "reuse", "batching"])  # bridges into the first group
    assert glossary.find_in(text) == ["batching", "KV cache", "复用"]


def test_a_glossary_value_yaml_cannot_read_is_named_not_a_traceback(tmp_path: Path) -> None:
    dated = tmp_path / "dated.yaml"
    dated.write_text("- [release, 2024-02-30]\n", encoding="utf-8")
    with pytest.raises(GlossaryError) as info:
        load_glossary([dated])
    assert str(info.value) == f"{dated}: cannot read (day is out of range for month)"
