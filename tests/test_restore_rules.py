"""The rule a restore applies to each message the replaced database recorded.

Counting a message that never left as sent loses it; counting one that may have arrived as
owed sends it twice. Cases worked out from what each status means (migrations/008_outbox.sql)
and the wire file's promise (bot/storage/wire.py).
"""

from __future__ import annotations

import pytest

from bot.core.restore import Fate, newer_fate

WRITTEN = {(7, 2)}  # the wire file: row 7's second attempt was written


@pytest.mark.parametrize(
    ("status", "row_id", "attempts", "written", "fate"),
    [
        pytest.param("sent", 7, 1, WRITTEN, Fate.SENT, id="sent-is-sent"),
        pytest.param("unknown", 7, 1, WRITTEN, Fate.UNKNOWN, id="unknown-may-have-arrived"),
        pytest.param("sending", 7, 2, WRITTEN, Fate.UNKNOWN, id="out-and-written"),
        pytest.param("sending", 7, 3, WRITTEN, Fate.OWED, id="a-later-attempt-not-written"),
        pytest.param("sending", 8, 2, WRITTEN, Fate.OWED, id="another-row-not-written"),
        pytest.param("sending", 8, 1, None, Fate.UNKNOWN, id="no-wire-file-may-have-left"),
        pytest.param("sending", 8, 1, set(), Fate.OWED, id="an-empty-log-none-left"),
        pytest.param("failed", 7, 2, WRITTEN, Fate.OWED, id="refused-did-not-arrive"),
        pytest.param("expired", 7, 2, None, Fate.OWED, id="expired-never-sent"),
        pytest.param("pending", 7, 0, None, Fate.OWED, id="queued-is-owed"),
        pytest.param("claimed", 7, 2, None, Fate.OWED, id="claimed-is-owed"),
    ],
)
def test_what_the_replaced_database_says_decides_the_restored_message(
    status: str, row_id: int, attempts: int, written: set[tuple[int, int]] | None, fate: Fate
) -> None:
    assert newer_fate(status, row_id, attempts, written) is fate
