"""Private practice: /start, /help, /quiz, /mock, answers, /hint, /skip, /reveal, /stats,
nudges."""

from __future__ import annotations

import asyncio

from telegram import CallbackQuery, InlineKeyboardMarkup, Message, MessageEntity, Update

from bot.commands import GROUP_ONLY
from bot.core.levels import Level, parse_quiz_args
from bot.core.mock import (
    MockEnded,
    MockRunning,
    MockStale,
    MockStep,
    MockTurn,
    NoMockQuestions,
    parse_mock_args,
)
from bot.core.models import UserProfile
from bot.core.packs import field_languages, fields, pack_words
from bot.core.practice import (
    Asked,
    Feedback,
    NoPacks,
    NothingOpen,
    NotText,
    OneWord,
    ReplyToClosedQuestion,
    StillOpen,
    TooShort,
)
from bot.core.schedule import DEFAULT_DAILY_TIME
from bot.core.timezones import likely_zones
from bot.core.voice import Heard
from bot.export import learner_csv
from bot.handlers.common import (
    BotContext,
    expired,
    seconds_of,
    send,
    send_document,
    send_photo,
    set_keyboard,
    transcribe,
)
from bot.i18n import Html
from bot.keyboards import (
    PACK_LINK_PREFIX,
    QUESTION_LINK_PREFIX,
    StillOpenTap,
    SwitchTap,
    feedback_keyboard,
    field_rows,
    mock_report_keyboard,
    next_keyboard,
    packs_keyboard,
    parse_mock_reference,
    parse_next,
    parse_practice,
    parse_rate,
    parse_still_open,
    parse_switch,
    question_keyboard,
    question_tag,
    rating_word,
    shared_still_open_keyboard,
    start_keyboard,
    start_zone_keyboard,
    still_open_keyboard,
    with_rating_chosen,
    with_rows_first,
)
from bot.render import (
    asked_messages,
    clock_time,
    feedback_messages,
    field_name,
    hint_message,
    level_name,
    level_up_line,
    no_packs_message,
    pack_list,
    plan_question_messages,
    prepend,
    start_field_line,
    stats_caption,
    stats_messages,
    still_open_messages,
    voice_note,
    with_heard,
    with_plan_line,
    with_reference,
)
from bot.render_mock import reference_messages, report_message, started_messages, turn_messages
from bot.services import Services, interview
from bot.services.interview import DayDone
from bot.services.schedules import ask_waiting_daily


async def start(update: Update, context: BotContext) -> None:
    turn = context.turn(update)
    if turn is None:
        return
    svc, user, chat, lang = turn
    payload = (context.args or [""])[0]
    shared = payload.startswith(QUESTION_LINK_PREFIX)
    pack_link = payload.startswith(PACK_LINK_PREFIX)
    # Someone who has practised before and follows a shared question (or a pack's link) gets
    # the question, not the welcome and its buttons again.
    if not ((shared or pack_link) and user.has_practised):
        # A link chose what to practise already: no field step then.
        await _welcome(update, context, user, chat.id, lang, fields_too=not (shared or pack_link))
    if shared:  # a shared question: open it right away
        question_id = payload.removeprefix(QUESTION_LINK_PREFIX)
        question = svc.library.offered_question(question_id)
        if question is None:  # gone, or in a draft pack (not asked, by a link either)
            draft = svc.library.question(question_id) is not None
            key = "shared_question_draft" if draft else "shared_question_gone"
            await send(context, chat.id, [svc.strings(lang, key)])
            return
        if await svc.mock.current(chat.id) is not None:  # held, as /quiz is
            await send(context, chat.id, [svc.strings(lang, "mock_quiz_held")])
            return
        opened = await svc.practice.open_shared(chat.id, user, question)
        if isinstance(opened, StillOpen):  # as /quiz does: the open one, with a choice
            messages = still_open_messages(svc.strings, lang, opened, shared=True)
            keyboard = shared_still_open_keyboard(
                svc.strings, lang, opened.question.id, question.id
            )
            await send(context, chat.id, messages, keyboard)
            return
        await send_asked(context, chat.id, lang, opened)

    if pack_link:
        await _open_pack(context, chat.id, user, lang, payload.removeprefix(PACK_LINK_PREFIX))


