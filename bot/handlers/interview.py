"""/interview: the user's interview date (set, shown, cleared), the same in a group (it is
personal: pointed to the private chat), the button that starts today's plan now, and the one
tap after the date (how it went)."""

from __future__ import annotations

from telegram import Update

from bot.core.interview import Problem, parse_interview
from bot.core.schedule import DailyCommand
from bot.core.streaks import local_day
from bot.core.timezones import zone_label, zone_of
from bot.handlers.common import BotContext, edit_text, expired, send
from bot.i18n import Html
from bot.keyboards import (
    PLAN_START,
    chat_link_keyboard,
    parse_went,
    plan_start_keyboard,
    question_keyboard,
)
from bot.render import clock_time, day_text, plan_question_messages
from bot.services import interview
from bot.services.interview import DayDone, MockOn, Planned, PlanStatus
from bot.services.schedules import set_daily

_PROBLEMS = {
    Problem.NONSENSE: "interview_bad_nonsense",
    Problem.PAST: "interview_bad_past",
    Problem.TODAY: "interview_bad_today",
    Problem.TOO_FAR: "interview_bad_too_far",
}


async def interview_command(update: Update, context: BotContext) -> None:
    """`/interview 2026-12-20` (12/20, 12月20日) sets the date, `off` clears it, alone it
    shows the plan or how to set one. Read in the user's zone."""
    turn = context.turn(update)
    if turn is None:
        return
    svc, user, chat, lang = turn
    t = svc.strings
    today = local_day(svc.practice.clock(), svc.practice.zone(user))
    command = parse_interview(list(context.args or []), today)
    if command.problem is not None:
        shown = day_text(command.day, lang) if command.day is not None else ""
        text = t(lang, _PROBLEMS[command.problem], value=command.bad_value[:40], date=shown)
        await send(context, chat.id, [text])
        return
    if command.off:
        cleared = await interview.clear_date(svc, user)
        await send(
            context, chat.id, [t(lang, "interview_off" if cleared else "interview_off_none")]
        )
        return
    if command.day is None:  # alone: how things stand
        await send(context, chat.id, [await _shown(context, lang)])
        return
    status = await interview.set_date(svc, user, command.day)
    lines = [_set_text(context, lang, status)]
    record = await svc.chats.record(chat.id, chat.type, chat.first_name or "")
    if not record.daily_enabled:  # the plan rides on the daily question: it is turned on
        record = await set_daily(svc, record, DailyCommand(enabled=True))
        zone = zone_of(svc.settings.default_timezone, record, user)
        lines.append(
            t(lang, "interview_daily_on", time=clock_time(record.daily_time), zone=zone_label(zone))
        )
    # Today's plan can start now, not only with the next daily question.
    plan = status.plan
    keyboard = plan_start_keyboard(t, lang) if plan and plan.quota and plan.total else None
    await send(context, chat.id, [Html("\n".join(lines))], keyboard)


def _set_text(context: BotContext, lang: str, status: PlanStatus) -> Html:
    plan = status.plan
    assert plan is not None  # a date to come: parse_interview refused the others
    t = context.svc.strings
    if plan.total == 0:  # no pack to plan with: say how to follow some
        today = t(lang, "interview_no_packs")
    elif plan.quota:
        today = t(lang, "plan_today", quota=plan.quota)
    else:  # no daily question today (a weekend, on weekdays only)
        today = t(lang, "plan_today_none")
    return t(
        lang,
        "interview_set",
        date=day_text(status.day, lang),
        days=status.days_left,
        total=plan.total,
        seen=plan.seen,
        today=today,
    )


async def _shown(context: BotContext, lang: str) -> Html:
    """What `/interview` alone shows: the plan, the day itself, a past date, or how to set one."""
    svc = context.svc
    user = context.user
    assert user is not None
    t = svc.strings
    status = await interview.status(svc, user)
    if status is None:
        day = await interview.the_date(svc, user)
        if day is None:
            return t(lang, "interview_none")
        return t(lang, "interview_past", date=day_text(day, lang))
    if status.plan is None:
        return t(lang, "interview_today", date=day_text(status.day, lang))
    plan = status.plan
    text = t(
        lang,
        "interview_status",
        date=day_text(status.day, lang),
        days=status.days_left,
        seen=plan.seen,
        total=plan.total,
        owed=plan.owed,
        quota=plan.quota,
        done=status.done_today,
    )
    if not status.daily_on:  # the plan waits for the daily question: say how to resume
        text = Html(f"{text}\n{t(lang, 'interview_daily_off')}")
    return text


async def group_interview(update: Update, context: BotContext) -> None:
    """/interview in a group: the date is personal, set in the private chat (a button there)."""
    chat, message = update.effective_chat, update.effective_message
    if chat is None or message is None:
        return
    svc = context.svc
    lang = context.lang
    username = context.bot.username or ""
    text = svc.strings(lang, "interview_personal", bot=username)
    keyboard = chat_link_keyboard(svc.strings, lang, username) if username else None
    await send(context, chat.id, [text], keyboard, reply_to=message.message_id)


async def plan_button(update: Update, context: BotContext) -> None:
    """ "Start today's plan": the plan's next question now (with one open, that one first)."""
    query = update.callback_query
    turn = context.turn(update)
    if query is None or turn is None:
        return
    if query.data != PLAN_START:  # only the data the bot makes starts anything
        await expired(context, query)
        return
    svc, user, chat, lang = turn
    t = svc.strings
    nxt = await interview.start_now(svc, chat.id, user)
    if isinstance(nxt, Planned):
        await query.answer()
        days_left = nxt.status.days_left
        messages = plan_question_messages(t, lang, nxt.asked, days_left, nxt.n, nxt.quota)
        keyboard = question_keyboard(t, lang, nxt.asked.question.id, context.bot.username)
        await send(context, chat.id, messages, keyboard)
    elif isinstance(nxt, DayDone):
        await query.answer(t(lang, "plan_start_done"))
    elif isinstance(nxt, MockOn):  # as the Next button says during an interview
        await query.answer(t(lang, "mock_quiz_held"))
    elif await svc.practice.open_question_id(chat.id) is not None:
        await query.answer(t(lang, "next_already_open"))
    else:  # no plan today (cleared since, or the date has come)
        await query.answer(t(lang, "plan_start_none"))


async def went_button(update: Update, context: BotContext) -> None:
    """The one tap after the date: how it went, noted; the question is replaced by the thanks."""
    query = update.callback_query
    user = context.user
    if query is None or user is None:
        return
    tap = parse_went(query.data)
    if tap is None or not await interview.record_how_it_went(
        context.svc, user, tap.day, tap.outcome
    ):
        await expired(context, query)
        return
    await query.answer()
    await edit_text(context, query, context.svc.strings(context.lang, f"how_it_went_{tap.outcome}"))
