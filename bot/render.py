"""Message rendering: HTML escaping, score bars, and splitting to Telegram's limits.

Everything user- or content-supplied is escaped at the point it enters markup. Long texts
are split on paragraph, line and word boundaries before escaping, and each piece is wrapped
on its own, so no message ever cuts a tag or an entity in half.
"""

from __future__ import annotations

import html
import unicodedata
from collections.abc import Sequence
from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING, NamedTuple
from zoneinfo import ZoneInfo

from bot.core.content import Concept, Pack, Question, base_language
from bot.core.hints import cue_of, topic
from bot.core.levels import LEVEL_ORDER, Level
from bot.core.models import LeaderboardRow, RoundAnswer, RoundRecord
from bot.core.rounds import MemberResult, points, rank
from bot.core.streaks import StreakState, visible_streak
from bot.core.timezones import ambiguous_timezone, suggest_timezones, zone_label
from bot.core.voice import NotEnabled, TooLong, Unfetched, VoiceOutcome
from bot.i18n import LANGUAGES, Html, Strings

if TYPE_CHECKING:
    from bot.core.practice import Asked, Progress, StillOpen
    from bot.core.progress import Trend
    from bot.core.scoring import ConceptHit, ScoreResult

MESSAGE_LIMIT = 4096  # Telegram: characters per message (we count UTF-16 units of the HTML)
EXCERPT_CHARS = 40
MEDALS = ("🥇", "🥈", "🥉")


def clock_time(at: time) -> str:
    """A wall-clock time as people write it: 08:30."""
    return at.strftime("%H:%M")


def esc(text: str) -> Html:
    return Html(html.escape(text, quote=False))


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def bar(fraction: float, width: int = 10) -> str:
    """A bar of `width` cells: full only at 100%, empty only at 0% as shown (95% is not
    100%, and 0.3% is shown as 0% with an empty bar)."""
    share = max(0.0, min(1.0, fraction))
    filled = int(share * width)  # floor: a cell is drawn once it is complete
    if percent(share) > 0 and filled == 0:
        filled = 1
    if share < 1 and filled == width:
        filled = width - 1
    return "▓" * filled + "░" * (width - filled)


def percent(fraction: float) -> int:
    return round(max(0.0, min(1.0, fraction)) * 100)


def time_left(t: Strings, lang: str | None, left: timedelta) -> str:
    """A wait as people say it: "10 min", "2 h", "1 h 30 min" (to the nearest minute)."""
    minutes = max(1, round(left.total_seconds() / 60))
    hours, minutes = divmod(minutes, 60)
    if not hours:
        return t(lang, "duration_minutes", minutes=minutes)
    if not minutes:
        return t(lang, "duration_hours", hours=hours)
    return t(lang, "duration_hours_minutes", hours=hours, minutes=minutes)


