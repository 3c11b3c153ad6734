"""The value the words after a term give it, and where those words end (bot/core/scoring/,
values_at): a term named right after another shares its value, and the window of 16
characters after a term decides which later term is coordinated with it.

Written for survivors of the mutation run. Scales, in order: amount (high/low), quality
(better/worse), speed (faster/slower), what bounds it. Positions are counted by hand.
"""

from __future__ import annotations

from bot.core.scoring.values import values_at


def _spans(text: str, *terms: str) -> tuple[tuple[int, int], ...]:
    return tuple((text.index(t), text.index(t) + len(t)) for t in terms)


def test_a_term_spelt_out_right_after_an_acronym_shares_the_value_after_it() -> None:
    # "TPOT" and, with nothing between, its 16-character spelling out; "都更低" follows
    # beyond the 16 characters after TPOT, yet it says TPOT is low.
    spelt = "每个输出 token 的生成间隔"
    assert len(spelt) == 16
    text = "TPOT" + spelt + "都更低"
    masks = _spans(text, "TPOT", spelt)
    assert values_at(text, 0, 4, masks) == (-1, 0, 0, 0)


def test_a_term_coordinated_with_the_next_only_if_it_starts_within_sixteen_characters() -> None:
    # Between TTFT and ITL only spaces and 和. ITL starting 15 characters after TTFT is
    # coordinated with it ("TTFT 和 ITL 都更低": both low); 16 characters after, it is past
    # the window and TTFT keeps no value.
    near = "TTFT" + " " * 6 + "和" + " " * 8 + "ITL都更低"
    assert near.index("ITL") - 4 == 15
    assert values_at(near, 0, 4, _spans(near, "TTFT", "ITL")) == (-1, 0, 0, 0)
    far = "TTFT" + " " * 7 + "和" + " " * 8 + "ITL都更低"
    assert far.index("ITL") - 4 == 16
    assert values_at(far, 0, 4, _spans(far, "TTFT", "ITL")) == (0, 0, 0, 0)


def test_a_twelve_letter_word_right_before_a_term_names_its_pole() -> None:
    # "accelerating decoding": the word before the term is 12 letters and a space; all of it
    # is read (scales: amount, quality, speed, bound): decoding is sped up.
    assert values_at("accelerating decoding", 13, 21) == (0, 0, 1, 0)
    assert values_at("a significantly accelerating decode", 28, 34) == (0, 0, 1, 0)
