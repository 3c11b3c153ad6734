"""The interview date (/interview) and the plan toward it, as a phone user meets them: the real
Application against the fake Bot API, the days walked with the test clock and the scheduler's
ticks."""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fsrs import Rating

from bot.config import Settings
from bot.core.content import Library, load_library
from bot.core.review import review
from tests.conftest import CONTENT, BotHarness, FakeClock
from tests.support.fake_bot_api import FakeBotAPI, FakeUser, Sent

LIN = FakeUser(3101, "Lin", "zh")
ADA = FakeUser(3102, "Ada", "en")
GROUP = -100310
PACKS = ("triton", "llm")  # 12 + 12 questions, every one of them in the plan
# Says nothing of any question: scored 0%, rated Again, a weak one.
BAD = "我觉得这道题主要和天气有关，今天阳光很好，适合出去散步，喝一杯咖啡再说。"


@pytest.fixture(scope="module")
def bank_content(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two packs, 24 questions, with the real strings, glossary and font."""
    folder = tmp_path_factory.mktemp("bank24")
    for name in ("triton.yaml", "llm_inference.yaml", "strings", "glossary", "fonts"):
        (folder / name).symlink_to(CONTENT / name)
    return folder


@pytest.fixture(scope="module")
def bank_library(bank_content: Path) -> Library:
    return load_library([bank_content])


@pytest.fixture
async def planner(
    api: FakeBotAPI, bot_settings: Settings, bank_content: Path, bank_library: Library
) -> AsyncIterator[BotHarness]:
    # Mon 2 Mar 2026 07:00 in Shanghai is still Sunday 1 Mar in UTC: a countdown counted in
    # the bot's zone instead of the user's is a day off.
    clock = FakeClock(datetime(2026, 3, 1, 23, 0, tzinfo=UTC))
    settings = bot_settings.model_copy(update={"content_dir": bank_content})
    harness = BotHarness(api, settings, bank_library, clock, chosen=PACKS)
    await harness.start()
    yield harness
    await harness.stop()


def _asked(message: Sent) -> str | None:
    """The id of the question a message asks (its hint button), if it asks one."""
    return next((d.split(":", 1)[1] for _, d in message.buttons if d.startswith("hint:")), None)


def _questions(sent: list[Sent]) -> list[str]:
    return [q for m in sent if (q := _asked(m)) is not None]


async def _answer(bot: BotHarness, user: FakeUser, text: str, until: str) -> list[Sent]:
    """Answer, and wait for the bot's messages up to the one containing `until` or asking a
    question (whichever the plan sends next); what came, in order."""
    before = len(bot.api.to(user.id))
    bot.api.message(user, text)
    count = before + 1
    while True:
        sent = (await bot.api.wait_for(user.id, count, timeout=30))[before:]
        if any(until in m.visible or _asked(m) for m in sent):
            return sent
        count += 1


async def test_ten_days_to_the_interview_see_every_question_once_one_at_a_time(
    planner: BotHarness, api: FakeBotAPI, bank_library: Library
) -> None:
    bot = planner
    bank = {q.id for pid in PACKS for q in bank_library.packs[pid].questions}
    assert len(bank) == 24
    await bot.say(LIN, "/timezone Asia/Shanghai")
    await bot.say(LIN, "/daily 07:30")
    (reply,) = await bot.say(LIN, "/interview 3月12日")
    assert "2026年3月12日（周四）" in reply.visible and "还有 10 天" in reply.visible
    assert "共 24 题" in reply.visible and "今天 3 题" in reply.visible

    answered: list[str] = []  # every question answered, in order
    weak: set[str] = set()  # answered badly and not yet again
    for day in range(10):
        # 07:30 in Shanghai on 2 Mar + day: 23:30 UTC the day before.
        bot.clock.now = datetime(2026, 3, 1, 23, 30, tzinfo=UTC) + timedelta(days=day)
        before = len(api.to(LIN.id))
        await bot.tick()
        prompt = api.to(LIN.id)[before:]
        # The rule: what is still owed (unseen, and weak ones to review) spread evenly over
        # the days left before the interview, at least one a day.
        left = 10 - day
        owed = len(bank - set(answered)) + len(weak)
        quota = max(1, math.ceil(owed / left))
        assert len(_questions(prompt)) == 1, [m.visible for m in prompt]
        assert f"还有 {left} 天 · 今天 {quota} 题" in prompt[0].visible, prompt[0].visible
        # Nothing more comes before she answers: the day's others wait for her answers.
        shown = (await bot.sentinel(LIN))[before:]
        assert len(_questions(shown)) == 1, [m.visible for m in shown]
        current = _questions(prompt)[0]
        if day == 1:  # yesterday's weak one comes back first
            assert current in weak
        for n in range(1, quota + 1):
            text = BAD if (day, n) == (0, 1) else bank_library.question(current).answer  # type: ignore[union-attr]
            sent = await _answer(bot, LIN, text, "今天的计划完成了")
            answered.append(current)
            if text == BAD:
                weak.add(current)
            else:
                weak.discard(current)
            asked = _questions(sent)
            if n < quota:
                assert len(asked) == 1, [m.visible for m in sent]  # one next question, no more
                assert f"还有 {left} 天 · 今天第 {n + 1}/{quota} 题" in sent[-1].visible
                current = asked[0]
            else:
                assert asked == [] and "今天的计划完成了" in sent[-1].visible
                # The last day: no "tomorrow's daily question", the interview is tomorrow.
                assert ("明天就是面试，加油" in sent[-1].visible) == (left == 1)
        # The day's plan done: nothing else arrives (the sentinel's reply comes first).
        after = len(api.to(LIN.id))
        rest = (await bot.sentinel(LIN))[after:]
        assert _questions(rest) == [], [m.visible for m in rest]

    assert set(answered) == bank  # every question seen before the date
    assert weak == set()  # and the weak one reviewed again
    assert len(answered) == 25


async def test_an_english_plan_counts_down_in_english(planner: BotHarness, api: FakeBotAPI) -> None:
    planner.clock.now = datetime(2026, 3, 2, 7, 0, tzinfo=UTC)
    await bot_daily(planner, ADA, "Europe/London", "08:00")
    (reply,) = await planner.say(ADA, "/interview 2026-03-12")
    assert "Interview on Thu 12 Mar 2026: 10 days to go." in reply.visible
    assert "(24 in all, 0 seen)" in reply.visible and "Today: 3 questions" in reply.visible
    planner.clock.now = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)  # 08:00 in London
    before = len(api.to(ADA.id))
    await planner.tick()
    (prompt,) = api.to(ADA.id)[before:]
    assert prompt.visible.startswith("☀️ Daily question\n📅 10 days to go · 3 today\n")


async def bot_daily(bot: BotHarness, user: FakeUser, zone: str, at: str) -> None:
    await bot.say(user, f"/timezone {zone}")
    await bot.say(user, f"/daily {at}")


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("someday", "I couldn't read “someday” as a date. Try /interview 2026-12-20"),
        ("2026-02-30", "I couldn't read “2026-02-30” as a date."),
        ("<b>soon</b>", "I couldn't read “<b>soon</b>” as a date."),  # shown, not markup
        ("2026-01-05", "Mon 05 Jan 2026 has already passed. Send a date still to come"),
        ("3/2", "Mon 02 Mar 2026 is today: good luck! 🍀 A plan needs at least a day"),
        ("2027-06-01", "Tue 01 Jun 2027 is more than a year away. Send a date within a year"),
    ],
    ids=["nonsense", "no-such-day", "markup", "past", "today", "too-far"],
)
async def test_a_date_the_plan_cannot_use_gets_a_friendly_reply_and_loses_nothing(
    planner: BotHarness, words: str, expected: str
) -> None:
    planner.clock.now = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    await planner.say(ADA, "/interview 12/20")
    (reply,) = await planner.say(ADA, f"/interview {words}")
    assert expected in reply.visible
    (shown,) = await planner.say(ADA, "/interview")  # the date set before is kept
    assert "Interview on Sun 20 Dec 2026: 293 days to go." in shown.visible


async def test_interview_alone_shows_the_plan_or_how_to_set_one_and_off_clears_it(
    planner: BotHarness,
) -> None:
    planner.clock.now = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    (reply,) = await planner.say(LIN, "/interview")
    assert "还没有设置面试日期" in reply.visible and "/interview 12月20日" in reply.visible
    (reply,) = await planner.say(LIN, "/interview 2026年3月6日")
    assert "2026年3月6日（周五），还有 4 天" in reply.visible and "今天 6 题" in reply.visible
    (reply,) = await planner.say(LIN, "/interview")
    assert "已看过 0/24 题，还有 24 题要看或复习；今天 6 题（已答 0 题）" in reply.visible
    (reply,) = await planner.say(LIN, "/interview off")
    assert "已取消面试日期" in reply.visible
    (reply,) = await planner.say(LIN, "/interview off")
    assert "还没有设置面试日期" in reply.visible


async def test_setting_a_date_turns_the_daily_question_on(planner: BotHarness) -> None:
    planner.clock.now = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    (reply,) = await planner.say(ADA, "/interview 3/12")
    assert "so I turned it on: 09:00 every day (UTC)" in reply.visible
    chat = await planner.storage.get_chat(ADA.id)
    assert chat is not None and chat.daily_enabled


async def test_the_date_is_personal_in_a_group(planner: BotHarness, api: FakeBotAPI) -> None:
    (reply,) = await planner.say(ADA, "/interview 12/20", chat_id=GROUP)
    assert "An interview date is personal: set it in a private chat with me." in reply.visible
    assert reply.buttons  # one tap to the private chat
    (shown,) = await planner.say(ADA, "/interview")
    assert "No interview date set." in shown.visible  # nothing was set from the group


async def test_settings_and_stats_show_the_plan(planner: BotHarness, api: FakeBotAPI) -> None:
    planner.clock.now = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    (screen,) = await planner.say(ADA, "/settings")
    assert "Interview: none (/interview 2026-12-20)" in screen.visible
    await planner.say(ADA, "/interview 2026-03-12")
    (screen,) = await planner.say(ADA, "/settings")
    assert "Interview: Thu 12 Mar 2026, 10 days to go" in screen.visible
    question = await planner.open_shared(ADA, "triton-q1")
    await planner.say(ADA, planner.library.question("triton-q1").answer, expect=2)  # type: ignore[union-attr]
    assert question.visible
    sent = await planner.say(ADA, "/stats", expect=2)
    assert "📅 Interview plan: 1 of 24 seen · 10 days to go" in sent[-1].visible


async def test_after_the_date_the_daily_question_is_usual_and_asks_once_how_it_went(
    planner: BotHarness, api: FakeBotAPI
) -> None:
    planner.clock.now = datetime(2026, 3, 2, 7, 0, tzinfo=UTC)
    await bot_daily(planner, ADA, "UTC", "08:00")
    await planner.say(ADA, "/interview 3/4")  # Wednesday; today is Monday 2 March
    for day in (2, 3):  # Monday and Tuesday: the plan
        planner.clock.now = datetime(2026, 3, day, 8, 0, tzinfo=UTC)
        await planner.tick()
        assert "to go ·" in api.to(ADA.id)[-1].visible
        await planner.say(ADA, "/reveal")  # not answered: the next prompt still comes
    planner.clock.now = datetime(2026, 3, 4, 8, 0, tzinfo=UTC)  # the day itself: as usual
    before = len(api.to(ADA.id))
    await planner.tick()
    (prompt,) = api.to(ADA.id)[before:]
    assert prompt.visible.startswith("☀️ Daily question\n❓")
    await planner.say(ADA, "/reveal")
    planner.clock.now = datetime(2026, 3, 5, 8, 0, tzinfo=UTC)  # the day after: how did it go?
    before = len(api.to(ADA.id))
    await planner.tick()
    asked, prompt = api.to(ADA.id)[before:]
    assert "Your interview was on Wed 04 Mar 2026. How did it go?" in asked.visible
    assert [label for label, _ in asked.buttons] == ["😀 It went well", "😐 So-so", "😞 Not well"]
    assert prompt.visible.startswith("☀️ Daily question\n❓")
    (thanks,) = await planner.press(ADA, asked, asked.buttons[0][1])
    assert "Great to hear! Noted." in thanks.visible
    await planner.say(ADA, "/reveal")
    planner.clock.now = datetime(2026, 3, 6, 8, 0, tzinfo=UTC)  # asked once only
    before = len(api.to(ADA.id))
    await planner.tick()
    (prompt,) = api.to(ADA.id)[before:]
    assert prompt.visible.startswith("☀️ Daily question\n❓")
    (shown,) = await planner.say(ADA, "/interview")
    assert "Your interview was on Wed 04 Mar 2026." in shown.visible


async def test_todays_plan_can_start_from_the_reply_one_question_at_a_time(
    planner: BotHarness, api: FakeBotAPI
) -> None:
    planner.clock.now = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)  # the daily time has passed
    await bot_daily(planner, ADA, "UTC", "08:00")
    (reply,) = await planner.say(ADA, "/interview 3/12")
    assert [label for label, _ in reply.buttons] == ["▶️ Start today's plan now"]
    (first,) = await planner.press(ADA, reply, reply.buttons[0][1])
    assert first.visible.startswith("📅 10 days to go · question 1 of 3 today\n❓")
    question = _asked(first)
    assert question is not None
    # A second tap while it is open opens nothing: the toast says to answer it first.
    before = len(api.to(ADA.id))
    api.callback(ADA, reply.buttons[0][1], reply)
    assert _questions((await planner.sentinel(ADA))[before:]) == []
    assert "You already have an open question" in api.callback_answers[-1]
    answer = planner.library.question(question).answer  # type: ignore[union-attr]
    sent = await _answer(planner, ADA, answer, "Today's plan is done")
    assert "question 2 of 3 today" in sent[-1].visible and len(_questions(sent)) == 1


async def test_with_the_daily_question_off_the_plan_waits_and_says_so(
    planner: BotHarness, api: FakeBotAPI
) -> None:
    planner.clock.now = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
    await planner.say(ADA, "/interview 3/12")  # turns the daily question on
    await planner.say(ADA, "/daily off")
    (shown,) = await planner.say(ADA, "/interview")
    assert "The plan comes with the daily question, which is off: /daily on" in shown.visible
    question = await planner.open_shared(ADA, "triton-q1")
    assert _asked(question) == "triton-q1"
    before = len(api.to(ADA.id))
    api.message(ADA, planner.library.question("triton-q1").answer)  # type: ignore[union-attr]
    shown_after = (await planner.sentinel(ADA))[before:]
    assert any("Score:" in m.visible for m in shown_after)
    assert _questions(shown_after) == []  # no plan question follows the answer


async def test_an_answer_handled_again_after_a_crash_shows_the_same_next_question(
    planner: BotHarness, api: FakeBotAPI
) -> None:
    """The plan's next question was opened, then the process died before it was sent: the
    answer, handled again by the next start (the inbox), shows that question, not another."""
    planner.clock.now = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
    await bot_daily(planner, ADA, "UTC", "08:00")
    (reply,) = await planner.say(ADA, "/interview 3/12")
    (first,) = await planner.press(ADA, reply, reply.buttons[0][1])
    question = _asked(first)
    assert question is not None
    before = len(api.to(ADA.id))
    message_id = api.message(ADA, planner.library.question(question).answer)  # type: ignore[union-attr]
    sent = (await planner.sentinel(ADA))[before:]
    (opened,) = _questions(sent)
    update = next(
        u for u in api._pushed.values() if u.get("message", {}).get("message_id") == message_id
    )
    await planner.stop()
    # As a kill leaves it: the answer's update taken, not done, its body kept.
    with sqlite3.connect(planner.settings.database_path) as db:
        db.execute(
            "UPDATE processed_updates SET state = 'handling', body = ? WHERE update_id = ?",
            (json.dumps(update), update["update_id"]),
        )
    before = len(api.to(ADA.id))
    await planner.start()
    again = (await planner.sentinel(ADA))[before:]
    assert any("Score: 100%" in m.visible for m in again)  # its feedback again
    assert _questions(again) == [opened]  # the same next question, shown again
    assert "question 2 of 3 today" in next(m for m in again if _asked(m)).visible


async def test_a_weekend_day_on_weekdays_only_has_no_plan_today(planner: BotHarness) -> None:
    planner.clock.now = datetime(2026, 3, 7, 7, 0, tzinfo=UTC)  # a Saturday
    await bot_daily(planner, ADA, "UTC", "08:00")
    await planner.say(ADA, "/daily weekdays")
    (reply,) = await planner.say(ADA, "/interview 3/12")
    assert "No daily question today: the plan starts with the next one." in reply.visible
    assert reply.buttons == []  # nothing to start today


async def test_with_every_question_seen_the_daily_question_keeps_its_countdown(
    planner: BotHarness, api: FakeBotAPI, bank_library: Library
) -> None:
    planner.clock.now = datetime(2026, 3, 2, 7, 0, tzinfo=UTC)
    await bot_daily(planner, ADA, "UTC", "08:00")
    # Every question of the bank answered well a day before (an Easy review card each).
    answered_at = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    for n, question in enumerate(q for pid in PACKS for q in bank_library.packs[pid].questions):
        state = review(None, Rating.Easy, answered_at)
        await planner.storage.save_review(
            ADA.id, question.id, card=state.card, due=state.due, previous_card=None,
            answer_id=n + 1, reviewed_at=answered_at, rating=int(Rating.Easy),
        )  # fmt: skip
    (reply,) = await planner.say(ADA, "/interview 3/5")
    assert "(24 in all, 24 seen)" in reply.visible and "Today: 1 question," in reply.visible
    planner.clock.now = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
    before = len(api.to(ADA.id))
    await planner.tick()
    (prompt,) = api.to(ADA.id)[before:]
    assert prompt.visible.startswith("☀️ Daily question\n📅 3 days to go · 1 today\n")
    assert _asked(prompt) is not None  # a question all the same: the usual daily one


async def test_forget_deletes_the_interview_date(planner: BotHarness) -> None:
    planner.clock.now = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    await planner.say(ADA, "/interview 12/20")
    (confirm,) = await planner.say(ADA, "/forget")
    (yes,) = [d for _, d in confirm.buttons if d.startswith("forget:yes:")]
    await planner.press(ADA, confirm, yes)
    with sqlite3.connect(planner.settings.database_path) as db:
        assert db.execute("SELECT COUNT(*) FROM interview_plans").fetchone() == (0,)
    (shown,) = await planner.say(ADA, "/interview")
    assert "No interview date set." in shown.visible


EXPIRED = "This button has expired. Send /quiz for a new question."


@pytest.mark.parametrize(
    "data",
    ["plan:", "plan:now", "plan:start:x", "went:", "went:2026-03-12", "went:2026-13-01:good",
     "went:2026-03-12:great", "went:2026-03-04:good"],
)  # fmt: skip
async def test_forged_plan_and_outcome_data_is_an_expired_button(
    planner: BotHarness, api: FakeBotAPI, data: str
) -> None:
    planner.clock.now = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
    (reply,) = await planner.say(ADA, "/interview 3/12")
    answered = len(api.callback_answers)
    before = len(api.to(ADA.id))
    api.callback(ADA, data, reply)
    replies = (await planner.sentinel(ADA))[before:]
    assert api.callback_answers[answered:] == [EXPIRED]
    assert replies == []  # no question opened, nothing noted
    assert await planner.storage.get_open_question(ADA.id) is None
    with sqlite3.connect(planner.settings.database_path) as db:
        assert db.execute("SELECT outcome FROM interview_plans").fetchall() == [(None,)]


async def test_with_no_pack_to_plan_with_the_reply_points_to_packs(
    api: FakeBotAPI, bot_settings: Settings, bank_content: Path, bank_library: Library
) -> None:
    # Ada follows nothing, and every pack there is is in Chinese: nothing to plan with.
    clock = FakeClock(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
    settings = bot_settings.model_copy(update={"content_dir": bank_content})
    bot = BotHarness(api, settings, bank_library, clock, chosen=())
    await bot.start()
    try:
        (reply,) = await bot.say(ADA, "/interview 3/12")
    finally:
        await bot.stop()
    assert "(0 in all, 0 seen)" in reply.visible
    assert "You follow no question pack in your language yet" in reply.visible
    assert "/packs" in reply.visible and reply.buttons == []  # nothing to start