def round_deadline(
    t: Strings,
    lang: str,
    now: datetime,
    closing: datetime,
    chat_zone: str | None,
    zone: str,
) -> Html:
    """When the round closes, in words a member understands (`zone`: the one it is read in).

    With the group's own zone: its clock time, then the time left. Without one, the clock
    time is in the bot's default zone (UTC), which most members do not live in: the time
    left comes first, the clock time is named as UTC, and admins are told how to fix it.
    """
    values = {
        "time": clock_time(closing.astimezone(ZoneInfo(zone)).time()),
        "zone": zone_label(zone),
        "left": time_left(t, lang, closing - now),
    }
    if chat_zone:
        return t(lang, "round_closes_at", **values)
    hint = t(lang, "group_zone_hint", zone=values["zone"])
    return Html(f"{t(lang, 'round_closes_in', **values)}\n{hint}")


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def excerpt_words(text: str, limit: int) -> str:
    """`excerpt`, cut at a word's end (“…for both…”, not “…for both si…”); Chinese or
    Japanese text may be cut at any character, as it has no spaces between words."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    head, after = flat[: limit - 1], flat[limit - 1]
    if _in_word(head[-1]) and _in_word(after):
        at = head.rfind(" ")
        if at > limit // 2:  # one very long word is cut where it must be
            head = head[:at]
    return head.rstrip(" ,;:") + "…"


def _in_word(ch: str) -> bool:
    """A letter or digit of a spaced script: cutting between two of them splits a word."""
    return ch.isalnum() and unicodedata.east_asian_width(ch) not in ("W", "F")


def _cut(text: str, budget: int) -> tuple[str, str]:
    """Cut `text` so the escaped head fits `budget` UTF-16 units; prefer line, then space."""
    lo, hi = 1, len(text)
    while lo < hi:  # longest prefix whose escaped form fits
        mid = (lo + hi + 1) // 2
        if utf16_len(html.escape(text[:mid], quote=False)) <= budget:
            lo = mid
        else:
            hi = mid - 1
    head = text[:lo]
    for sep in ("\n\n", "\n", "。", ". ", " "):
        at = head.rfind(sep)
        if at > lo // 2:
            return text[: at + len(sep)], text[at + len(sep) :]
    return head, text[lo:]


def split_plain(text: str, budget: int) -> list[str]:
    """Split plain text into pieces whose escaped forms each fit `budget` UTF-16 units."""
    pieces: list[str] = []
    rest = text.strip()
    while rest:
        if utf16_len(html.escape(rest, quote=False)) <= budget:
            pieces.append(rest)
            break
        head, rest = _cut(rest, budget)
        pieces.append(head.strip())
        rest = rest.strip()
    return [p for p in pieces if p]


def pack_messages(
    head: str, body: str, *, limit: int = MESSAGE_LIMIT, wrap: tuple[str, str] = ("", "")
) -> list[Html]:
    """`head` (HTML) then `body` (plain text, escaped and wrapped), in as few messages as fit."""
    opening, closing = wrap
    overhead = utf16_len(opening) + utf16_len(closing)
    messages: list[str] = []
    current = head
    for piece in split_plain(body, limit - overhead - 1):
        block = f"{opening}{esc(piece)}{closing}"
        joined = f"{current}\n{block}" if current else block
        if utf16_len(joined) <= limit:
            current = joined
        else:
            messages.append(current)
            current = block
    if current:
        messages.append(current)
    return [Html(m) for m in messages]


def language_name(t: Strings, lang: str, code: str) -> str:
    """A pack's language (`zh-Hans`) named in `lang`; the code itself if it has no name."""
    base = code.split("-")[0].lower()
    return t(lang, f"language_{base}") if base in LANGUAGES else code


def pack_list(t: Strings, lang: str, packs: dict[str, Pack]) -> Html:
    """The packs asked, each with its language, those in `lang` first as /packs lists them:
    "basics (English), triton (Chinese)"."""
    # Each item is escaped HTML already, and so is the separator.
    ordered = sorted(packs.items(), key=lambda item: base_language(item[1].language) != lang)
    return Html(
        t(lang, "list_separator").join(
            t(lang, "pack_with_language", pack=pid, language=language_name(t, lang, p.language))
            for pid, p in ordered
        )
    )


def asked_notes(
    t: Strings, lang: str, *, level: Level, pack_language: str, level_done: bool
) -> list[Html]:
    """What to know about a question just asked (by /quiz or the daily prompt alike): that
    its bank is in another language than `lang`; that every question at its level was
    answered (`level_done`, said once)."""
    notes: list[Html] = []
    if pack_language and pack_language.split("-")[0].lower() != lang:
        notes.append(t(lang, "bank_language", language=language_name(t, lang, pack_language)))
    if level_done:
        name = level_name(t, lang, level)
        following = LEVEL_ORDER.index(level) + 1
        if following < len(LEVEL_ORDER):
            up = LEVEL_ORDER[following]
            notes.append(
                t(lang, "level_done", level=name, next=level_name(t, lang, up), command=up.value)
            )
        else:
            notes.append(t(lang, "level_done_top", level=name))
    return notes


