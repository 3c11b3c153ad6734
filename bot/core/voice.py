"""Voice answers' rules: whether a voice message is transcribed at all (the service set, the
recording short enough, judged before anything is downloaded), the language hint the
speech-to-text service is given, and what its answer says. Typed values, no I/O: the
service (bot/services/voice.py) does the fetching and the request."""

from __future__ import annotations

import json
from dataclasses import dataclass

__all__ = [
    "Heard",
    "NotEnabled",
    "Refused",
    "SttFailed",
    "TooLong",
    "Unfetched",
    "VoiceOutcome",
    "before_download",
    "stt_language",
    "transcript_of",
]


@dataclass(frozen=True, slots=True)
class NotEnabled:
    """No speech-to-text service is configured: voice answers are not read."""


@dataclass(frozen=True, slots=True)
class TooLong:
    """Longer than the bot transcribes: refused before it is downloaded."""

    seconds: int
    limit: int


@dataclass(frozen=True, slots=True)
class Unfetched:
    """Telegram did not hand the recording over (getFile or its download failed)."""


@dataclass(frozen=True, slots=True)
class SttFailed:
    """The speech-to-text service failed (an error status, no answer in time, a refused
    connection, an answer that is not JSON, or no words heard); `reason` is for the log."""

    reason: str


@dataclass(frozen=True, slots=True)
class Heard:
    """The recording transcribed: `text` is scored as if typed."""

    text: str


Refused = NotEnabled | TooLong
VoiceOutcome = NotEnabled | TooLong | Unfetched | SttFailed | Heard


def before_download(enabled: bool, seconds: int | None, limit: int) -> Refused | None:
    """What stops a recording before it is fetched: no service, or longer than `limit`
    seconds (Telegram says how long it is; a recording whose length it does not give is
    fetched, the service's own limits then apply)."""
    if not enabled:
        return NotEnabled()
    if seconds is not None and seconds > limit:
        return TooLong(seconds, limit)
    return None


def stt_language(lang: str) -> str:
    """The language hint for the service (ISO 639-1, as whisper takes it): the user's."""
    return "zh" if lang == "zh" else "en"


def transcript_of(body: bytes) -> str | SttFailed:
    """The text of a transcription answer (`response_format=json`: {"text": …}), or why
    there is none."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return SttFailed("the answer is not JSON")
    text = data.get("text") if isinstance(data, dict) else None
    if not isinstance(text, str):
        return SttFailed("the answer has no text")
    heard = text.strip()  # whisper starts its text with a space
    return heard if heard else SttFailed("no words were heard")
