"""Features the suite once would not notice breaking (issue 12), each with a check that does.

Expected values come from the question pack's data (weights, topics, labels) or are written
out, never from the code under test.
"""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta

import pytest
from PIL import Image

from bot.core.content import Library
from bot.i18n import Strings
from bot.picture import cell_box, render_stats_picture
from tests.conftest import CONTENT, BotHarness, FakeClock
from tests.support.fake_bot_api import FakeBotAPI, FakeUser, Sent

ADA = FakeUser(1101, "Ada", "en")
GROUP = -100600
ANA, BEN, ROOT = FakeUser(8401, "Ana"), FakeUser(8402, "Ben"), FakeUser(8409, "Root")
STRONG_Q3 = (
    "preferred_batch_size 期望的批大小, max_queue_delay_microseconds 最大等待时间, "
    "max_batch_size 最大 batch, preserve_ordering 保证顺序"
)


def _qid(message: Sent) -> str:
    return next(d for _, d in message.buttons if d.startswith("hint:")).split(":", 1)[1]


async def _open(bot: BotHarness, user: FakeUser, qid: str) -> Sent:
    """Open a given question through its share link (no chance involved)."""
    question = await bot.open_shared(user, qid)
    assert _qid(question) == qid
    return question


async def _answer(bot: BotHarness, user: FakeUser, text: str) -> list[Sent]:
    before = len(bot.api.to(user.id))
    bot.api.message(user, text)
    while True:
        sent = bot.api.to(user.id)[before:]
        if sent and any(d.startswith("rate:") for _, d in sent[-1].buttons):
            return sent
        await bot.api.wait_for(user.id, before + len(sent) + 1)


def _full_answer(library: Library, qid: str) -> str:
    """The reference answer: it states every concept (content check insists on it)."""
    return library.questions[qid].answer


# -- the stats picture -----------------------------------------------------------------------


