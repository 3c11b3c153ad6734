"""Logging setup: levels, quiet HTTP loggers, and a filter that keeps secrets out of logs."""

from __future__ import annotations

import logging
from collections.abc import Iterable

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
            import traceback

            record.exc_text = self._clean("".join(traceback.format_exception(*record.exc_info)))
            record.exc_info = None
        return True


def configure_logging(level: str, secrets: Iterable[str] = ()) -> None:
    """Log to stderr at `level`; httpx/httpcore stay at WARNING (their URLs hold the token)."""
    logging.basicConfig(
        level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", force=True
    )
    for noisy in ("httpx", "httpcore"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    redact = RedactingFilter(secrets)
    for handler in logging.getLogger().handlers:
        handler.addFilter(redact)
