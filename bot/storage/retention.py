"""SQL of retention: pruning bookkeeping rows (the rules are in bot/core/retention.py)."""

from __future__ import annotations

import asyncio
from datetime import datetime

from bot.core.retention import Cutoffs
from bot.storage.database import Database, iso


class RetentionStore(Database):
    async def prune(
        self, cut: Cutoffs, *, rounds_closed_after: datetime | None = None, batch: int = 5000
    ) -> dict[str, int]:
        """Delete bookkeeping rows older than the cutoffs; rows deleted per table.

        Deletes go in batches, each its own short write, so handlers are never held up for
        long. `rounds_closed_after`: skip rounds whose answers an earlier pass already pruned.
        """
        day = cut.before_day.isoformat()
        closed_before = iso(cut.rounds_closed_before)
        closed_after = iso(rounds_closed_after) if rounds_closed_after else ""
        statements = {
            "daily_sends": (
                "DELETE FROM daily_sends WHERE rowid IN"
                " (SELECT rowid FROM daily_sends WHERE local_day < ? LIMIT ?)",
                (day,),
            ),
            "reminders_sent": (
                "DELETE FROM reminders_sent WHERE rowid IN"
                " (SELECT rowid FROM reminders_sent WHERE local_day < ? LIMIT ?)",
                (day,),
            ),
            "round_answers": (
                "DELETE FROM round_answers WHERE rowid IN"
                " (SELECT ra.rowid FROM rounds r JOIN round_answers ra ON ra.round_id = r.id"
                " WHERE r.closed_at < ? AND r.closed_at >= ? LIMIT ?)",
                (closed_before, closed_after),
            ),
            # Rows dropped for an unreachable chat have no finished_at: their creation counts.
            "outbox": (
                "DELETE FROM outbox WHERE id IN (SELECT id FROM outbox"
                " WHERE status IN ('sent', 'failed', 'unknown', 'expired')"
                " AND COALESCE(finished_at, created_at) < ? LIMIT ?)",
                (iso(cut.outbox_finished_before),),
            ),
        }
        deleted: dict[str, int] = {}
        for table, (sql, params) in statements.items():
            deleted[table] = 0
            while True:
                count = await self._write(sql, (*params, batch))
                deleted[table] += count
                if count < batch:
                    break
                await asyncio.sleep(0)  # let waiting handlers take the lock between batches
        return deleted
