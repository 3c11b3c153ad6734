"""How answers are read, as a learner sees it in the feedback: inflections, quotes, widths.

The question here is written for the test (its concepts and reference are plain English), so
each expectation follows from the rules in bot/core/text.py's docstring: Latin words are
lower-cased and lightly stemmed (tuning/tune, batching/batch, requests/request); a Chinese
phrase matches inside a run of Chinese; the quote shown is the answer's own text, found at
its place in the answer as typed (full-width forms and ligatures included).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core.content import Concept, Question
from bot.core.scoring import score_answer
from bot.core.text import _TOKEN_RE, stem, tokenize

QUESTION = Question(
    id="t-q1",
    level="beginner",
    question="How do you make inference on the server fast?",
    answer="The server tunes batch size, keeps batching requests, and places models on GPUs.",
    concepts=(Concept(label="tune batch size"), Concept(label="batch requests")),
)
QuestionGetter = Callable[[str], Question]


def _quotes(answer: str, question: Question = QUESTION) -> list[tuple[str, str, int, int]]:
    result = score_answer(question, answer)
    return [(h.label, h.text, h.start, h.end) for h in result.covered]


@pytest.mark.parametrize(
    ("answer", "quotes"),
    [
        pytest.param(
            "Start by tuning batch size for throughput.",
            [("tune batch size", "tuning batch size", 9, 26)],
            id="ing-six-letters",
        ),
        pytest.param(
            "It keeps batching requests together.",
            [("batch requests", "batching requests", 9, 26)],
            id="ing-and-plural",
        ),
        pytest.param(
            "We tuned batch sizes first.",
            [("tune batch size", "tuned batch sizes", 3, 20)],
            id="ed-five-letters",
        ),
        pytest.param(
            "ＴＵＮＩＮＧ batch size helps.",
            [("tune batch size", "ＴＵＮＩＮＧ batch size", 0, 17)],
            id="full-width",
        ),
        pytest.param(
            "Start by tuning\u3000batch size.",  # an ideographic space between the words
            [("tune batch size", "tuning\u3000batch size", 9, 26)],
            id="ideographic-space",
        ),
        pytest.param(
            "ﬁrst: tune batch size.",  # the ligature is one character typed, two read
            [("tune batch size", "tune batch size", 6, 21)],
            id="ligature-before",
        ),
    ],
)
def test_inflected_and_wide_forms_are_quoted_where_typed(
    answer: str, quotes: list[tuple[str, str, int, int]]
) -> None:
    assert _quotes(answer) == quotes
    _, text, start, end = quotes[0]
    assert answer[start:end] == text


def test_short_words_and_double_s_keep_their_letters() -> None:
    # Three letters are too short to fold; "-ss" is not a plural; "-ing" needs a stem left.
    assert [stem(w) for w in ("gpu", "use", "bus")] == ["gpu", "use", "bus"]
    assert [stem(w) for w in ("class", "pass", "process")] == ["class", "pass", "process"]
    assert [stem(w) for w in ("sing", "thing", "bring")] == ["sing", "thing", "bring"]
    assert [stem(w) for w in ("tuning", "batches", "cached", "models")] == [
        "tun",
        "batch",  # batches -> batche -> batch
        "cach",
        "model",
    ]


def test_a_chinese_phrase_inside_a_run_is_quoted_as_itself(q: QuestionGetter) -> None:
    answer = "我们的服务要保证返回顺序，所以开启 preserve ordering。"
    result = score_answer(q("triton-q3"), answer)
    hit = next(h for h in result.covered if h.label.startswith("preserve_ordering"))
    # 我们的服务要保证 is eight characters: the phrase 返回顺序 starts at 8.
    assert (hit.phrase, hit.text, hit.start, hit.end) == ("返回顺序", "返回顺序", 8, 12)


def test_a_ligature_before_a_chinese_phrase_keeps_the_quote_in_place(q: QuestionGetter) -> None:
    answer = "ﬁne：要保证返回顺序"  # ﬁ0 n1 e2 ：3 要4 保5 证6 返7
    result = score_answer(q("triton-q3"), answer)
    hit = next(h for h in result.covered if h.label.startswith("preserve_ordering"))
    assert (hit.text, hit.start, hit.end) == ("返回顺序", 7, 11)


def test_on_topic_words_earn_a_little_and_off_topic_nothing() -> None:
    on_topic = score_answer(QUESTION, "It places models on GPUs.")
    off_topic = score_answer(QUESTION, "I like pizza with olives.")
    assert on_topic.covered == [] and off_topic.covered == []
    assert off_topic.score == 0
    assert 0 < on_topic.score <= 0.15  # at most RELEVANCE_SHARE of the uncovered weight


def test_a_ligature_inside_a_word_reads_as_its_letters() -> None:
    question = Question(
        id="t-q3",
        level="beginner",
        question="How do you adapt a model?",
        answer="Fine tuning.",
        concepts=(Concept(label="fine tuning"),),
    )
    answer = "It needs ﬁne tuning first."  # ﬁ is one character: It0 needs3 ﬁne9
    (hit,) = score_answer(question, answer).covered
    assert (hit.label, hit.text, hit.start, hit.end) == ("fine tuning", "ﬁne tuning", 9, 19)


_PIECES = ["C++", "GPUs", "maxBatch", "KV", "显存", "批处理", "é", "Ω"]
_TOKEN_CHARS = st.sampled_from([*"aZq_-./+#  ，。、（）：0９９ｍａｘ", *_PIECES])


@given(st.lists(_TOKEN_CHARS, max_size=40).map("".join))
def test_offsets_found_on_demand_are_where_the_tokens_stand(text: str) -> None:
    # Offsets are found after the fact, by searching each token's text from the end of the
    # previous one; the regex's own match positions are the truth they must equal.
    tokens = tokenize(text)
    matches = list(_TOKEN_RE.finditer(tokens.folded))
    assert tokens.fstart == [m.start() for m in matches]
    assert tokens.fend == [m.end() for m in matches]
    spans = zip(tokens.fstart, tokens.fend, strict=True)
    assert [tokens.folded[s:e].lower() for s, e in spans] == tokens.raw


def test_stems_stay_bounded_and_right_after_the_memo_is_emptied() -> None:
    from bot.core import text

    limit = text._Stems.LIMIT
    for i in range(limit + 10):
        stem(f"word{i}")
    assert len(text._STEMS) <= limit
    assert stem("batching") == "batch"
    assert stem("batches") == "batch"


@pytest.mark.parametrize("room", ["plenty", "none"])
def test_stems_of_mixed_text_with_and_without_room_in_the_stem_memo(
    room: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With no room, the memo empties itself while the words go in: tokenize then takes its
    # other path. Either way, Chinese runs stay whole and English words are stemmed.
    from bot.core import text

    text._STEMS.clear()  # so every word is a miss here, whatever tests ran before
    if room == "none":
        monkeypatch.setattr(text._Stems, "LIMIT", 2)
    tokens = tokenize("批处理 Batching 和 caches，以及 tuning 2 GPUs")
    assert tokens.stem == ["批处理", "batch", "和", "cach", "以及", "tun", "2", "gpu"]
    assert tokens.latin_stem == ["batch", "cach", "tun", "2", "gpu"]
    assert tokens.latin == ["batching", "caches", "tuning", "2", "gpus"]
    assert tokens.cjk_runs == ["批处理", "和", "以及"]
    assert tokens.latin_index == [1, 3, 5, 6, 7]
    assert tokens.cjk == [True, False, True, False, True, False, False, False]
