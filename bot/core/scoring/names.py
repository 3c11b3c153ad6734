"""Shorter names of the subjects a question sets side by side (`readiness` for `readiness
probe`), and the words that are never such a name."""

from __future__ import annotations

from bot.core.content import Question
from bot.core.lang import LANGUAGES, words
from bot.core.scoring.phrases import STOP_WORDS
from bot.core.text import canonical, tokenize

# Function words, and words that are never a subject's short name (`small` of small model,
# 生成 of 生成阶段): language data.
_NOT_NAMES = STOP_WORDS | words("not_names")
_ATTRIBUTIVE = tuple(w for lang in LANGUAGES for w in lang.attributive_particles)


def short_forms(question: Question) -> dict[tuple[str, ...], tuple[str, ...]]:
    """Shorter names of subjects set side by side: what is left of a name once the words
    its siblings share are dropped (`readiness probe` / `liveness probe` are said
    `readiness` / `liveness`; `静态批处理` / `连续批处理` are said `静态` / `连续`).

    What is left must be a name: not a word the siblings' names use too, nor one the question
    uses outside the full names (`nvidia` in "NVIDIA Dynamo-Triton 和 NVIDIA Dynamo"), nor a
    common adjective or verb (`small` of small model, `生成` of 生成阶段 would turn every
    "small batch" or "生成 KV cache" into a subject).
    """
    keyed: dict[tuple[str, ...], tuple[str, ...]] = {}
    for concept in question.concepts:
        if concept.subject:
            keyed.setdefault(tuple(sorted(p.casefold() for p in concept.subject)), concept.subject)
    if len(keyed) < 2:
        return {}
    words = {k: {w for p in v for w in tokenize(p).latin if w.isalpha()} for k, v in keyed.items()}
    runs = {k: [r for p in v for r in tokenize(p).cjk_runs] for k, v in keyed.items()}
    # The question with every subject's full names taken out: a short form still found in
    # it is used there for more than one subject (`NVIDIA Dynamo-Triton 和 NVIDIA Dynamo`).
    rest = canonical(tokenize(question.question))
    for name in sorted((n for v in keyed.values() for n in v), key=len, reverse=True):
        rest = rest.replace(canonical(tokenize(name)).strip(), " ")
    claim_words = _words_of_claims(question)
    out: dict[tuple[str, ...], tuple[str, ...]] = {}
    for key, names in keyed.items():
        others_words = set().union(*(w for k, w in words.items() if k != key))
        others_runs = [r for k, rs in runs.items() if k != key for r in rs]
        forms: list[str] = []
        for name in names:
            tokens = tokenize(name)
            if tokens.cjk_runs and len(tokens) == 1:
                run = tokens.cjk_runs[0]
                for other in others_runs:
                    common = 0  # the head they share: the longest common ending
                    while common < min(len(run), len(other)) and (
                        run[-1 - common] == other[-1 - common]
                    ):
                        common += 1
                    short = run[: len(run) - common]
                    if (
                        common
                        and len(short) >= 2
                        and short not in _NOT_NAMES
                        and not short.endswith(_ATTRIBUTIVE)
                    ):
                        forms.append(short)
            elif tokens.latin and not tokens.cjk_runs:
                # The head noun siblings share is the last word: `readiness probe`.
                latin = tokens.latin
                cut = len(latin)
                while cut > 0 and latin[cut - 1] in others_words:
                    cut -= 1
                kept = latin[:cut]
                if (
                    0 < cut < len(latin)
                    and len(kept) <= 2
                    and all(
                        len(w) >= 4
                        and w.isalpha()
                        and w not in _NOT_NAMES
                        # a word the siblings' names use tells them apart from nothing
                        and w not in others_words
                        for w in kept
                    )
                ):
                    forms.append(" ".join(kept))
        usable = [
            f
            for f in dict.fromkeys(forms)
            if canonical(tokenize(f)).strip() not in rest and not _claims_word(f, claim_words)
        ]
        if usable:
            out[key] = tuple(usable)
    return out


def _words_of_claims(question: Question) -> dict[str, int]:
    """How many subjects' claims use each word in their aliases and terms (stemmed, Latin
    words; not the labels, which name the subject itself)."""
    used: dict[str, set[tuple[str, ...]]] = {}
    for concept in question.concepts:
        if not concept.subject:
            continue
        key = tuple(sorted(p.casefold() for p in concept.subject))
        for phrase in (*concept.aliases, *(p for part in concept.terms for p in part)):
            for w in tokenize(phrase).latin_stem:
                used.setdefault(w, set()).add(key)
    return {w: len(keys) for w, keys in used.items()}


def _claims_word(form: str, claim_words: dict[str, int]) -> bool:
    """Whether a short form is an ordinary word of the claims of two subjects or more (`tile`
    of tile quantization in "edge tiles" and in "more tiles than SMs"): it names neither."""
    return any(claim_words.get(w, 0) >= 2 for w in tokenize(form).latin_stem)
