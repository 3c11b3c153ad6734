"""Logging setup, and keeping secrets out of every line the process writes.

The token is part of every Bot API URL (`…/bot<token>/getMe`), so it can reach the output
through httpx's request logs, an exception message (PTB's `InvalidToken` quotes it) or a
traceback. Redaction therefore happens on the final text: the formatter cleans each whole
formatted record (message, exception and stack included), and the uncaught-exception hook
cleans tracebacks that never pass through logging. Known secrets are replaced exactly; any
`bot<digits>:<secret>` URL part and anything shaped like a Bot API token is replaced too, so
a token the process was never told about is hidden as well.
"""

from __future__ import annotations

import logging
import re
import sys
import threading
import traceback
from collections.abc import Iterable
from types import TracebackType
from typing import TextIO

REDACTED = "[REDACTED]"

# `bot123456:secret` in a URL path, and a bare token: a bot id, a colon, 30+ url-safe chars.
_TOKEN_PATTERNS = (
    re.compile(r"(?<=/bot)\d+:[A-Za-z0-9_-]+"),
    re.compile(r"\bbot\d+:[A-Za-z0-9_-]+"),
    re.compile(r"\b\d{3,}:[A-Za-z0-9_-]{30,}"),
)

_secrets: set[str] = set()


def register_secrets(secrets: Iterable[str]) -> None:
    """Add values that must never be printed (shorter than 8 characters: too common to hide)."""
    _secrets.update(s for s in secrets if s and len(s) >= 8)


def redact(text: str) -> str:
    """The text with every known secret and every token-shaped string replaced."""
    for secret in sorted(_secrets, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, REDACTED)
    for pattern in _TOKEN_PATTERNS:
        text = pattern.sub(REDACTED, text)
    return text


class RedactingFormatter(logging.Formatter):
    """A formatter whose output, tracebacks and stacks included, passes through `redact`."""

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


class RedactingFilter(logging.Filter):
    """Clean a record before any handler sees it, for handlers with their own formatter."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = redact(record.getMessage())
        record.args = None
        if record.exc_info and record.exc_info[1] is not None:
            record.exc_text = redact("".join(traceback.format_exception(*record.exc_info)))
            record.exc_info = None
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


def configure_logging(
    level: str, secrets: Iterable[str] = (), stream: TextIO | None = None
) -> None:
    """Log to stderr at `level`, secrets redacted; httpx/httpcore stay at WARNING.

    httpx logs each request URL at INFO, and the URL holds the token; the formatter would
    hide it, but a line per request is noise, so those loggers stay quiet.
    """
    register_secrets(secrets)
    logging.basicConfig(level=level, force=True, stream=stream)
    formatter = RedactingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    for handler in logging.getLogger().handlers:
        handler.setFormatter(formatter)
        handler.addFilter(_drop_database_damage)  # before the redaction drops exc_info
        handler.addFilter(RedactingFilter())
    for noisy in ("httpx", "httpcore"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    if logging.getLogger().getEffectiveLevel() > logging.DEBUG:
        logging.getLogger("telegram.ext").addFilter(_drop_rejected_token)


def _drop_rejected_token(record: logging.LogRecord) -> bool:
    """PTB logs a rejected token with its whole traceback before raising it; `run` says it
    in one line (cli.py). Kept at DEBUG."""
    error = record.exc_info[1] if record.exc_info else None
    return not (error is not None and type(error).__name__ == "InvalidToken")


def _drop_database_damage(record: logging.LogRecord) -> bool:
    """A failure because the database file is damaged stops the run, and `run` says so in
    one line (bot/app.py, cli.py): the tracebacks of every task it reached on the way are
    not logged. Kept at DEBUG."""
    error = record.exc_info[1] if record.exc_info else None
    if error is None or logging.getLogger().getEffectiveLevel() <= logging.DEBUG:
        return True
    from bot.storage.files import is_damage

    return not is_damage(error)


def _print_redacted(
    kind: type[BaseException], value: BaseException, tb: TracebackType | None
) -> None:
    text = "".join(traceback.format_exception(kind, value, tb))
    sys.stderr.write(redact(text))
    sys.stderr.flush()


def _thread_hook(args: threading.ExceptHookArgs) -> None:
    if args.exc_value is not None:
        _print_redacted(args.exc_type, args.exc_value, args.exc_traceback)


def install_excepthook() -> None:
    """Uncaught exceptions (main thread and other threads) print with secrets redacted."""
    sys.excepthook = _print_redacted
    threading.excepthook = _thread_hook
