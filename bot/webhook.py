"""Webhook mode: the HTTP listener Telegram posts updates to, and its lifecycle.

PTB's own webhook server reads a whole request body before it looks at the secret header,
and answers malformed JSON with 500. This listener (tornado, as PTB's) decides from the
headers alone: a request without the right secret is refused (403), one announcing more
than 1 MB is refused (413), both before a byte of the body is read; a body that grows past
the limit without announcing it is cut off. Malformed JSON or an object that is not an
update gets 400. A valid update goes to the Application's queue, where a repeated update_id
is dropped (bot/handlers/updates.py); it is recorded in the database (the inbox) before it
is answered 200, so a crash after that loses nothing: the next start handles it. GET /healthz
answers 200 while the database answers.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import signal
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any

import tornado.web
from telegram import Update
from telegram.error import BadRequest, NetworkError, RetryAfter
from telegram.ext import Application
from tornado.httpserver import HTTPServer

from bot.config import WEBHOOK_PATH, SettingRefused, Settings
from bot.incoming import readable
from bot.lifecycle import INBOX_KEY, STOP_KEY, shut_down
from bot.storage import Storage

log = logging.getLogger(__name__)

MAX_BODY = 1024 * 1024  # Telegram's updates are a few KB; 1 MB leaves room for any of them
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"  # noqa: S105 - a header name
HEALTH_PATH = "/healthz"

AnyApp = Application[Any, Any, Any, Any, Any, Any]


@tornado.web.stream_request_body
class UpdateHandler(tornado.web.RequestHandler):
    """POST /telegram: one update per request, checked from the headers in."""

    SUPPORTED_METHODS = ("POST",)

    def initialize(self, app: AnyApp, secret: str | None) -> None:
        self.app = app
        self.secret = secret
        self.body = bytearray()
        self.refusal: HTTPStatus | None = None

    def prepare(self) -> None:
        length = self.request.headers.get("Content-Length")
        try:
            announced = int(length) if length is not None else None
        except ValueError:
            announced = None
        if self.secret is not None:
            given = self.request.headers.get(SECRET_HEADER, "")
            if not hmac.compare_digest(given.encode(), self.secret.encode()):
                log.debug("webhook: no or wrong secret from %s", self.request.remote_ip)
                self.refusal = HTTPStatus.FORBIDDEN
        if self.refusal is None and announced is not None and announced > MAX_BODY:
            self.refusal = HTTPStatus.REQUEST_ENTITY_TOO_LARGE
        if self.refusal is not None and (announced is None or announced > MAX_BODY):
            # Answer now and close: the body is never read. (A small refused body is read
            # and dropped instead, so the client gets the answer rather than a reset.)
            self.set_status(self.refusal)
            self.finish()
            return
        # A chunked body has no length up front: tornado cuts it off past the limit.
        self.request.connection.set_max_body_size(MAX_BODY)  # type: ignore[union-attr]

    def data_received(self, chunk: bytes) -> None:
        if self.refusal is None:  # a refused request's bytes are dropped, never kept
            self.body.extend(chunk)

    async def post(self) -> None:
        if self.refusal is not None:
            self.set_status(self.refusal)
            self.finish()
            return
        content_type = self.request.headers.get("Content-Type", "").split(";")[0].strip()
        if content_type != "application/json":
            self.send_error(HTTPStatus.UNSUPPORTED_MEDIA_TYPE)
            return
        try:
            data = readable(json.loads(self.body))  # a lone surrogate: U+FFFD
        except (ValueError, UnicodeDecodeError):
            self.send_error(HTTPStatus.BAD_REQUEST)
            return
        if not isinstance(data, dict) or not isinstance(data.get("update_id"), int):
            self.send_error(HTTPStatus.BAD_REQUEST)
            return
        try:
            update = Update.de_json(data, self.app.bot)
        except Exception:  # PTB could not read it: the sender's fault, not ours
            log.warning("webhook: an update PTB cannot read (update_id %s)", data["update_id"])
            self.send_error(HTTPStatus.BAD_REQUEST)
            return
        self.app.bot.insert_callback_data(update)
        # In the inbox before Telegram hears 200: from then on it never sends it again.
        try:
            await self.app.bot_data[INBOX_KEY]([data])
        except Exception as exc:
            log.warning("webhook: update %s could not be recorded: %s", data["update_id"], exc)
            self.send_error(HTTPStatus.INTERNAL_SERVER_ERROR)  # Telegram sends it again
            return
        await self.app.update_queue.put(update)
        self.set_status(HTTPStatus.OK)
        self.finish()

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        self.finish()  # status only: nothing about the bot in error bodies

    def log_exception(self, *args: Any) -> None:
        log.debug("webhook request failed", exc_info=args[1] if len(args) > 1 else None)


class HealthHandler(tornado.web.RequestHandler):
    """GET /healthz: 200 while the bot runs and its database answers, else 503."""

    def initialize(self, storage: Storage) -> None:
        self.storage = storage

    async def get(self) -> None:
        try:
            healthy = await self.storage.ping()
        except Exception:
            healthy = False
        self.set_status(HTTPStatus.OK if healthy else HTTPStatus.SERVICE_UNAVAILABLE)
        self.finish("ok\n" if healthy else "database unavailable\n")


class Listener(tornado.web.Application):
    def __init__(self, app: AnyApp, storage: Storage, secret: str | None) -> None:
        super().__init__(
            [
                (rf"{WEBHOOK_PATH}/?", UpdateHandler, {"app": app, "secret": secret}),
                (HEALTH_PATH, HealthHandler, {"storage": storage}),
            ]
        )

    def log_request(self, handler: tornado.web.RequestHandler) -> None:
        """Quiet: our logging says what matters."""


async def until_telegram_answers(
    call: Callable[[], Awaitable[object]], stop: asyncio.Event, *, most: float = 30.0
) -> bool:
    """Call `call` until Telegram answers it, waiting 1, 2, 4 … up to `most` s between tries
    while it is unreachable (a network error, a 5xx, a 429); False if `stop` was set first.
    A refusal (a rejected token, a bad request) is raised at once."""
    delay = 1.0
    while not stop.is_set():
        try:
            await call()
        except BadRequest:
            raise
        except (NetworkError, RetryAfter) as exc:
            log.debug("Telegram did not answer (%s); again in %.0f s", exc, delay)
        else:
            return True
        try:
            await asyncio.wait_for(stop.wait(), delay)
        except TimeoutError:
            delay = min(delay * 2, most)
    return False


async def serve_webhook(app: AnyApp, settings: Settings, storage: Storage) -> None:
    """Run the bot on a webhook until SIGINT or SIGTERM, then stop it cleanly."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    app.bot_data[STOP_KEY] = stop.set  # a lost lease stops the run too
    secret = settings.webhook_secret_token
    secret_value = secret.get_secret_value() if secret else None
    server = HTTPServer(
        Listener(app, storage, secret_value),
        max_body_size=MAX_BODY,
        body_timeout=30,  # a client trickling its body does not hold a connection for long
        idle_connection_timeout=75,
    )
    try:
        # Started while Telegram is away: wait for it, as polling does (a signal still stops
        # it at once); the outage is logged once, by the requests themselves (delivery.py).
        if not await until_telegram_answers(app.initialize, stop):
            return
        if app.post_init:
            await app.post_init(app)
        server.listen(settings.webhook_port, address=settings.webhook_listen)

        async def register() -> None:
            try:
                await app.bot.set_webhook(
                    url=settings.telegram_webhook_url or "",
                    secret_token=secret_value,
                    allowed_updates=Update.ALL_TYPES,
                )
            except BadRequest as exc:
                raise SettingRefused("TELEGRAM_WEBHOOK_URL", exc.message) from None

        if not await until_telegram_answers(register, stop):
            return
        await app.start()
        log.info(
            "bot @%s started: webhook at %s (listening on %s:%s)", app.bot.username,
            settings.telegram_webhook_url, settings.webhook_listen, settings.webhook_port,
        )  # fmt: skip
        await stop.wait()
        log.info("stopping")
    finally:
        server.stop()
        await server.close_all_connections()
        await shut_down(app)
