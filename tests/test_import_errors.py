"""`content import` on files a new user has at hand: one plain line naming the file, exit 1.

A table without an answer column, a file in another encoding, an empty or binary file: each
stops the import with one line that says what was found and what to do, never a traceback
and never a pack of garbage.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main
from tests.conftest import CONTENT


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DATABASE_PATH", str(tmp_path / "bot.sqlite3"))
    monkeypatch.setenv("CONTENT_DIR", str(CONTENT))
    monkeypatch.chdir(tmp_path)


def _import(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    out = path.parent / "out.yaml"
    code = main(["content", "import", str(path), "--pack", "bank", "--out", str(out)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _refused(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    code, out, err = _import(path, capsys)
    assert code == 1
    assert out == ""
    assert not (path.parent / "out.yaml").exists()
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"{path}: ")
    assert "Traceback" not in err
    return lines[0]


# -- A: a table's columns ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "found", "lacks"),
    [
        pytest.param("question,level", "'question', 'level'", "no answer column", id="no-answer"),
        pytest.param("Front,Tags", "'Front', 'Tags'", "no answer column", id="anki-names"),
        pytest.param("答案,难度", "'答案', '难度'", "no question column", id="no-question"),
        pytest.param(
            "Qestion,Answr,Level",
            "'Qestion', 'Answr', 'Level'",
            "no question and no answer column ('Qestion' looks like 'question'; "
            "'Answr' looks like 'answer')",
            id="misspelt",
        ),
    ],
)
def test_a_table_without_its_answer_column_is_refused_naming_the_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], header: str, found: str, lacks: str
) -> None:
    bank = tmp_path / "bank.csv"
    bank.write_text(
        f"{header}\nWhat is a B-tree?,beginner\nWhat is an ETag?,advanced\n", encoding="utf-8"
    )
    line = _refused(bank, capsys)
    assert line.startswith(f"{bank}: the header row names the columns {found} but {lacks}.")
    assert "a question column (question, q, front, 问题 or 题目)" in line
    assert "an answer column (answer, a, back, 答案 or 参考答案)" in line


@pytest.mark.parametrize(
    "header",
    [
        "QUESTION,Answer,Difficulty",
        "front,back,tags",
        "Q,A,Level",
        "题目,参考答案,难度",
        "问题,答案,tags",
        "Questions,Answers,Levels",
    ],
)
def test_the_usual_column_names_in_any_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], header: str
) -> None:
    bank = tmp_path / "bank.csv"
    bank.write_text(
        f"{header}\nWhat does a B-tree index keep sorted?,The keys in balanced pages.,hard\n",
        encoding="utf-8",
    )
    code, out, _ = _import(bank, capsys)
    assert code == 0
    assert "1 question (1 advanced)" in out
    written = (tmp_path / "out.yaml").read_text(encoding="utf-8")
    assert "question: What does a B-tree index keep sorted?" in written
    assert "answer: The keys in balanced pages." in written


def test_headerless_anki_text_still_imports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deck = tmp_path / "deck.txt"
    deck.write_text(
        "#separator:tab\n#html:true\n#deck column:1\n#tags column:4\n"
        "Databases\tWhat is a covering index?\tAn index with <b>every column</b> the query"
        " reads.\tdb advanced\n"
        "Databases\tWhat is a B-tree?\tA balanced tree of sorted keys.\tdb beginner\n",
        encoding="utf-8",
    )
    code, out, _ = _import(deck, capsys)
    assert code == 0
    assert "2 questions (1 beginner, 1 advanced)" in out
    written = (tmp_path / "out.yaml").read_text(encoding="utf-8")
    assert "question: What is a covering index?" in written
    assert "answer: An index with every column the query reads." in written
    assert "Databases" not in written


# -- B: files that are not UTF-8 text --------------------------------------------------------

BANK = (
    "## 什么是 B-tree 索引？\n- 平衡树，键有序存放在页里。\n\n"
    "## What is an ETag?\nA validator of a response.\n"
)


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        pytest.param(BANK.encode("utf-16"), "UTF-16", id="utf-16-bom"),
        pytest.param(BANK.encode("utf-16-le"), "UTF-16", id="utf-16-no-bom"),
        pytest.param(BANK.encode("gb18030"), "GB18030", id="gb18030"),
        pytest.param(BANK.encode("gbk"), "GB18030", id="gbk"),
    ],
)
def test_utf16_and_gb18030_documents_are_read_and_said_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes, encoding: str
) -> None:
    bank = tmp_path / "bank.md"
    bank.write_bytes(data)
    code, out, err = _import(bank, capsys)
    assert code == 0, err
    assert "2 questions" in out
    assert err.splitlines()[0] == f"warning: {bank} is {encoding}, not UTF-8: read as {encoding}"
    written = (tmp_path / "out.yaml").read_text(encoding="utf-8")
    assert "question: 什么是 B-tree 索引？" in written
    assert "平衡树，键有序存放在页里。" in written


@pytest.mark.parametrize(
    ("data", "name", "message"),
    [
        pytest.param(
            "Question,Answer\nWhat is a caché?,A store.\n".encode("cp1252"),
            "bank.csv",
            "the file is not UTF-8 (at byte 31): save it as UTF-8",
            id="latin-1",
        ),
        pytest.param(b"", "bank.md", "the file is empty", id="empty"),
        pytest.param(b"\n  \n\t\n", "bank.csv", "the file is empty", id="blank"),
        pytest.param(
            b"PK\x03\x04\x14\x00\x06\x00" + bytes(200),
            "bank.xlsx",
            "the file is a ZIP archive (an .xlsx, .docx or .zip file), not text: export it as"
            " text (save it as UTF-8)",
            id="xlsx",
        ),
        pytest.param(
            b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n",
            "bank.pdf",
            "the file is a PDF file, not text: export it as text (save it as UTF-8)",
            id="pdf",
        ),
        pytest.param(
            bytes(range(256)) * 8,
            "bank.bin",
            "the file is binary, not text: save it as UTF-8",
            id="binary",
        ),
        pytest.param(
            b"Notes on caching.\nNothing to ask here.\n",
            "notes.md",
            "no questions found: expected questions as headings or bold lines with answers below",
            id="no-questions",
        ),
    ],
)
def test_a_file_that_is_no_bank_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes, name: str, message: str
) -> None:
    bank = tmp_path / name
    bank.write_bytes(data)
    assert _refused(bank, capsys) == f"{bank}: {message}"


def test_a_missing_file_or_a_folder_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _refused(tmp_path / "nope.csv", capsys) == f"{tmp_path / 'nope.csv'}: no such file"
    (tmp_path / "bank").mkdir()
    assert _refused(tmp_path / "bank", capsys) == f"{tmp_path / 'bank'}: a folder, not a file"


# -- a term the importer must not suggest ---------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (
            "bank.tsv",
            "question\tanswer\tlevel\n"
            "为什么数据库索引常用 B+ 树？\t"
            "B+ 树的非叶子节点只存键，扇出大、树高低，范围查询沿叶子链表顺序扫描。\tbeginner\n",
        ),
        (
            "bank.md",
            "## 为什么数据库索引常用 B+树？\n\n- B+树的非叶子节点只存键，所以扇出大、树高低。\n",
        ),
    ],
)
def test_a_single_letter_term_such_as_b_plus_does_not_stop_the_import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str
) -> None:
    # "B+" is the one letter b once tokenized, which no pack may use (it would match every
    # answer with a "b" in it): the importer leaves it out instead of writing a pack its own
    # check refuses.
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    code, out, err = _import(path, capsys)
    assert code == 0, err
    assert "1 question" in out
    written = (tmp_path / "out.yaml").read_text(encoding="utf-8")
    assert "B+" in written  # the question and the reference keep it
    assert "- B+\n" not in written and "- 'B+'\n" not in written


@pytest.mark.parametrize(
    ("header", "row"),
    [
        (
            "Question Text,Model Answer,Difficulty Level",
            "What is a covering index?,An index holding every column a query reads.,advanced",
        ),
        ("标准答案,问题描述,难度", "键有序存放在平衡的页里。,什么是 B-tree 索引？,高级"),
    ],
)
def test_a_header_naming_its_columns_in_more_words_is_a_header_not_a_question(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], header: str, row: str
) -> None:
    path = tmp_path / "bank.csv"
    path.write_text(f"{header}\n{row}\n", encoding="utf-8")
    code, out, err = _import(path, capsys)
    assert code == 0, err
    assert "1 question (1 advanced)" in out
    written = (tmp_path / "out.yaml").read_text(encoding="utf-8")
    assert "Question Text" not in written and "问题描述" not in written
    assert (
        "question: What is a covering index?" in written
        or "question: 什么是 B-tree 索引？" in written
    )


def test_an_anki_note_with_one_field_beside_its_deck_has_no_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The deck column is not a field: the note's only field is its question, and the
    # question is not taken for its own answer (nor the deck name, with the deck second).
    for deck_column, row in ((1, "Databases\tWhat is a B-tree?"), (2, "What is a B-tree?\tDb")):
        path = tmp_path / f"deck{deck_column}.txt"
        path.write_text(f"#separator:tab\n#deck column:{deck_column}\n{row}\n", encoding="utf-8")
        assert _refused(path, capsys) == f"{path}: Q1 has no reference answer"
