"""SQL of incoming updates: each update_id is handled once."""

from __future__ import annotations

from datetime import datetime

from bot.storage.database import Database, iso


class UpdatesStore(Database):
    async def claim_update(self, update_id: int, now: datetime) -> bool:
        """Record that an update is being handled; False if it was handled before."""
        inserted = await self._write(
            "INSERT OR IGNORE INTO processed_updates (update_id, seen_at) VALUES (?, ?)",
            (update_id, iso(now)),
        )
        return inserted == 1

    async def forget_updates_before(self, before: datetime) -> int:
        """Drop the record of updates seen before `before`; return how many."""
        return await self._write("DELETE FROM processed_updates WHERE seen_at < ?", (iso(before),))
