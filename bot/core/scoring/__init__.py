"""Keyword-coverage scoring: which of a question's concepts an answer *states*, and where.

`score_answer(question, text)` is pure and total: any string in, a `ScoreResult` out, score in
[0, 1]. A concept is named when one of its phrases appears as a run of whole tokens (see
`bot.core.text`; long English words and identifiers also match with small typos). Naming is
not stating: `layout` and `cues` read the text around each place a concept is named, and the
concept counts as

- **covered** (full weight) when it is named in a sentence that says something of it, not
  denied, and said of the right subject;
- **listed** (`LIST_CREDIT` of its weight) when it is only named in a bare list of terms;
- **contradicted** (no credit) when every place denies it ("Triton 不支持 ensemble", "does not
  need a KV cache") while the reference does not, or says it of another subject of the
  question ("prefill 是 memory-bound，decode 是 compute-bound" for "prefill is compute-bound").

Words of the question itself never count: an alias found in the question text is dropped, so
pasting the question back scores nothing.

The score is the credited share of the concepts' weights (`coverage`), plus a small share of
the *uncovered* remainder for using the reference answer's vocabulary beyond the question's
(`relevance`, at most `RELEVANCE_SHARE` of the gap, and none for an answer that predicates
nothing). Full coverage is 100%; with no concept covered, an on-topic answer still ranks above
an off-topic one, as a person grading would rank them.

The stages, one module each, each using only those before it (tests/test_layers.py holds it):
`values` (which way the words by a place turn a quantity) → `layout` (sentences, clauses,
denials) → `cues` (does a sentence say anything, or only list terms) → `phrases` (needles
and typo budgets) → `compiled` (a compiled question and the caches) → `reading` (where an
answer names each phrase, what its sentences say) → `attribution` (whose claim) → `judging`
(each concept's verdict) → `names`, `reference` (compiling a question, which reads its
reference answer with the stages above) → `total` (the score). The words they read by are
language data, a module per language in `bot.core.lang`.
"""

from __future__ import annotations

from bot.core.scoring.compiled import COMPILED, typo_memo_size
from bot.core.scoring.phrases import needle, vocabulary
from bot.core.scoring.records import ConceptHit, ScoreResult, Status
from bot.core.scoring.total import RELEVANCE_SHARE, is_answerable, score_answer

__all__ = [
    "COMPILED",
    "RELEVANCE_SHARE",
    "ConceptHit",
    "ScoreResult",
    "Status",
    "is_answerable",
    "needle",
    "score_answer",
    "typo_memo_size",
    "vocabulary",
]