async def _welcome(
    update: Update,
    context: BotContext,
    user: UserProfile,
    chat_id: int,
    lang: str,
    *,
    fields_too: bool,
) -> None:
    """The welcome and its buttons. Someone who never said their time zone is asked it first
    (suggestions from their Telegram app's language, tappable): a daily time offered before
    that would be the bot's clock, not theirs (09:00 UTC is 17:00 in Beijing). With
    `fields_too`, the field step comes first (one tap among the packs' fields)."""
    svc = context.svc
    text = svc.strings(lang, "welcome", name=user.first_name or "👋")
    if user.timezone is None:
        code = update.effective_user.language_code if update.effective_user else None
        question = svc.strings(lang, "start_zone_question")
        zones = likely_zones(code)
        keyboard = start_zone_keyboard(svc.strings, lang, user.level, zones, context.bot.username)
        text = Html(f"{text}\n\n{question}")
        if fields_too:
            text, keyboard = _field_step(svc, lang, text, keyboard)
        await send(context, chat_id, [text], keyboard)
        return
    record = await svc.chats.find(chat_id)
    # The time the user chose before (/daily 8:30pm, then /daily off) is offered back.
    daily_time = clock_time(record.daily_time if record is not None else DEFAULT_DAILY_TIME)
    keyboard = start_keyboard(svc.strings, lang, user.level, daily_time, context.bot.username)
    if fields_too:
        text, keyboard = _field_step(svc, lang, text, keyboard)
    await send(context, chat_id, [text], keyboard)


def _field_step(
    svc: Services, lang: str, text: Html, keyboard: InlineKeyboardMarkup
) -> tuple[Html, InlineKeyboardMarkup]:
    """/start's step of the field: one tap among the packs' fields (or all), with the
    languages the questions are in said (an English speaker sees "Chinese" before
    choosing). Added to the welcome: its text, and its buttons first."""
    offered = fields(svc.library)
    if not offered:
        return text, keyboard
    named = [(f, field_name(svc.strings, lang, f)) for f in offered]
    line = start_field_line(svc.strings, lang, field_languages(svc.library, lang))
    rows = field_rows(svc.strings, lang, named)
    return Html(f"{text}\n\n{line}"), with_rows_first(rows, keyboard)


async def _open_pack(
    context: BotContext, chat_id: int, user: UserProfile, lang: str, pack_id: str
) -> None:
    """A pack's link: follow the pack and open its first question not answered yet (with a
    question open, that one is shown again with the choice /quiz gives)."""
    svc = context.svc
    if pack_id not in svc.library.offered:  # gone, or a draft (not asked, by a link either)
        await send(context, chat_id, [svc.strings(lang, "pack_link_gone")])
        return
    await svc.packs.follow(chat_id, pack_id)
    kept = await svc.practice.still_open(chat_id)
    asked = None
    if kept is None:
        question = await svc.practice.first_of(pack_id, user, lang)
        asked = await svc.practice.ask_question(chat_id, user, question, replacing=None)
        kept = await svc.practice.still_open(chat_id) if asked is None else None
    if kept is not None:
        messages = still_open_messages(svc.strings, lang, kept)
        keyboard = still_open_keyboard(svc.strings, lang, kept.question.id, None)
        await send(context, chat_id, messages, keyboard)
        return
    if asked is None:  # closed meanwhile by another message: as /quiz <pack> would do
        await ask(context, chat_id, user, lang, None, pack_id)
        return
    await send_asked(context, chat_id, lang, asked)


async def help_command(update: Update, context: BotContext) -> None:
    svc = context.svc
    if update.effective_chat:
        await send(context, update.effective_chat.id, [svc.strings(context.lang, "help")])


async def ask(
    context: BotContext,
    chat_id: int,
    user: UserProfile,
    lang: str,
    level: Level | None,
    pack: str | None = None,
) -> None:
    """Open a new question in a private chat and send it; with a question open, show that one
    again instead, with a choice: keep answering it, or skip it for a new one."""
    svc = context.svc
    asked = await svc.practice.ask_unless_open(chat_id, user, level, pack, lang)
    if isinstance(asked, NoPacks):  # nothing in the user's language: offered, not handed
        others = svc.packs.others(asked.others)
        text = no_packs_message(svc.strings, lang, others)
        buttons = [(p.id, p.title, False) for p in others]
        await send(context, chat_id, [text], packs_keyboard(svc.strings, lang, buttons))
        return
    if isinstance(asked, StillOpen):
        messages = still_open_messages(svc.strings, lang, asked)
        keyboard = still_open_keyboard(svc.strings, lang, asked.question.id, level)
        await send(context, chat_id, messages, keyboard)
        return
    if asked is None:
        chosen = level or user.level or Level.BEGINNER
        name = level_name(svc.strings, lang, chosen)
        await send(context, chat_id, [svc.strings(lang, "no_questions", level=name)])
        return
    await send_asked(context, chat_id, lang, asked)


