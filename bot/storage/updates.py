"""SQL of incoming updates: the inbox, and each update_id handled once.

An update is recorded (`record_updates`, with its raw JSON) before Telegram is told it was
received; a handler takes it (`claim_update`) and marks it done when its handling finished
(`finish_update`). What a crash or a kill left recorded and not done is handed to the next
start (`unfinished_updates`), in update_id order.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, NamedTuple

import aiosqlite

from bot.storage.database import Database, iso


class Unfinished(NamedTuple):
    """What the last run left of the inbox: updates to handle again, and those given up."""

    again: list[tuple[int, dict[str, Any]]]  # (update_id, raw update), in update_id order
    given_up: list[int]  # taken by `max_tries` starts already, each of which died


class UpdatesStore(Database):
    async def record_updates(self, raws: Iterable[Mapping[str, Any]], now: datetime) -> int:
        """Record updates as received, in one transaction; those recorded before are kept as
        they are (a redelivery). Returns how many were new."""
        rows = [
            (raw["update_id"], iso(now), json.dumps(raw, ensure_ascii=False, separators=(",", ":")))
            for raw in raws
            if isinstance(raw, Mapping) and isinstance(raw.get("update_id"), int)
        ]
        if not rows:
            return 0

        async def body(db: aiosqlite.Connection) -> int:
            new = 0
            for row in rows:
                cur = await db.execute(
                    "INSERT OR IGNORE INTO processed_updates (update_id, seen_at, state, body)"
                    " VALUES (?, ?, 'received', ?)",
                    row,
                )
                new += cur.rowcount
            return new

        return await self.atomic(body)

    async def claim_update(self, update_id: int, now: datetime) -> bool:
        """Take an update for handling; False if it is being handled or was handled before.

        One recorded in the inbox is taken from 'received'; one that never passed through it
        (an update handed to the application directly) is recorded as taken. Either way its
        `seen_at` becomes `now`: replicas tell an update left by a replica gone from one
        still in hand by its age (`unfinished_updates`' `seen_before`).
        """
        claimed = await self._write(
            "INSERT INTO processed_updates (update_id, seen_at, state) VALUES (?, ?, 'handling')"
            " ON CONFLICT (update_id) DO UPDATE SET state = 'handling', seen_at = excluded.seen_at"
            " WHERE processed_updates.state = 'received'",
            (update_id, iso(now)),
        )
        return claimed == 1

    async def touch_updates(self, update_ids: list[int], now: datetime) -> None:
        """Updates still in this process's hands: their `seen_at` is `now`, so that other
        replicas do not take them for left by a replica gone (`unfinished_updates`)."""
        marks = ", ".join("?" * len(update_ids))
        await self._write(
            "UPDATE processed_updates SET seen_at = ?"  # noqa: S608 - only ?s
            f" WHERE update_id IN ({marks}) AND state = 'handling'",
            (iso(now), *update_ids),
        )

    async def finish_update(self, update_id: int) -> None:
        """The update's handling finished: done, and its body no longer kept."""
        await self.finish_updates([update_id])

    async def finish_updates(self, update_ids: list[int]) -> None:
        """`finish_update` of several updates in one statement."""
        marks = ", ".join("?" * len(update_ids))
        await self._write(
            "UPDATE processed_updates SET state = 'done', body = NULL"  # noqa: S608 - only ?s
            f" WHERE update_id IN ({marks})",
            update_ids,
        )

    async def unfinished_updates(
        self, max_tries: int, seen_before: datetime | None = None
    ) -> Unfinished:
        """What a previous run recorded and did not finish, to be handled again, 'received'
        again; one it had taken (a handler had begun it) counts a try. Those tried
        `max_tries` times (each run that took them died or was killed) are given up: marked
        done, and named; those taken without passing the inbox (no body) are marked done.
        `seen_before`: only those recorded or taken before it (webhook replicas: what a live
        one records it takes at once and handles within moments; an update recorded, or
        taken, more than a lease ago and not done was left by one that is gone)."""
        recent = "" if seen_before is None else " AND seen_at < ?"
        params = () if seen_before is None else (iso(seen_before),)

        async def body(db: aiosqlite.Connection) -> Unfinished:
            rows = await db.execute_fetchall(
                "SELECT update_id, body, tries, state FROM processed_updates"  # noqa: S608
                f" WHERE state != 'done'{recent}"
                " ORDER BY update_id",
                params,
            )
            again: list[tuple[int, dict[str, Any]]] = []
            given_up: list[int] = []
            ended: list[int] = []
            for update_id, text, tries, state in rows:
                tries += state == "handling"
                raw = _decoded(text)
                if raw is None:
                    ended.append(update_id)  # taken without passing the inbox: nothing to read
                elif tries >= max_tries:
                    given_up.append(update_id)
                else:
                    again.append((update_id, raw))
            await db.execute(  # a try: taken by a handler, and the process died meanwhile
                "UPDATE processed_updates SET state = 'received',"  # noqa: S608 - fixed text
                " tries = tries + CASE WHEN state = 'handling' THEN 1 ELSE 0 END"
                f" WHERE state != 'done'{recent}",
                params,
            )
            for update_id in given_up + ended:
                await db.execute(
                    "UPDATE processed_updates SET state = 'done', body = NULL WHERE update_id = ?",
                    (update_id,),
                )
            return Unfinished(again, given_up)

        return await self.atomic(body)

    async def forget_updates_before(self, before: datetime) -> int:
        """Drop the record of updates handled and seen before `before`; return how many.
        One not handled yet stays, however old: the next start handles it."""
        return await self._write(
            "DELETE FROM processed_updates WHERE seen_at < ? AND state = 'done'", (iso(before),)
        )


def _decoded(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    try:
        raw = json.loads(text)
    except ValueError:
        return None
    return raw if isinstance(raw, dict) else None
