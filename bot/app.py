"""The composition root: builds the Application, registers every handler, owns the lifecycle."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import random
import signal
import sqlite3
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from typing import Any

import httpx
from telegram import Update
from telegram.constants import ParseMode
from telegram.error import InvalidToken, NetworkError
from telegram.ext import (
    Application,
    ApplicationBuilder,
    BaseUpdateProcessor,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    Defaults,
    ExtBot,
    MessageHandler,
    TypeHandler,
    filters,
)
from telegram.request import HTTPXRequest

from bot.config import Settings
from bot.core.content import Library
from bot.core.reminders import ReminderRule
from bot.core.yamlcache import YamlCache
from bot.delivery import reachability, trace_requests, when_written
from bot.handlers import (
    daily,
    errors,
    groups,
    interview,
    membership,
    menus,
    packs,
    private,
    updates,
)
from bot.handlers import settings as settings_handlers
from bot.handlers.common import HELD_KEY, SERVICES_KEY, TAKEN_KEY, BotContext, load_context
from bot.i18n import Strings
from bot.incoming import TolerantBot, quiet_raw_batches
from bot.jobs.clock import SteadyClock
from bot.jobs.daily import DailySender
from bot.jobs.lease import Lease, LeaseTaken, stand_by
from bot.jobs.outbox import OutboxSender
from bot.jobs.retention import prune_forever
from bot.lifecycle import INBOX_KEY, STOP_KEY, shut_down
from bot.logs import configure_logging
from bot.ratelimit import REPLIES_IN_FLIGHT, CappedRequest, PerChatRetryRateLimiter, strict_window
from bot.services import Services
from bot.services.practice import Clock, Practice
from bot.storage import DatabaseFileError, Storage, is_full
from bot.storage.files import describe
from bot.storage.outbox import release_lease_file
from bot.storage.space import QuietWhileFull

log = logging.getLogger(__name__)


class PerChatUpdateProcessor(BaseUpdateProcessor):
    """Process updates concurrently, but one at a time per chat, in arrival order.

    PTB's simple processor runs everything concurrently, so two quick messages from one
    user could be answered out of order. Updates of one chat queue on that chat's lock
    (asyncio locks are FIFO); different chats run in parallel.

    `finished(update)` is awaited once an update's handling ended (the inbox marks it done,
    bot/handlers/updates.py). From `close_within(grace)` on, what is not handled when the
    grace ends is cancelled, and what comes after is not started: it stays in the inbox,
    and the next start handles it. PTB's stop waits for every queued update to be handled,
    and replies wait for Telegram's rate: 600 owed held a SIGTERM 22 s (issue 28).
    """

    def __init__(
        self,
        max_concurrent_updates: int,
        finished: Callable[[object], Awaitable[None]] | None = None,
    ) -> None:
        super().__init__(max_concurrent_updates)
        self._locks: dict[int, asyncio.Lock] = {}
        self._users: dict[int, int] = {}
        self._finished = finished
        self._handling: set[asyncio.Task[Any]] = set()
        self._closing: asyncio.TimerHandle | None = None
        self._closed = False

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        task = asyncio.current_task()
        if self._closed or task is None:
            _discard(coroutine)  # left in the inbox: the next start handles it
            return
        self._handling.add(task)
        try:
            await self._process(update, coroutine)
            if self._finished is not None:
                await self._finished(update)
        except asyncio.CancelledError:
            _discard(coroutine)  # cancelled before its chat's turn came: never started
            raise
        finally:
            self._handling.discard(task)

    async def _process(self, update: object, coroutine: Awaitable[Any]) -> None:
        key = _chat_key(update)
        if key is None:
            await coroutine
            return
        lock = self._locks.setdefault(key, asyncio.Lock())
        self._users[key] = self._users.get(key, 0) + 1
        try:
            async with lock:
                if self._closed:
                    _discard(coroutine)
                    return
                await coroutine
        finally:
            self._users[key] -= 1
            if self._users[key] == 0:  # nobody waiting: forget the lock
                del self._users[key]
                del self._locks[key]

    def close_within(self, grace: float) -> None:
        """Let updates be handled for `grace` seconds more, then cancel what is still being
        handled and start nothing else. The first call sets the deadline."""
        if self._closing is None and not self._closed:
            self._closing = asyncio.get_running_loop().call_later(grace, self._close)

    def _close(self) -> None:
        self._closed = True
        left = len(self._handling)
        for task in list(self._handling):
            task.cancel()
        if left:
            log.warning(
                "stopping: %d updates not handled in time are left for the next start", left
            )

    async def initialize(self) -> None:
        pass

    async def shutdown(self) -> None:
        pass


def _discard(coroutine: Awaitable[Any]) -> None:
    close = getattr(coroutine, "close", None)
    if close is not None:
        close()  # never started: no "never awaited" warning


class InboxApplication(Application[Any, Any, Any, Any, Any, Any]):
    """PTB's Application, whose stop handles queued updates for a grace only (see
    PerChatUpdateProcessor.close_within): what is left stays in the inbox."""

    stop_grace: float = 3.0

    async def stop(self) -> None:
        processor = self.update_processor
        if isinstance(processor, PerChatUpdateProcessor):
            processor.close_within(self.stop_grace)
        await super().stop()


def _chat_key(update: object) -> int | None:
    if isinstance(update, Update):
        if update.effective_chat is not None:
            return update.effective_chat.id
        if update.effective_user is not None:
            return update.effective_user.id
    return None


SENDER_KEY = "daily_sender"
OUTBOX_KEY = "outbox"
LEASE_KEY = "lease"
# The task that moves replies to their client and registers the menus (tests wait for it).
MENUS_KEY = "menus"
REJECTED_KEY = "token_rejected"  # set when Telegram rejects the token while running
DAMAGED_KEY = "damaged"  # the DatabaseFileError of a database found damaged while running


def build_application(
    settings: Settings,
    library: Library,
    *,
    clock: Clock | None = None,
    max_retries: int = 3,
    scheduler: bool = True,
    rng: random.Random | None = None,
    checked: bool = False,
    cache: YamlCache | None = None,
) -> Application[Any, Any, Any, Any, Any, Any]:
    """Build the bot; the database opens in post_init and closes in post_shutdown.

    `scheduler`: run the daily-prompt and round-closing loop and the hourly retention job in
    the background (tests drive `DailySender.tick` and `prune_once` by hand instead). `rng`:
    question choice (tests seed it). The outbox sender always runs: it delivers what the
    scheduler and the handlers record. `checked`: the caller has just run the database's
    integrity check (`interview-bot run` does, before anything talks to Telegram), so
    opening it here does not read the whole file again. `cache`: the packs' and strings'
    parsed YAML (see bot/core/yamlcache.py), written back once the strings are read.
    """
    if settings.telegram_bot_token is None:
        raise ValueError("TELEGRAM_BOT_TOKEN is required to build the bot")
    if clock is None:
        clock = SteadyClock()  # the wall clock, with its steps noticed (bot/jobs/clock.py)
    strings = Strings.load(settings.content_dir / "strings", cache)
    if cache is not None:
        cache.save()
    storage = Storage.at(
        settings.database,
        ReminderRule(settings.reminder_hour, settings.default_timezone),
        files=settings.database_path.parent,  # PostgreSQL's wire log: beside DATABASE_PATH's
    )
    practice = Practice(
        storage, library, default_timezone=settings.default_timezone, clock=clock, rng=rng
    )
    svc = Services(settings, storage, library, strings, practice)

    # Webhook replicas on PostgreSQL all serve at once; the lease picks the scheduler's.
    replicated = settings.database_url is not None and settings.telegram_webhook_url is not None
    lease = Lease(storage, settings.lease_seconds, replica=replicated)
    background: list[asyncio.Task[None]] = []
    first_poll = asyncio.Event()  # set once a getUpdates request has been written
    lost_once: list[bool] = []

    async def post_init(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
        await storage.open(verify=not checked)
        if lease.replica:
            await lease.join()  # this replica sends from now on
            with contextlib.suppress(LeaseTaken):  # another one runs the scheduler
                await lease.take()
        else:
            await lease.take()  # LeaseTaken: another process serves this database
        # What the last run received and did not handle, before anything new: in order.
        await updates.redeliver(storage, bot.read, app.update_queue, _left_before())
        if lease.replica:  # what another replica took and left when it died, meanwhile
            background.append(asyncio.create_task(_redeliver_left(app)))
        outbox: OutboxSender = app.bot_data[OUTBOX_KEY]
        await outbox.start()
        background.append(asyncio.create_task(lease.keep(lambda: _lost_lease(app))))
        # After the first getUpdates is out, not beside the bootstrap: ten requests (menus
        # and descriptions per language) made the first poll wait for some of them (about
        # 30 ms of a start, issue 13), and the menus are a convenience; the reply client's
        # import is 0.16 s. A webhook never polls.
        polling = None if settings.telegram_webhook_url else first_poll
        app.bot_data[MENUS_KEY] = asyncio.create_task(
            _after_first_poll(app, strings, polling, request, tls)
        )
        background.append(app.bot_data[MENUS_KEY])
        if polling is not None:
            background.append(asyncio.create_task(_watch_polling(app, polling)))
        if scheduler and lease.active:
            _schedule(app)
        elif scheduler:  # once per tick cluster-wide: by the lease holder, taken over
            background.append(asyncio.create_task(_schedule_when_active(app)))
        # What start-up built (the modules, the library, PTB's objects) stays out of the
        # cyclic collector's passes while the bot runs: each full pass walked all of it,
        # about 40 ms every two seconds or so under load; frozen here, 3% less CPU per
        # update (9% if frozen after the first answers, which load the scorer; issue 13,
        # BENCHMARKS.md). Thawed in post_shutdown, so that a process that runs bots one
        # after another (tests, benchmarks) can still collect the old ones.
        gc.freeze()

    def _left_before() -> datetime | None:
        """Webhook replicas: an update recorded or taken more than a lease ago and not done
        was left by a replica that is gone (a live one takes what it records at once, and
        touches what it still handles every third of the lease); a newer one may be in
        another replica's hands now. One process: everything left."""
        return clock() - timedelta(seconds=settings.lease_seconds) if lease.replica else None

    async def _redeliver_left(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
        while True:
            await asyncio.sleep(settings.lease_seconds / 3)
            try:
                if taken:  # in this replica's hands still: not left (a slow handler)
                    await storage.touch_updates(sorted(taken), clock())
                await updates.redeliver(storage, bot.read, app.update_queue, _left_before())
            except Exception as exc:
                log.warning("could not look for updates a gone replica left: %s", exc)

    def _schedule(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
        sender = app.bot_data[SENDER_KEY]
        interval = settings.scheduler_interval_seconds
        background.append(asyncio.create_task(sender.run_forever(interval)))
        background.append(asyncio.create_task(prune_forever(storage, clock)))

    async def _schedule_when_active(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
        await stand_by(lease)
        _schedule(app)

    async def post_stop(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
        # Before the HTTP client closes: requests out get a short grace, the rest go back.
        for task in background:
            task.cancel()
        await asyncio.gather(*background, return_exceptions=True)
        background.clear()
        if storage.damage is None:
            await app.bot_data[OUTBOX_KEY].stop(settings.stop_grace_seconds)
        else:  # nothing can be handed back in a damaged file: its tasks end, that is all
            await app.bot_data[OUTBOX_KEY].abandon()

    async def post_shutdown(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
        for task in background:
            task.cancel()
        await asyncio.gather(*background, return_exceptions=True)
        await svc.voice.close()
        if storage.is_open and storage.damage is not None:
            await storage.close()  # nothing more is written to a damaged file
        elif storage.is_open:
            await marks.drain()  # updates handled whole are done, not handled again
            await lease.release()
            await storage.close()
        elif settings.database_url is None:  # stopped before post_init: run_bot took the lease
            release_lease_file(settings.database_path, lease.owner)
        gc.unfreeze()

    def _lost_lease(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
        """Another process serves the database now (or nothing says this one may): stop
        sending at once, then stop the run; `run_bot` raises `lease.lost` afterwards."""
        outbox: OutboxSender = app.bot_data[OUTBOX_KEY]
        if lost_once:
            return  # several workers may notice; the run is stopped once
        lost_once.append(True)
        outbox._stopping = True
        if settings.database_url is not None and app.updater is not None:
            # Another replica polls now: no last getUpdates to confirm what this one fetched
            # (recorded in the database already; the active one is sent them again).
            app.updater._Updater__polling_cleanup_cb = _nothing  # type: ignore[attr-defined]

        async def stop() -> None:
            await lease.lose()
            stopper = app.bot_data.get(STOP_KEY)
            if stopper is not None:
                stopper()

        background.append(asyncio.create_task(stop()))

    # Telegram allows 20 messages a minute into a group, strictly (then 429s): paced evenly.
    group_rate, group_period = strict_window(round(settings.group_rate_limit_per_minute), 60)
    base = (settings.telegram_api_base_url or "https://api.telegram.org/bot").rstrip("/")
    # One TLS context for both clients, made as httpx makes its own (certifi's CA bundle, or
    # SSL_CERT_FILE / SSL_CERT_DIR): each client would read and parse the bundle again, about
    # 70 ms of start-up each (issue 13).
    tls = httpx.create_ssl_context()
    request = CappedRequest(
        replies=REPLIES_IN_FLIGHT,
        broadcasts=settings.send_concurrency,
        httpx_kwargs={"verify": tls, "event_hooks": {"request": [trace_requests]}},
    )
    bot = TolerantBot(
        token=settings.telegram_bot_token.get_secret_value(),
        base_url=base,
        base_file_url=base.removesuffix("/bot") + "/file/bot",
        defaults=Defaults(parse_mode=ParseMode.HTML, link_preview_options=None),
        # The hook tells the outbox when a request starts leaving (the row is marked in
        # flight), and delivery whether it left whole if the line drops.
        request=request,
        # The last getUpdates on stop must not hold a SIGTERM long when Telegram hangs.
        get_updates_request=HTTPXRequest(
            connection_pool_size=1,
            read_timeout=2,
            httpx_kwargs={
                "verify": tls,
                "event_hooks": {"request": [when_written(first_poll.set)]},
            },
        ),
        rate_limiter=PerChatRetryRateLimiter(
            overall_max_rate=settings.rate_limit_per_second,
            overall_time_period=1,
            group_max_rate=group_rate,
            group_time_period=group_period,
            max_retries=max_retries,
        ),
    )
    if replicated:
        lease.on_replicas = lambda count: _share_limits(bot, settings, count)
    quiet_raw_batches()
    for handler in logging.getLogger().handlers:
        # Before the redacting filter, which flattens the record's exception and arguments.
        if not any(isinstance(f, QuietWhileFull) for f in handler.filters):
            handler.filters.insert(0, QuietWhileFull())

    telling: set[asyncio.Task[None]] = set()

    async def record(raws: list[Any]) -> None:
        try:
            await storage.record_updates(raws, clock())
        except Exception as exc:
            if is_full(exc):
                # Not taken either (Telegram keeps them and sends them again once they can be
                # recorded); their senders are told once, meanwhile, that nothing was saved.
                for raw in raws:
                    update = bot.read(raw)
                    if update is not None:
                        told = errors.tell_full(bot, svc, update, app.bot_data)
                        telling.add(task := asyncio.create_task(told))
                        task.add_done_callback(telling.discard)
            raise  # not taken: polled again (webhook: answered 500, sent again)

    taken: set[int] = set()
    marks = updates.DoneMarks(storage, taken)

    bot.record_with(record)  # a polled batch is recorded before the next poll confirms it
    if settings.database_url is not None:
        # Replicas: one resumed after a stall past its lease (another has taken over) polls
        # nothing until its renewal says whether the database is still its own; it would
        # take updates from the active one, and maybe leave them half handled.
        bot.poll_when(lambda: _while_polling(app, lease))
    builder = (
        ApplicationBuilder()
        .application_class(InboxApplication)
        .bot(bot)
        .context_types(ContextTypes(context=BotContext))
        .concurrent_updates(PerChatUpdateProcessor(256, marks.finished))
        .post_init(post_init)
        .post_stop(post_stop)
        .post_shutdown(post_shutdown)
    )
    app = builder.build()
    if isinstance(app, InboxApplication):
        app.stop_grace = settings.stop_grace_seconds
    app.bot_data[SERVICES_KEY] = svc
    app.bot_data[INBOX_KEY] = record  # the webhook records an update before its 200
    app.bot_data[TAKEN_KEY] = taken
    # A full disk has room again: the lease renewed at once (sends wait for it), then the
    # updates held since are handled.
    storage.space.on_room.extend((lease.renew_soon, lambda: _handle_held(app)))
    outbox = OutboxSender(app.bot, storage, settings, clock, lease.owner)
    outbox.on_taken_over = lambda: _lost_lease(app)
    outbox.may_send = lease.surely_held  # a request leaves only while the database is ours
    if replicated:  # a replica killed leaves its rows to the others
        outbox.sweep = min(1.0, settings.lease_seconds / 10)
    outbox.on_token_rejected = lambda: _token_rejected(app)
    storage.on_damage = lambda exc: _database_damaged(app, exc)
    svc.notify_outbox = outbox.wake
    app.bot_data[OUTBOX_KEY] = outbox
    app.bot_data[LEASE_KEY] = lease
    app.bot_data[SENDER_KEY] = DailySender(svc, clock, outbox.wake)
    _register_handlers(app)
    return app


def _share_limits(bot: ExtBot[Any], settings: Settings, replicas: int) -> None:
    """`replicas` webhook replicas send at once: this one keeps to its share of the limits."""
    limiter = bot.rate_limiter
    if isinstance(limiter, PerChatRetryRateLimiter) and limiter.share(replicas):
        log.info(
            "replicas sending: %d; this one keeps to %.3g messages/s and %.3g a minute into"
            " a group (1/%d of the limits)",
            replicas, settings.rate_limit_per_second / limiter.shares,
            settings.group_rate_limit_per_minute / limiter.shares, limiter.shares,
        )  # fmt: skip


async def _while_polling(app: Application[Any, Any, Any, Any, Any, Any], lease: Lease) -> None:
    """Before a getUpdates of the polling loop: wait until the lease is surely held. The
    last one of a stop (PTB's confirming poll) is let through as before."""
    if app.updater is not None and app.updater.running:
        await lease.until_surely_held()


def _handle_held(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """The disk has room again: the updates whose handling met it are handled now (one
    that meets a full disk again is held again, its sender not told twice)."""
    held: dict[int, Update] = app.bot_data.get(HELD_KEY, {})
    for update_id in sorted(held):
        app.update_queue.put_nowait(held[update_id])  # `first_delivery` takes it back


class TokenRejectedWhilePolling(Exception):
    """getUpdates (or a send of the outbox) answered 401/404 after the start: the token was
    revoked, or a proxy in front of a self-hosted Bot API lost the route."""


async def _nothing() -> None:
    return None


def _token_rejected(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """The outbox found the token refused (it has stopped sending, every row still owed):
    stop the run, as polling does on the same answer; `run_bot` raises
    TokenRejectedWhilePolling afterwards (exit status 4)."""
    if app.bot_data.get(REJECTED_KEY):
        return
    app.bot_data[REJECTED_KEY] = True
    updater = app.updater
    if updater is not None:
        # Polling would only be refused too: its long poll is cut now, and PTB's last
        # getUpdates (confirming the updates fetched) is skipped, which would log a refusal
        # with a traceback. Updates it fetched are fetched again by the next start, and the
        # inbox handles each once.
        polling = getattr(updater, "_Updater__polling_task", None)
        if isinstance(polling, asyncio.Task) and not polling.done():
            polling.cancel()
        if getattr(updater, "_Updater__polling_cleanup_cb", None) is not None:
            updater._Updater__polling_cleanup_cb = _nothing  # type: ignore[attr-defined]
    stopper = app.bot_data.get(STOP_KEY)
    if stopper is not None:
        stopper()


def _database_damaged(app: Application[Any, Any, Any, Any, Any, Any], exc: Exception) -> None:
    """The database turned out damaged while running (bot/storage/database.py noticed it):
    nothing more is sent (its outcome could not be recorded) and the run stops; `run_bot`
    raises the DatabaseFileError afterwards, and `interview-bot run` exits with status 3 and
    that one line, as a damaged file at start does. Tracebacks of the same damage are not
    logged (bot/logs.py): the line says it."""
    if DAMAGED_KEY in app.bot_data:
        return
    storage: Storage = app.bot_data[SERVICES_KEY].storage
    assert isinstance(exc, sqlite3.Error)
    app.bot_data[DAMAGED_KEY] = DatabaseFileError(storage.path, describe(exc))
    app.bot_data[OUTBOX_KEY]._stopping = True
    stopper = app.bot_data.get(STOP_KEY)
    if stopper is not None:
        stopper()


async def _watch_polling(
    app: Application[Any, Any, Any, Any, Any, Any], polling: asyncio.Event
) -> None:
    """Stop the run when PTB's polling task ends on a rejected token.

    PTB ends its polling task on InvalidToken and nothing else: the process would serve no
    update and stay up, and at the stop, awaiting that task raises again before the
    database is closed, so the process hung on SIGTERM. The task is let go here (PTB's stop
    then has no failed task to await) and the run stops; `run_bot` raises
    TokenRejectedWhilePolling after the shutdown, and `interview-bot run` exits with its
    status for a rejected token.
    """
    await polling.wait()  # a getUpdates is out: PTB's polling task runs
    log.info("bot @%s started: long polling", app.bot.username)
    task = getattr(app.updater, "_Updater__polling_task", None)
    if not isinstance(task, asyncio.Task):
        return
    try:
        await asyncio.shield(task)
    except InvalidToken:
        log.error("Telegram rejected the token while polling: stopping")
        app.bot_data[REJECTED_KEY] = True
        app.updater._Updater__polling_task = None  # type: ignore[union-attr]
        stopper = app.bot_data.get(STOP_KEY)
        if stopper is not None:
            stopper()
    except BaseException:  # cancelled with the run, or another end PTB handles itself
        return


async def _after_first_poll(
    app: Application[Any, Any, Any, Any, Any, Any],
    strings: Strings,
    polling: asyncio.Event | None,
    request: CappedRequest,
    tls: ssl.SSLContext,
) -> None:
    """Once polling has begun (`polling` set; None: now): replies move to their own client
    (bot/reply_client.py; not behind a proxy), then the command menus are registered."""
    if polling is not None:
        await polling.wait()
    from bot.reply_client import AiohttpRequest, proxied  # 0.16 s of imports: not in start-up

    if not proxied():
        replies = AiohttpRequest(connections=REPLIES_IN_FLIGHT, tls=tls)  # `request`'s timeouts
        await replies.initialize()
        request.carry_replies(replies)
    await menus.register(app.bot, strings)


def _register_handlers(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    # Commands run when sent, not when edited: an edited /skip or /quiz would skip or replace
    # a question the person never asked to lose (PTB's CommandHandler takes edits too).
    in_private = filters.ChatType.PRIVATE & filters.UpdateType.MESSAGE
    in_group = filters.ChatType.GROUPS & filters.UpdateType.MESSAGE
    handlers = [
        # 1. The bot's own membership: blocked, unblocked, removed from or added to a group.
        ChatMemberHandler(membership.my_chat_member, ChatMemberHandler.MY_CHAT_MEMBER),
        MessageHandler(filters.StatusUpdate.MIGRATE, groups.migrated),
        # 2. Practice commands in private chats.
        # The group's /mock button opens the private chat with /start mock.
        CommandHandler(
            "start", private.mock_link, in_private & filters.Regex(r"^/start(@\w+)? mock$")
        ),
        CommandHandler("start", private.start, in_private),
        CommandHandler("help", private.help_command, in_private),
        CommandHandler("quiz", private.quiz, in_private),
        CommandHandler("mock", private.mock, in_private),
        CommandHandler("hint", private.hint, in_private),
        CommandHandler("skip", private.skip, in_private),
        CommandHandler("reveal", private.reveal, in_private),
        CommandHandler("stats", private.stats, in_private),
        CommandHandler("export", private.export, in_private),
        # The question packs, in private chats and groups (there, admins choose).
        CommandHandler("packs", packs.packs_command, filters.UpdateType.MESSAGE),
        # 3. Personal settings.
        CommandHandler("level", settings_handlers.level, in_private),
        CommandHandler("timezone", settings_handlers.timezone, in_private),
        CommandHandler("lang", settings_handlers.language, in_private),
        CommandHandler("forget", settings_handlers.forget, in_private),
        CommandHandler("settings", settings_handlers.settings_command, in_private),
        CommandHandler("reminders", daily.reminders, in_private),
        CommandHandler("interview", interview.interview_command, in_private),
        # 4. The daily question: private chats, and groups (admins change it).
        CommandHandler("daily", daily.daily, filters.UpdateType.MESSAGE),
        # 5. Group rounds and group settings.
        CommandHandler("quiz", groups.quiz, in_group),
        CommandHandler("reveal", groups.reveal, in_group),
        CommandHandler("top", groups.top, in_group),
        CommandHandler("mock", groups.mock, in_group),
        CommandHandler("level", groups.group_level, in_group),
        CommandHandler("roundlength", groups.round_length, in_group),
        CommandHandler("lang", groups.group_language, in_group),
        CommandHandler("timezone", daily.group_timezone, in_group),
        CommandHandler("settings", settings_handlers.group_settings_command, in_group),
        CommandHandler(("help", "start"), groups.group_help, in_group),
        # The interview date is personal: a group is pointed to the private chat.
        CommandHandler("interview", interview.group_interview, in_group),
        CommandHandler(
            (
                "stats",
                "hint",
                "skip",
                "export",
                "forget",
                "timezone",
                "reminders",
            ),
            groups.private_only,
            in_group,
        ),
        MessageHandler(
            filters.UpdateType.MESSAGES  # an edited answer replaces the first (groups.answer)
            & filters.ChatType.GROUPS
            & filters.REPLY
            & filters.TEXT
            & ~filters.COMMAND,
            groups.answer,
        ),
        # A voice message or audio file replying to a round's question (recordings are not
        # edited): transcribed, then counted as a typed reply.
        MessageHandler(
            in_group & filters.REPLY & (filters.VOICE | filters.AUDIO), groups.voice_answer
        ),
        # 6. Buttons, by callback-data prefix.
        CallbackQueryHandler(
            private.practice_button, pattern=r"^(hint|show|skip|next|keep|renew|switch):"
        ),
        CallbackQueryHandler(private.rate_button, pattern=r"^rate:"),
        CallbackQueryHandler(private.mock_reference_button, pattern=r"^mkref:"),
        CallbackQueryHandler(settings_handlers.level_button, pattern=r"^level:"),
        CallbackQueryHandler(settings_handlers.forget_button, pattern=r"^forget:"),
        CallbackQueryHandler(settings_handlers.settings_button, pattern=r"^set:"),
        CallbackQueryHandler(settings_handlers.group_settings_button, pattern=r"^grp:"),
        CallbackQueryHandler(settings_handlers.language_button, pattern=r"^lang:"),
        CallbackQueryHandler(settings_handlers.zone_button, pattern=r"^tz:"),
        CallbackQueryHandler(daily.daily_button, pattern=r"^daily:"),
        CallbackQueryHandler(daily.daily_zone_button, pattern=r"^tzd:"),
        CallbackQueryHandler(packs.pack_button, pattern=r"^pack:"),
        CallbackQueryHandler(packs.field_button, pattern=r"^field:"),
        CallbackQueryHandler(interview.plan_button, pattern=r"^plan:"),
        CallbackQueryHandler(interview.went_button, pattern=r"^went:"),
        CallbackQueryHandler(private.stale_button),  # anything else: an outdated button
        # 7. Private chats: edits are not re-scored; plain text answers the open question.
        MessageHandler(
            filters.UpdateType.EDITED_MESSAGE & filters.ChatType.PRIVATE, private.edited
        ),
        # Typed in reply to the settings screen's time-zone prompt: a zone, not an answer.
        MessageHandler(
            in_private
            & filters.TEXT
            & ~filters.COMMAND
            & settings_handlers.RepliesToTimezonePrompt(app.bot_data[SERVICES_KEY].strings),
            settings_handlers.timezone_reply,
        ),
        MessageHandler(
            in_private & filters.TEXT & ~filters.COMMAND,
            private.answer,
        ),
        # A photo or file with a caption is answered by its caption.
        MessageHandler(in_private & filters.CAPTION, private.answer),
        # A voice message or audio file: transcribed, then answered as the text typed.
        MessageHandler(in_private & (filters.VOICE | filters.AUDIO), private.voice_answer),
        # 8. Anything else in private: unknown commands, stickers, photos, files.
        MessageHandler(in_private & filters.COMMAND, private.unknown_command),
        MessageHandler(in_private, private.not_text),
    ]
    app.add_handlers(handlers)
    # 0. Before all of the above: an update delivered twice (webhook retry, replay, polling
    #    after a crash) is handled once.
    app.add_handler(TypeHandler(Update, updates.first_delivery), group=-2)
    # 0b. Then, once per update: the sender as a stored user and the language of every reply
    #     to them, in the context every handler below reads (bot/handlers/common.py).
    app.add_handler(TypeHandler(Update, load_context), group=-1)
    app.add_error_handler(errors.on_error)


@asynccontextmanager
async def running(
    app: Application[Any, Any, Any, Any, Any, Any], *, poll_timeout: int = 10
) -> AsyncIterator[Application[Any, Any, Any, Any, Any, Any]]:
    """Run the bot with long polling inside an existing event loop (tests, benchmarks)."""
    await app.initialize()
    if app.post_init:
        await app.post_init(app)
    assert app.updater is not None
    await app.updater.start_polling(
        poll_interval=0.0, timeout=poll_timeout, allowed_updates=Update.ALL_TYPES
    )
    await app.start()
    try:
        yield app
    finally:
        await app.updater.stop()
        await shut_down(app)


def run_bot(
    settings: Settings,
    library: Library,
    *,
    checked: bool = False,
    cache: YamlCache | None = None,
    was_empty: bool = False,
) -> None:
    """Run until interrupted: long polling, or a webhook when TELEGRAM_WEBHOOK_URL is set.

    `checked`: the caller has just checked the database's integrity (see build_application);
    `was_empty`: the database file existed with nothing in it before this start;
    `cache`: the parsed YAML the library was read with (build_application writes it back).
    """
    secrets = [
        s.get_secret_value()
        for s in (settings.telegram_bot_token, settings.webhook_secret_token, settings.stt_api_key)
        if s
    ] + settings.database_secrets
    configure_logging(settings.log_level, secrets)
    app = build_application(settings, library, checked=checked, cache=cache)
    # Before anything talks to Telegram: a second process on this database stops here
    # (SQLite), or stands by until the active replica's lease lapses (PostgreSQL).
    if not asyncio.run(_check_lease(settings, app.bot_data[LEASE_KEY].owner)):
        log.info("stopped while standing by: nothing was polled or sent")
        return
    log.info(
        "starting: %d packs, %d questions, database %s",
        len(library.packs),
        len(library.questions),
        "PostgreSQL (DATABASE_URL)" if settings.database_url else settings.database_path,
    )
    if was_empty:
        # SQLite takes an empty file for a new database: a first start, or a lost one.
        log.warning(
            "%s was an empty file (0 bytes): it is a new, empty database now; if it held"
            " answers before, stop the bot and restore it from a backup",
            settings.database_path,
        )
    # Loaded with the cyclic collector off (bot/entry.py): on before anything waits on
    # Telegram, however long a start in an outage takes. What loading made is frozen first
    # (as post_init freezes what the start adds): the first pass after `enable` would walk
    # all of it, some 120,000 objects and 26 ms, and find almost nothing (issue 13).
    gc.freeze()
    gc.enable()
    if settings.telegram_webhook_url:
        from bot.webhook import serve_webhook  # our listener: limits before reading bodies

        asyncio.run(serve_webhook(app, settings, app.bot_data[SERVICES_KEY].storage))
    else:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)  # run_polling runs on it
        loop.set_exception_handler(unretrieved_network_errors)
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGABRT):
            loop.add_signal_handler(sig, _stop_now, app)
        app.bot_data[STOP_KEY] = lambda: _stop_polling(app)
        # Started while Telegram is away: wait for it (a signal still stops it at once).
        app.run_polling(allowed_updates=Update.ALL_TYPES, bootstrap_retries=-1, stop_signals=None)
    damaged = app.bot_data.get(DAMAGED_KEY)
    if damaged is not None:
        raise damaged
    lost = app.bot_data[LEASE_KEY].lost
    if lost is not None:
        raise lost
    if app.bot_data.get(REJECTED_KEY):
        raise TokenRejectedWhilePolling


def unretrieved_network_errors(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """A polling request cut off by a stop while Telegram drops the line ends its task with
    a NetworkError nobody reads: one line, not asyncio's traceback; anything else as usual."""
    exc = context.get("exception")
    if isinstance(exc, NetworkError) and "never retrieved" in str(context.get("message", "")):
        log.warning("a request ended while stopping: %s", exc)
        return
    loop.default_exception_handler(context)


def _stop_now(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """SIGTERM/SIGINT: stop now, whatever the polling loop is doing.

    PTB waits for its polling task to finish, and while Telegram is away that task sleeps up
    to 30 s between attempts: then it is cancelled, so the stop takes seconds in every state
    (updates it had not confirmed are fetched again on the next start).
    """
    _cancel_polling_while_down(app)
    _close_updates(app)
    raise SystemExit(0)  # what PTB's own stop signal handler does: run_polling shuts down


def _stop_polling(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Stop a polling run from inside (the lease was lost), as a signal would."""
    _cancel_polling_while_down(app)
    _close_updates(app)
    app.stop_running()


def _close_updates(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """The stop's grace for handling updates starts now, with the signal (not once polling
    has stopped): what is not handled by then is left in the inbox for the next start."""
    processor = app.update_processor
    if isinstance(processor, PerChatUpdateProcessor) and isinstance(app, InboxApplication):
        processor.close_within(app.stop_grace)


def _cancel_polling_while_down(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    polling = getattr(app.updater, "_Updater__polling_task", None)
    if reachability.down and isinstance(polling, asyncio.Task) and not polling.done():
        polling.cancel()


async def _check_lease(settings: Settings, owner: str) -> bool:
    """Take the database's lease for `owner` (renewed in post_init). On SQLite a lease held
    raises LeaseTaken; on PostgreSQL this replica stands by until it can take it (see
    bot/jobs/lease.py's `stand_by`). False: stopped by a signal while standing by."""
    storage = Storage.at(settings.database)
    await storage.open(verify=False)  # the caller checks: `run` before, post_init after
    try:
        lease = Lease(storage, settings.lease_seconds, owner)
        if settings.database_url is None:
            await lease.take()
            return True
        if settings.telegram_webhook_url is not None:
            return True  # webhook replicas all serve (post_init joins them)
        return await _until_signalled(stand_by(lease))
    finally:
        await storage.close()


async def _until_signalled(waiting: Awaitable[None]) -> bool:
    """Await `waiting`; False if SIGTERM or SIGINT came first (it is cancelled then)."""
    task = asyncio.ensure_future(waiting)
    loop = asyncio.get_running_loop()
    signalled: list[int] = []

    def stop(sig: int) -> None:
        signalled.append(sig)
        task.cancel()

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop, sig)
    try:
        await task
    except asyncio.CancelledError:
        if not signalled:
            raise
        return False
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
    return True
