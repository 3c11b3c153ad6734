"""Question packs a chat follows: /packs (the list, follow, unfollow), the field chosen at
/start, a pack's link; and what to offer when no pack is in the user's language. Which
packs a question is drawn from is `Practice.draw_from` (the rule: bot/core/packs.py)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.content import Library, Pack
from bot.core.levels import Level
from bot.core.packs import done_per_pack, draw_from, field_packs, levels_of, listed
from bot.services.practice import Clock
from bot.storage import Storage


@dataclass(frozen=True, slots=True)
class PackRow:
    pack: Pack
    followed: bool
    done: int  # the user's answered questions of the pack
    levels: tuple[Level, ...]


@dataclass(frozen=True, slots=True)
class Listing:
    """What /packs shows a chat: every pack offered, those in `lang` first."""

    rows: tuple[PackRow, ...]
    any_in_language: bool  # some pack is in the user's language


class Packs:
    def __init__(self, storage: Storage, library: Library, clock: Clock) -> None:
        self.storage = storage
        self.library = library
        self.clock = clock

    async def listing(self, chat_id: int, user_id: int, lang: str) -> Listing:
        """The packs as /packs lists them for `chat_id`, with `user_id`'s answers counted."""
        followed = set(await self.storage.followed_packs(chat_id))
        done = done_per_pack(self.library, await self.storage.answered_questions(user_id))
        rows = tuple(
            PackRow(p, p.id in followed, done[p.id], tuple(levels_of(p)))
            for p in listed(self.library, lang)
        )
        return Listing(rows, self.any_in(lang))

    async def followed(self, chat_id: int) -> tuple[Pack, ...]:
        """The packs `chat_id` follows and that are still offered, in the order followed."""
        followed = await self.storage.followed_packs(chat_id)
        return tuple(self.library.offered[p] for p in followed if p in self.library.offered)

    def any_in(self, lang: str) -> bool:
        """Whether a chat following no pack gets questions in `lang` (some pack is in it)."""
        return bool(draw_from(self.library, (), lang).packs)

    async def follow(self, chat_id: int, pack_id: str) -> bool:
        """Follow a pack offered; False if there is no such pack (a stale button)."""
        if pack_id not in self.library.offered:
            return False
        await self.storage.follow_packs(chat_id, [pack_id], self.clock())
        return True

    async def unfollow(self, chat_id: int, pack_id: str) -> None:
        await self.storage.unfollow_pack(chat_id, pack_id)

    async def choose_field(self, chat_id: int, field: str | None, lang: str) -> tuple[Pack, ...]:
        """The field chosen at /start (None: all): the chat follows its packs in `lang`
        (all of the field if none is in `lang`); with all fields in `lang`, none is
        followed (every pack in `lang` is asked, packs added later included). Returns the
        packs questions now come from."""
        chosen = field_packs(self.library, field, lang)
        in_language = all(self.library.pack_language(p) == lang for p in chosen)
        if field is None and in_language:
            await self.storage.set_followed_packs(chat_id, (), self.clock())
        else:
            await self.storage.set_followed_packs(chat_id, chosen, self.clock())
        return tuple(self.library.packs[p] for p in chosen)

    def others(self, pack_ids: tuple[str, ...]) -> list[Pack]:
        """The packs named, as packs (what `NoPacks` offers)."""
        return [self.library.packs[p] for p in pack_ids if p in self.library.packs]
