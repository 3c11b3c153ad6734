"""SQL of the packs a chat follows, and of the once-only note that none is in its language."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from bot.storage.database import Database, iso


class PacksStore(Database):
    async def followed_packs(self, chat_id: int) -> list[str]:
        """The packs the chat follows, in the order it followed them."""
        rows = await self._near(
            "SELECT pack_id FROM followed_packs WHERE chat_id = ? ORDER BY followed_at, pack_id",
            (chat_id,),
        )
        return [row[0] for row in rows]

    async def follow_packs(self, chat_id: int, packs: Iterable[str], now: datetime) -> None:
        """Follow each of `packs` (one already followed stays as it was)."""
        async with self.transaction() as db:
            for pack_id in packs:
                await db.execute(
                    "INSERT OR IGNORE INTO followed_packs (chat_id, pack_id, followed_at)"
                    " VALUES (?, ?, ?)",
                    (chat_id, pack_id, iso(now)),
                )

    async def unfollow_pack(self, chat_id: int, pack_id: str) -> bool:
        """Stop following a pack; False if it was not followed."""
        changed = await self._write(
            "DELETE FROM followed_packs WHERE chat_id = ? AND pack_id = ?", (chat_id, pack_id)
        )
        return changed > 0

    async def set_followed_packs(self, chat_id: int, packs: Iterable[str], now: datetime) -> None:
        """Follow exactly `packs` (a field chosen at /start): the others are unfollowed."""
        async with self.transaction() as db:
            await db.execute("DELETE FROM followed_packs WHERE chat_id = ?", (chat_id,))
            for pack_id in packs:
                await db.execute(
                    "INSERT OR IGNORE INTO followed_packs (chat_id, pack_id, followed_at)"
                    " VALUES (?, ?, ?)",
                    (chat_id, pack_id, iso(now)),
                )

    async def claim_pack_offer(
        self, chat_id: int, language: str, now: datetime, since: datetime | None = None
    ) -> bool:
        """True the first time the chat is to be told no pack is in `language`; then False.

        True again for a claim made at or after `since` (the day's prompt drafted again after
        a stop between this claim and the prompt's record: the outbox key keeps it once)."""
        changed = await self._write(
            "INSERT OR IGNORE INTO pack_offers (chat_id, language, told_at) VALUES (?, ?, ?)",
            (chat_id, language, iso(now)),
        )
        if changed > 0 or since is None:
            return changed > 0
        row = await self._one(
            "SELECT told_at FROM pack_offers WHERE chat_id = ? AND language = ?",
            (chat_id, language),
        )
        return row is not None and row[0] >= iso(since)
