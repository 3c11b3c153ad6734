"""Terminal practice: the bot's practice loop on stdin/stdout, with the same database.

Answers may span several lines and end with an empty line (or Ctrl-D). At the prompt,
`/hint`, `/skip`, `/reveal` and `/quit` work as in the bot. `--mock N` runs a mock interview
instead (bot/services/mock.py), its report at the end and the reference answers by number.
The interface is English or Chinese (`--lang`, else the terminal's locale), with the bot's own
strings shown as plain text.
"""

from __future__ import annotations

import asyncio
import html
import re
import sys
from typing import TextIO

from bot.config import Settings
from bot.core.content import Library
from bot.core.levels import Level
from bot.core.mock import MockArgs, MockEnded, MockRunning, MockStale, MockStep, MockTurn
from bot.core.models import UserProfile
from bot.core.practice import Asked, Feedback, NoPacks, NotText, OneWord, TooShort
from bot.core.reminders import ReminderRule
from bot.i18n import LANGUAGES, Strings, language_for
from bot.render import hint_message, level_name, percent, score_summary
from bot.render_mock import report_message, started_messages, step_messages, turn_messages
from bot.services.mock import Mock
from bot.services.practice import Practice
from bot.storage import Storage

TERMINAL_USER = 0  # Telegram ids are positive: 0 is the terminal's own user
COMMANDS = ("/hint", "/skip", "/reveal", "/quit")
# At the prompt between questions, a word this short ("next", "y", "好") is Enter; longer
# text is more likely an answer typed one prompt too late.
NEXT_WORD_LIMIT = 12
_TAG = re.compile(r"<[^>]+>")


def plain(text: str) -> str:
    """Telegram HTML as terminal text: tags dropped, entities decoded."""
    return html.unescape(_TAG.sub("", text))


def terminal_language(chosen: str | None, settings: Settings) -> str:
    """--lang if given, else the terminal's locale (zh_CN.UTF-8: Chinese), else English."""
    if chosen in LANGUAGES:
        return chosen
    return language_for(settings.terminal_locale)


def _read_answer(stdin: TextIO) -> str | None:
    """Lines until an empty line; "" for an empty first line; None at end of input."""
    lines: list[str] = []
    while True:
        line = stdin.readline()
        if line == "":
            return "\n".join(lines) if lines else None
        line = line.rstrip("\n")
        if not line.strip():
            return "\n".join(lines)
        lines.append(line)
        if len(lines) == 1 and line.strip().startswith("/"):
            return line.strip()


async def run_practice(
    settings: Settings,
    library: Library,
    *,
    level: Level | None = None,
    pack: str | None = None,
    lang: str | None = None,
    mock: int | None = None,
    stdin: TextIO = sys.stdin,
    stdout: TextIO = sys.stdout,
) -> int:
    """Practise in the terminal; `mock`: a mock interview of that many questions."""
    rule = ReminderRule(settings.reminder_hour, settings.default_timezone)
    storage = Storage(settings.database_path, rule)  # answers here move the reminder too
    await storage.open()
    try:
        session = _Session(settings, library, storage, terminal_language(lang, settings), stdout)
        if mock is not None:
            return await session.run_mock(MockArgs(count=mock, level=level, pack=pack), stdin)
        return await session.run(level, pack, stdin)
    finally:
        await storage.close()


