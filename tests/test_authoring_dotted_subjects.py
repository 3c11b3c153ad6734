"""An authoring warning of `content check` for a subject spelled with a capital X and a dot
(bot/core/authoring.py).

Written for a survivor of the mutation run; the warning is written out by hand.
"""

from __future__ import annotations

from bot.core.authoring import pack_warnings
from bot.core.content import Concept, Pack, Question
from bot.core.levels import Level


def test_an_alias_inside_an_x509_subject_is_named() -> None:
    # `X.509` is an identifier (a name and a dotted part): the alias `x 509` is the subject
    # itself, so saying "X.509" states the claim without saying what it binds.
    concept = Concept(
        label="an X.509 certificate binds a key to a name", subject=("X.509",), aliases=("x 509",)
    )
    question = Question(
        id="p-q1",
        level=Level.BEGINNER,
        question="What does a TLS server send first?",
        answer="Its X.509 certificate, which binds a public key to a name.",
        concepts=(concept,),
    )
    pack = Pack(id="p", title="P", language="en", questions=(question,))
    assert pack_warnings(pack) == [
        "p-q1: concept 'an X.509 certificate binds a key to a name': alias 'x 509' is part of"
        " its subject 'X.509', so naming the subject states the claim"
    ]
