"""A message the outbox owes in several parts (a round's results with a long reference answer),
end to end: a part Telegram did not take is sent again, the parts it took are not.

The real Application talks to the fake Bot API server; the pack is written here, its one
question's reference answer long enough to be split over three messages, each paragraph
numbered so what arrived is read off the messages.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.config import Settings
from bot.core.content import load_library
from bot.handlers import groups
from tests.conftest import CONTENT, BotHarness, FakeClock
from tests.support.fake_bot_api import FakeBotAPI, FakeUser, Sent

GROUP = -100700
ANA = FakeUser(7001, "Ana")
PARAGRAPHS = 30  # of about 330 characters each: some 10,000 in all, three messages
PARAGRAPH = "Paragraph {n:02} of the reference answer. " + "The cache layer keeps hot rows. " * 9


def _pack() -> str:
    answer = "\n\n".join(PARAGRAPH.format(n=n).strip() for n in range(1, PARAGRAPHS + 1))
    indented = "\n".join(f"      {line}" for line in answer.splitlines())
    return f"""id: long-answers
title: Long answers
language: en
field: databases
questions:
  - id: long-q1
    level: beginner
    question: "How does a cache layer keep reads fast?"
    answer: |
{indented}
    concepts:
      - label: cache layer
        aliases: [caching layer]
"""


@pytest.fixture(autouse=True)
def _fresh_ack_window() -> Iterator[None]:
    groups._acks.clear()
    yield
    groups._acks.clear()


@pytest.fixture
async def bot(
    api: FakeBotAPI, bot_settings: Settings, clock: FakeClock, tmp_path: Path
) -> AsyncIterator[BotHarness]:
    folder = tmp_path / "content"
    folder.mkdir()
    for name in ("strings", "glossary", "fonts"):
        (folder / name).symlink_to(CONTENT / name)
    (folder / "long.yaml").write_text(_pack(), encoding="utf-8")
    settings = bot_settings.model_copy(update={"content_dir": folder})
    harness = BotHarness(api, settings, load_library([folder]), clock, chosen=("long-answers",))
    await harness.start()
    try:
        yield harness
    finally:
        await harness.stop()


def _results(api: FakeBotAPI) -> list[Sent]:
    """The round's results as they arrived: the messages after the question's."""
    sent = [s for s in api.to(GROUP) if s.method == "sendMessage"]
    return [s for s in sent if "Round closed" in s.visible or "Paragraph " in s.visible]


def _paragraphs(messages: list[Sent]) -> list[int]:
    """The numbers of the answer's paragraphs in `messages`, in the order they arrived."""
    return [
        int(line.split()[1])
        for m in messages
        for line in m.visible.splitlines()
        if line.startswith("Paragraph ")
    ]


async def _close_the_round(bot: BotHarness) -> None:
    await bot.storage.ensure_chat(GROUP, "group", "Study group")
    await bot.say(ANA, "/quiz beginner", chat_id=GROUP)
    bot.api.message(ANA, "/reveal", chat_id=GROUP)


@pytest.mark.parametrize(
    ("status", "paragraph"),
    [(502, 15), (500, 28), (429, 15)],
    ids=["502-on-the-second-part", "500-on-the-last-part", "429-on-the-second-part"],
)
async def test_a_part_that_failed_is_sent_again_and_the_parts_taken_are_not(
    bot: BotHarness,
    api: FakeBotAPI,
    caplog: pytest.LogCaptureFixture,
    status: int,
    paragraph: int,
) -> None:
    # One part of the results' three messages fails once, after the first was taken.
    retry_after = 1 if status == 429 else None
    api.fail(
        "sendMessage", status, chat_id=GROUP, retry_after=retry_after,
        containing=f"Paragraph {paragraph} ",
    )  # fmt: skip
    before = Counter(bot.outbox.outcomes)
    await _close_the_round(bot)
    await api.wait_for(GROUP, 4, timeout=20)  # the question, then the results' three parts
    await bot.sentinel(ANA, GROUP)
    results = _results(api)
    sends = [s for s in api.sent if s.method == "sendMessage"]
    assert api.calls["sendMessage"] == len(sends) + 1  # the part refused once, and only it
    assert len(results) == 3, [m.visible[:60] for m in results]
    assert results[0].visible.startswith("🏁 Round closed")
    # Every paragraph of the reference answer arrived once, in order.
    assert _paragraphs(results) == list(range(1, PARAGRAPHS + 1))
    assert bot.outbox.outcomes - before == {"sent": 1}
    assert await bot.storage.outbox_statuses() == {"sent": 1}
    assert not [r for r in caplog.records if r.exc_info], "no traceback for one failed part"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