def with_notes(messages: list[Html], notes: Sequence[Html]) -> list[Html]:
    """`notes` added to the question's last message, if it stays within one message."""
    if not notes:
        return messages
    joined = Html("\n\n".join([messages[-1], *notes]))
    return [*messages[:-1], joined] if utf16_len(joined) <= MESSAGE_LIMIT else messages


def level_name(t: Strings, lang: str | None, level: Level) -> str:
    return t(lang, f"level_{level.value}")


def question_message(
    t: Strings, lang: str | None, *, level: Level, pack_title: str, question: str
) -> list[Html]:
    head = t(lang, "question", level=level_name(t, lang, level), pack=pack_title, question=question)
    if utf16_len(head) <= MESSAGE_LIMIT:
        return [head]
    # A pathological pack text: send the question on its own, split.
    return pack_messages("", question)


TOP_MISSES = 3  # concepts named per line of feedback; the rest are counted ("+2 more")
ITEM_SEPARATOR = " · "


def score_summary(
    t: Strings,
    lang: str | None,
    *,
    result: ScoreResult,
    hints: int = 0,
    streak: StreakState | None = None,
    bare_list: bool = False,
) -> str:
    """The score, then what to work on, a line each, short enough for a phone: the misses
    (the heaviest three named), what was said wrongly, what was only partly there, what was
    covered; hints used; the streak.

    `bare_list`: the answer only names terms, so a concept read as said of its neighbour in
    the list is a plain miss, never "mixed up with" it.
    """
    from bot.core.scoring import Status  # loaded by then: the result came from the scorer

    lines: list[str] = [
        t(lang, "score_title", percent=percent(result.score), bar=bar(result.score))
    ]
    wrong = [
        hit for hit in result.contradicted if not (bare_list and hit.status is Status.MISATTRIBUTED)
    ]
    said_wrong = {hit.label for hit in wrong}
    missed = sorted(
        (c for c in result.missed if c.label not in said_wrong), key=lambda c: -c.weight
    )
    if missed:
        lines.append(t(lang, "missed_line", items=_named(t, lang, [c.label for c in missed])))
    if wrong:
        items = [_wrong_item(t, lang, hit) for hit in wrong]
        lines.append(t(lang, "wrong_line", items=_named(t, lang, items, escaped=True)))
    partly = [hit for hit in result.covered if hit.credit < 1]
    if partly:
        lines.append(_partly_line(t, lang, partly))
    full = [hit.label for hit in result.covered if hit.credit >= 1]
    if full:
        lines.append(t(lang, "covered_line", items=_named(t, lang, full)))
    if not result.missed and not partly:
        # Only full credit for every concept is "all covered": one listed or partly stated
        # concept is still ◐ above, and the score says so.
        lines.append(t(lang, "all_covered"))
    if hints:
        lines.append(t(lang, "hints_used", count=hints))
    if streak is not None:
        lines.append(t(lang, "streak_line", current=streak.current, best=streak.best))
    return "\n".join(lines)


def _named(t: Strings, lang: str | None, items: Sequence[str], *, escaped: bool = False) -> Html:
    """The first `TOP_MISSES` items, then how many more: "a · b · c · +2 more"."""
    shown = [item if escaped else esc(item) for item in items[:TOP_MISSES]]
    if len(items) > TOP_MISSES:
        shown.append(t(lang, "more_items", count=len(items) - TOP_MISSES))
    return Html(ITEM_SEPARATOR.join(shown))


def _wrong_item(t: Strings, lang: str | None, hit: ConceptHit) -> str:
    """A concept said wrongly, why, and where: "x — said the opposite (“…”)"."""
    note = Html(hit_note(t, lang, hit))
    return t(lang, "wrong_item", label=hit.label, note=note, quote=excerpt(hit.quote or hit.text))


def _partly_line(t: Strings, lang: str | None, hits: list[ConceptHit]) -> str:
    """◐ items under their own heading: one note for all when they share it."""
    notes = [hit_note(t, lang, hit) for hit in hits]
    labels = [hit.label for hit in hits]
    if len(set(notes)) == 1:
        return t(lang, "partly_line_one_note", note=Html(notes[0]), items=_named(t, lang, labels))
    items = [
        t(lang, "partly_item", label=label, note=Html(note))
        for label, note in zip(labels, notes, strict=True)
    ]
    return t(lang, "partly_line", items=_named(t, lang, items, escaped=True))


