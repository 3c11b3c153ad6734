"""Terminal practice: the bot's practice loop on stdin/stdout, with the same database.

Answers may span several lines and end with an empty line (or Ctrl-D). At the prompt,
`/hint`, `/skip`, `/reveal` and `/quit` work as in the bot.
"""

from __future__ import annotations

import asyncio
import html
import sys
from typing import TextIO

from bot.config import Settings
from bot.core.content import Library
from bot.core.levels import Level
from bot.core.reminders import ReminderRule
from bot.i18n import Strings
from bot.practice import Practice
from bot.render import bar, hit_note, percent
from bot.storage import Storage

TERMINAL_USER = 0  # Telegram ids are positive: 0 is the terminal's own user


def _read_answer(stdin: TextIO, stdout: TextIO) -> str | None:
    """Lines until an empty line; None at end of input with nothing typed."""
    lines: list[str] = []
    while True:
        line = stdin.readline()
        if line == "":
            return "\n".join(lines) if lines else None
        line = line.rstrip("\n")
        if not line.strip() and lines:
            return "\n".join(lines)
        if line.strip():
            lines.append(line)
        if len(lines) == 1 and line.strip().startswith("/"):
            return line.strip()


async def run_practice(
    settings: Settings,
    library: Library,
    *,
    level: Level | None = None,
    pack: str | None = None,
    stdin: TextIO = sys.stdin,
    stdout: TextIO = sys.stdout,
) -> int:
    rule = ReminderRule(settings.reminder_hour, settings.default_timezone)
    storage = Storage(settings.database_path, rule)  # answers here move the reminder too
    await storage.open()
    try:
        return await _loop(settings, library, storage, level, pack, stdin, stdout)
    finally:
        await storage.close()


async def _loop(
    settings: Settings,
    library: Library,
    storage: Storage,
    level: Level | None,
    pack: str | None,
    stdin: TextIO,
    stdout: TextIO,
) -> int:
    def say(text: str = "") -> None:
        print(text, file=stdout, flush=True)

    practice = Practice(storage, library, default_timezone=settings.default_timezone)
    strings = Strings.load(settings.content_dir / "strings")
    user = await storage.ensure_user(TERMINAL_USER, "terminal", "en")
    say("Interview practice. Answer in your own words; finish with an empty line.")
    say("Commands: /hint  /skip  /reveal  /quit\n")
    chat = TERMINAL_USER
    while True:
        asked = await practice.ask(chat, user, level, pack)
        if asked is None:
            say("No questions match that level and pack.")
            return 1
        q = asked.question
        say(f"── {q.level.value} · {asked.pack_title} · {q.id} ──")
        say(q.question)
        while True:
            say("\nYour answer:")
            text = await asyncio.to_thread(_read_answer, stdin, stdout)
            if text is None or text == "/quit":
                say("Bye — your streak is saved.")
                return 0
            if text == "/hint":
                hint = await practice.hint(chat)
                say(f"💡 Hint {hint[1]}: {hint[0]}" if hint else "No more hints.")
                continue
            if text in ("/skip", "/reveal"):
                await practice.close(chat)
                if text == "/reveal":
                    say(f"\nReference answer:\n{q.answer}")
                say()
                break
            feedback = await practice.answer(chat, user, text)
            if feedback is None:
                break
            r = feedback.result
            say(f"\nScore: {bar(r.score, 20)} {percent(r.score)}%")
            for hit in (*r.covered, *r.contradicted):
                note = html.unescape(hit_note(strings, "en", hit))
                mark = "✅" if not note else "◐" if hit.credit > 0 else "⚠️"
                say(f"  {mark} {hit.label}  ← “{hit.text}”" + (f"  ({note})" if note else ""))
            wrong = {h.label for h in r.contradicted}
            for concept in r.missed:
                if concept.label not in wrong:
                    say(f"  ❌ {concept.label}")
            if feedback.hints:
                say(f"  💡 {feedback.hints} hint{'' if feedback.hints == 1 else 's'} used")
            say(f"\nReference answer:\n{q.answer}")
            s = feedback.streak
            say(f"\n🔥 Streak: {s.current} day{'' if s.current == 1 else 's'}, best {s.best}\n")
            break
        say("Press Enter for the next question, or type /quit.")
        nxt = await asyncio.to_thread(stdin.readline)
        if nxt == "" or nxt.strip() == "/quit":
            say("Bye — your streak is saved.")
            return 0
