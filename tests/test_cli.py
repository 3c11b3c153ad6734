"""The `interview-bot` command line: score, content check, practice, run without a token."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main
from bot.config import Settings
from bot.core.content import Library
from bot.storage import Storage
from bot.terminal import TERMINAL_USER, run_practice
from tests.conftest import CONTENT, ROOT


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DATABASE_PATH", str(tmp_path / "bot.sqlite3"))
    monkeypatch.setenv("CONTENT_DIR", str(CONTENT))
    monkeypatch.delenv("TELEGRAM_BOT_TOKEN", raising=False)
    monkeypatch.chdir(tmp_path)  # no stray .env


def test_score_prints_one_json_object(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    answer = "Python 代码跑在独立的子进程里，用共享内存交换数据"
    monkeypatch.setattr(sys, "stdin", io.StringIO(answer))
    assert main(["score", "triton-q9"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["question_id"] == "triton-q9"
    assert 0 < out["score"] < 1
    assert "Python 代码跑在独立子进程" in out["covered"]
    assert "通过 socket / IPC 通信" in out["missed"]


def test_score_unknown_question(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("x"))
    assert main(["score", "nope"]) == 1
    assert "Unknown question id 'nope'" in capsys.readouterr().err


def test_score_batch_keeps_order_and_survives_bad_lines(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [
        {"question_id": "triton-q3", "answer": "max_batch_size and preserve ordering"},
        "not json at all",
        {"question_id": "triton-q99", "answer": "x"},
        {"question_id": "triton-q3"},
        ["a", "list"],
        {"question_id": "triton-q7", "answer": "poll 和 explicit，生产用 explicit"},
    ]
    text = "\n".join(x if isinstance(x, str) else json.dumps(x, ensure_ascii=False) for x in lines)
    monkeypatch.setattr(sys, "stdin", io.StringIO(text + "\n\n"))
    assert main(["score", "--batch"]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(out) == 6
    assert out[0]["question_id"] == "triton-q3" and out[0]["score"] > 0
    assert out[1] == {"line": 2, "error": out[1]["error"]} and "invalid JSON" in out[1]["error"]
    assert "unknown question_id" in out[2]["error"]
    assert "missing answer" in out[3]["error"]
    assert "expected an object" in out[4]["error"]
    assert out[5]["question_id"] == "triton-q7" and out[5]["score"] > 0.5


def test_content_check_ok_and_broken(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["content", "check"]) == 0
    assert "OK" in capsys.readouterr().out
    broken = tmp_path / "broken.yaml"
    broken.write_text(
        "id: b\ntitle: B\nlanguage: en\nquestions:\n  - id: b-1\n    level: hard\n"
        "    question: Q?\n    concepts: []\n",
        encoding="utf-8",
    )
    assert main(["content", "check", str(broken)]) == 1
    err = capsys.readouterr().err
    assert f"{broken}: question b-1: field answer: missing (it is required)" in err
    assert f"{broken}: question b-1: field concepts:" in err


def test_run_without_token_explains_what_to_do(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run"]) == 2
    err = capsys.readouterr().err
    assert "TELEGRAM_BOT_TOKEN" in err and ".env.example" in err and "interview-bot practice" in err


def test_run_with_broken_pack_fails_with_the_same_message(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "packs").mkdir()
    (tmp_path / "packs" / "x.yaml").write_text("id: x\ntitle: X\nlanguage: en\n", encoding="utf-8")
    monkeypatch.setenv("CONTENT_DIR", str(tmp_path / "packs"))
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "123:abc")
    with pytest.raises(SystemExit) as info:
        main(["run"])
    assert "x.yaml: field questions: missing (it is required)" in str(info.value.code)


def test_module_entry_point_runs() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot", "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0
    assert "practice" in done.stdout and "score" in done.stdout


async def test_terminal_practice_scores_and_keeps_the_streak(
    library: Library, tmp_path: Path
) -> None:
    settings = Settings(database_path=tmp_path / "p.sqlite3", content_dir=CONTENT)
    answer = (
        "Python backend 用独立子进程，通过 shared memory 和 socket 通信\n"
        "第二行：不会阻塞 C++ core\n\n"
    )
    stdin = io.StringIO(f"/hint\n{answer}\n/quit\n")
    stdout = io.StringIO()
    code = await run_practice(
        settings, library, pack="triton", level=None, lang="en", stdin=stdin, stdout=stdout
    )
    assert code == 0
    shown = stdout.getvalue()
    assert "💡 Hint 1: a key point " in shown
    assert "Score: " in shown and "%" in shown
    assert "📖 Reference answer" in shown
    assert "🔥 Streak: 1 day · best 1" in shown
    assert "Bye — 1 answer this time, and your streak is saved (🔥 1 day)." in shown
    storage = Storage(settings.database_path)
    await storage.open()
    try:
        user = await storage.get_user(TERMINAL_USER)
        assert user is not None and user.streak.current == 1
        assert (await storage.user_stats(TERMINAL_USER)).answers == 1
    finally:
        await storage.close()


def _pack(pack_id: str, question_id: str) -> str:
    return (
        f"id: {pack_id}\ntitle: {pack_id.upper()}\nlanguage: en\nquestions:\n"
        f"  - id: {question_id}\n    level: beginner\n    question: What is an index for?\n"
        "    answer: It finds rows without reading the whole table.\n"
        "    concepts:\n      - label: finds rows without a full scan\n"
    )


def test_content_check_reports_repeated_ids_even_when_another_file_is_broken(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.yaml").write_text(_pack("a", "db-1"), encoding="utf-8")
    (tmp_path / "b.yaml").write_text(_pack("b", "db-1"), encoding="utf-8")
    (tmp_path / "c.yaml").write_text("id: c\ntitle: C\nlanguage: en\n", encoding="utf-8")
    assert main(["content", "check", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"{tmp_path / 'c.yaml'}: field questions: missing (it is required)" in err
    # The broken third file does not hide the id two other files share.
    assert "db-1" in err and str(tmp_path / "a.yaml") in err and str(tmp_path / "b.yaml") in err