def hint_message(t: Strings, lang: str | None, concept: Concept, count: int) -> Html:
    """A hint that nudges: how the concept's name begins and its topic, not the concept. What
    hints cost is said with the first one only."""
    about = topic(concept)
    key = "hint_topic" if about else "hint"
    text = t(lang, key, count=count, cue=cue_of(concept), topic=about)
    return Html(f"{text}\n{t(lang, 'hint_cost')}") if count == 1 else text


def hit_note(t: Strings, lang: str | None, hit: ConceptHit) -> str:
    """Why a named concept earned less than full credit ("" when it earned it all)."""
    from bot.core.scoring import Status  # loaded by then: the hit came from the scorer

    if hit.status is Status.NEGATED:
        return t(lang, "hit_negated")
    if hit.status is Status.MISATTRIBUTED:
        return t(lang, "hit_misattributed", other=html.escape(hit.said_of, quote=False))
    if hit.status is Status.LISTED:
        return t(lang, "hit_listed")
    if hit.credit < 1:
        return t(lang, "hit_partly")
    return ""


def asked_messages(
    strings: Strings, lang: str, asked: Asked, header: Sequence[Html] = ()
) -> list[Html]:
    """A question as it is asked (by /quiz, or the daily prompt with its `header`): the
    question, "this replaces your open question" if it does, and its notes."""
    q = asked.question
    messages = question_message(
        strings, lang, level=q.level, pack_title=asked.pack_title, question=q.question
    )
    lines = list(header)
    if asked.closed is not None:  # the question left open is closed by this one: name it
        old = excerpt(asked.closed.question, 60)
        lines.append(strings(lang, "question_replaces_named", question=old))
    elif asked.replaced:  # the open question it replaces is closed: say so
        lines.append(strings(lang, "question_replaces"))
    if lines:
        messages = prepend(lines, messages)
    notes = asked_notes(
        strings,
        lang,
        level=q.level,
        pack_language=asked.pack_language,
        level_done=asked.level_done_note,
    )
    return with_notes(messages, notes)


def prepend(lines: list[Html], messages: list[Html]) -> list[Html]:
    """`lines` above the first message, when they still fit in it (they are a nicety)."""
    joined = Html("\n".join([*lines, messages[0]]))
    return [joined, *messages[1:]] if utf16_len(joined) <= MESSAGE_LIMIT else messages


# What a transcript shows of itself, at most: with its line and the feedback's first message
# it stays within one message. All of it is scored and kept; only the echo is cut.
HEARD_SHOWN = 3000


def heard_line(t: Strings, lang: str, text: str) -> Html:
    """What the bot heard in a voice answer, shown above what it made of it."""
    shown = text if len(text) <= HEARD_SHOWN else text[:HEARD_SHOWN].rstrip() + "…"
    return t(lang, "voice_heard", text=shown)


def with_heard(t: Strings, lang: str, text: str | None, messages: list[Html]) -> list[Html]:
    """`messages` with the transcript of a voice answer first (none for a typed one): in
    their first message when it fits, else as a message of its own."""
    if text is None:
        return messages
    line = heard_line(t, lang, text)
    joined = prepend([line], messages)
    return joined if joined is not messages else [line, *messages]


def voice_note(
    t: Strings, lang: str, outcome: VoiceOutcome, *, mock: bool = False, open_: bool = False
) -> Html:
    """Why a voice answer was not read: voice answers off, too long, not fetched, or the
    speech-to-text service failing (nothing was scored; the question stays open). `mock`:
    a mock interview is on; `open_`: a question is open (typing points to that question,
    not to /quiz, which would only show it again)."""
    match outcome:
        case NotEnabled():
            key = "mock_" if mock else "open_" if open_ else ""
            return t(lang, f"{key}voice_not_enabled")
        case TooLong(seconds=seconds, limit=limit):
            return t(lang, "voice_too_long", seconds=seconds, limit=limit)
        case Unfetched():
            return t(lang, "voice_unfetched")
    return t(lang, "voice_failed")


