"""The practice steps on a real database, without Telegram: overruling, asking, hints."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from fsrs import Rating

from bot.core.content import Library
from bot.core.levels import Level
from bot.core.models import UserProfile
from bot.core.practice import StillOpen
from bot.services.practice import Practice
from bot.storage import Storage
from tests.conftest import FakeClock

ADA, BOB = 501, 502


async def _user(practice: Practice, user_id: int) -> UserProfile:
    return await practice.storage.ensure_user(user_id, f"u{user_id}", "en")


async def _answer(practice: Practice, user: UserProfile, qid: str, text: str) -> int:
    await practice.ask_question(user.user_id, user, practice.library.questions[qid])
    feedback = await practice.answer(user.user_id, user, text)
    assert feedback is not None
    return feedback.answer_id


async def test_only_the_author_can_overrule_an_answer(practice: Practice) -> None:
    ada, bob = await _user(practice, ADA), await _user(practice, BOB)
    answer_id = await _answer(practice, ada, "triton-q3", "不知道这个")
    before = await practice.storage.get_review(ADA, "triton-q3")
    assert await practice.overrule(bob.user_id, answer_id, "good") is None
    assert await practice.storage.get_review(ADA, "triton-q3") == before


async def test_an_unknown_choice_changes_nothing(practice: Practice) -> None:
    ada = await _user(practice, ADA)
    answer_id = await _answer(practice, ada, "triton-q3", "不知道这个")
    before = await practice.storage.get_review(ADA, "triton-q3")
    assert await practice.overrule(ADA, answer_id, "brilliant") is None
    assert await practice.overrule(ADA, answer_id + 99, "good") is None
    assert await practice.storage.get_review(ADA, "triton-q3") == before


async def test_an_answer_reviewed_again_since_cannot_be_overruled(practice: Practice) -> None:
    ada = await _user(practice, ADA)
    first = await _answer(practice, ada, "triton-q3", "不知道这个")
    practice.clock.advance(days=2)  # type: ignore[attr-defined]
    await _answer(practice, ada, "triton-q3", "max_batch_size 和 preferred batch size")
    assert await practice.overrule(ADA, first, "good") is None


async def test_overruling_a_repeat_starts_from_the_card_before_that_answer(
    practice: Practice,
) -> None:
    ada = await _user(practice, ADA)
    perfect = practice.library.questions["triton-q3"].answer
    await _answer(practice, ada, "triton-q3", perfect)  # a first, complete answer
    practice.clock.advance(days=8)  # type: ignore[attr-defined]
    second = await _answer(practice, ada, "triton-q3", "不知道这个")
    stored = await practice.storage.get_review(ADA, "triton-q3")
    assert stored is not None and stored.previous_card is not None
    good = await practice.overrule(ADA, second, "good")
    assert good is not None
    # From the well-known card before the second answer: much later than a new card's
    # "good" (three days).
    reviewed = stored.reviewed_at
    assert good.due - reviewed > timedelta(days=5)
    again = await practice.overrule(ADA, second, "again")  # overruled twice: same base card
    assert again is not None and again.due < good.due
    latest = await practice.storage.get_review(ADA, "triton-q3")
    assert latest is not None and latest.previous_card == stored.previous_card
    assert latest.rating == int(Rating.Again)


async def test_asking_without_a_level_uses_the_users_level(practice: Practice) -> None:
    ada = await _user(practice, ADA)
    await practice.storage.update_user(ADA, level=Level.ADVANCED)
    ada = await _user(practice, ADA)
    asked = await practice.ask(ADA, ada, None, None)
    assert asked is not None and asked.question.level is Level.ADVANCED
    assert not asked.replaced and not asked.exhausted
    again = await practice.ask(ADA, ada, None, None)
    assert again is not None and again.replaced


async def test_skip_closes_only_the_question_it_read(practice: Practice) -> None:
    """A question opened in between (the daily prompt, say) stays open after a skip."""
    ada = await _user(practice, ADA)
    questions = practice.library.questions
    await practice.ask_question(ADA, ada, questions["triton-q3"])
    read = practice.open_question

    async def daily_prompt_in_between(chat_id: int):  # type: ignore[no-untyped-def]
        found = await read(chat_id)
        await practice.storage.open_question(chat_id, ADA, "triton-q1", practice.clock())
        return found

    practice.open_question = daily_prompt_in_between  # type: ignore[method-assign]
    closed = await practice.close(ADA)
    assert closed is not None and closed.id == "triton-q3"
    still = await practice.storage.get_open_question(ADA)
    assert still is not None and still.question_id == "triton-q1"


async def test_a_shared_link_never_replaces_a_question_opened_in_between(
    practice: Practice,
) -> None:
    """The daily prompt opened after the link found nothing open: the prompt stays open,
    and the link shows it with the choice, not the shared question as if it were open."""
    ada = await _user(practice, ADA)
    questions = practice.library.questions
    read = practice.still_open
    reads = 0

    async def daily_prompt_in_between(chat_id: int):  # type: ignore[no-untyped-def]
        nonlocal reads
        found = await read(chat_id)
        reads += 1
        if reads == 1:
            await practice.storage.open_question(chat_id, ADA, "triton-q1", practice.clock())
        return found

    practice.still_open = daily_prompt_in_between  # type: ignore[method-assign]
    shown = await practice.open_shared(ADA, ada, questions["triton-q3"])
    assert isinstance(shown, StillOpen) and shown.question.id == "triton-q1"
    still = await practice.storage.get_open_question(ADA)
    assert still is not None and still.question_id == "triton-q1"


async def test_hints_stop_after_the_last_concept(practice: Practice) -> None:
    ada = await _user(practice, ADA)
    question = practice.library.questions["triton-q3"]
    await practice.ask_question(ADA, ada, question)
    given = [await practice.hint(ADA) for _ in question.concepts]
    assert [g[1] for g in given if g] == list(range(1, len(question.concepts) + 1))
    assert await practice.hint(ADA) is None
    open_ = await practice.open_question(ADA)
    assert open_ is not None and open_[1] == len(question.concepts)


async def test_today_is_the_users_local_date(practice: Practice) -> None:
    await _user(practice, ADA)
    await practice.storage.update_user(ADA, timezone="Asia/Shanghai")
    ada = await _user(practice, ADA)
    practice.clock.now = datetime(2026, 3, 2, 20, 0, tzinfo=UTC)  # type: ignore[attr-defined]
    progress = await practice.progress(ada, since=lambda today: today)
    assert progress.today.isoformat() == "2026-03-03"  # already Tuesday in Shanghai


async def test_progress_counts_days_streak_risk_and_level(practice: Practice) -> None:
    ada = await _user(practice, ADA)
    perfect = practice.library.questions["triton-q3"].answer
    for _ in range(5):  # five complete beginner answers, one a day
        await _answer(practice, ada, "triton-q3", perfect)
        practice.clock.advance(days=1)  # type: ignore[attr-defined]
    ada = await _user(practice, ADA)
    progress = await practice.progress(ada, since=lambda today: today - timedelta(days=6))
    today = progress.today
    assert progress.per_day == {today - timedelta(days=d): 1 for d in range(1, 6)}
    assert progress.at_risk  # answered yesterday, not yet today
    assert (progress.level, progress.level_up) == (Level.BEGINNER, Level.INTERMEDIATE)
    assert progress.level_average == pytest.approx(1.0)
    assert progress.streak.current == 5


async def test_weak_spots_look_at_the_latest_fifty_answers(practice: Practice) -> None:
    from bot.core.models import AnswerRecord

    ada = await _user(practice, ADA)

    async def store(covered: list[str], missed: list[str]) -> None:
        record = AnswerRecord(
            user_id=ADA, chat_id=ADA, question_id="triton-q3", level=Level.BEGINNER,
            answer="…", score=0.5, covered=covered, missed=missed, hints=0,
            answered_at=practice.clock(), local_day=practice.clock().date().isoformat(),
        )  # fmt: skip
        await practice.storage.add_answers([record])
        practice.clock.advance(minutes=1)  # type: ignore[attr-defined]

    await store([], ["old miss"])  # the 51st answer back: out of the window
    await store([], ["old miss"])
    for _ in range(49):
        await store(["fine"], [])
    progress = await practice.progress(ada, since=lambda today: today)
    assert progress.weak == []  # one miss in the window is no pattern
    await store([], ["new miss"])
    await store([], ["new miss"])
    progress = await practice.progress(ada, since=lambda today: today)
    assert progress.weak == ["new miss"]


async def test_progress_of_someone_new(practice: Practice) -> None:
    bob = await _user(practice, BOB)
    progress = await practice.progress(bob, since=lambda today: today)
    assert progress.level_average == 0.0 and progress.level_up is None
    assert progress.weak == [] and progress.per_day == {} and not progress.at_risk


async def test_a_second_answer_builds_on_the_first_review(practice: Practice) -> None:
    ada = await _user(practice, ADA)
    perfect = practice.library.questions["triton-q3"].answer
    await ada_answers(practice, ada, perfect)
    first = await practice.storage.get_review(ADA, "triton-q3")
    assert first is not None
    practice.clock.now = first.due_at  # type: ignore[attr-defined]
    feedback = await ada_answers(practice, ada, perfect)
    # A new card answered this well comes back in 8 days; a second good review, later.
    assert feedback.next_review - practice.clock() > timedelta(days=8)


async def ada_answers(practice: Practice, user: UserProfile, text: str):  # type: ignore[no-untyped-def]
    await practice.ask_question(user.user_id, user, practice.library.questions["triton-q3"])
    feedback = await practice.answer(user.user_id, user, text)
    assert feedback is not None
    return feedback


async def test_a_group_answer_keeps_what_was_missed_and_counts_the_local_day(
    practice: Practice,
) -> None:
    await _user(practice, ADA)
    await practice.storage.update_user(ADA, timezone="Asia/Shanghai")
    ada = await _user(practice, ADA)
    practice.clock.now = datetime(2026, 3, 2, 20, 0, tzinfo=UTC)  # type: ignore[attr-defined]
    group = -4242
    await practice.storage.ensure_chat(group, "group", "g")
    now = practice.clock()
    round_id = await practice.storage.open_round(
        group, "triton-q3", ADA, now, now + timedelta(minutes=10), daily=False
    )
    assert round_id is not None
    question = practice.library.questions["triton-q3"]
    scored = await practice.answer_round(
        round_id, question, ada, first_name="Ada", message_id=7, text="max_batch_size"
    )
    assert scored is not None
    result, streak = scored
    assert streak.last_day == date(2026, 3, 3)  # already Tuesday in Shanghai
    answers = await practice.storage.close_round(round_id, now, question.level)
    assert answers is not None
    (mine,) = answers
    assert mine.missed == result.missed_labels and mine.missed  # kept for weak spots


def _perfect(practice: Practice, qid: str) -> str:
    # The reference answer states every concept (content check insists on it); a dump of
    # labels and aliases would only list them.
    return practice.library.questions[qid].answer


async def _store(practice: Practice, level: Level, score: float, qid: str = "triton-q1") -> None:
    from bot.core.models import AnswerRecord

    record = AnswerRecord(
        user_id=ADA, chat_id=ADA, question_id=qid, level=level, answer="…", score=score,
        covered=[], missed=[], hints=0, answered_at=practice.clock(),
        local_day=practice.clock().date().isoformat(),
    )  # fmt: skip
    await practice.storage.add_answers([record])
    practice.clock.advance(minutes=1)  # type: ignore[attr-defined]


async def test_answer_feedback_carries_the_review_and_the_local_day(practice: Practice) -> None:
    await _user(practice, ADA)
    await practice.storage.update_user(ADA, timezone="Asia/Shanghai")
    ada = await _user(practice, ADA)
    practice.clock.now = datetime(2026, 3, 2, 20, 0, tzinfo=UTC)  # type: ignore[attr-defined]
    feedback = await ada_answers(practice, ada, "不知道这个")
    assert feedback.streak.last_day == date(2026, 3, 3)  # Tuesday in Shanghai
    stored = await practice.storage.get_review(ADA, "triton-q3")
    assert stored is not None
    assert feedback.next_review == stored.due_at


async def test_hints_cap_the_rating_of_a_complete_answer(practice: Practice) -> None:
    ada = await _user(practice, ADA)
    await practice.ask_question(ADA, ada, practice.library.questions["triton-q3"])
    await practice.hint(ADA)
    await practice.hint(ADA)
    feedback = await practice.answer(ADA, ada, _perfect(practice, "triton-q3"))
    assert feedback is not None and feedback.result.coverage == 1.0
    stored = await practice.storage.get_review(ADA, "triton-q3")
    assert stored is not None and stored.rating == int(Rating.Hard)  # two hints: "partly"


async def test_the_level_up_suggestion_looks_at_the_latest_twenty_answers(
    practice: Practice,
) -> None:
    ada = await _user(practice, ADA)
    for _ in range(5):
        await _store(practice, Level.BEGINNER, 1.0)
    for _ in range(16):
        await _store(practice, Level.ADVANCED, 0.0, "triton-q8")
    feedback = await ada_answers(practice, ada, _perfect(practice, "triton-q3"))
    # The latest 20: this answer, 16 advanced, 3 beginner: four at the level, too few.
    assert feedback.level_up is None


async def test_no_level_up_suggestion_under_a_question_of_another_level(
    practice: Practice,
) -> None:
    ada = await _user(practice, ADA)
    for _ in range(5):
        await _store(practice, Level.BEGINNER, 1.0)
    await practice.ask_question(ADA, ada, practice.library.questions["triton-q8"])
    feedback = await practice.answer(ADA, ada, "不知道这个")
    assert feedback is not None
    assert feedback.level_up is None and feedback.level_average == pytest.approx(1.0)


async def test_a_first_answer_at_another_level_has_no_average(practice: Practice) -> None:
    ada = await _user(practice, ADA)
    await practice.ask_question(ADA, ada, practice.library.questions["triton-q8"])
    feedback = await practice.answer(ADA, ada, _perfect(practice, "triton-q8"))
    assert feedback is not None and feedback.level_average == 0.0


async def test_a_question_removed_from_the_packs_is_closed(practice: Practice) -> None:
    await _user(practice, ADA)
    await practice.storage.open_question(ADA, ADA, "gone-q1", practice.clock())
    assert await practice.open_question(ADA) is None
    assert await practice.storage.get_open_question(ADA) is None


async def _due(practice: Practice, qid: str, days_ago: int) -> None:
    due = practice.clock() - timedelta(days=days_ago)
    await practice.storage.save_review(
        ADA, qid, card="{}", due=due, previous_card=None, answer_id=0,
        reviewed_at=due - timedelta(days=1), rating=1,
    )  # fmt: skip


async def test_due_reviews_skip_removed_questions_and_keep_to_the_pack(
    practice: Practice,
) -> None:
    ada = await _user(practice, ADA)
    await _due(practice, "gone-q1", 3)  # most overdue, but no longer in any pack
    await _due(practice, "triton-q8", 2)
    asked = await practice.ask(ADA, ada, None, None)
    assert asked is not None and asked.question.id == "triton-q8"
    asked = await practice.ask(ADA, ada, None, "triton")
    assert asked is not None and asked.question.id == "triton-q8"


EXTRA_PACK = """\
id: extra
title: Extra pack
language: en
questions:
  - id: extra-q1
    level: beginner
    question: What does a load balancer do?
    answer: It spreads requests across servers.
    concepts:
      - label: spreads requests
        aliases: [distributes requests, spreads traffic]
