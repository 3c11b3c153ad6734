"""Japanese: the words a claim is denied, stated, listed and turned with.

Japanese shares Han characters with Chinese, so 不要, 未対応 and 非同期 are read by the Chinese
data; this module adds what kana says. A denial follows its verb ("再利用しません", "使わない",
"使わず"), which is where the claims module looks for one close after a term.
"""

from __future__ import annotations

from bot.core.lang.base import Language

LANGUAGE = Language(
    code="ja",
    # ません (polite), ない / なかった (plain; not 少ない "few", 危ない "dangerous"), ず (使わず;
    # not まず "first", 必ず "always", ずつ "each"), なし / 無し / 無い ("without").
    negation=r"ません|(?<![少危])ない|なかっ|(?<![ま必])ず(?![つっ])|なし|無し|無い",
    negation_first="まなず無",
    negating_openers=("ではなく", "じゃなく"),
    clause_connectives=tuple("しかし ので けれど けど ただし なぜなら だから そのため".split()),
    unsure=r"(?:分|わ)から(?:ない|ず)|(?:分|わ)かりません|知りません|知らない|自信がない",
    avoiding=r"避け|回避|防ぐ|防止|省く|省略|スキップ",
    # Particles and verb endings: a sentence with one says something of what it names; a
    # list of terms ("KVキャッシュ、PagedAttention") has none.
    predicates=r"[はがをにでともへ]|です|ます|する|され|でき|ている|ある|いる|なる|られ",
    statement=r"です|ます|である|する|され|できる",
    enumeration=r"どの|何が|挙げ|列挙",
    up=r"増や|上げ|大きく|高く|増加",
    down=r"減ら|下げ|小さく|低く|削減",
    item_separators=("、",),
    stop_chars=frozenset("のはがをにでともへやかな"),
)