def with_reference(
    head: str, reference: str, title: str | None = None, *, collapsed: bool = False
) -> list[Html]:
    """`head` (split at the limit), then under `title` the reference answer in a blockquote;
    `collapsed`: Telegram's expandable one, a few lines shown until tapped.

    The one shape of "here is the reference answer": feedback, a round's results, /reveal.
    """
    *first, last = split_head(head)
    opening = f"{last}\n{title}" if title and collapsed else f"{last}\n\n{title}" if title else last
    quote = "<blockquote expandable>" if collapsed else "<blockquote>"
    return [*first, *pack_messages(opening, reference, wrap=(quote, "</blockquote>"))]


def still_open_messages(
    t: Strings, lang: str, kept: StillOpen, *, shared: bool = False
) -> list[Html]:
    """The open question shown again (a new one was asked for, or `shared`: a link to
    another one followed): what to do, then it."""
    q = kept.question
    messages = question_message(
        t, lang, level=q.level, pack_title=kept.pack_title, question=q.question
    )
    return prepend([t(lang, "shared_still_open" if shared else "quiz_still_open")], messages)


def feedback_messages(
    t: Strings,
    lang: str | None,
    *,
    result: ScoreResult,
    reference: str,
    hints: int,
    streak: StreakState | None,
    bare_list: bool = False,
    rated: bool = True,
) -> list[Html]:
    """The score and what to work on (`score_summary`), then the reference answer collapsed
    (split if long), then what the rating buttons under it do (`rated`: they are there)."""
    head = score_summary(t, lang, result=result, hints=hints, streak=streak, bare_list=bare_list)
    messages = with_reference(head, reference, t(lang, "reference_title"), collapsed=True)
    if not rated:
        return messages
    explain = t(lang, "rate_explain")
    joined = Html(f"{messages[-1]}\n\n{explain}")
    # Above the buttons, which go under the last message (alone when that one is full).
    if utf16_len(joined) <= MESSAGE_LIMIT:
        return [*messages[:-1], joined]
    return [*messages, explain]


def split_head(text: str, limit: int = MESSAGE_LIMIT) -> list[Html]:
    """Split HTML made of self-contained lines at line boundaries."""
    out: list[str] = []
    current = ""
    for line in text.split("\n"):
        candidate = f"{current}\n{line}" if current else line
        if utf16_len(candidate) <= limit:
            current = candidate
        else:
            out.append(current)
            current = line
    out.append(current)
    return [Html(m) for m in out]


def ranking_messages(
    t: Strings,
    round_: RoundRecord,
    question: Question | None,
    answers: list[RoundAnswer],
    lang: str,
) -> list[Html]:
    """The ranked results and the reference answer, split at Telegram's limit."""
    total = len(question.concepts) if question else 0
    ranked = rank(
        [
            MemberResult(
                a.user_id,
                a.first_name,
                a.score,
                len(a.covered),
                total,
                a.answered_at,
                partly=len(a.partly),
            )
            for a in answers
        ]
    )
    title = excerpt(question.question, 60) if question else round_.question_id
    lines: list[str] = [t(lang, "round_results", question=title)]
    if not ranked:
        lines.append(t(lang, "round_nobody"))
    for place, r in enumerate(ranked, start=1):
        # A medal is for an answer that covered something, stated or in part: one that
        # covered nothing gets a place, not bronze, even when its score is a sliver above 0.
        covered_any = r.covered > 0 or r.partly > 0
        medal = MEDALS[place - 1] if place <= len(MEDALS) and covered_any else f"{place}."
        # "32% (0/4)" reads as a mistake when the 32% is two concepts stated in part.
        lines.append(
            t(
                lang,
                "round_line_partly" if r.partly else "round_line",
                medal=medal,
                name=r.first_name or "?",
                percent=percent(r.score),
                covered=r.covered,
                total=r.total,
                partly=r.partly,
            )
        )
    reference = question.answer if question else ""
    return with_reference("\n".join(lines), reference, t(lang, "reference_title"))