async def send_asked(
    context: BotContext, chat_id: int, lang: str, asked: Asked, *, daily: bool = False
) -> None:
    """Send an opened question with its notes and buttons (`daily`: under the daily header)."""
    svc = context.svc
    header = [svc.strings(lang, "daily_header")] if daily else []
    messages = asked_messages(svc.strings, lang, asked, header)
    keyboard = question_keyboard(svc.strings, lang, asked.question.id, context.bot.username)
    await send(context, chat_id, messages, keyboard)


async def follow_with_daily(
    context: BotContext, chat_id: int, user: UserProfile, lang: str
) -> bool:
    """The daily question that waited for the question just closed, owed now (True), if one
    waits: the outbox sends it, once, after what this update sent."""
    return await ask_waiting_daily(context.svc, chat_id, user, lang, context.bot.username)


async def quiz(update: Update, context: BotContext) -> None:
    turn = context.turn(update)
    if turn is None:
        return
    svc, user, chat, lang = turn
    if await svc.mock.current(chat.id) is not None:
        # A new question would take the interview's answers: it waits for the report.
        await send(context, chat.id, [svc.strings(lang, "mock_quiz_held")])
        return
    words = pack_words(svc.library, lang)
    wanted = parse_quiz_args(context.args or [], words, svc.library.drafts)
    if (problem := wanted.problem) is not None:
        word = wanted.word
        packs = pack_list(svc.strings, lang, svc.library.offered)  # a draft pack is not asked
        first_pack = next(iter(svc.library.offered), "")
        if problem == "bad_level" and svc.library.offered:
            problem = "bad_level_or_pack"  # the word may have meant either: one answer for both
        text = svc.strings(lang, problem, word=word[:40], packs=packs, pack=first_pack)
        await send(context, chat.id, [text])
        return
    await ask(context, chat.id, user, lang, wanted.level, wanted.pack)


async def answer(update: Update, context: BotContext) -> None:
    """A text message (or a caption) in a private chat: an answer. What becomes of it is the
    service's to decide (`Practice.answer`); this renders the outcome."""
    message = update.effective_message
    if message is None or context.user is None:
        return
    # A photo or file with a caption: the caption is the answer (the picture is not read).
    text = message.text if message.text is not None else message.caption
    if text is None:
        return
    await _answer(update, context, message, text, captioned=message.text is None)


async def voice_answer(update: Update, context: BotContext) -> None:
    """A voice message or audio file in a private chat: transcribed, then answered exactly
    as the same text typed, with what was heard shown first. Refused before it is
    downloaded when voice answers are off or it is too long; a failed transcription is
    said, and the question stays open."""
    svc = context.svc
    message = update.effective_message
    if message is None or context.user is None:
        return
    recording = message.voice or message.audio
    if recording is None:
        return
    lang, chat_id = context.lang, message.chat_id
    # Nothing to answer: not sent off to be transcribed (told as a typed answer would be).
    # A mock interview's follow-up is something to answer, though no question is open.
    if (
        svc.voice.refusal(seconds_of(recording)) is None
        and _replied_bot_text(context, message) is None
        and await svc.practice.open_question(chat_id) is None
        and await svc.mock.current(chat_id) is None
    ):
        await send(context, chat_id, [svc.strings(lang, "no_open_question")])
        return
    heard = await transcribe(context, recording, lang)
    if isinstance(heard, Heard):
        await _answer(update, context, message, heard.text, captioned=False, heard=heard.text)
    else:
        on_mock = await svc.mock.current(chat_id) is not None
        is_open = await svc.practice.open_question(chat_id) is not None
        note = voice_note(svc.strings, lang, heard, mock=on_mock, open_=is_open)
        await send(context, chat_id, [note])


