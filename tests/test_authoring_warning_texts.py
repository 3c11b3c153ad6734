"""Authoring warnings `content check` prints, for the surviving mutants of `authoring.py`.

Each expected warning is written out by hand from the rule it states (see the module's
docstring): the question id, the concept, the alias and why the score would mislead.
"""

from __future__ import annotations

from bot.core.authoring import pack_warnings
from bot.core.content import Concept, Pack, Question
from bot.core.levels import Level


def _pack(*concepts: Concept, question: str, answer: str) -> Pack:
    item = Question(
        id="p-q1", level=Level.BEGINNER, question=question, answer=answer, concepts=concepts
    )
    return Pack(id="p", title="P", language="en", questions=(item,))


def test_a_one_word_alias_inside_a_two_word_identifier() -> None:
    # `max_tokens` is two words: naming it also names `tokens`, which earns "ordering".
    warnings = pack_warnings(
        _pack(
            Concept(label="output cap", aliases=("max_tokens",)),
            Concept(label="ordering", aliases=("keep ordering", "tokens")),
            question="Which generation settings matter?",
            answer="max_tokens caps the output; keep ordering of requests.",
        )
    )
    assert warnings == [
        "p-q1: concept 'ordering': one-word alias 'tokens' also matches inside 'max_tokens'"
    ]


def test_an_alias_shared_with_a_key_term_claim_is_named_with_both_labels() -> None:
    # The claim given as two key terms also has an alias of its own: that alias names the
    # claim alone, so sharing it with another concept earns both.
    warnings = pack_warnings(
        _pack(
            Concept(
                label="the queue delay bounds the wait",
                aliases=("delay cap",),
                terms=(("queue delay",), ("wait",)),
            ),
            Concept(label="latency", aliases=("delay cap",)),
            question="How does Triton trade throughput for latency?",
            answer="The delay cap: queue delay bounds the wait.",
        )
    )
    assert warnings == [
        "p-q1: alias 'delay cap' belongs to 2 concepts ('latency', "
        "'the queue delay bounds the wait'): one phrase earns them all"
    ]


def test_an_alias_inside_a_subject_written_as_a_command_line_flag() -> None:
    # `--max-batch-size` is the identifier max-batch-size with its dashes in front.
    warnings = pack_warnings(
        _pack(
            Concept(
                label="--max-batch-size caps a batch",
                subject=("--max-batch-size",),
                aliases=("batch size",),
            ),
            question="What does the server flag do?",
            answer="--max-batch-size caps a batch: the batch size it never exceeds.",
        )
    )
    assert warnings == [
        "p-q1: concept '--max-batch-size caps a batch': alias 'batch size' is part of its "
        "subject '--max-batch-size', so naming the subject states the claim"
    ]