def leaderboard_messages(
    t: Strings,
    lang: str,
    week: list[LeaderboardRow],
    overall: list[LeaderboardRow],
    today: date,
) -> list[Html]:
    """/top: this week's and all-time points (score x 100 per round), answers and streaks."""
    lines: list[str] = [t(lang, "top_title")]
    for key, rows in (("top_week", week), ("top_all", overall)):
        lines.append(t(lang, key))
        if not rows:
            lines.append("—")
        for place, row in enumerate(rows, start=1):
            lines.append(
                t(
                    lang,
                    "top_line",
                    place=place,
                    name=row.first_name or "?",
                    points=points(row.total_score),
                    answers=row.answers,
                    streak=visible_streak(row.streak, today).current,
                )
            )
    return split_head("\n".join(lines))


def level_up_line(t: Strings, lang: str, current: Level, up: Level, average: float) -> Html:
    """The suggestion to move up a level, with the recent average that earned it."""
    return t(
        lang,
        "level_up",
        percent=percent(average),
        level=level_name(t, lang, current),
        next=level_name(t, lang, up),
    )


def stats_messages(t: Strings, lang: str, p: Progress) -> list[Html]:
    """/stats as text: streak, freezes, the bank answered per level with averages, the three
    weakest concepts, the weekly trend, advice. (Someone with no answers gets
    `stats_welcome` instead.)"""
    summary, streak = p.summary, p.streak
    lines = [
        t(lang, "stats_title"),
        t(lang, "stats_streak", current=streak.current, best=streak.best),
    ]
    if streak.freezes:
        lines.append(t(lang, "freeze_line", count=streak.freezes))
    lines.append(t(lang, "stats_answers", answers=summary.answers, questions=summary.questions))
    if p.bank:
        answered = sum(row.answered for row in p.bank)
        total = sum(row.total for row in p.bank)
        lines.append(t(lang, "stats_bank", answered=answered, total=total))
    averages = {row.level: row for row in summary.by_level}
    banks = {row.level: row for row in p.bank}
    for level in LEVEL_ORDER:
        stats, bank = averages.get(level), banks.get(level)
        done, total = (bank.answered, bank.total) if bank else (0, 0)
        name = level_name(t, lang, level)
        if stats is not None:
            lines.append(
                t(lang, "stats_level", level=name, count=stats.answers,
                  percent=percent(stats.average), bar=bar(stats.average),
                  answered=done, total=total)
            )  # fmt: skip
        elif total:
            lines.append(t(lang, "stats_level_unstarted", level=name, total=total))
    if p.weak_spots:
        lines.append(t(lang, "stats_weak"))
        lines.extend(
            t(lang, "stats_weak_item", n=n, label=spot.label, missed=spot.missed)
            for n, spot in enumerate(p.weak_spots, 1)
        )
    lines.append(trend_line(t, lang, p.trend))
    if p.level_up is not None:
        lines.append(level_up_line(t, lang, p.level, p.level_up, p.level_average))
    if p.at_risk:
        lines.append(t(lang, "stats_at_risk"))
    return split_head("\n".join(lines))


def trend_line(t: Strings, lang: str, trend: Trend | None) -> Html:
    """The weekly trend in words: up, down or steady, with the two weeks compared."""
    if trend is None:
        return t(lang, "stats_trend_none")
    return t(
        lang,
        f"stats_trend_{trend.direction.value}",
        before=percent(trend.before.total / trend.before.answers),
        latest=percent(trend.latest.total / trend.latest.answers),
        before_week=trend.before.start.isoformat(),
        latest_week=trend.latest.start.isoformat(),
    )


def stats_caption(t: Strings, lang: str, p: Progress) -> Html:
    """The /stats picture's caption: answers, streaks, the average per level."""
    level_text = t(lang, "list_separator").join(
        f"{level_name(t, lang, row.level)} {percent(row.average)}%" for row in p.summary.by_level
    )
    return t(
        lang,
        "stats_caption",
        answers=p.summary.answers,
        current=p.streak.current,
        best=p.streak.best,
        levels=level_text or "—",
    )