async def _answer(
    update: Update,
    context: BotContext,
    message: Message,
    text: str,
    *,
    captioned: bool,
    heard: str | None = None,
) -> None:
    """Answer the open question with `text`; `heard`: it was spoken, this is its transcript
    (shown above the reply)."""
    svc = context.svc
    user = context.user
    assert user is not None
    lang = context.lang
    chat_id = message.chat_id
    # With a mock interview running, the answer is its step's (bot/services/mock.py).
    outcome = await svc.mock.answer(
        chat_id,
        user,
        text,
        update.update_id,
        caption=captioned,
        replied_text=_replied_bot_text(context, message),
    )
    t = svc.strings
    if isinstance(outcome, MockTurn | MockRunning):
        await _send_mock_turn(context, chat_id, user, lang, outcome, heard)
        return
    if isinstance(outcome, MockStale):
        note = t(lang, "mock_stale", answered=outcome.answered, count=outcome.count)
        await send(context, chat_id, [note])
        outcome = outcome.outcome
    match outcome:
        case NotText():
            await send(context, chat_id, [t(lang, "not_text")])
        case NothingOpen():
            await send(context, chat_id, with_heard(t, lang, heard, [t(lang, "no_open_question")]))
        case TooShort():  # the question stays open and the day is not counted
            await send(context, chat_id, with_heard(t, lang, heard, [t(lang, "answer_too_short")]))
        case OneWord():
            await send(context, chat_id, with_heard(t, lang, heard, [t(lang, "answer_one_word")]))
        case ReplyToClosedQuestion(question=earlier, result=result, bare_list=bare):
            messages = feedback_messages(
                t,
                lang,
                result=result,
                reference=earlier.answer,
                hints=0,
                streak=None,
                bare_list=bare,
                rated=False,  # not recorded: nothing to rate
            )
            messages = prepend([t(lang, "answered_closed_question")], messages)
            messages = with_heard(t, lang, heard, messages)
            await send(context, chat_id, messages, reply_to=message.message_id)
        case Feedback() as feedback:
            await _send_feedback(context, chat_id, user, lang, feedback, message, captioned, heard)
            if not await follow_with_daily(context, chat_id, user, lang):
                await follow_with_plan(context, chat_id, user, lang)


async def follow_with_plan(
    context: BotContext, chat_id: int, user: UserProfile, lang: str, skipped: str | None = None
) -> bool:
    """With an interview date: the plan's next question of the day, now that the one before
    is answered or `skipped` (one at a time, never a burst), or the note that the day's
    plan is done. False when the plan has nothing to say."""
    svc = context.svc
    t = svc.strings
    nxt = await interview.after_answer(svc, chat_id, user, skipped)
    if isinstance(nxt, DayDone):
        plan = nxt.status.plan
        assert plan is not None
        # The last day before the interview: no "tomorrow's daily question", good luck.
        key = "plan_last_day_done" if nxt.status.days_left == 1 else "plan_day_done"
        text = t(lang, key, quota=nxt.quota, seen=plan.seen, total=plan.total)
        await send(context, chat_id, [text])
    elif nxt is not None:
        days_left = nxt.status.days_left
        messages = plan_question_messages(t, lang, nxt.asked, days_left, nxt.n, nxt.quota)
        keyboard = question_keyboard(t, lang, nxt.asked.question.id, context.bot.username)
        await send(context, chat_id, messages, keyboard)
    return nxt is not None


async def _send_feedback(
    context: BotContext,
    chat_id: int,
    user: UserProfile,
    lang: str,
    feedback: Feedback,
    message: Message,
    captioned: bool,
    heard: str | None = None,
) -> None:
    t = context.svc.strings
    messages = feedback_messages(
        t,
        lang,
        result=feedback.result,
        reference=feedback.question.answer,
        hints=feedback.hints,
        streak=feedback.streak,
        bare_list=feedback.bare_list,
    )
    if feedback.level_up is not None:
        current = user.level or Level.BEGINNER
        line = level_up_line(t, lang, current, feedback.level_up, feedback.level_average)
        messages = [*messages, line]
    if captioned:  # the picture itself is not read: say what was scored
        messages = prepend([t(lang, "caption_answer")], messages)
    messages = with_heard(t, lang, heard, messages)
    keyboard = feedback_keyboard(
        t, lang, feedback.question.level, feedback.answer_id, feedback.level_up
    )
    await send(context, chat_id, messages, keyboard, reply_to=message.message_id)


def _replied_bot_text(context: BotContext, message: Message) -> str | None:
    """The text of the bot's message this one replies to (a question it asked), if any."""
    replied = message.reply_to_message
    if replied is None or replied.from_user is None or replied.from_user.id != context.bot.id:
        return None
    return replied.text


async def hint(update: Update, context: BotContext) -> None:
    if (turn := context.turn(update)) is not None:
        await _hint(context, turn.chat.id, turn.lang)


async def _hint(context: BotContext, chat_id: int, lang: str) -> None:
    svc = context.svc
    if await svc.practice.open_question(chat_id) is None:
        # On a mock's follow-up no question is open: the follow-up names its one concept.
        on_mock = await svc.mock.current(chat_id) is not None
        key = "mock_follow_up_hint" if on_mock else "no_open_question"
        await send(context, chat_id, [svc.strings(lang, key)])
        return
    given = await svc.practice.hint(chat_id)
    if given is None:
        await send(context, chat_id, [svc.strings(lang, "no_more_hints")])
        return
    concept, count = given
    await send(context, chat_id, [hint_message(svc.strings, lang, concept, count)])


