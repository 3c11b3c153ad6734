"""Which glossary terms `content import` finds in a text, for the surviving mutants of
`bot/core/glossary.py` (`Glossary.find_in`: longest first where terms overlap, in text order).
"""

from __future__ import annotations

from bot.core.glossary import Glossary


def test_a_chinese_term_touching_a_longer_one_after_it_is_still_found() -> None:
    # 显存池 is taken first (the longer); 缓存 ends where it starts: they touch, not overlap.
    glossary = Glossary([["缓存", "cache"], ["显存池", "GPU memory pool"]])
    assert glossary.find_in("缓存显存池") == ["缓存", "显存池"]


def test_the_scan_goes_on_after_a_term_inside_a_longer_one() -> None:
    # "KV cache" overlaps the longer "cache pool" and is left out; "paging", shorter than
    # "KV cache" (so looked at after it) and elsewhere in the text, is still found.
    glossary = Glossary([["cache pool", "缓存池"], ["KV cache", "键值缓存"], ["paging", "分页"]])
    assert glossary.find_in("the kv cache pool needs paging") == ["cache pool", "paging"]