def unknown_zone(t: Strings, lang: str | None, wanted: str) -> Html:
    """What a zone nobody can tell apart (`CST`) or nobody knows gets: the choices, or close
    matches and an example."""
    wanted = wanted[:60]
    choices = ambiguous_timezone(wanted)
    suggestions = [] if choices else suggest_timezones(wanted)
    if choices:
        return t(
            lang,
            "timezone_ambiguous",
            zone=wanted,
            choices=t(lang, "list_separator").join(choices),
            first=choices[0],
        )
    lines = [t(lang, "timezone_bad", zone=wanted)]
    if suggestions:
        lines.append(
            t(lang, "timezone_suggest", suggestions=t(lang, "list_separator").join(suggestions))
        )
    lines.append(t(lang, "timezone_example"))
    return Html("\n".join(lines))


# -- question packs: /packs, the field at /start, none in the user's language ----------------


def field_name(t: Strings, lang: str, field: str) -> str:
    """A pack's field named in `lang` (`field_<id>` in the strings, plain text: a button's
    label too); else its id in words. Not escaped: filled into a template, it is."""
    key = f"field_{field}"
    return str(t(lang, key)) if t.has(key) else field.replace("-", " ").capitalize()


def language_names(t: Strings, lang: str, codes: Sequence[str]) -> Html:
    """ "Chinese and English": the languages named in `lang`, escaped."""
    return spoken_list(t, lang, [language_name(t, lang, c) for c in codes])


def spoken_list(t: Strings, lang: str, items: Sequence[str]) -> Html:
    """ "A, B and C" (中文 "A、B和C"): items joined as a sentence lists them."""
    if len(items) < 2:
        return Html("".join(items))
    head = t(lang, "list_separator").join(items[:-1])
    return Html(f"{head}{t(lang, 'list_last_separator')}{items[-1]}")


def start_field_line(t: Strings, lang: str, languages: Sequence[str]) -> Html:
    """The welcome's question of the field, naming the languages the questions are in."""
    return t(lang, "start_field", languages=language_names(t, lang, languages))


def titles(t: Strings, lang: str, packs: Sequence[Pack]) -> Html:
    """The packs' titles, each with its language: "Triton 面试题 (Chinese), …"."""
    return Html(
        t(lang, "list_separator").join(
            t(lang, "pack_with_language", pack=p.title, language=language_name(t, lang, p.language))
            for p in packs
        )
    )


PACKS_BUDGET = MESSAGE_LIMIT - 600  # the list's rows; the rest: title, notes (HTML included)


class PackLine(NamedTuple):
    pack: Pack
    followed: bool
    done: int
    levels: Sequence[Level]


def packs_message(
    t: Strings,
    lang: str,
    lines: Sequence[PackLine],
    *,
    any_in_language: bool,
    read_only: bool,
    drawn_in: str,
    group: bool = False,
) -> Html:
    """/packs: each pack (title, id, field, language, levels, questions, done), followed
    ones marked, and what a chat that follows none is asked from (packs in `drawn_in`):
    "you" in a private chat, "this group" in a group."""

    def row(line: PackLine, short: bool) -> Html:
        p = line.pack
        levels = (level_name(t, lang, lv)[: 3 if short else None] for lv in line.levels)
        return t(
            lang,
            "packs_row",
            mark="✅" if line.followed else "▫️",
            title=excerpt(p.title, 40) if short else p.title,
            id=p.id,
            field=field_name(t, lang, p.field),
            language=language_name(t, lang, p.language),
            levels=Html(" / ".join(levels)),
            count=len(p.questions),
            done=line.done,
        )

    listed = [row(line, False) for line in lines]
    if utf16_len("\n\n".join(listed)) > PACKS_BUDGET:  # many packs: shorter titles, levels
        listed = [row(line, True) for line in lines]
    while listed and utf16_len("\n\n".join(listed)) > PACKS_BUDGET:
        listed.pop()  # more than a message holds: the buttons still name every pack
    rows = [t(lang, "packs_title"), *listed]
    language = t(lang, f"language_{drawn_in}") if drawn_in in LANGUAGES else drawn_in
    if any(line.followed for line in lines):
        rows.append(t(lang, "packs_following"))
    elif any_in_language:
        key = "group_packs_none_followed" if group else "packs_none_followed"
        rows.append(t(lang, key, language=language))
    else:
        key = "group_packs_none_in_language" if group else "packs_none_in_language"
        rows.append(t(lang, key, language=language))
    if lines:
        rows.append(t(lang, "packs_quiz_note", pack=lines[0].pack.id))
    if read_only:
        rows.append(t(lang, "packs_group_admins"))
    return Html("\n\n".join(rows))