async def skip(update: Update, context: BotContext) -> None:
    if (turn := context.turn(update)) is None:
        return
    # A mock interview's step, if one runs.
    mocked = await context.svc.mock.skip(turn.chat.id, update.update_id)
    if mocked is not None:
        await _send_mock_turn(context, turn.chat.id, turn.user, turn.lang, mocked)
        return
    await _skip(context, turn.chat.id, turn.user, turn.lang)


async def _skip(
    context: BotContext,
    chat_id: int,
    user: UserProfile,
    lang: str,
    level: Level | None = None,
    question_id: str | None = None,
) -> None:
    """Close the open question (only if it is still `question_id`, when given) and ask the
    next: the daily question if it waited for this one, else one at `level` (or the closed
    question's)."""
    svc = context.svc
    closed = await svc.practice.close(chat_id, question_id)
    if closed is None:
        await _nothing_open(context, chat_id, user, lang)
        return
    await send(context, chat_id, [svc.strings(lang, "skipped")])
    if await follow_with_daily(context, chat_id, user, lang):
        return
    # With an interview date, the plan's next question (the skipped one comes back later).
    if not await follow_with_plan(context, chat_id, user, lang, skipped=closed.id):
        await ask(context, chat_id, user, lang, level or closed.level)


async def reveal(update: Update, context: BotContext) -> None:
    if (turn := context.turn(update)) is None:
        return
    if await context.svc.mock.current(turn.chat.id) is not None:
        # A mock interview holds the reference answers back until its report.
        await send(context, turn.chat.id, [context.svc.strings(turn.lang, "mock_reveal_held")])
        return
    await _reveal(context, turn.chat.id, turn.user, turn.lang)


async def _reveal(context: BotContext, chat_id: int, user: UserProfile, lang: str) -> None:
    svc = context.svc
    closed = await svc.practice.close(chat_id)
    if closed is None:
        await _nothing_open(context, chat_id, user, lang)
        return
    messages = with_reference(svc.strings(lang, "revealed"), closed.answer)
    await send(context, chat_id, messages, next_keyboard(svc.strings, lang, closed.level))
    await follow_with_daily(context, chat_id, user, lang)


async def _nothing_open(context: BotContext, chat_id: int, user: UserProfile, lang: str) -> None:
    """/skip or /reveal with no question open: the daily question, if one still waits (its
    question was closed by a /skip whose update stopped before it was owed: handled again
    now), else say nothing is open."""
    if not await follow_with_daily(context, chat_id, user, lang):
        await send(context, chat_id, [context.svc.strings(lang, "no_open_question")])


async def stats(update: Update, context: BotContext) -> None:
    """A picture (heat map and streaks, weekly trend, bank progress, weak spots) and the
    same in words; someone with no answers yet gets a welcome instead (nothing to draw)."""
    # Pillow is loaded by the first /stats, not at start-up: most updates never draw.
    from bot.picture import LevelBar, WeakBar, first_day, render_stats_picture

    turn = context.turn(update)
    if turn is None:
        return
    svc, user, chat, lang = turn
    t = svc.strings
    p = await svc.practice.progress(user, since=first_day, lang=lang)
    if p.summary.answers == 0:
        await send(context, chat.id, [t(lang, "stats_welcome")])
        return
    # ~60 ms of drawing: off the event loop, so other chats are not held up.
    picture = await asyncio.to_thread(
        render_stats_picture,
        strings=t,
        lang=lang,
        fonts=svc.settings.content_dir / "fonts",
        today=p.today,
        per_day=p.per_day,
        current=p.streak.current,
        best=p.streak.best,
        weeks=[week.average for week in p.weeks],
        levels=[LevelBar(level_name(t, lang, b.level), b.answered, b.total) for b in p.bank],
        weak=[WeakBar(spot.label, spot.missed) for spot in p.weak_spots],
    )
    await send_photo(context, chat.id, picture, stats_caption(t, lang, p))
    plan = await interview.status(svc, user)
    line = None
    if plan is not None and plan.plan is not None:  # an interview date to come: its progress
        seen, total = plan.plan.seen, plan.plan.total
        line = t(lang, "stats_plan", seen=seen, total=total, days=plan.days_left)
    await send(context, chat.id, with_plan_line(stats_messages(t, lang, p), line))