class _Session:
    """One terminal session: what it shows, and how many answers it has stored."""

    def __init__(
        self, settings: Settings, library: Library, storage: Storage, lang: str, stdout: TextIO
    ) -> None:
        self.practice = Practice(storage, library, default_timezone=settings.default_timezone)
        self.strings = Strings.load(settings.content_dir / "strings")
        self.storage = storage
        self.lang = lang
        self.stdout = stdout
        self.answered = 0
        self.streak = 0

    def say(self, key: str, **values: object) -> None:
        self.show(self.strings(self.lang, key, **values))

    def show(self, text: str = "") -> None:
        print(plain(text), file=self.stdout, flush=True)

    async def bye(self) -> int:
        # "Saved" only when something was: a session without an answer leaves the day
        # uncounted, unless an earlier session (or the bot) counted it already.
        if self.answered:
            self.say("term_bye", count=self.answered, current=self.streak)
            return 0
        user = await self.storage.get_user(TERMINAL_USER)
        if user is not None and user.streak.last_day == self.practice.today(user).date():
            self.say("term_bye_counted", current=user.streak.current)
            return 0
        self.say("term_bye_nothing")
        return 0

    async def run(self, level: Level | None, pack: str | None, stdin: TextIO) -> int:
        user = await self.storage.ensure_user(TERMINAL_USER, "terminal", self.lang)
        self.say("term_intro")
        self.say("term_commands")
        self.show()
        chat = TERMINAL_USER
        while True:
            asked = await self.practice.ask(chat, user, level, pack, self.lang)
            if isinstance(asked, NoPacks):  # none in the user's language: named, not given
                language = self.strings(self.lang, f"language_{self.lang}")
                self.say(
                    "term_no_packs_in_language",
                    language=language,
                    packs=", ".join(
                        f"{p} ({self.practice.library.packs[p].language})" for p in asked.others
                    ),
                )
                return 1
            if asked is None:
                self.say("term_no_questions")
                return 1
            self._show_question(asked)
            if not await self._answer_one(chat, user, asked, stdin):
                return await self.bye()
            if not await self._wait_for_next(stdin):
                return await self.bye()

    async def run_mock(self, args: MockArgs, stdin: TextIO) -> int:
        """A mock interview: its steps one at a time, /skip and /quit (which stops it, with
        its report), then the reference answers by number."""
        user = await self.storage.ensure_user(TERMINAL_USER, "terminal", self.lang)
        mock = Mock(self.practice)
        t, chat = self.strings, TERMINAL_USER
        started = await mock.start(chat, user, args, self.lang)
        if not isinstance(started, MockStep | MockRunning):
            self.say("term_no_questions")  # no pack in the language, or none at the level
            return 1
        self.say("term_mock_commands")
        step = started if isinstance(started, MockStep) else started.step
        running = isinstance(started, MockRunning)
        self.show("\n".join(started_messages(t, self.lang, step, running=running)))
        while True:
            self.show()
            self.say("term_prompt")
            text = await asyncio.to_thread(_read_answer, stdin)
            if text == "":
                self.say("term_empty")
                continue
            if text is None or text == "/quit":
                ended = await mock.stop(chat)
                if ended is not None:
                    await self._mock_report(mock, ended, stdin)
                return await self.bye()
            if text == "/skip":
                turn: object = await mock.skip(chat)
            elif text.startswith("/") and "\n" not in text:
                self.say("term_unknown_command", command=text.split()[0])
                continue
            else:
                turn = await mock.answer(chat, user, text)
            if isinstance(turn, MockTurn):
                if turn.result is not None:
                    self.answered += 1
                self.show()
                self.show("\n".join(turn_messages(t, self.lang, turn)))
                if turn.ended is not None:
                    await self._mock_report(mock, turn.ended, stdin)
                    return await self.bye()
            elif isinstance(turn, MockRunning):
                self.show("\n".join(step_messages(t, self.lang, turn.step)))
            elif isinstance(turn, TooShort | NotText):
                self.say("answer_too_short")
            elif isinstance(turn, OneWord):
                self.say("answer_one_word")
            elif isinstance(turn, MockStale) or turn is None:
                return await self.bye()

    async def _mock_report(self, mock: Mock, ended: MockEnded, stdin: TextIO) -> None:
        """The report, then any question's reference answer by its number until Enter."""
        self.show()
        self.show(report_message(self.strings, self.lang, ended))
        numbers = [row.position + 1 for row in ended.report.rows]
        while numbers:
            self.show()
            self.say("term_mock_reference", last=numbers[-1])
            typed = (await asyncio.to_thread(stdin.readline)).strip()
            if not typed.isdigit() or int(typed) not in numbers:
                return
            question = await mock.reference(TERMINAL_USER, ended.session_id, int(typed) - 1)
            if question is not None:
                self.show(question.question)
                self.say("reference_title")
                self.show(question.answer)

    async def _wait_for_next(self, stdin: TextIO) -> bool:
        """The prompt between questions: True for the next question, False to quit.

        Enter (or /skip, or a short word such as "next") moves on. A command for the question
        just closed (/reveal, /hint) or what looks like an answer is not taken as Enter in
        silence: the person is told that question is closed and nothing was scored."""
        self.say("term_next")
        while True:
            line = await asyncio.to_thread(stdin.readline)
            typed = line.strip()
            if line == "" or typed == "/quit":
                return False
            if typed in ("", "/skip") or (
                not typed.startswith("/") and len(typed) <= NEXT_WORD_LIMIT
            ):
                return True
            self.say("term_closed")

    def _show_question(self, asked: Asked) -> None:
        q = asked.question
        t = self.strings
        self.say(
            "term_question", level=level_name(t, self.lang, q.level), pack=asked.pack_title, id=q.id
        )
        if asked.pack_language and asked.pack_language.split("-")[0].lower() != self.lang:
            base = asked.pack_language.split("-")[0].lower()
            name = t(self.lang, f"language_{base}") if base in LANGUAGES else asked.pack_language
            self.say("bank_language", language=name)
        self.show(q.question)

    async def _answer_one(self, chat: int, user: UserProfile, asked: Asked, stdin: TextIO) -> bool:
        """Prompt until the question is answered, skipped or revealed; False to quit."""
        q = asked.question
        while True:
            self.show()
            self.say("term_prompt")
            text = await asyncio.to_thread(_read_answer, stdin)
            if text is None or text == "/quit":
                return False
            if text == "":
                self.say("term_empty")
                continue
            if text == "/hint":
                hint = await self.practice.hint(chat)
                if hint is None:
                    self.say("no_more_hints")
                else:
                    self.show(hint_message(self.strings, self.lang, hint[0], hint[1]))
                continue
            if text in ("/skip", "/reveal"):
                await self.practice.close(chat)
                if text == "/reveal":
                    self.show()
                    self.say("revealed")
                    self.show(q.answer)
                else:
                    self.say("skipped")
                self.show()
                return True
            if text.startswith("/") and "\n" not in text:
                self.say("term_unknown_command", command=text.split()[0])
                continue
            feedback = await self.practice.answer(chat, user, text)
            if isinstance(feedback, TooShort | NotText):
                self.say("answer_too_short")  # the question stays open, the day uncounted
                continue
            if isinstance(feedback, OneWord):
                self.say("answer_one_word")  # the question stays open too
                continue
            if not isinstance(feedback, Feedback):
                return True
            self.answered += 1
            self.streak = feedback.streak.current
            self.show()
            self.show(
                score_summary(
                    self.strings,
                    self.lang,
                    result=feedback.result,
                    hints=feedback.hints,
                    streak=feedback.streak,
                )
            )
            if feedback.level_up is not None:
                current = user.level or Level.BEGINNER
                self.say(
                    "level_up",
                    percent=percent(feedback.level_average),
                    level=level_name(self.strings, self.lang, current),
                    next=level_name(self.strings, self.lang, feedback.level_up),
                )
            self.show()
            self.say("reference_title")
            self.show(q.answer)
            self.show()
            return True
