"""What feedback may say of a scored answer, beyond the scorer's verdicts (pure).

The scorer judges each concept where the answer names it; a few things feedback says depend
on the answer as a whole. A concept named in a bare list of terms (`可观测、统一入口、vLLM`)
can be read as "said of" its neighbour in the list, but a list says nothing of anything:
feedback must not tell it "mixed up with vLLM".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.core.scoring import ScoreResult


def is_bare_list(text: str, result: ScoreResult) -> bool:
    """Whether `text` only names terms: with every place the scorer found blanked out, what
    is left predicates nothing (no verb, copula, negator or relation)."""
    from bot.core.scoring.cues import predicates  # loaded with the scorer, on the first answer

    chars = list(text)
    for hit in (*result.covered, *result.contradicted):
        chars[hit.start : hit.end] = " " * (hit.end - hit.start)
    return not predicates("".join(chars))