"""


@pytest.fixture
async def two_packs(tmp_path: Path) -> AsyncIterator[Practice]:
    from bot.core.content import load_library
    from tests.conftest import CONTENT

    extra = tmp_path / "packs"
    extra.mkdir()
    (extra / "extra.yaml").write_text(EXTRA_PACK, encoding="utf-8")
    library = load_library([CONTENT, extra])
    storage = Storage(tmp_path / "two.sqlite3")
    await storage.open()
    clock = FakeClock(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
    yield Practice(storage, library, clock=clock, rng=random.Random(5))
    await storage.close()


async def _ids(practice: Practice, user: UserProfile, level: Level | None, pack: str | None):  # type: ignore[no-untyped-def]
    found = []
    for _ in range(2):  # twice: the second ask would move on to another pack's question
        asked = await practice.ask(ADA, user, level, pack)
        assert asked is not None
        found.append(asked.question.id)
    return found


async def test_an_asked_pack_is_kept_to(two_packs: Practice) -> None:
    ada = await _user(two_packs, ADA)
    assert await _ids(two_packs, ada, Level.BEGINNER, "extra") == ["extra-q1", "extra-q1"]


async def test_followed_packs_are_kept_to_even_for_a_level_they_lack(
    two_packs: Practice,
) -> None:
    ada = await _user(two_packs, ADA)
    await two_packs.storage.follow_packs(ADA, ["extra"], two_packs.clock())
    assert await _ids(two_packs, ada, Level.BEGINNER, None) == ["extra-q1", "extra-q1"]
    # extra has no advanced question: none is asked from a pack not followed.
    assert await two_packs.ask(ADA, ada, Level.ADVANCED, None) is None


async def test_a_due_review_comes_only_from_the_packs_followed(two_packs: Practice) -> None:
    ada = await _user(two_packs, ADA)
    await _due(two_packs, "triton-q8", 2)
    await two_packs.storage.follow_packs(ADA, ["extra"], two_packs.clock())
    asked = await two_packs.ask(ADA, ada, None, None)
    assert asked is not None and asked.question.id == "extra-q1"  # triton is not followed
    await two_packs.storage.follow_packs(ADA, ["triton"], two_packs.clock())
    asked = await two_packs.ask(ADA, ada, None, None)
    assert asked is not None and asked.question.id == "triton-q8"  # followed: it is due


async def test_a_due_review_from_another_pack_waits(two_packs: Practice) -> None:
    ada = await _user(two_packs, ADA)
    await _due(two_packs, "triton-q8", 2)
    asked = await two_packs.ask(ADA, ada, None, "extra")
    assert asked is not None and asked.question.id == "extra-q1"
    asked = await two_packs.ask(ADA, ada, None, None)
    assert asked is not None and asked.question.id == "triton-q8"
    assert asked.exhausted is False  # a review, not a sign the level is used up


async def test_a_shared_question_opens_as_it_is(practice: Practice) -> None:
    ada = await _user(practice, ADA)
    asked = await practice.ask_question(ADA, ada, practice.library.questions["triton-q8"])
    assert asked.pack_title == practice.library.packs["triton"].title
    assert asked.exhausted is False and asked.replaced is False


async def test_question_choice_follows_the_seed_and_works_without_one(
    tmp_path: Path, library: Library
) -> None:
    async def sequence(name: str, rng: random.Random | None) -> list[str]:
        storage = Storage(tmp_path / f"{name}.sqlite3")
        await storage.open()
        try:
            practice = Practice(storage, library, rng=rng)
            user = await storage.ensure_user(ADA, "a", "en")
            found = []
            for _ in range(3):
                asked = await practice.ask(ADA, user, Level.ADVANCED, None)
                assert asked is not None
                found.append(asked.question.id)
            return found
        finally:
            await storage.close()

    first = await sequence("a", random.Random(11))
    assert await sequence("b", random.Random(11)) == first
    assert len(await sequence("c", None)) == 3


async def test_an_answer_is_one_transaction_at_one_instant(practice: Practice) -> None:
    """Answer, streak and review card commit together, all stamped with one clock reading."""
    ada = await _user(practice, ADA)
    await practice.ask_question(ADA, ada, practice.library.questions["triton-q3"])
    base = practice.clock
    readings: list[datetime] = []

    def ticking() -> datetime:  # every reading is a second later than the one before
        base.advance(seconds=1)  # type: ignore[attr-defined]
        readings.append(base())
        return base()

    practice.clock = ticking
    statements: list[str] = []
    await practice.storage.db.set_trace_callback(statements.append)
    feedback = await practice.answer(ADA, ada, "max_batch_size 和 preferred batch size")
    await practice.storage.db.set_trace_callback(None)
    assert feedback is not None
    assert len(readings) == 1
    writes = [" ".join(s.split()[:3]) for s in statements if not s.startswith("SELECT")]
    assert writes.count("BEGIN IMMEDIATE") == 1
    assert (writes[0], writes[-1]) == ("BEGIN IMMEDIATE", "COMMIT")
    steps = ("DELETE FROM open_questions", "INSERT INTO answers", "UPDATE users SET")
    assert [w for w in writes if w in (*steps, "INSERT INTO reviews")] == [
        *steps,
        "INSERT INTO reviews",
    ]
    card = await practice.storage.get_review(ADA, "triton-q3")
    answer = await practice.storage.answer(feedback.answer_id)
    assert card is not None and answer is not None
    assert card.reviewed_at == answer.answered_at == readings[0]
    assert card.last_answer_id == feedback.answer_id
