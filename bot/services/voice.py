"""Voice answers: a recording sent as an answer becomes text, or a reason it did not.

The rules (bot/core/voice.py) say whether it is transcribed at all, before anything is
downloaded; the caller hands over how to fetch the recording (from Telegram), the client
(bot/speech.py) asks the speech-to-text service. What is heard is then answered as typed
text is, by the caller, through the same use case (Practice.answer, rounds.answer_round).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from bot.config import Settings
from bot.core.voice import (
    Heard,
    Refused,
    SttFailed,
    Unfetched,
    VoiceOutcome,
    before_download,
    stt_language,
)
from bot.speech import Transcriber

log = logging.getLogger(__name__)


class Voice:
    def __init__(self, settings: Settings) -> None:
        self.limit = settings.stt_max_seconds
        self._transcriber = (
            Transcriber(
                settings.stt_base_url,
                settings.stt_model,
                settings.stt_api_key.get_secret_value() if settings.stt_api_key else None,
                settings.stt_timeout_seconds,
            )
            if settings.stt_base_url
            else None
        )

    def refusal(self, seconds: int | None) -> Refused | None:
        """Why a recording of `seconds` is not transcribed, if it is not (before download)."""
        return before_download(self._transcriber is not None, seconds, self.limit)

    async def transcribe(
        self,
        seconds: int | None,
        fetch: Callable[[], Awaitable[bytes | None]],
        lang: str,
        filename: str,
        mime_type: str,
    ) -> VoiceOutcome:
        """The words of a recording `seconds` long, fetched with `fetch`, in language `lang`."""
        refused = self.refusal(seconds)
        if refused is not None:
            return refused
        assert self._transcriber is not None  # refusal() said it is set
        audio = await fetch()
        if audio is None:
            return Unfetched()
        heard = await self._transcriber.transcribe(audio, filename, mime_type, stt_language(lang))
        if isinstance(heard, SttFailed):
            log.warning("speech to text failed (%s s of audio): %s", seconds, heard.reason)
            return heard
        return Heard(heard)

    async def close(self) -> None:
        if self._transcriber is not None:
            await self._transcriber.close()
