"""What a restored backup must take from the database it replaces, so nothing is sent twice.

A backup is a snapshot: everything the bot sent after it is still owed in it. `interview-bot
restore` reads the replaced database (the newer one) and its wire log, and each message the
newer one shows as delivered, or as possibly delivered, is marked so in the backup; what it
shows as still owed stays owed. Without a newer database (the disk was lost) nothing says
what was sent after the snapshot, so whatever the backup owed whose time had come counts as
possibly sent: a message possibly lost is said, never one sent twice.
"""

from __future__ import annotations

from collections.abc import Collection
from enum import StrEnum


class Fate(StrEnum):
    """What the newer database says happened to a message."""

    SENT = "sent"  # Telegram took it
    UNKNOWN = "unknown"  # its request left and no answer came: it may have arrived
    OWED = "owed"  # it did not arrive: the restored bot sends it (within its deadline)


def newer_fate(
    status: str, row_id: int, attempts: int, written: Collection[tuple[int, int]] | None
) -> Fate:
    """A newer database's outbox row, as the restored one must count it.

    'sending' is a request that was out when that bot stopped: its wire log (`written`,
    (row id, attempt) pairs; None when there is none or it is damaged) says whether it left.
    Refused, expired or never sent ('failed', 'expired', 'pending', 'claimed') is owed in
    the backup still: it did not arrive, and the restored bot decides again (a chat that
    refused refuses again; a deadline passed is passed again)."""
    if status == "sent":
        return Fate.SENT
    if status == "unknown":
        return Fate.UNKNOWN
    if status == "sending":
        if written is None or (row_id, attempts) in written:
            return Fate.UNKNOWN
        return Fate.OWED
    return Fate.OWED
