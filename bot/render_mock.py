"""Mock interview messages: a question or follow-up put, an answer's short score (the
reference held back), and the report at the end, one message within Telegram's limits.

Every label, title and question is escaped where it enters markup (`Strings` escapes
values; labels are cut to `LABEL_CHARS` so ten rows fit one message).
"""

from __future__ import annotations

from bot.core.content import NAME_CHARS
from bot.core.mock import (
    End,
    MockEnded,
    MockReport,
    MockStep,
    MockTurn,
    concept_name,
    duration,
    over_limit,
)
from bot.i18n import Html, Strings
from bot.render import (
    ITEM_SEPARATOR,
    MESSAGE_LIMIT,
    bar,
    esc,
    excerpt,
    excerpt_words,
    percent,
    prepend,
    question_message,
    split_head,
    utf16_len,
    with_reference,
)

LABEL_CHARS = 40  # a concept or topic in a report row
MISSED_SHOWN = 3  # missed concepts named per row; the rest counted


def step_messages(t: Strings, lang: str, step: MockStep) -> list[Html]:
    """The session's question (numbered, under the interview's header) or its follow-up."""
    n, count = step.position + 1, step.count
    if step.follow_up is not None:
        concept = concept_name(step.follow_up.concept)
        said = step.follow_up.mentioned
        if concept is None:  # only a sentence to name it by: asked without quoting it
            text = t(lang, "mock_follow_up_unnamed")
        elif said is not None and len(said) <= NAME_CHARS:
            text = t(lang, "mock_follow_up_said", said=said, concept=concept)
        else:
            text = t(lang, "mock_follow_up", concept=concept)
        return [Html(f"{text}\n{t(lang, 'mock_follow_up_how')}")]
    q = step.question
    head = t(lang, "mock_question_head", n=n, count=count)
    if step.limit_seconds is not None:
        head = Html(f"{head} · {t(lang, 'mock_limit', time=duration(step.limit_seconds))}")
    messages = question_message(
        t, lang, level=q.level, pack_title=step.pack_title, question=q.question
    )
    return prepend([head], messages)


def started_messages(
    t: Strings, lang: str, step: MockStep, *, running: bool, asked: int | None = None
) -> list[Html]:
    """/mock: the interview's rules, then its first question (`running`: one was on already,
    shown where it is). `asked`: the questions asked for, said when fewer fit."""
    intro = t(lang, "mock_running") if running else t(lang, "mock_started", count=step.count)
    if not running and asked is not None and step.count < asked:
        intro = Html(f"{intro}\n{t(lang, 'mock_fewer', asked=asked, count=step.count)}")
    if step.closed is not None:  # the question left open is closed by the interview: name it
        left = t(lang, "question_replaces_named", question=excerpt(step.closed.question, 60))
        intro = Html(f"{intro}\n{left}")
    return prepend([intro, Html("")], step_messages(t, lang, step))


def _labels(t: Strings, lang: str, labels: tuple[str, ...] | list[str]) -> Html:
    """The first few labels (each cut short, escaped), then how many more."""
    shown = [esc(excerpt_words(label, LABEL_CHARS)) for label in labels[:MISSED_SHOWN]]
    if len(labels) > MISSED_SHOWN:
        shown.append(t(lang, "more_items", count=len(labels) - MISSED_SHOWN))
    return Html(ITEM_SEPARATOR.join(shown))


def _over(t: Strings, lang: str, seconds: int, limit: int | None) -> str:
    """ " ⚠️ over the 3:00 limit" when an answer took longer than the limit; else ""."""
    if limit is None or not over_limit(seconds, limit):
        return ""
    return str(t(lang, "mock_over_limit", limit=duration(limit)))


