"""The speech-to-text client: one request per recording to an OpenAI-compatible
`POST {STT_BASE_URL}/v1/audio/transcriptions` (faster-whisper-server, whisper.cpp's server,
OpenAI), as those servers take it: multipart/form-data with `file`, `model`, `language` and
`response_format=json`, and `Authorization: Bearer STT_API_KEY` when a key is set.

Every way it can fail comes back as one value (bot.core.voice.SttFailed) with a reason fit
for the log: the status, the kind of network error, never the key nor the service's body.
The HTTP client is made on first use and closed with the application.
"""

from __future__ import annotations

import logging

import httpx

from bot.core.voice import SttFailed, transcript_of

log = logging.getLogger(__name__)

TRANSCRIPTIONS_PATH = "/v1/audio/transcriptions"


class Transcriber:
    """Transcribes recordings through the service at `base_url` (its root)."""

    def __init__(
        self, base_url: str, model: str, api_key: str | None, timeout_seconds: float
    ) -> None:
        self.url = base_url.rstrip("/") + TRANSCRIPTIONS_PATH
        self.model = model
        self._api_key = api_key
        # A slow service is given the whole read time (a long recording takes a while);
        # one that does not even accept the connection is given up on sooner.
        self._timeout = httpx.Timeout(timeout_seconds, connect=min(10.0, timeout_seconds))
        self._client: httpx.AsyncClient | None = None

    async def transcribe(
        self, audio: bytes, filename: str, mime_type: str, language: str
    ) -> str | SttFailed:
        """The words heard in `audio`, or why there are none."""
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=self._timeout)
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        data = {"model": self.model, "language": language, "response_format": "json"}
        try:
            response = await self._client.post(
                self.url,
                data=data,
                files={"file": (filename, audio, mime_type)},
                headers=headers,
            )
        except httpx.TimeoutException:
            return SttFailed("no answer in time")
        except httpx.HTTPError as exc:  # refused, reset, DNS: the kind, not the request
            return SttFailed(f"{type(exc).__name__}")
        if response.status_code != 200:
            return SttFailed(f"HTTP {response.status_code}")
        return transcript_of(response.content)

    async def close(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None