def test_answered_days_are_drawn_darker_than_empty_days() -> None:
    today = datetime(2026, 3, 4, tzinfo=UTC).date()
    per_day = {today: 1, today - timedelta(days=1): 4}
    png = render_stats_picture(
        strings=Strings.load(CONTENT / "strings"), lang="en", fonts=CONTENT / "fonts",
        today=today, per_day=per_day, current=2, best=2, weeks=[None] * 12, levels=[], weak=[],
    )  # fmt: skip
    image = Image.open(io.BytesIO(png)).convert("RGB")

    def colour(day_offset: int) -> tuple[int, int, int]:
        box = cell_box(today - timedelta(days=day_offset), today)
        assert box is not None
        pixel = image.getpixel(((box[0] + box[2]) // 2, (box[1] + box[3]) // 2))
        assert isinstance(pixel, tuple)
        return pixel[0], pixel[1], pixel[2]

    empty, one, four = colour(2), colour(0), colour(1)
    assert colour(3) == empty  # two empty days look alike
    assert len({empty, one, four}) == 3
    assert sum(four) < sum(one) < sum(empty)  # more answers, darker


# -- hints, weak spots, level-up -------------------------------------------------------------


async def test_hints_come_heaviest_first(bot: BotHarness, library: Library) -> None:
    await _open(bot, ADA, "triton-q3")
    concepts = library.questions["triton-q3"].concepts
    heaviest = max(c.weight for c in concepts)
    lightest = min(concepts, key=lambda c: c.weight)
    shown = [(await bot.say(ADA, "/hint"))[0].visible for _ in concepts]
    first = next(c for c in concepts if c.weight == heaviest)  # ties: pack order
    # A hint gives a cue (how the name begins), not the concept: written out by hand.
    assert first.label == "preferred_batch_size（期望的 batch 大小）"
    assert "begins “pref…”" in shown[0] and first.label not in shown[0]
    assert lightest.weight < heaviest and lightest.label == "preserve_ordering（保证返回顺序）"
    assert "begins “pres…”" in shown[-1] and lightest.label not in shown[-1]


async def test_weak_spots_join_concepts_across_questions_by_topic(
    bot: BotHarness, library: Library
) -> None:
    # q1 and q8 share the observability topic under different labels: one miss in each.
    q1 = {c.topic: c.label for c in library.questions["triton-q1"].concepts}
    q8 = {c.topic: c.label for c in library.questions["triton-q8"].concepts}
    assert q1["observability"] != q8["observability"]
    for qid in ("triton-q1", "triton-q8"):
        await _open(bot, ADA, qid)
        await _answer(bot, ADA, "不知道这个问题")
    _, text = await bot.say(ADA, "/stats", expect=2)
    assert "Weak spots" in text.visible
    assert q8["observability"] in text.visible  # shown by the latest miss


async def test_strong_answers_at_a_level_suggest_the_next_one(
    bot: BotHarness, library: Library
) -> None:
    feedback: list[Sent] = []
    for _ in range(5):  # LEVEL_UP_ANSWERS answers, every one complete
        (question,) = await bot.say(ADA, "/quiz beginner")
        feedback = await _answer(bot, ADA, _full_answer(library, _qid(question)))
    text = "\n".join(m.visible for m in feedback)
    assert "📈 You are averaging 100% at Beginner. Ready for Intermediate?" in text
    assert ("📈 Move up to Intermediate", "level:intermediate") in feedback[-1].buttons


# -- groups: replies, points, this week ------------------------------------------------------


async def _round_with(bot: BotHarness, api: FakeBotAPI, text: str) -> None:
    api.admins[GROUP] = {ROOT.id}
    (question,) = await bot.say(ROOT, "/quiz beginner", chat_id=GROUP)
    round_ = await bot.storage.open_round_of(GROUP)
    assert round_ is not None
    before = len(api.to(GROUP))
    api.message(BEN, text, chat_id=GROUP, reply_to=question.message_id)
    await api.wait_for(GROUP, before + 1)  # the ✍ reaction
    await bot.say(ROOT, "/reveal", chat_id=GROUP)


async def test_a_reply_to_a_members_message_is_not_an_answer(
    bot: BotHarness, api: FakeBotAPI
) -> None:
    api.admins[GROUP] = {ROOT.id}
    await bot.say(ROOT, "/quiz beginner", chat_id=GROUP)
    members_message = api.message(ANA, "what do you all think?", chat_id=GROUP)
    api.message(BEN, STRONG_Q3, chat_id=GROUP, reply_to=members_message)
    assert await bot.sentinel(ROOT, GROUP) == api.to(GROUP)[:1]  # only the question
    results = await bot.say(ROOT, "/reveal", chat_id=GROUP)
    assert "Nobody answered" in results[0].visible


async def test_top_counts_points_as_score_times_100(bot: BotHarness, api: FakeBotAPI) -> None:
    await _round_with(bot, api, "这个我完全不会")  # 0 points, but an answer
    (board,) = await bot.say(ROOT, "/top", chat_id=GROUP)
    assert "1. Ben — 0 pts · 1 answer" in board.visible
    # A complete answer to whichever question is open is worth 100.
    api.admins[GROUP] = {ROOT.id}
    (question,) = await bot.say(ROOT, "/quiz beginner", chat_id=GROUP)
    round_ = await bot.storage.open_round_of(GROUP)
    assert round_ is not None
    full = _full_answer(bot.library, round_.question_id)
    before = len(api.to(GROUP))
    api.message(BEN, full, chat_id=GROUP, reply_to=question.message_id)
    await api.wait_for(GROUP, before + 1)
    await bot.say(ROOT, "/reveal", chat_id=GROUP)
    (board,) = await bot.say(ROOT, "/top", chat_id=GROUP)
    assert "1. Ben — 100 pts · 2 answers" in board.visible


async def test_this_week_on_top_is_monday_to_sunday_on_any_weekday(
    bot: BotHarness, api: FakeBotAPI, clock: FakeClock
) -> None:
    assert clock().weekday() == 0  # answered on Monday 2026-03-02
    await _round_with(bot, api, "这个我完全不会")
    for now, in_week in (
        (datetime(2026, 3, 4, 12, 0, tzinfo=UTC), True),  # Wednesday
        (datetime(2026, 3, 8, 23, 59, tzinfo=UTC), True),  # Sunday night
        (datetime(2026, 3, 9, 0, 1, tzinfo=UTC), False),  # the next Monday
    ):
        clock.now = now
        (board,) = await bot.say(ROOT, "/top", chat_id=GROUP)
        week = board.visible.split("All time")[0]
        assert ("Ben" in week) is in_week, now
        assert "Ben" in board.visible.split("All time")[1]


# -- the clock on every weekday --------------------------------------------------------------


@pytest.mark.parametrize(
    ("day", "sent"),
    [(2, True), (3, True), (4, True), (5, True), (6, True), (7, False), (8, False)],
    ids=["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"],
)
async def test_weekday_prompts_come_monday_to_friday(
    bot: BotHarness, api: FakeBotAPI, clock: FakeClock, day: int, sent: bool
) -> None:
    await bot.say(ADA, "/daily 09:00 weekdays")
    clock.now = datetime(2026, 3, day, 8, 0, tzinfo=UTC)
    # The schedule was saved on Monday 09:00: recompute from this day's morning.
    await bot.say(ADA, "/daily 09:00 weekdays")
    clock.advance(hours=1, minutes=1)
    await bot.tick()
    prompts = [m for m in api.to(ADA.id) if m.visible.startswith("☀️ Daily question")]
    assert bool(prompts) is sent
