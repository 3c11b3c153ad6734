"""Question packs: /packs (the list, with a button to follow or unfollow each, redrawn in
place), the welcome's field buttons. In a group the list is the group's, and only its
admins change it; members see it without buttons. (The list itself, which a group's
settings screen also opens: bot/services/pack_lists.py.)"""

from __future__ import annotations

from telegram import Update

from bot.core.packs import fields
from bot.handlers.common import BotContext, edit_text, expired, is_admin, send
from bot.keyboards import ALL_FIELDS, parse_field_tap, parse_pack_tap
from bot.render import excerpt, titles
from bot.services.pack_lists import drawing_language, packs_screen


async def packs_command(update: Update, context: BotContext) -> None:
    """/packs in a private chat or a group."""
    turn = context.turn(update)
    if turn is None:
        return
    svc, user, chat, lang = turn
    read_only = chat.type != chat.PRIVATE and not await is_admin(update, context)
    draw_lang = await drawing_language(svc, chat.id, chat.type, lang)
    group = chat.type != chat.PRIVATE
    text, keyboard = await packs_screen(
        svc, chat.id, user.user_id, lang, draw_lang, read_only, group=group
    )
    await send(context, chat.id, [text], keyboard)


async def pack_button(update: Update, context: BotContext) -> None:
    """A pack's button (under /packs, or under "none in your language"): follow or unfollow
    it, say so, and redraw the message as the /packs list (keeping the way back to a
    group's settings screen when it was opened from there)."""
    query, user = update.callback_query, context.user
    if query is None or user is None or query.message is None:
        return
    svc, lang = context.svc, context.lang
    tap = parse_pack_tap(query.data)
    if tap is None:
        await expired(context, query)
        return
    chat = query.message.chat
    if chat.type != chat.PRIVATE and not await is_admin(update, context):
        await query.answer(svc.strings(lang, "packs_admins_only"))
        return
    pack = svc.library.offered.get(tap.pack_id)
    if pack is None:  # removed (or made a draft) since the list was drawn
        await expired(context, query)
        return
    if tap.follow:
        await svc.packs.follow(chat.id, pack.id)
    else:
        await svc.packs.unfollow(chat.id, pack.id)
    toast = "pack_followed" if tap.follow else "pack_unfollowed"
    # A toast shows two lines on a phone: a long title is cut, and says so.
    await query.answer(svc.strings(lang, toast, title=excerpt(pack.title, 60)))
    draw_lang = await drawing_language(svc, chat.id, chat.type, lang)
    back = tap.in_settings and chat.type != chat.PRIVATE  # a private chat has no such screen
    text, keyboard = await packs_screen(
        svc,
        chat.id,
        user.user_id,
        lang,
        draw_lang,
        False,
        group=chat.type != chat.PRIVATE,
        in_settings=back,
    )
    await edit_text(context, query, text, keyboard)


async def field_button(update: Update, context: BotContext) -> None:
    """A field tapped under the welcome: the chat follows that field's packs."""
    query, user = update.callback_query, context.user
    if query is None or user is None or query.message is None:
        return
    svc, lang = context.svc, context.lang
    field = parse_field_tap(query.data)
    if field is None or (field != ALL_FIELDS and field not in fields(svc.library)):
        await expired(context, query)
        return
    chosen = await svc.packs.choose_field(
        query.message.chat.id, None if field == ALL_FIELDS else field, lang
    )
    await query.answer()
    if field == ALL_FIELDS and all(svc.library.pack_language(p.id) == lang for p in chosen):
        language = svc.strings(lang, f"language_{lang}")
        text = svc.strings(
            lang, "field_chosen_all", language=language, packs=titles(svc.strings, lang, chosen)
        )
    else:
        text = svc.strings(lang, "field_chosen", packs=titles(svc.strings, lang, chosen))
    await send(context, query.message.chat.id, [text])
