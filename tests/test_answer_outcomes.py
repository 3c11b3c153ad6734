"""What becomes of a message sent as an answer, decided before anything is scored (the pure
rules in bot/core/answers.py and bot/core/practice.py; expected routes written by hand from
the rules the users were promised: a short or one-word answer keeps the question open, a
photo is not an answer, and an answer is scored against the question it was written for)."""

from __future__ import annotations

import pytest

from bot.core.answers import Attempt, attempt_of
from bot.core.practice import Route, route_answer


@pytest.mark.parametrize(
    ("text", "attempt"),
    [
        ("😀😀😀", Attempt.NO_WORDS),
        ("??", Attempt.NO_WORDS),
        ("ok", Attempt.TOO_SHORT),
        ("好", Attempt.TOO_SHORT),
        ("缓存", Attempt.ONE_WORD),
        ("cache", Attempt.ONE_WORD),
        ("max_batch_size", Attempt.ONE_WORD),
        ("max_batch_size 和 preferred batch size", Attempt.ANSWER),
        ("用 Redis 做缓存", Attempt.ANSWER),
    ],
)
def test_what_a_message_is_as_an_attempt(text: str, attempt: Attempt) -> None:
    assert attempt_of(text) is attempt


OPEN = "triton-q3"  # the question open now
EARLIER = "triton-q7"  # a question closed since, whose message the user replied to

# (attempt, caption, open question, question replied to) → where the answer goes
CASES = [
    pytest.param(Attempt.ANSWER, False, OPEN, None, Route.SCORE, id="an-answer-is-scored"),
    pytest.param(Attempt.ANSWER, False, None, None, Route.NOTHING_OPEN, id="nothing-open"),
    pytest.param(Attempt.TOO_SHORT, False, OPEN, None, Route.TOO_SHORT, id="too-short-kept-open"),
    pytest.param(Attempt.NO_WORDS, False, OPEN, None, Route.TOO_SHORT, id="no-words-kept-open"),
    pytest.param(
        Attempt.TOO_SHORT, False, None, None, Route.NOTHING_OPEN, id="too-short-nothing-open"
    ),
    pytest.param(Attempt.ONE_WORD, False, OPEN, None, Route.ONE_WORD, id="one-word-kept-open"),
    pytest.param(
        Attempt.ONE_WORD, False, OPEN, EARLIER, Route.ONE_WORD, id="one-word-reply-kept-open"
    ),
    pytest.param(
        Attempt.ONE_WORD, False, None, None, Route.NOTHING_OPEN, id="one-word-nothing-open"
    ),
    pytest.param(Attempt.ANSWER, True, None, None, Route.NOT_TEXT, id="photo-nothing-open"),
    pytest.param(Attempt.TOO_SHORT, True, OPEN, None, Route.NOT_TEXT, id="photo-short-caption"),
    pytest.param(Attempt.ANSWER, True, OPEN, None, Route.SCORE, id="caption-is-the-answer"),
    pytest.param(
        Attempt.ANSWER, False, OPEN, EARLIER, Route.CLOSED_QUESTION, id="reply-to-a-closed-one"
    ),
    pytest.param(
        Attempt.ANSWER, False, None, EARLIER, Route.CLOSED_QUESTION, id="reply-nothing-open"
    ),
    pytest.param(Attempt.ANSWER, False, OPEN, OPEN, Route.SCORE, id="reply-to-the-open-one"),
]


@pytest.mark.parametrize(("attempt", "caption", "open_id", "replied_id", "route"), CASES)
def test_where_an_answer_goes(
    attempt: Attempt, caption: bool, open_id: str | None, replied_id: str | None, route: Route
) -> None:
    assert route_answer(attempt, caption=caption, open_id=open_id, replied_id=replied_id) is route