async def practice_button(update: Update, context: BotContext) -> None:
    """Buttons under questions and feedback: hint, show answer, skip, next."""
    query = update.callback_query
    user = context.user
    if query is None or user is None or query.message is None:
        return
    chat_id = query.message.chat.id
    lang = context.lang
    if (level := parse_next(query.data)) is not None:
        # Next sits under a closed question (feedback, a reveal). With a question open since
        # (the first of a double tap, /quiz, the daily one), it would replace that: it waits.
        if await _open_id(context, chat_id) is not None:
            await query.answer(context.svc.strings(lang, "next_already_open"))
            return
        if await context.svc.mock.current(chat_id) is not None:  # on a mock's follow-up
            await query.answer(context.svc.strings(lang, "mock_quiz_held"))
            return
        await query.answer()
        await ask(context, chat_id, user, lang, level)
        return
    if (kept := parse_still_open(query.data)) is not None:
        await _still_open_button(context, query, chat_id, user, lang, kept)
        return
    if (switch := parse_switch(query.data)) is not None:
        await _switch_button(context, query, chat_id, user, lang, switch)
        return
    tap = parse_practice(query.data)
    if tap is None:
        await expired(context, query)
        return
    action = tap.action
    if not await _still_open(context, query, chat_id, tap.question_id):
        return
    if action == "show" and await context.svc.mock.current(chat_id) is not None:
        # A button from before the interview, on the question it asks now: held, as /reveal.
        await query.answer(context.svc.strings(lang, "mock_reveal_held"))
        return
    await query.answer()
    if action == "hint":
        await _hint(context, chat_id, lang)
    elif action == "show":
        await _reveal(context, chat_id, user, lang)
    elif action == "skip":
        # A button from before the interview, on the question it asks now: as /skip.
        mocked = await context.svc.mock.skip(chat_id, update.update_id)
        if mocked is not None:
            await _send_mock_turn(context, chat_id, user, lang, mocked)
            return
        await _skip(context, chat_id, user, lang)


async def _still_open_button(
    context: BotContext,
    query: CallbackQuery,
    chat_id: int,
    user: UserProfile,
    lang: str,
    tap: StillOpenTap,
) -> None:
    """Under an open question shown again: keep answering it (its usual buttons come back),
    or skip it for a new question."""
    if not await _still_open(context, query, chat_id, tap.question_id):
        return
    svc = context.svc
    if not tap.renew:
        await query.answer(svc.strings(lang, "keep_answering"))
        keyboard = question_keyboard(svc.strings, lang, tap.question_id, context.bot.username)
        await set_keyboard(context, query, keyboard)
        return
    await query.answer()
    await set_keyboard(context, query, None)
    await _skip(context, chat_id, user, lang, tap.level, tap.question_id)


async def _switch_button(
    context: BotContext,
    query: CallbackQuery,
    chat_id: int,
    user: UserProfile,
    lang: str,
    tap: SwitchTap,
) -> None:
    """Under an open question shown again for a shared link: close it and open the shared
    one, only if it is still the open question."""
    svc = context.svc
    if await svc.mock.current(chat_id) is not None:  # a button shown before the interview
        await query.answer(svc.strings(lang, "mock_quiz_held"))
        return
    open_id = await _open_id(context, chat_id)
    if open_id is None or question_tag(open_id) != tap.open_tag:
        await query.answer(svc.strings(lang, "button_question_closed"))
        await set_keyboard(context, query, None)
        return
    question = svc.library.offered_question(tap.question_id)
    if question is None:  # removed or made a draft since the link was followed
        await query.answer()
        await send(context, chat_id, [svc.strings(lang, "shared_question_gone")])
        return
    asked = await svc.practice.ask_question(chat_id, user, question, replacing=open_id)
    if asked is None:  # another question opened a moment ago: that one stays
        await query.answer(svc.strings(lang, "button_question_closed"))
        await set_keyboard(context, query, None)
        return
    await query.answer()
    await set_keyboard(context, query, None)
    await send_asked(context, chat_id, lang, asked)


async def _still_open(
    context: BotContext, query: CallbackQuery, chat_id: int, question_id: str
) -> bool:
    if await _open_id(context, chat_id) != question_id:
        # A button under an old question (answered, skipped, replaced): do nothing to the
        # current one, say so, and take the stale buttons away.
        await query.answer(context.svc.strings(context.lang, "button_question_closed"))
        await set_keyboard(context, query, None)
        return False
    return True


async def _open_id(context: BotContext, chat_id: int) -> str | None:
    """The id of the chat's open question, if any."""
    return await context.svc.practice.open_question_id(chat_id)


