"""Which question a reply to an old question message is scored against
(`Practice.question_shown_in`, bot/services/practice.py).

Written for survivors of the mutation run: a question whose text holds another's whole, and a
message of the bot's that shows no question.
"""

from __future__ import annotations

from bot.core.content import Library, parse_pack
from bot.services.practice import Practice
from bot.storage import Storage

# The short question comes first in the pack: the longer one holds its whole text.
PACK = """\
id: db
title: Databases
language: en
questions:
  - id: db-q1
    level: beginner
    question: What is a B-tree?
    answer: A balanced tree of sorted keys in pages.
    concepts:
      - label: balanced tree
  - id: db-q2
    level: intermediate
    question: What is a B-tree? How does a B+tree differ from it?
    answer: A B+tree keeps every key in its leaves, which are linked in order.
    concepts:
      - label: keys in the leaves
"""


def _practice(storage: Storage) -> Practice:
    return Practice(storage, Library([parse_pack(PACK, "db.yaml")]))


async def test_a_reply_to_the_longer_question_is_scored_against_it(storage: Storage) -> None:
    shown = "Question (intermediate):\nWhat is a B-tree? How does a B+tree differ from it?"
    question = _practice(storage).question_shown_in(shown)
    assert question is not None
    assert question.id == "db-q2"


async def test_a_reply_to_the_shorter_question_is_scored_against_it(storage: Storage) -> None:
    question = _practice(storage).question_shown_in("Question (beginner):\nWhat is a B-tree?")
    assert question is not None
    assert question.id == "db-q1"


async def test_a_message_showing_no_question_is_no_question(storage: Storage) -> None:
    assert _practice(storage).question_shown_in("Your streak: 3 days. See you tomorrow!") is None
