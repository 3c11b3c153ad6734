"""Who the bot talks to: senders and chats registered on contact and read back, a chat that
cannot be reached, a group that became a supergroup.

The per-update loader, the handlers and the delivery rule (`bot.delivery.settle` takes a
`Chats` as the store it marks) all come here; the SQL stays in `bot.storage`.
"""

from __future__ import annotations

from bot.core.models import ChatRecord, UserProfile
from bot.storage import Storage


class Chats:
    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    async def sender(
        self, user_id: int, first_name: str, client_language: str | None, *, private: bool
    ) -> UserProfile:
        """The sender as stored: created on first contact, refreshed only when Telegram shows
        another name or client language, or (in private) when they had blocked or never
        started the bot, so most updates cost one read."""
        user = await self.storage.get_user(user_id)
        stale = (
            user is None
            or user.first_name != first_name[:64]
            or (client_language is not None and user.telegram_language != client_language)
        )
        if user is None or stale or (private and not (user.active and user.started)):
            user = await self.storage.ensure_user(
                user_id, first_name, client_language, private=private
            )
        return user

    async def user(self, user_id: int) -> UserProfile | None:
        """The user as stored, or None."""
        return await self.storage.get_user(user_id)

    async def find(self, chat_id: int) -> ChatRecord | None:
        """The chat as stored (settings, schedule), or None if the bot never registered it."""
        return await self.storage.get_chat(chat_id)

    async def register(
        self, chat_id: int, kind: str, title: str = "", language: str | None = None
    ) -> ChatRecord:
        """Create or refresh the chat (reachable again; its language set once, if unknown)."""
        await self.storage.ensure_chat(chat_id, kind, title, language)
        record = await self.storage.get_chat(chat_id)
        assert record is not None
        return record

    async def record(self, chat_id: int, kind: str, title: str = "") -> ChatRecord:
        """The chat as stored, registered first if it is new or was unreachable."""
        record = await self.storage.get_chat(chat_id)
        if record is None or not record.active:
            record = await self.register(chat_id, kind, title)
        return record

    async def came_back(
        self,
        chat_id: int,
        kind: str,
        title: str,
        language: str | None,
        adder: tuple[int, str] | None = None,
    ) -> ChatRecord:
        """Unblocked in private, or added (back) to a group: reachable again.

        `adder` (id, first name): in a private chat, the user, who can be messaged again.
        """
        if adder is not None:
            await self.storage.ensure_user(adder[0], adder[1], language)
        return await self.register(chat_id, kind, title, language)

    async def mark_unreachable(self, chat_id: int) -> None:
        """The one rule for a chat that cannot be reached (see `Storage.mark_unreachable`)."""
        await self.storage.mark_unreachable(chat_id)

    async def migrate_chat(self, old_id: int, new_id: int) -> None:
        """A group became a supergroup: everything moves to the new id."""
        await self.storage.migrate_chat(old_id, new_id)