async def not_text(update: Update, context: BotContext) -> None:
    """Stickers, photos, files…: explain that answers are text (during a mock interview,
    to its question: /quiz waits for the report; with a question open, to that one: /quiz
    would only show it again)."""
    svc = context.svc
    if update.effective_chat:
        chat_id = update.effective_chat.id
        if await svc.mock.current(chat_id) is not None:
            key = "mock_not_text"
        elif await _open_id(context, chat_id) is not None:
            key = "open_not_text"
        else:
            key = "not_text"
        await send(context, chat_id, [svc.strings(context.lang, key)])


async def edited(update: Update, context: BotContext) -> None:
    """An edited message is not re-scored, nor an edited command run again; say so once,
    quietly."""
    svc = context.svc
    message = update.edited_message
    if message is None:
        return
    is_command = bool(message.text and message.text.startswith("/"))
    if is_command:
        key = "edited_command"
    else:
        # What a new message would do now: answer the open question, or nothing without one.
        is_open = await svc.practice.open_question(message.chat_id) is not None
        key = "edited" if is_open else "edited_nothing_open"
    await send(
        context, message.chat_id, [svc.strings(context.lang, key)], reply_to=message.message_id
    )


async def unknown_command(update: Update, context: BotContext) -> None:
    """A command no private handler took: for another bot, for groups only, or unknown."""
    svc = context.svc
    chat, message = update.effective_chat, update.effective_message
    if chat is None:
        return
    lang = context.lang
    command, _, addressee = _command_of(message).partition("@")
    mine = context.bot.username or ""
    if addressee and addressee.lower() != mine.lower():
        # Typed or copied for another bot (a group's habit): not run, and not called unknown.
        text = svc.strings(lang, "other_bot_command", bot=addressee[:40])
    elif command.lower() in GROUP_ONLY:
        text = svc.strings(lang, "group_only_command", command=command.lower())
    else:
        text = svc.strings(lang, "unknown_command")
    await send(context, chat.id, [text])


def _command_of(message: Message | None) -> str:
    """`quiz@otherbot` of a message starting with /quiz@otherbot; "" if it does not."""
    if message is None or not message.text or not message.entities:
        return ""
    first = message.entities[0]
    if first.type != MessageEntity.BOT_COMMAND or first.offset != 0:
        return ""
    return message.text[1 : first.length]


async def rate_button(update: Update, context: BotContext) -> None:
    """One tap overrules the automatic rating of an answer; the next review moves with it."""
    query = update.callback_query
    svc = context.svc
    user = context.user
    if query is None or user is None:
        return
    lang = context.lang
    tap = parse_rate(query.data)
    if tap is None or not await svc.practice.is_own_answer(user.user_id, tap.answer_id):
        await expired(context, query)  # not data the bot made, or not this user's answer
        return
    state = await svc.practice.overrule(user.user_id, tap.answer_id, tap.choice)
    if state is None:
        await query.answer(svc.strings(lang, "rate_stale"))
        return
    zone = svc.practice.zone(user)
    when = state.due.astimezone(zone).strftime("%Y-%m-%d")
    rating = rating_word(svc.strings, lang, tap.choice)
    await query.answer(svc.strings(lang, "rated", rating=rating, when=when))
    # The buttons stay, the one tapped marked ✓: what was chosen shows, and can be changed.
    message = query.message
    markup = message.reply_markup if isinstance(message, Message) else None
    if markup is not None:
        await set_keyboard(context, query, with_rating_chosen(svc.strings, lang, markup, tap))


async def export(update: Update, context: BotContext) -> None:
    """The user's answer history as a CSV document, in their language and time zone."""
    turn = context.turn(update)
    if turn is None:
        return
    svc, user, chat, lang = turn
    rows = await svc.practice.history(user.user_id)
    if not rows:
        await send(context, chat.id, [svc.strings(lang, "export_empty")])
        return
    text = learner_csv(
        rows, library=svc.library, strings=svc.strings, lang=lang, zone=svc.practice.zone(user)
    )
    data = text.encode("utf-8-sig")  # BOM: spreadsheets read the Chinese right
    caption = svc.strings(lang, "export_caption", count=len(rows))
    await send_document(context, chat.id, data, "interview-answers.csv", caption)


async def stale_button(update: Update, context: BotContext) -> None:
    """A button whose data no handler knows (an older version's): say so, stop the spinner."""
    query = update.callback_query
    if query is not None:
        await expired(context, query)


# -- mock interviews (/mock) -----------------------------------------------------------------


