"""A fake Telegram Bot API server over real HTTP, for flow tests and benchmarks.

It speaks the Bot API's HTTP protocol on 127.0.0.1: the bot under test runs unchanged with
TELEGRAM_API_BASE_URL pointing here. It delivers injected updates through getUpdates, records
everything the bot sends, and checks each message as Telegram would: valid Telegram HTML, at
most 4,096 characters after entity parsing, callback data at most 64 bytes. Files users send
(voice messages, audio) are served as Telegram serves them: getFile gives a path, and
`/file/bot<token>/<path>` its bytes. A message that
fails is answered with Telegram's 400 and kept in `violations`, which the tests assert empty.
Faults (429, 403, 400, 5xx, group migration, latency) can be injected per method and chat,
and outages for everyone: the port closed (connections refused) for a while, every method
answering 502 for a while, or sendMessage requests recorded and then never answered (hang).
A 429 holds its chat as Telegram's flood control does: what is sent to that chat before its
`retry_after` has passed is refused with 429 again (each counted in `floods`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import math
import re
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

ALLOWED_TAGS = {
    "b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "span", "tg-spoiler",
    "a", "code", "pre", "blockquote", "tg-emoji",
}  # fmt: skip
_TAG_RE = re.compile(
    r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z-]+(?:=\"[^\"<>]*\"|='[^'<>]*')?)*)\s*>"
)
_ENTITY_RE = re.compile(r"&(lt|gt|amp|quot|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});")
_ENTITY_VALUES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}


class ApiError(Exception):
    """A request Telegram refuses in normal use (not a malformed message): no violation."""

    def __init__(self, status: int, description: str) -> None:
        super().__init__(description)
        self.status = status
        self.description = description


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def parse_telegram_html(text: str) -> str:
    """Return the visible text of Telegram HTML, or raise ValueError as Telegram would."""
    out: list[str] = []
    stack: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "<":
            m = _TAG_RE.match(text, i)
            if not m:
                raise ValueError(f"can't parse entities: unsupported start tag at byte offset {i}")
            closing, name, _attrs = m.group(1), m.group(2).lower(), m.group(3)
            if name not in ALLOWED_TAGS:
                raise ValueError(f'can\'t parse entities: unsupported start tag "{name}"')
            if closing:
                if not stack or stack[-1] != name:
                    raise ValueError(f'can\'t parse entities: unmatched end tag "{name}"')
                stack.pop()
            else:
                stack.append(name)
            i = m.end()
        elif ch == "&":
            m = _ENTITY_RE.match(text, i)
            if not m:
                raise ValueError(f"can't parse entities: bare '&' at offset {i}")
            name = m.group(1)
            if name.startswith("#x"):
                out.append(chr(int(name[2:], 16)))
            elif name.startswith("#"):
                out.append(chr(int(name[1:])))
            else:
                out.append(_ENTITY_VALUES[name])
            i = m.end()
        elif ch == ">":
            raise ValueError(f"can't parse entities: bare '>' at offset {i}")
        else:
            out.append(ch)
            i += 1
    if stack:
        raise ValueError(f'can\'t parse entities: unclosed tag "{stack[-1]}"')
    return "".join(out)


@dataclass
class FakeUser:
    id: int
    first_name: str = "Ada"
    language_code: str | None = "en"
    username: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "is_bot": False, "first_name": self.first_name}
        if self.language_code:
            data["language_code"] = self.language_code
        if self.username:
            data["username"] = self.username
        return data


@dataclass
class Sent:
    """One message (or edit, photo, document) the bot sent."""

    method: str
    chat_id: int
    message_id: int
    text: str
    params: dict[str, Any]
    at: float

    @property
    def visible(self) -> str:
        return (
            parse_telegram_html(self.text) if self.params.get("parse_mode") == "HTML" else self.text
        )

    @property
    def buttons(self) -> list[tuple[str, str]]:
        markup = self.params.get("reply_markup") or {}
        return [
            (b.get("text", ""), b.get("callback_data", ""))
            for row in markup.get("inline_keyboard", [])
            for b in row
        ]


@dataclass
class Fault:
    method: str
    chat_id: int | None
    status: int
    description: str
    times: int
    retry_after: int | None = None
    migrate_to_chat_id: int | None = None
    containing: str | None = None  # only requests whose text holds this (one message of several)


@dataclass
class FakeBotAPI:
    token: str = "123456:TEST-token-not-real"
    latency: float = 0.0
    bot_id: int = 123456
    sent: list[Sent] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    calls: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    arrivals: list[str] = field(default_factory=list)  # every method called, in order
    admins: dict[int, set[int]] = field(default_factory=dict)  # chat -> admin user ids
    # getUpdates per replica (`replica_url`'s name; "" for `base_url`).
    polls: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    # sendMessage requests that arrived per replica (as `polls`).
    sends_by: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def __post_init__(self) -> None:
        self._updates: list[dict[str, Any]] = []
        self._pushed: dict[int, dict[str, Any]] = {}
        self._replays: list[dict[str, Any]] = []  # delivered once, whatever the offset
        self._update_ids = itertools.count(1)
        self._message_ids: dict[int, itertools.count[int]] = defaultdict(lambda: itertools.count(1))
        self._new_update = asyncio.Event()
        self._new_sent = asyncio.Event()
        self._faults: dict[tuple[str, int | None], list[Fault]] = {}
        self._runner: web.AppRunner | None = None
        self.port = 0
        self.requests = 0
        self.webhook: dict[str, Any] | None = None
        self.callback_answers: list[str] = []  # texts of answerCallbackQuery (toasts)
        # What each message shows now, as Telegram keeps it: an edit that changes nothing is
        # refused with 400 "message is not modified", as the real server does.
        self._shown: dict[tuple[int, int], tuple[str, Any]] = {}
        # Every setMyCommands / setMyDescription / setMyShortDescription call, in order.
        self.commands: list[dict[str, Any]] = []
        self.descriptions: dict[tuple[str, str | None], str] = {}
        self._site: web.TCPSite | None = None
        self._bad_gateway_until = 0.0  # loop time until which every method answers 502
        self._bad_gateway_html = False  # those 502s with an HTML page (a front end's)
        self._hang = asyncio.Event()  # set: sendMessage is answered; clear: it hangs
        self._hang.set()
        self.hanging = 0  # sendMessage requests recorded and held unanswered right now
        self._hang_only: set[int] | None = None  # the chats that hang (None: every chat)
        # Requests other than getUpdates being answered right now, and the most at once.
        self.in_flight = 0
        self.most_in_flight = 0
        self.bad_gateways: dict[str, int] = defaultdict(int)  # 502s answered, per method
        # Requests that arrived whole but were never read: their client closed the connection
        # before the handler got to the body (aiohttp then drops it), per method.
        self.unread: dict[str, int] = defaultdict(int)
        self.refused_since: float | None = None
        # Files users sent, by file_id (getFile hands out a path; the path is downloaded).
        self.files: dict[str, bytes] = {}
        self._file_paths: dict[str, str] = {}  # file_path -> file_id
        self.downloads: list[str] = []  # file_ids downloaded, in order
        # Flood control: chat -> loop time until which sends to it are refused with 429, and
        # the 429s answered per chat (injected ones and those of the wait).
        self._flood_until: dict[int, float] = {}
        self.floods: dict[int, int] = defaultdict(int)

    # -- lifecycle ---------------------------------------------------------------------------

    async def _control_stats(self, request: web.Request) -> web.Response:
        """For benchmarks running the server in another process: what arrived, per chat."""
        per_chat: dict[int, int] = defaultdict(int)
        for sent in self.sent:
            if sent.method == "sendMessage":
                per_chat[sent.chat_id] += 1
        return web.json_response(
            {"per_chat": per_chat, "violations": self.violations, "calls": self.calls}
        )

    async def _control_wait_sent(self, request: web.Request) -> web.Response:
        """For benchmarks: answer once `total` messages have been sent (or after `timeout`
        seconds), with the stats; the client waits on its socket instead of polling from
        the process it measures."""
        total = int(request.query["total"])
        loop = asyncio.get_running_loop()
        deadline = loop.time() + float(request.query.get("timeout", "120"))
        while sum(1 for s in self.sent if s.method == "sendMessage") < total:
            if loop.time() > deadline:
                return web.json_response({"timed_out": True}, status=504)
            await asyncio.sleep(0.001)
        return await self._control_stats(request)

    async def _control_fail(self, request: web.Request) -> web.Response:
        for fault in await request.json():
            self.fail(**fault)
        return web.json_response({"ok": True})

    async def _control_messages(self, request: web.Request) -> web.Response:
        """Messages from users, in order: [{"user_id": …, "name": …, "text": …}, …]."""
        for item in await request.json():
            self.message(FakeUser(int(item["user_id"]), str(item["name"])), str(item["text"]))
        return web.json_response({"ok": True})

    async def _control_outage(self, request: web.Request) -> web.Response:
        """Refuse connections for `refuse` s, then answer 502 for `bad_gateway` s.

        The control endpoint itself lives on a second port (`control_port`), which stays up.
        """
        body = await request.json()
        asyncio.get_running_loop().create_task(
            self.outage(float(body.get("refuse", 0)), float(body.get("bad_gateway", 0)))
        )
        return web.json_response({"ok": True})

    async def start(self, port: int = 0) -> None:
        app = web.Application(client_max_size=60 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        # A replica's own path (`replica_url`): the same bot, its requests told apart.
        app.router.add_route("*", "/r/{replica}/bot{token}/{method}", self._handle)
        app.router.add_get("/file/bot{token}/{path:.+}", self._download)
        app.router.add_get("/_control/stats", self._control_stats)
        app.router.add_get("/_control/wait_sent", self._control_wait_sent)
        app.router.add_post("/_control/fail", self._control_fail)
        app.router.add_post("/_control/outage", self._control_outage)
        app.router.add_post("/_control/messages", self._control_messages)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        self._site = web.TCPSite(self._runner, "127.0.0.1", port)
        await self._site.start()
        server = self._site._server
        assert server is not None and server.sockets
        self.port = server.sockets[0].getsockname()[1]
        # A second listener for control requests, which stays up while the API port is closed.
        self._control_site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await self._control_site.start()
        control = self._control_site._server
        assert control is not None and control.sockets
        self.control_port = control.sockets[0].getsockname()[1]

    # -- outages -------------------------------------------------------------------------------

    async def close_port(self) -> None:
        """Stop listening and drop open connections: the bot's requests are refused."""
        assert self._site is not None and self._runner is not None
        self.refused_since = time.monotonic()
        await self._site.stop()
        server = self._runner.server
        if server is not None:
            for connection in list(server.connections):
                connection.force_close()
        self._new_update.set()  # a long poll in progress ends (its connection is gone)

    async def open_port(self) -> None:
        assert self._runner is not None
        self._site = web.TCPSite(self._runner, "127.0.0.1", self.port, reuse_address=True)
        await self._site.start()
        self.refused_since = None

    def bad_gateway(self, seconds: float, *, html: bool = False) -> None:
        """Every method answers 502 Bad Gateway for `seconds` (Telegram's front is up, the API
        behind it is not); with `html`, as a front end does, with an HTML page, not JSON."""
        self._bad_gateway_until = asyncio.get_running_loop().time() + seconds
        self._bad_gateway_html = html

    async def outage(self, refuse: float, bad_gateway: float = 0.0) -> None:
        """Connections refused for `refuse` s, then 502s for `bad_gateway` s, then normal."""
        if refuse > 0:
            await self.close_port()
            await asyncio.sleep(refuse)
            await self.open_port()
        if bad_gateway > 0:
            self.bad_gateway(bad_gateway)
            await asyncio.sleep(bad_gateway)

    def hang(self, chat_ids: set[int] | None = None) -> None:
        """From now on sendMessage is recorded (it reached Telegram) but never answered; into
        `chat_ids` only, when given."""
        self._hang_only = chat_ids
        self._hang.clear()

    def unhang(self) -> None:
        self._hang.set()
        self._hang_only = None

    async def stop(self) -> None:
        self._new_update.set()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/bot"

    def replica_url(self, name: str) -> str:
        """TELEGRAM_API_BASE_URL for one of several processes of this bot: the same bot,
        whose getUpdates are counted per name (`polls`)."""
        return f"http://127.0.0.1:{self.port}/r/{name}/bot"

    # -- injecting updates -------------------------------------------------------------------

    def push(self, **update: Any) -> int:
        update_id = next(self._update_ids)
        self._updates.append({"update_id": update_id, **update})
        self._pushed[update_id] = self._updates[-1]
        self._new_update.set()
        return update_id

    @property
    def unconfirmed(self) -> int:
        """Updates the bot has not confirmed yet (a getUpdates with a later offset did):
        Telegram would deliver these again; the confirmed ones never."""
        return len(self._updates)

    def replay(self, update_id: int) -> None:
        """Deliver an update again with its own update_id (a redelivery after a restart)."""
        self._replays.append(self._pushed[update_id])
        self._new_update.set()

    def next_message_id(self, chat_id: int) -> int:
        return next(self._message_ids[chat_id])

    @staticmethod
    def chat(
        chat_id: int, user: FakeUser | None = None, title: str = "Study group"
    ) -> dict[str, Any]:
        if chat_id > 0 and user is not None:
            return {"id": chat_id, "type": "private", "first_name": user.first_name}
        return {
            "id": chat_id,
            "type": "supergroup" if chat_id < -(10**12) else "group",
            "title": title,
        }

    def message(
        self,
        user: FakeUser,
        text: str | None = None,
        *,
        chat_id: int | None = None,
        reply_to: int | None = None,
        extra: dict[str, Any] | None = None,
        edited_from: int | None = None,
    ) -> int:
        """Push a message (or an edit of message `edited_from`); return its message id."""
        chat_id = user.id if chat_id is None else chat_id
        message_id = edited_from or self.next_message_id(chat_id)
        msg: dict[str, Any] = {
            "message_id": message_id,
            "date": int(time.time()),
            "chat": self.chat(chat_id, user),
            "from": user.to_dict(),
        }
        if text is not None:
            msg["text"] = text
            if text.startswith("/"):
                command = text.split()[0]
                msg["entities"] = [{"type": "bot_command", "offset": 0, "length": len(command)}]
        if reply_to is not None:
            # As Telegram does: the replied-to message carries its real sender, the bot only
            # for messages the bot sent; anything else was a person's.
            original = self.find(chat_id, reply_to)
            sender = (
                {"id": self.bot_id, "is_bot": True, "first_name": "Interview Bot"}
                if original is not None
                else {"id": 777000 + reply_to, "is_bot": False, "first_name": "Someone"}
            )
            msg["reply_to_message"] = {
                "message_id": reply_to,
                "date": int(time.time()),
                "chat": self.chat(chat_id, user),
                "from": sender,
                "text": original.visible if original else "a member's message",
            }
        if extra:
            msg.update(extra)
        if edited_from is not None:
            msg["edit_date"] = int(time.time())
            self.push(edited_message=msg)
        else:
            self.push(message=msg)
        return message_id

    def sticker(self, user: FakeUser, chat_id: int | None = None) -> int:
        sticker = {
            "file_id": "CAACAgIAAxkBAAE", "file_unique_id": "AgAD", "type": "regular",
            "width": 512, "height": 512, "is_animated": False, "is_video": False, "emoji": "👍",
        }  # fmt: skip
        return self.message(user, chat_id=chat_id, extra={"sticker": sticker})

    def photo(
        self, user: FakeUser, chat_id: int | None = None, caption: str | None = "my answer"
    ) -> int:
        size = {"file_id": "AgACAgIAAxk", "file_unique_id": "AQAD", "width": 90, "height": 90}
        extra: dict[str, Any] = {"photo": [size]}
        if caption is not None:
            extra["caption"] = caption
        return self.message(user, chat_id=chat_id, extra=extra)

    def voice(
        self,
        user: FakeUser,
        chat_id: int | None = None,
        *,
        audio: bytes = b"OggS-voice",
        duration: int = 3,
        reply_to: int | None = None,
    ) -> int:
        """A voice message (OGG/Opus, as phones record) whose file holds `audio`."""
        file_id = self._keep_file(audio)
        voice = {
            "file_id": file_id, "file_unique_id": file_id[-8:], "duration": duration,
            "mime_type": "audio/ogg", "file_size": len(audio),
        }  # fmt: skip
        return self.message(user, chat_id=chat_id, reply_to=reply_to, extra={"voice": voice})

    def audio(
        self,
        user: FakeUser,
        chat_id: int | None = None,
        *,
        audio: bytes = b"ID3-audio",
        duration: int = 3,
        file_name: str = "answer.mp3",
        mime_type: str = "audio/mpeg",
    ) -> int:
        """An audio file (a recording shared from another app) whose file holds `audio`."""
        file_id = self._keep_file(audio)
        data = {
            "file_id": file_id, "file_unique_id": file_id[-8:], "duration": duration,
            "file_name": file_name, "mime_type": mime_type, "file_size": len(audio),
        }  # fmt: skip
        return self.message(user, chat_id=chat_id, extra={"audio": data})

    def _keep_file(self, data: bytes) -> str:
        file_id = f"AwACAgIAAxk{len(self.files):06d}"
        self.files[file_id] = data
        return file_id

    def callback(self, user: FakeUser, data: str, message: Sent) -> None:
        """A tap on a button of `message`, which carries its keyboard as Telegram shows it now."""
        shown: dict[str, Any] = {
            "message_id": message.message_id,
            "date": int(time.time()),
            "chat": self.chat(message.chat_id, user),
            "from": {"id": self.bot_id, "is_bot": True, "first_name": "Interview Bot"},
            "text": message.visible,
        }
        _, keyboard = self._shown.get((message.chat_id, message.message_id), ("", None))
        if keyboard:
            shown["reply_markup"] = {"inline_keyboard": keyboard}
        self.push(
            callback_query={
                "id": str(next(self._update_ids)),
                "from": user.to_dict(),
                "chat_instance": "ci",
                "data": data,
                "message": shown,
            }
        )

    def keyboard(self, chat_id: int, message_id: int) -> list[tuple[str, str]]:
        """The buttons a message shows now, after any edits: (text, callback data)."""
        _, keyboard = self._shown.get((chat_id, message_id), ("", None))
        return [
            (b.get("text", ""), b.get("callback_data", "")) for row in keyboard or [] for b in row
        ]

    def my_chat_member(
        self, user: FakeUser, chat_id: int, old: str, new: str, title: str = "Study group"
    ) -> None:
        bot = {"id": self.bot_id, "is_bot": True, "first_name": "Interview Bot"}

        def member(status: str) -> dict[str, Any]:
            data: dict[str, Any] = {"status": status, "user": bot}
            if status == "kicked":
                data["until_date"] = 0
            if status == "administrator":
                data.update(
                    can_be_edited=False, is_anonymous=False, can_manage_chat=True,
                    can_delete_messages=True, can_manage_video_chats=True,
                    can_restrict_members=True, can_promote_members=False, can_change_info=True,
                    can_invite_users=True, can_post_stories=False, can_edit_stories=False,
                    can_delete_stories=False,
                )  # fmt: skip
            return data

        self.push(
            my_chat_member={
                "chat": self.chat(chat_id, user, title),
                "from": user.to_dict(),
                "date": int(time.time()),
                "old_chat_member": member(old),
                "new_chat_member": member(new),
            }
        )

    # -- faults --------------------------------------------------------------------------------

    def fail(
        self,
        method: str,
        status: int,
        *,
        chat_id: int | None = None,
        times: int = 1,
        retry_after: int | None = None,
        migrate_to_chat_id: int | None = None,
        description: str | None = None,
        containing: str | None = None,
    ) -> None:
        default = {
            400: "Bad Request: message text is empty",
            403: "Forbidden: bot was blocked by the user",
            429: f"Too Many Requests: retry after {retry_after}",
            500: "Internal Server Error",
            502: "Bad Gateway",
        }.get(status, "Error")
        if migrate_to_chat_id is not None:
            default = "Bad Request: group chat was upgraded to a supergroup chat"
        fault = Fault(
            method,
            chat_id,
            status,
            description or default,
            times,
            retry_after,
            migrate_to_chat_id,
            containing,
        )
        self._faults.setdefault((method, chat_id), []).append(fault)

    def clear_faults(self) -> None:
        """Answer every request normally again."""
        self._faults.clear()

    def _take_fault(self, method: str, chat_id: int | None, text: str = "") -> Fault | None:
        for key in ((method, chat_id), (method, None)):
            for fault in self._faults.get(key, ()):
                if fault.containing is not None and fault.containing not in text:
                    continue
                if fault.times > 0:
                    fault.times -= 1
                    return fault
        return None

    # -- reading what the bot sent -----------------------------------------------------------

    def to(self, chat_id: int) -> list[Sent]:
        return [s for s in self.sent if s.chat_id == chat_id]

    def find(self, chat_id: int, message_id: int) -> Sent | None:
        for s in reversed(self.sent):
            if s.chat_id == chat_id and s.message_id == message_id:
                return s
        return None

    async def wait_for(self, chat_id: int, count: int, timeout: float = 10.0) -> list[Sent]:  # noqa: ASYNC109
        """Wait until `count` messages were sent to `chat_id`; return them all."""
        deadline = asyncio.get_running_loop().time() + timeout
        while len(self.to(chat_id)) < count:
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                got = [s.visible[:80] for s in self.to(chat_id)]
                raise AssertionError(f"expected {count} messages to {chat_id}, got {got}")
            self._new_sent.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._new_sent.wait(), remaining)
        return self.to(chat_id)

    # -- the HTTP side -----------------------------------------------------------------------

    async def _params(self, request: web.Request) -> dict[str, Any]:
        if request.content_type == "application/json":
            body = await request.json()
            return dict(body) if isinstance(body, dict) else {}
        params: dict[str, Any] = {}
        if request.content_type.startswith("multipart/"):
            reader = await request.multipart()
            async for part in reader:
                if part.name is None:
                    continue
                if getattr(part, "filename", None):
                    params[part.name] = bytes(await part.read())  # type: ignore[union-attr]
                else:
                    params[part.name] = await part.text()  # type: ignore[union-attr]
        else:
            form = await request.post()
            params = {k: v for k, v in form.items()}
        for key, value in list(params.items()):
            if isinstance(value, str) and value[:1] in "[{":
                with contextlib.suppress(json.JSONDecodeError):
                    params[key] = json.loads(value)
        return params

    async def _handle(self, request: web.Request) -> web.Response:
        self.requests += 1
        if request.match_info["token"] != self.token:
            return web.json_response(
                {"ok": False, "error_code": 401, "description": "Unauthorized"}, status=401
            )
        method = request.match_info["method"]
        try:
            params = await self._params(request)
        except ConnectionError:
            # The client went away after sending: aiohttp refuses to read the body then,
            # even when all of it is here. Counted: that request did reach the server.
            if request.content.is_eof():
                self.unread[method] += 1
            raise
        self.calls[method] += 1
        self.arrivals.append(method)
        if asyncio.get_running_loop().time() < self._bad_gateway_until:
            self.bad_gateways[method] += 1
            if self._bad_gateway_html:
                return web.Response(text=_BAD_GATEWAY_PAGE, status=502, content_type="text/html")
            return web.json_response(
                {"ok": False, "error_code": 502, "description": "Bad Gateway"}, status=502
            )
        if method == "getUpdates":
            self.polls[request.match_info.get("replica", "")] += 1
            # A fault injected for polling itself (a revoked token answers 401 here).
            polled = self._take_fault(method, None)
            if polled is not None:
                return web.json_response(
                    {"ok": False, "error_code": polled.status, "description": polled.description},
                    status=polled.status,
                )
            return self._ok(await self._get_updates(params))
        if method == "sendMessage":
            self.sends_by[request.match_info.get("replica", "")] += 1
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            return await self._answer(method, params)
        finally:
            self.in_flight -= 1

    async def _answer(self, method: str, params: dict[str, Any]) -> web.Response:
        if self.latency:
            await asyncio.sleep(self.latency)
        chat_id = _int(params.get("chat_id"))
        fault = self._take_fault(method, chat_id, str(params.get("text") or ""))
        now = asyncio.get_running_loop().time()
        held = self._flood_until.get(chat_id) if chat_id is not None else None
        if fault is None and held is not None and now < held and method.startswith("send"):
            fault = Fault(method, chat_id, 429, "", 0, retry_after=math.ceil(held - now))
            fault.description = f"Too Many Requests: retry after {fault.retry_after}"
        if fault is not None and fault.status == 429 and chat_id is not None:
            self.floods[chat_id] += 1
            if fault.retry_after is not None:
                self._flood_until[chat_id] = max(held or now, now + fault.retry_after)
        if fault is not None:
            body: dict[str, Any] = {
                "ok": False, "error_code": fault.status, "description": fault.description,
            }  # fmt: skip
            parameters: dict[str, Any] = {}
            if fault.retry_after is not None:
                parameters["retry_after"] = fault.retry_after
            if fault.migrate_to_chat_id is not None:
                parameters["migrate_to_chat_id"] = fault.migrate_to_chat_id
            if parameters:
                body["parameters"] = parameters
            return web.json_response(body, status=fault.status)
        handler = getattr(self, f"_m_{method}", None)
        if handler is None:
            return web.json_response(
                {"ok": False, "error_code": 404, "description": "Not Found: method not found"},
                status=404,
            )
        try:
            result = handler(params)
        except ApiError as exc:
            return web.json_response(
                {"ok": False, "error_code": exc.status, "description": exc.description},
                status=exc.status,
            )
        except ValueError as exc:
            self.violations.append(f"{method} to {chat_id}: {exc}")
            return web.json_response(
                {"ok": False, "error_code": 400, "description": f"Bad Request: {exc}"}, status=400
            )
        if (
            method == "sendMessage"
            and not self._hang.is_set()
            and (self._hang_only is None or chat_id in self._hang_only)
        ):
            self.hanging += 1  # recorded above: it arrived; the answer never comes
            try:
                await self._hang.wait()
            finally:
                self.hanging -= 1
        return self._ok(result)

    @staticmethod
    def _ok(result: Any) -> web.Response:
        return web.json_response({"ok": True, "result": result})

    async def _get_updates(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        offset = _int(params.get("offset")) or 0
        timeout = float(params.get("timeout") or 0)
        limit = _int(params.get("limit")) or 100
        self._updates = [u for u in self._updates if u["update_id"] >= offset]
        if not self._updates and not self._replays and timeout > 0:
            self._new_update.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._new_update.wait(), timeout)
        replays, self._replays = self._replays, []
        return replays + self._updates[:limit]

    def _bot_user(self) -> dict[str, Any]:
        return {
            "id": self.bot_id, "is_bot": True, "first_name": "Interview Bot",
            "username": "interview_test_bot", "can_join_groups": True,
            "can_read_all_group_messages": False, "supports_inline_queries": False,
        }  # fmt: skip

    def _record(
        self, method: str, chat_id: int, text: str, params: dict[str, Any]
    ) -> dict[str, Any]:
        message_id = _int(params.get("message_id")) or self.next_message_id(chat_id)
        key = (chat_id, message_id)
        if method == "editMessageReplyMarkup":
            shown = self._shown.get(key, ("", None))
            self._shown[key] = (shown[0], _markup(params))
        elif method in ("sendMessage", "editMessageText"):
            self._shown[key] = (text, _markup(params))
        self.sent.append(Sent(method, chat_id, message_id, text, params, time.monotonic()))
        self._new_sent.set()
        chat: dict[str, Any] = {"id": chat_id, "type": "private" if chat_id > 0 else "group"}
        if chat_id < 0:
            chat["title"] = "Study group"
        else:
            chat["first_name"] = "User"
        message: dict[str, Any] = {
            "message_id": message_id, "date": int(time.time()), "chat": chat,
            "from": self._bot_user(),
        }  # fmt: skip
        if text:
            message["text" if method != "sendPhoto" else "caption"] = text
        return message

    def _check_text(self, text: str, params: dict[str, Any], limit: int = 4096) -> None:
        visible = parse_telegram_html(text) if params.get("parse_mode") == "HTML" else text
        if not visible.strip():
            raise ValueError("message text is empty")
        if utf16_len(visible) > limit:
            raise ValueError(f"message is too long ({utf16_len(visible)} > {limit})")
        markup = params.get("reply_markup")
        if isinstance(markup, dict):
            for row in markup.get("inline_keyboard", []):
                for button in row:
                    data = button.get("callback_data")
                    if data is not None and not 1 <= len(data.encode()) <= 64:
                        raise ValueError(f"BUTTON_DATA_INVALID: {len(data.encode())} bytes")
                    if not button.get("text"):
                        raise ValueError("BUTTON_TEXT_EMPTY")

    # Bot API methods (names after the prefix are Telegram's own).

    def _m_getMe(self, params: dict[str, Any]) -> dict[str, Any]:
        return self._bot_user()

    def _m_deleteWebhook(self, params: dict[str, Any]) -> bool:
        self.webhook = None
        return True

    def _m_setWebhook(self, params: dict[str, Any]) -> bool:
        self.webhook = {k: v for k, v in params.items() if k != "certificate"}
        return True

    def _m_setMyCommands(self, params: dict[str, Any]) -> bool:
        for command in params.get("commands", []):
            if not 1 <= len(command.get("description", "")) <= 256:
                raise ValueError("command description must be 1-256 characters")
            if not re.fullmatch(r"[a-z0-9_]{1,32}", command.get("command", "")):
                raise ValueError("BOT_COMMAND_INVALID")
        self.commands.append(
            {
                "scope": (params.get("scope") or {}).get("type", "default"),
                "language_code": params.get("language_code") or None,
                "commands": [c["command"] for c in params.get("commands", [])],
                "descriptions": [c["description"] for c in params.get("commands", [])],
            }
        )
        return True

    def menu(self, scope: str, language_code: str | None) -> list[str]:
        """The commands last registered for a scope and language (as a client would show)."""
        for call in reversed(self.commands):
            if call["scope"] == scope and call["language_code"] == language_code:
                return list(call["commands"])
        raise AssertionError(f"no menu registered for {scope} / {language_code}")

    def _m_setMyDescription(self, params: dict[str, Any]) -> bool:
        text = str(params.get("description", ""))
        if len(text) > 512:
            raise ValueError("description must be at most 512 characters")
        self.descriptions[("description", params.get("language_code") or None)] = text
        return True

    def _m_setMyShortDescription(self, params: dict[str, Any]) -> bool:
        text = str(params.get("short_description", ""))
        if len(text) > 120:
            raise ValueError("short description must be at most 120 characters")
        self.descriptions[("short", params.get("language_code") or None)] = text
        return True

    def _m_sendMessage(self, params: dict[str, Any]) -> dict[str, Any]:
        text = str(params.get("text", ""))
        self._check_text(text, params)
        return self._record("sendMessage", int(params["chat_id"]), text, params)

    def _not_modified(self, params: dict[str, Any], text: str | None) -> None:
        key = (int(params["chat_id"]), _int(params.get("message_id")) or 0)
        shown = self._shown.get(key)
        if shown is None:
            return
        same_text = text is None or text == shown[0]
        if same_text and _markup(params) == shown[1]:
            raise ApiError(
                400,
                "Bad Request: message is not modified: specified new message content and reply "
                "markup are exactly the same as a current content and reply markup of the message",
            )

    def _m_editMessageText(self, params: dict[str, Any]) -> dict[str, Any]:
        text = str(params.get("text", ""))
        self._check_text(text, params)
        self._not_modified(params, text)
        return self._record("editMessageText", int(params["chat_id"]), text, params)

    def _m_editMessageReplyMarkup(self, params: dict[str, Any]) -> dict[str, Any]:
        self._not_modified(params, None)
        return self._record("editMessageReplyMarkup", int(params["chat_id"]), "", params)

    def _m_answerCallbackQuery(self, params: dict[str, Any]) -> bool:
        self.callback_answers.append(str(params.get("text", "")))
        return True

    def _m_setMessageReaction(self, params: dict[str, Any]) -> bool:
        self.sent.append(
            Sent("setMessageReaction", int(params["chat_id"]), int(params["message_id"]),
                 json.dumps(params.get("reaction"), ensure_ascii=False), params, time.monotonic())
        )  # fmt: skip
        self._new_sent.set()
        return True

    def _m_sendPhoto(self, params: dict[str, Any]) -> dict[str, Any]:
        caption = str(params.get("caption", ""))
        if caption:
            self._check_text(caption, params, limit=1024)
        if not isinstance(params.get("photo"), bytes | str):
            raise ValueError("photo is missing")
        return self._record("sendPhoto", int(params["chat_id"]), caption, params)

    def _m_sendDocument(self, params: dict[str, Any]) -> dict[str, Any]:
        caption = str(params.get("caption", ""))
        if caption:
            self._check_text(caption, params, limit=1024)
        return self._record("sendDocument", int(params["chat_id"]), caption, params)

    def _m_getFile(self, params: dict[str, Any]) -> dict[str, Any]:
        file_id = str(params.get("file_id", ""))
        if file_id not in self.files:
            raise ApiError(400, "Bad Request: invalid file_id")
        path = f"voice/file_{len(self._file_paths)}.oga"
        self._file_paths[path] = file_id
        return {
            "file_id": file_id, "file_unique_id": file_id[-8:],
            "file_size": len(self.files[file_id]), "file_path": path,
        }  # fmt: skip

    async def _download(self, request: web.Request) -> web.Response:
        """A file's download URL (`/file/bot<token>/<file_path>`), as getFile gave it."""
        self.requests += 1
        if request.match_info["token"] != self.token:
            return web.Response(status=401, text="Unauthorized")
        file_id = self._file_paths.get(request.match_info["path"])
        if file_id is None:
            return web.Response(status=404, text="Not Found")
        self.downloads.append(file_id)
        return web.Response(body=self.files[file_id], content_type="application/octet-stream")

    def _m_getChatMember(self, params: dict[str, Any]) -> dict[str, Any]:
        chat_id, user_id = int(params["chat_id"]), int(params["user_id"])
        status = "administrator" if user_id in self.admins.get(chat_id, set()) else "member"
        user = {"id": user_id, "is_bot": False, "first_name": f"user{user_id}"}
        data: dict[str, Any] = {"status": status, "user": user}
        if status == "administrator":
            data.update(
                can_be_edited=False, is_anonymous=False, can_manage_chat=True,
                can_delete_messages=True, can_manage_video_chats=True, can_restrict_members=True,
                can_promote_members=False, can_change_info=True, can_invite_users=True,
                can_post_stories=False, can_edit_stories=False, can_delete_stories=False,
            )  # fmt: skip
        return data


_BAD_GATEWAY_PAGE = (
    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n"
    "</body>\r\n</html>\r\n"
)


def _markup(params: dict[str, Any]) -> Any:
    """A message's inline keyboard, or None when it has none (an empty one counts as none)."""
    markup = params.get("reply_markup")
    if not markup or not markup.get("inline_keyboard"):
        return None
    return markup["inline_keyboard"]


def _int(value: Any) -> int | None:
    if value is None or value == "":
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


async def _serve_forever(port: int, latency: float) -> None:
    api = FakeBotAPI(latency=latency)
    await api.start(port)
    print(
        f"fake Bot API on {api.base_url} token {api.token} control {api.control_port}",
        flush=True,
    )
    await asyncio.Event().wait()


if __name__ == "__main__":
    # Standalone, for benchmarks that keep the server's CPU apart from the bot's.
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--latency", type=float, default=0.0)
    options = parser.parse_args()
    asyncio.run(_serve_forever(options.port, options.latency))
