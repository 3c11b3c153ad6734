"""The `interview-bot` command line: score, content check, practice, run without a token."""

from __future__ import annotations

import io
import json
import os
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


# -- settings refused at the start: one line each, status 1 -------------------------------------


def interview_bot(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """The real `interview-bot` command in a subprocess, with `env` over a clean environment
    (no token, no webhook) and no `.env` in `cwd`."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "WEBHOOK_"))}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        env={**base, "DATABASE_PATH": str(cwd / "bot.sqlite3"), "CONTENT_DIR": str(CONTENT),
             "TELEGRAM_BOT_TOKEN": "123456:" + "A" * 35, **env},
        capture_output=True, text=True, timeout=60, check=False, cwd=cwd,
    )  # fmt: skip


def test_a_webhook_url_not_ending_in_telegram_is_refused(tmp_path: Path) -> None:
    done = interview_bot(
        "run",
        cwd=tmp_path,
        TELEGRAM_WEBHOOK_URL="https://bot.example.com/hook",
        WEBHOOK_SECRET_TOKEN="s3cret-Token_1",
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr == (
        "Configuration error: TELEGRAM_WEBHOOK_URL: 'https://bot.example.com/hook' does not"
        " end in /telegram, the only path the listener serves: write"
        " https://bot.example.com/hook/telegram and have your proxy pass that path on\n"
    )
    assert not (tmp_path / "bot.sqlite3").exists()  # refused before anything else


def test_a_webhook_without_a_secret_is_refused(tmp_path: Path) -> None:
    done = interview_bot(
        "run", cwd=tmp_path, TELEGRAM_WEBHOOK_URL="https://bot.example.com/telegram"
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr == (
        "Configuration error: WEBHOOK_SECRET_TOKEN: empty while TELEGRAM_WEBHOOK_URL is set:"
        " anyone who finds the URL could post updates as any user; set it to a random string"
        " of A-Z, a-z, 0-9, _ and - (up to 256), e.g. the output of `openssl rand -hex 32`\n"
    )


def test_an_api_base_url_without_bot_is_refused_naming_the_fix(tmp_path: Path) -> None:
    done = interview_bot("run", cwd=tmp_path, TELEGRAM_API_BASE_URL="http://localhost:8081")
    assert done.returncode == 1, done.stderr
    assert done.stderr == (
        "Configuration error: TELEGRAM_API_BASE_URL: 'http://localhost:8081' does not end in"
        " /bot (the token is put right after it): write http://localhost:8081/bot\n"
    )
    slash = interview_bot("run", cwd=tmp_path, TELEGRAM_API_BASE_URL="http://h:8081/api/")
    assert slash.returncode == 1, slash.stderr
    assert slash.stderr.endswith(": write http://h:8081/api/bot\n")


def test_each_configuration_error_is_a_line_of_its_own(tmp_path: Path) -> None:
    done = interview_bot(
        "run", cwd=tmp_path, DEFAULT_TIMEZONE="Mars/Base", REMINDER_HOUR="25", LOG_LEVEL="LOUD"
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [
        "Configuration error: DEFAULT_TIMEZONE: unknown IANA time zone 'Mars/Base'"
        " (example: Asia/Shanghai)",
        "Configuration error: LOG_LEVEL: Input should be 'DEBUG', 'INFO', 'WARNING' or 'ERROR'",
        "Configuration error: REMINDER_HOUR: Input should be less than or equal to 23",
    ]


# -- what each command's --help says it reads and how it exits ---------------------------------


def test_run_help_names_what_it_reads_and_its_exit_statuses(tmp_path: Path) -> None:
    done = interview_bot("run", "--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    text = done.stdout
    for name in ("TELEGRAM_BOT_TOKEN", "TELEGRAM_API_BASE_URL", "DATABASE_PATH", "CONTENT_DIR",
                 "TELEGRAM_WEBHOOK_URL", "WEBHOOK_SECRET_TOKEN", ".env"):  # fmt: skip
        assert name in text, name
    lines = [line.strip() for line in text.splitlines()]
    assert "exit statuses:" in lines
    for expected in (
        "0  stopped by SIGTERM or Ctrl-C",
        "2  no TELEGRAM_BOT_TOKEN, or a usage error",
        "4  Telegram rejected the token",
        "5  another bot already serves this database (SQLite",  # PostgreSQL: it stands by
        "6  the database was taken over, or its file deleted or replaced, while running",
    ):
        assert any(line.startswith(expected) for line in lines), (expected, text)


@pytest.mark.parametrize(
    "command",
    [
        ["practice"],
        ["score"],
        ["export"],
        ["backup"],
        ["restore"],
        ["health"],
        ["content", "check"],
        ["content", "import"],
        ["content", "eval"],
    ],
    ids=" ".join,
)
def test_every_command_help_says_what_it_reads_and_how_it_exits(
    command: list[str], tmp_path: Path
) -> None:
    done = interview_bot(*command, "--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = [line.strip() for line in done.stdout.splitlines()]
    assert "reads:" in lines and "exit statuses:" in lines, done.stdout
    assert "0  done" in lines or any(line.startswith("0  ") for line in lines), done.stdout
    assert any(line.startswith("1  ") for line in lines), done.stdout


# -- output cut off by its reader (`| head`) ---------------------------------------------------


def closed_pipe_run(*args: str, stdin: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`interview-bot ARGS` writing into a pipe nobody reads any more (`| head` gone)."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            [sys.executable, "-m", "bot", *args],
            env={**os.environ, "DATABASE_PATH": str(cwd / "bot.sqlite3"),
                 "CONTENT_DIR": str(CONTENT)},
            input=stdin, stdout=write, stderr=subprocess.PIPE, text=True, timeout=60,
            check=False, cwd=cwd,
        )  # fmt: skip
    finally:
        os.close(write)


@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        (("practice", "--lang", "en", "--pack", "triton"), "an answer\n/quit\n"),
        (("score", "triton-q3"), "max_batch_size"),
        (("content", "check"), ""),
    ],
    ids=lambda v: v[0] if isinstance(v, tuple) else "",
)
def test_output_cut_off_by_its_reader_exits_quietly(
    args: tuple[str, ...], stdin: str, tmp_path: Path
) -> None:
    done = closed_pipe_run(*args, stdin=stdin, cwd=tmp_path)
    assert done.stderr == ""
    assert done.returncode == 141  # as `yes | head`: 128 + SIGPIPE


def test_a_webhook_secret_telegram_would_refuse_is_named(tmp_path: Path) -> None:
    done = interview_bot(
        "run",
        cwd=tmp_path,
        TELEGRAM_WEBHOOK_URL="https://bot.example.com/telegram",
        WEBHOOK_SECRET_TOKEN="my secret!",
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr == (
        "Configuration error: WEBHOOK_SECRET_TOKEN: Telegram takes 1 to 256 of A-Z, a-z,"
        " 0-9, _ and - only, e.g. the output of `openssl rand -hex 32`\n"
    )
    assert "my secret" not in done.stderr