async def mock(update: Update, context: BotContext) -> None:
    """/mock [count] [level] [pack] [limit], or /mock stop."""
    if (turn := context.turn(update)) is not None:
        await _mock(context, turn.chat.id, turn.user, turn.lang, context.args or [])


async def mock_link(update: Update, context: BotContext) -> None:
    """/start mock (the button under /mock in a group): a mock interview as /mock starts it."""
    if (turn := context.turn(update)) is not None:
        await _mock(context, turn.chat.id, turn.user, turn.lang, [])


async def _mock(
    context: BotContext, chat_id: int, user: UserProfile, lang: str, args: list[str]
) -> None:
    svc = context.svc
    t = svc.strings
    wanted = parse_mock_args(args, pack_words(svc.library, lang), svc.library.drafts)
    if (problem := wanted.problem) is not None:
        packs = pack_list(t, lang, svc.library.offered)
        await send(context, chat_id, [t(lang, problem, word=wanted.word[:40], packs=packs)])
        return
    if wanted.stop:
        ended = await svc.mock.stop(chat_id)
        if ended is None:
            await send(context, chat_id, [t(lang, "mock_not_running")])
            return
        await _send_mock_report(context, chat_id, user, lang, ended)
        return
    started = await svc.mock.start(chat_id, user, wanted, lang)
    match started:
        case NoPacks(others=others):
            shown = svc.packs.others(others)
            text = no_packs_message(t, lang, shown)
            buttons = [(p.id, p.title, False) for p in shown]
            await send(context, chat_id, [text], packs_keyboard(t, lang, buttons))
        case NoMockQuestions(level=level):
            text = t(lang, "mock_no_questions", level=level_name(t, lang, level))
            await send(context, chat_id, [text])
        case MockRunning(step=step):
            await send(context, chat_id, started_messages(t, lang, step, running=True))
        case MockStep() as step:
            messages = started_messages(t, lang, step, running=False, asked=wanted.count)
            await send(context, chat_id, messages)


async def _send_mock_turn(
    context: BotContext,
    chat_id: int,
    user: UserProfile,
    lang: str,
    turn: MockTurn | MockRunning,
    heard: str | None = None,
) -> None:
    """An answer's short score and the next step; after the last, the report. (A step
    handled before a crash: the step the session is on, shown again.) `heard`: the answer
    was spoken, this is its transcript (shown first)."""
    t = context.svc.strings
    if isinstance(turn, MockRunning):
        running = started_messages(t, lang, turn.step, running=True)
        await send(context, chat_id, with_heard(t, lang, heard, running))
        return
    await send(context, chat_id, with_heard(t, lang, heard, turn_messages(t, lang, turn)))
    if turn.ended is not None:
        await _send_mock_report(context, chat_id, user, lang, turn.ended)


async def _send_mock_report(
    context: BotContext, chat_id: int, user: UserProfile, lang: str, ended: MockEnded
) -> None:
    """The report with a button per question (its reference answer), its card (a PNG),
    then the daily question if it waited for the interview to end, else the plan's next
    (the one the interview closed, if it did), as after an answer."""
    from bot.picture import render_mock_card  # Pillow: loaded by the first picture

    svc = context.svc
    t = svc.strings
    numbers = [row.position + 1 for row in ended.report.rows]
    keyboard = mock_report_keyboard(t, lang, ended.session_id, numbers)
    await send(context, chat_id, [report_message(t, lang, ended)], keyboard)
    if ended.report.rows:
        # Drawn off the event loop, as /stats' picture is: other chats are not held up.
        card = await asyncio.to_thread(
            render_mock_card,
            strings=t,
            lang=lang,
            fonts=svc.settings.content_dir / "fonts",
            report=ended.report,
            day=svc.practice.today(user).date(),
        )
        await send_photo(context, chat_id, card, t(lang, "mock_card_caption"))
    if not await follow_with_daily(context, chat_id, user, lang):
        await follow_with_plan(context, chat_id, user, lang)


async def mock_reference_button(update: Update, context: BotContext) -> None:
    """A report's button: that question's reference answer."""
    query = update.callback_query
    user = context.user
    if query is None or user is None or query.message is None:
        return
    tap = parse_mock_reference(query.data)
    svc = context.svc
    question = None
    if tap is not None:
        question = await svc.mock.reference(user.user_id, tap.session_id, tap.number - 1)
    if tap is None or question is None:
        await expired(context, query)
        return
    await query.answer()
    t, lang = svc.strings, context.lang
    messages = reference_messages(t, lang, tap.number, question.question, question.answer)
    await send(context, query.message.chat.id, messages)