GROUP_PACKS_SHOWN = 5  # followed packs named on a group's settings screen; the rest counted


def group_packs_line(
    t: Strings, lang: str, followed: Sequence[Pack], *, drawn_in: str, any_in_language: bool
) -> Html:
    """What a group's questions come from, for its settings screen: the packs it follows
    (a few titles, each with its language, the rest counted), else every pack in its
    language, else none yet. Bounded, so the screen stays far inside a message."""
    if followed:
        shown = [
            t(
                lang,
                "pack_with_language",
                pack=excerpt(p.title, 40),
                language=language_name(t, lang, p.language),
            )
            for p in followed[:GROUP_PACKS_SHOWN]
        ]
        if len(followed) > GROUP_PACKS_SHOWN:
            shown.append(t(lang, "group_packs_more", count=len(followed) - GROUP_PACKS_SHOWN))
        return Html(t(lang, "list_separator").join(shown))
    language = t(lang, f"language_{drawn_in}") if drawn_in in LANGUAGES else drawn_in
    return t(lang, "group_packs_all" if any_in_language else "group_packs_none", language=language)


def no_packs_message(t: Strings, lang: str, others: Sequence[Pack]) -> Html:
    """No pack followed and none in `lang`: said, with the packs there are (to follow)."""
    language = t(lang, f"language_{lang}") if lang in LANGUAGES else lang
    first = others[0].id if others else ""
    packs = titles(t, lang, others)
    return t(lang, "no_packs_in_language", language=language, packs=packs, pack=first)


# -- the interview date and its plan -------------------------------------------------------

_ZH_WEEKDAYS = "一二三四五六日"


def day_text(day: date, lang: str) -> str:
    """A date as the user's language writes it: 12月20日（周日）, Sun 20 Dec 2026."""
    if lang == "zh":
        return f"{day.year}年{day.month}月{day.day}日（周{_ZH_WEEKDAYS[day.weekday()]}）"
    return day.strftime("%a %d %b %Y")


def plan_countdown(t: Strings, lang: str, days_left: int, quota: int) -> Html:
    """The daily prompt's first line while a plan runs: "9 days to go · 3 today"."""
    return t(lang, "plan_countdown", days=days_left, quota=quota)


def plan_next_line(t: Strings, lang: str, days_left: int, n: int, quota: int) -> Html:
    """Above the plan's next question of the day: "9 days to go · 2 of 3 today"."""
    return t(lang, "plan_next", days=days_left, n=n, quota=quota)


def plan_question_messages(
    t: Strings, lang: str, asked: Asked, days_left: int, n: int, quota: int
) -> list[Html]:
    """The plan's next question of the day, under "9 days to go · question 2 of 3 today"."""
    return asked_messages(t, lang, asked, [plan_next_line(t, lang, days_left, n, quota)])


def with_plan_line(messages: list[Html], line: Html | None) -> list[Html]:
    """/stats' words with the plan's progress line after the first lines (if a plan runs)."""
    if line is None or not messages:
        return messages
    first, *rest = messages
    head, sep, tail = first.partition("\n")
    joined = Html(f"{head}\n{line}{sep}{tail}" if sep else f"{head}\n{line}")
    return [joined, *rest] if utf16_len(joined) <= MESSAGE_LIMIT else [*messages, line]
