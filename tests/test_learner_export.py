"""/export as a learner reads it: the question's text, pack and level, the answer as written,
the score in %, the date in their time zone, headers in their language, a file a spreadsheet
opens without running anything the user wrote.

Expected values come from the pack's YAML, the answers the test sent and the stored scores,
written out where they are words.
"""

from __future__ import annotations

import csv
import io

import yaml

from tests.conftest import CONTENT, BotHarness
from tests.support.fake_bot_api import FakeUser, Sent

LIN = FakeUser(7301, "Lin", "zh")
ADA = FakeUser(7302, "Ada", "en")
PACK = yaml.safe_load((CONTENT / "triton.yaml").read_text(encoding="utf-8"))
QUESTIONS = {q["id"]: q["question"].strip() for q in PACK["questions"]}
FORMULA = "=1+1 就是 max_batch_size 的意思"
MESSY = 'max_batch_size 限制一次的批大小, "preserve_ordering" 保证顺序，\n第二行: =HYPERLINK("x")'


async def _answer(bot: BotHarness, user: FakeUser, qid: str, text: str) -> list[Sent]:
    """Open `qid` by its share link and answer it; the feedback messages."""
    await bot.open_shared(user, qid)
    before = len(bot.api.to(user.id))
    bot.api.message(user, text)
    while True:
        sent = bot.api.to(user.id)[before:]
        if sent and any(d.startswith("rate:") for _, d in sent[-1].buttons):
            return sent
        await bot.api.wait_for(user.id, before + len(sent) + 1)


def _table(document: Sent) -> list[list[str]]:
    raw = document.params["document"]
    assert raw.startswith(b"\xef\xbb\xbf")  # a UTF-8 BOM: Excel reads the Chinese right
    return list(csv.reader(io.StringIO(raw[3:].decode("utf-8"), newline="")))


async def test_a_chinese_learners_export_reads_in_chinese_with_question_text_and_percent(
    bot: BotHarness,
) -> None:
    (_,) = await bot.say(LIN, "/timezone Asia/Shanghai")
    await _answer(bot, LIN, "triton-q3", FORMULA)
    await _answer(bot, LIN, "triton-q1", MESSY)
    (document,) = await bot.say(LIN, "/export")
    assert document.method == "sendDocument"
    header, *rows = _table(document)
    assert header[:6] == ["日期（Asia/Shanghai）", "题库", "难度", "题目", "你的回答", "得分"]
    assert len(rows) == 2
    stored = await bot.storage.answers_for(LIN.id)
    by_question = {r[-1]: r for r in rows}
    for answer in stored:
        row = by_question[answer.question_id]
        assert row[1] == PACK["title"]
        assert row[2] == "初级"  # both are beginner questions in the pack
        assert row[3] == QUESTIONS[answer.question_id]  # the text, not only the id
        assert row[5] == f"{round(answer.score * 100)}%"
    # 09:00 UTC is 17:00 in Shanghai, on the same day.
    assert {r[0] for r in rows} == {"2026-03-02 17:00"}
    # A formula-looking answer is shown, never run: one apostrophe before the user's text.
    assert by_question["triton-q3"][4] == "'" + FORMULA
    # Commas, quotes, a full-width comma and a new line all survive, in one cell.
    assert by_question["triton-q1"][4] == MESSY


async def test_an_english_learners_export_has_english_headers(bot: BotHarness) -> None:
    await _answer(bot, ADA, "triton-q3", "max_batch_size limits the batch, preserve_ordering")
    (document,) = await bot.say(ADA, "/export")
    header, row = _table(document)
    assert header[:6] == ["Date (UTC)", "Pack", "Level", "Question", "Your answer", "Score"]
    assert row[2] == "Beginner" and row[3] == QUESTIONS["triton-q3"]
    assert row[0] == "2026-03-02 09:00"
    assert row[5].endswith("%") and 0 <= int(row[5][:-1]) <= 100
