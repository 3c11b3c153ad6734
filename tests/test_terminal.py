"""Terminal practice as a user meets it: in English and Chinese, empty answers, /skip, /quit.

The first tests run the installed command (`python -m bot practice`) with the locale in the
environment, as a terminal would; the others call its entry function with a seeded question.
Expected texts are written out here, not read from the strings files.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import yaml

from bot.config import Settings
from bot.core.content import Library, load_library
from bot.storage import Storage
from bot.terminal import TERMINAL_USER, run_practice
from tests.conftest import CONTENT, ROOT
from tests.support.packs import shipped_packs_in

NOTHING_EN = "Bye — nothing was answered this time, so today does not count toward your streak yet."
NOTHING_ZH = "再见——这次没有作答，今天还不算进连续记录。"
EMPTY_EN = "✍️ Nothing typed yet. Write your answer, then press Enter on an empty line to send it."
EMPTY_ZH = "✍️ 还没有输入内容。写下回答，再在空行上按回车提交。"


def _terminal(
    tmp_path: Path, typed: str, *args: str, **env: str
) -> subprocess.CompletedProcess[str]:
    # The locale is the test's to set; a mutation run's marker (MUTANT_UNDER_TEST) is not
    # passed on: a child process cannot run mutants, so it runs the code as written.
    dropped = ("LC_ALL", "LC_MESSAGES", "LANG", "MUTANT_UNDER_TEST")
    base = {k: v for k, v in os.environ.items() if k not in dropped}
    base |= {
        "DATABASE_PATH": str(tmp_path / "bot.sqlite3"),
        "CONTENT_DIR": str(CONTENT),
        "PYTHONPATH": str(ROOT),
        "PYTHONIOENCODING": "utf-8",
        **env,
    }
    return subprocess.run(
        [sys.executable, "-m", "bot", "practice", "--pack", "triton", *args],
        input=typed,
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=tmp_path,  # no stray .env
        env=base,
        check=False,
        timeout=120,
    )


async def _streak(path: Path) -> tuple[int, int]:
    storage = Storage(path)
    await storage.open()
    try:
        user = await storage.get_user(TERMINAL_USER)
        answers = (await storage.user_stats(TERMINAL_USER)).answers
        return (user.streak.current if user else 0), answers
    finally:
        await storage.close()


async def test_chinese_locale_empty_answer_skip_and_quit_without_an_answer(
    tmp_path: Path,
) -> None:
    # Enter on an empty prompt, /skip, Enter for the next question, /quit.
    done = _terminal(tmp_path, "\n/skip\n\n/quit\n", LANG="zh_CN.UTF-8")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("面试练习。用自己的话作答，最后空一行提交。\n")
    assert "命令：/hint 提示  /skip 换一题  /reveal 看答案  /quit 退出" in out
    assert "你的回答（空一行提交）：" in out
    assert EMPTY_ZH in out
    assert "⏭ 已跳过。" in out
    assert "按回车看下一题，或输入 /quit 退出。" in out
    assert out.count("── 初级 · ") == 2  # the skip moved on to a second question
    assert out.rstrip().endswith(NOTHING_ZH)
    assert "已保存" not in out and "saved" not in out
    assert "Your answer" not in out  # nothing in English
    assert await _streak(tmp_path / "bot.sqlite3") == (0, 0)


async def test_lang_option_wins_over_the_locale_and_eof_is_a_quit(tmp_path: Path) -> None:
    zh = shipped_packs_in("zh", tmp_path / "zh")
    done = _terminal(tmp_path, "\n", "--lang", "en", LANG="zh_CN.UTF-8", CONTENT_DIR=str(zh))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith(
        "Interview practice. Answer in your own words; finish with an empty line."
    )
    assert "── Beginner · " in out
    # The pack is Chinese and the interface English: the user is told.
    assert "🌐 This question bank is in Chinese" in out
    assert EMPTY_EN in out
    assert out.rstrip().endswith(NOTHING_EN)
    assert "streak is saved" not in out


async def test_an_english_terminal_is_asked_from_the_packs_english_version(
    tmp_path: Path,
) -> None:
    done = _terminal(tmp_path, "\n", "--lang", "en", LANG="zh_CN.UTF-8")  # --pack triton
    assert done.returncode == 0, done.stderr
    out = done.stdout
    english = yaml.safe_load((CONTENT / "triton-en.yaml").read_text(encoding="utf-8"))
    beginner = [q["question"] for q in english["questions"] if q["level"] == "beginner"]
    assert any(question in out for question in beginner), out
    assert "This question bank is in" not in out
    assert out.rstrip().endswith(NOTHING_EN)


async def test_lc_all_overrides_lang_and_empty_lc_all_does_not(tmp_path: Path) -> None:
    first = _terminal(tmp_path, "/quit\n", LANG="zh_CN.UTF-8", LC_ALL="en_US.UTF-8")
    assert first.stdout.rstrip().endswith(NOTHING_EN)
    second = _terminal(tmp_path, "/quit\n", LANG="zh_CN.UTF-8", LC_ALL="")
    assert second.stdout.rstrip().endswith(NOTHING_ZH)
    third = _terminal(tmp_path, "/quit\n", LANG="C.UTF-8")
    assert third.stdout.rstrip().endswith(NOTHING_EN)


async def test_too_short_answer_keeps_the_question_open_and_the_day_uncounted(
    library: Library, tmp_path: Path
) -> None:
    settings = Settings(database_path=tmp_path / "p.sqlite3", content_dir=CONTENT)
    stdout = io.StringIO()
    code = await run_practice(
        settings,
        library,
        pack="triton",
        lang="en",
        stdin=io.StringIO("x\n\n/nope\n/quit\n"),
        stdout=stdout,
    )
    assert code == 0
    out = stdout.getvalue()
    assert "✍️ That is too short to score." in out
    assert "I don't know “/nope”. Commands: /hint  /skip  /reveal  /quit" in out
    assert "Score:" not in out
    assert out.rstrip().endswith(NOTHING_EN)
    assert await _streak(tmp_path / "p.sqlite3") == (0, 0)


async def test_reveal_then_an_answer_in_chinese_saves_the_streak(
    library: Library, tmp_path: Path
) -> None:
    settings = Settings(database_path=tmp_path / "p.sqlite3", content_dir=CONTENT)
    answer = (
        "Triton 的 Python backend 跑在独立子进程里，通过共享内存和 socket 通信，不阻塞 C++ 核心"
    )
    stdout = io.StringIO()
    code = await run_practice(
        settings,
        library,
        pack="triton",
        lang="zh",
        stdin=io.StringIO(f"/reveal\n\n{answer}\n\n/quit\n"),
        stdout=stdout,
    )
    assert code == 0
    out = stdout.getvalue()
    assert "📖 参考答案（不计分）" in out
    assert "得分：" in out and "%" in out
    assert "🔥 连续 1 天 · 最佳 1 天" in out
    assert out.rstrip().endswith("再见——这次答了 1 题，连续记录已保存（🔥 1 天）。")
    assert "<b>" not in out and "&lt;" not in out  # plain text, not Telegram HTML
    assert await _streak(tmp_path / "p.sqlite3") == (1, 1)


async def test_a_second_session_without_an_answer_says_today_counts_already(
    library: Library, tmp_path: Path
) -> None:
    settings = Settings(database_path=tmp_path / "p.sqlite3", content_dir=CONTENT)
    answer = "Triton 的 Python backend 跑在独立子进程里，通过共享内存通信，不阻塞 C++ 核心"
    for typed in (f"{answer}\n\n/quit\n", "/quit\n"):
        stdout = io.StringIO()
        code = await run_practice(
            settings, library, pack="triton", lang="en", stdin=io.StringIO(typed), stdout=stdout
        )
        assert code == 0
    # The first session answered today; the second answered nothing, and today still counts.
    assert (
        stdout.getvalue()
        .rstrip()
        .endswith("Bye — nothing answered this time; today already counts from earlier (🔥 1 day).")
    )
    assert NOTHING_EN not in stdout.getvalue()
    assert await _streak(tmp_path / "p.sqlite3") == (1, 1)


async def test_between_questions_a_command_or_an_answer_is_told_the_question_is_closed(
    library: Library, tmp_path: Path
) -> None:
    settings = Settings(database_path=tmp_path / "p.sqlite3", content_dir=CONTENT)
    answer = "Triton 的 Python backend 跑在独立子进程里，通过共享内存通信，不阻塞 C++ 核心"
    late = "dynamic batching groups requests on the server side"
    stdout = io.StringIO()
    code = await run_practice(
        settings,
        library,
        pack="triton",
        lang="en",
        # Answer, then at the prompt between questions: /reveal, an answer typed one prompt
        # too late, a short word (moves on), then /quit at the second question.
        stdin=io.StringIO(f"{answer}\n\n/reveal\n{late}\nnext\n/quit\n"),
        stdout=stdout,
    )
    assert code == 0
    out = stdout.getvalue()
    closed = (
        "That question is closed, so this was not scored. "
        "Press Enter for the next question, or type /quit."
    )
    assert out.count(closed) == 2
    assert out.count("── Beginner · ") == 2  # "next" moved on to a second question
    # Nothing typed between questions was scored: one answer in all.
    assert out.count("Score:") == 1
    assert await _streak(tmp_path / "p.sqlite3") == (1, 1)


async def test_no_pack_in_the_terminals_language_names_the_packs_and_asks_nothing(
    tmp_path: Path,
) -> None:
    folder = shipped_packs_in("zh", tmp_path / "zh")
    settings = Settings(database_path=tmp_path / "p.sqlite3", content_dir=folder)
    stdout = io.StringIO()
    code = await run_practice(
        settings, load_library([folder]), lang="en", stdin=io.StringIO("/quit\n"), stdout=stdout
    )
    assert code == 1
    out = stdout.getvalue()
    # Every pack there, in Chinese, named by id in file order (read from the files, not the
    # code: mysql.yaml's id is sql, so file order is not the ids' order).
    shipped = [
        yaml.safe_load(p.read_text(encoding="utf-8"))["id"] for p in sorted(folder.glob("*.yaml"))
    ]
    packs = ", ".join(f"{i} (zh)" for i in shipped)
    assert (
        f"No questions in English yet. The packs: {packs}. Choose one with"
        " --pack, or another language with --lang." in out
    )
    assert "Beginner" not in out and "Intermediate" not in out  # no question shown


async def test_mock_in_the_terminal_asks_its_questions_then_the_report_and_references(
    tmp_path: Path,
) -> None:
    blank = "我需要再查一下资料才能回答这个问题"  # states no concept: each earns a follow-up
    typed = f"{blank}\n\n/skip\n{blank}\n\n/skip\n2\n\n"
    done = _terminal(tmp_path, typed, "--mock", "2", "--lang", "en", "--level", "beginner")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Mock interview: 2 questions, one at a time." in out
    assert "Question 1/2" in out and "Question 2/2" in out
    assert out.count("🔎 Follow-up") == 2
    assert "📋 Mock interview report · 2 of 2 answered" in out
    # The reference answers only after the report, the one asked for by its number.
    report_at = out.index("📋 Mock interview report")
    assert "📖 Reference answer" not in out[:report_at]
    assert out[report_at:].count("📖 Reference answer") == 1
    assert "Bye — 2 answers this time" in out
    assert await _streak(tmp_path / "bot.sqlite3") == (1, 2)  # counted like any answers


def test_mock_out_of_range_is_a_usage_error(tmp_path: Path) -> None:
    done = _terminal(tmp_path, "", "--mock", "11")
    assert done.returncode == 2
    assert "--mock takes 1 to 10 questions, e.g. --mock 5" in done.stderr
