"""A fake speech-to-text service over real HTTP: OpenAI's `POST /v1/audio/transcriptions`,
as faster-whisper-server and whisper.cpp's server also serve it.

It checks each request as those servers would read it: multipart/form-data with a `file`
part (a filename and some bytes), `model` (the one it was told to expect), `language` (zh or
en), `response_format=json`, and `Authorization: Bearer <key>` when it has a key (none
otherwise). A request that fails a check is answered 400, as OpenAI does, and kept in
`violations`, which the tests assert empty. It answers with the transcript it was given for
those bytes, or fails as told: an error status, no answer at all (the client's timeout
ends it), a body that is not JSON, or empty text.
"""

from __future__ import annotations

import asyncio
import socket
from dataclasses import dataclass, field
from typing import Literal

from aiohttp import BodyPartReader, web

Failure = Literal["status", "hang", "not_json", "empty", "no_text"]


@dataclass(frozen=True)
class SttRequest:
    """One transcription request, as read from the wire."""

    model: str
    language: str
    response_format: str
    filename: str
    content_type: str
    audio: bytes
    authorization: str | None


@dataclass
class FakeSTT:
    model: str = "whisper-test"
    api_key: str | None = "stt-key-not-real-7f3a"
    transcripts: dict[bytes, str] = field(default_factory=dict)  # audio -> what is heard
    requests: list[SttRequest] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    failure: Failure | None = None  # set: every request fails this way
    status: int = 500  # the status of failure="status"

    def __post_init__(self) -> None:
        self._runner: web.AppRunner | None = None
        self._release = asyncio.Event()  # ends requests held by failure="hang"
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/v1/audio/transcriptions", self._transcribe)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None and server.sockets
        self.port = server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        self._release.set()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _transcribe(self, request: web.Request) -> web.Response:
        try:
            heard = await self._read(request)
        except ValueError as exc:
            self.violations.append(str(exc))
            error = {"message": str(exc), "type": "invalid_request_error"}
            return web.json_response({"error": error}, status=400)
        self.requests.append(heard)
        authorization = heard.authorization
        if self.failure == "status":
            # As OpenAI's 401 does, the message quotes the key it was given: a body that must
            # never reach a log.
            message = f"model overloaded, or incorrect API key provided: {authorization}"
            return web.json_response({"error": {"message": message}}, status=self.status)
        if self.failure == "hang":
            await self._release.wait()
            return web.json_response({"text": "too late"})
        if self.failure == "not_json":
            return web.Response(text="<html>upstream error</html>", content_type="text/html")
        if self.failure == "empty":
            return web.json_response({"text": "  "})
        if self.failure == "no_text":
            return web.json_response({"segments": []})
        text = self.transcripts.get(heard.audio)
        if text is None:
            self.violations.append(f"no transcript for {heard.audio[:20]!r}")
            return web.json_response({"error": {"message": "unknown audio"}}, status=400)
        return web.json_response({"text": f" {text}"})  # whisper starts with a space

    async def _read(self, request: web.Request) -> SttRequest:
        """The request's fields, or ValueError saying what such a server would refuse."""
        authorization = request.headers.get("Authorization")
        expected = f"Bearer {self.api_key}" if self.api_key else None
        if authorization != expected:
            raise ValueError(f"Authorization {authorization!r}, expected {expected!r}")
        if not request.content_type.startswith("multipart/form-data"):
            raise ValueError(f"content type {request.content_type!r}, not multipart/form-data")
        fields: dict[str, str] = {}
        audio: tuple[str, str, bytes] | None = None
        reader = await request.multipart()
        async for part in reader:
            if not isinstance(part, BodyPartReader) or part.name is None:
                raise ValueError("a part without a name")
            if part.name == "file":
                if not part.filename:
                    raise ValueError("the file part has no filename")
                data = bytes(await part.read())
                content_type = part.headers.get("Content-Type", "")
                audio = (part.filename, content_type, data)
            else:
                fields[part.name] = await part.text()
        if audio is None or not audio[2]:
            raise ValueError("no audio in the file part")
        if fields.get("model") != self.model:
            raise ValueError(f"model {fields.get('model')!r}, expected {self.model!r}")
        if fields.get("language") not in ("zh", "en"):
            raise ValueError(f"language {fields.get('language')!r}")
        if fields.get("response_format") != "json":
            raise ValueError(f"response_format {fields.get('response_format')!r}")
        return SttRequest(
            model=fields["model"],
            language=fields["language"],
            response_format=fields["response_format"],
            filename=audio[0],
            content_type=audio[1],
            audio=audio[2],
            authorization=authorization,
        )


def closed_port_url() -> str:
    """The URL of a port on 127.0.0.1 nothing listens on: connections are refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"
