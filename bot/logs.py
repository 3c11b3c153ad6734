"""Logging setup: levels, quiet HTTP loggers, and a filter that keeps secrets out of logs."""

from __future__ import annotations

import logging
import traceback
from collections.abc import Iterable
from typing import TextIO

REDACTED = "[REDACTED]"


class RedactingFilter(logging.Filter):
    """Replace every occurrence of the secrets in a record's final message and exception."""

    def __init__(self, secrets: Iterable[str]) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if s and len(s) >= 8]

    def _clean(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, REDACTED)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.secrets:
            return True
        record.msg = self._clean(record.getMessage())
        record.args = None
        if record.exc_info and record.exc_info[1] is not None:
            record.exc_text = self._clean("".join(traceback.format_exception(*record.exc_info)))
            record.exc_info = None
        return True


def configure_logging(
    level: str, secrets: Iterable[str] = (), stream: TextIO | None = None
) -> None:
    """Log to stderr at `level`; httpx/httpcore stay at WARNING (their URLs hold the token)."""
    logging.basicConfig(
        level=level,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        force=True,
        stream=stream,
    )
    for noisy in ("httpx", "httpcore"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    redact = RedactingFilter(secrets)
    for handler in logging.getLogger().handlers:
        handler.addFilter(redact)