def turn_messages(t: Strings, lang: str, turn: MockTurn) -> list[Html]:
    """An answer's short score during a session (or its skip), then what comes next: the
    follow-up, the next question. The report (turn.ended) is sent apart, with its buttons."""
    n, count = turn.position + 1, turn.count
    limit = turn.next.limit_seconds if turn.next is not None else None
    if turn.ended is not None:
        limit = turn.ended.report.limit_seconds
    took = duration(turn.seconds)
    over = _over(t, lang, turn.seconds, limit)
    if turn.result is not None:
        result = turn.result
        score = t(lang, "mock_scored", n=n, count=count, percent=percent(result.score), time=took)
        lines = [Html(f"{score}{over}")]
        # Heaviest first, as feedback names them (the pack's order among equals).
        weight = {c.label: c.weight for c in result.missed}
        weight |= {hit.label: hit.weight for hit in result.covered}
        missed = sorted(result.missed_labels, key=lambda label: -weight.get(label, 0.0))
        if missed:
            lines.append(t(lang, "mock_missed", items=_labels(t, lang, missed)))
    elif turn.follow_score is not None:
        followed = t(lang, "mock_followed", percent=percent(turn.follow_score), time=took)
        lines = [Html(f"{followed}{over}")]
    else:
        lines = [t(lang, "mock_skipped")]
    if turn.next is None:
        return [Html("\n".join(lines))]
    return prepend([*lines, Html("")], step_messages(t, lang, turn.next))


def report_message(t: Strings, lang: str, ended: MockEnded) -> Html:
    """The report: a row per question put (score, concepts missed, time; its follow-up), the
    total, the best and the weakest topic, the previous mock's total; one message."""
    r: MockReport = ended.report
    answered = sum(1 for row in r.rows if row.score is not None)
    title = "mock_report_title" if ended.reason is End.DONE else "mock_report_title_stopped"
    lines: list[str] = [t(lang, title, answered=answered, count=r.count)]
    for row in r.rows:
        n = row.position + 1
        topic = excerpt_words(row.topic, LABEL_CHARS)
        if row.score is None:
            lines.append(t(lang, "mock_row_skipped", n=n, topic=topic))
        else:
            took = duration(row.seconds or 0)
            over = _over(t, lang, row.seconds or 0, r.limit_seconds)
            line = t(lang, "mock_row", n=n, topic=topic, percent=percent(row.score), time=took)
            lines.append(f"{line}{over}")
            if row.missed:
                lines.append(t(lang, "mock_row_missed", items=_labels(t, lang, row.missed)))
        if row.follow_label is not None:
            concept = excerpt_words(row.follow_label, LABEL_CHARS)
            if row.follow_score is None:
                lines.append(t(lang, "mock_row_follow_skipped", concept=concept))
            else:
                score = percent(row.follow_score)
                lines.append(t(lang, "mock_row_follow", concept=concept, percent=score))
    if not r.rows:
        lines.append(t(lang, "mock_report_empty"))
    else:
        lines.append("")
        lines.append(t(lang, "mock_total", percent=percent(r.total), bar=bar(r.total)))
        if r.best is not None and r.weakest is not None:
            lines.append(t(lang, "mock_best", topic=excerpt_words(r.best, LABEL_CHARS)))
            lines.append(t(lang, "mock_weakest", topic=excerpt_words(r.weakest, LABEL_CHARS)))
        if r.previous is None:
            lines.append(t(lang, "mock_first"))
        else:
            delta = percent(r.total) - percent(r.previous)
            change = f"+{delta}" if delta > 0 else str(delta)
            lines.append(t(lang, "mock_previous", percent=percent(r.previous), change=change))
        lines.append(t(lang, "mock_references"))
    text = "\n".join(lines)
    if utf16_len(text) <= MESSAGE_LIMIT:
        return Html(text)
    return split_head(text)[0]  # cannot happen with labels cut: the head, never a cut tag


def reference_messages(t: Strings, lang: str, n: int, question: str, answer: str) -> list[Html]:
    """A question's reference answer, shown by its report button."""
    head = t(lang, "mock_reference", n=n, question=excerpt(question, 200))
    return with_reference(head, answer)
