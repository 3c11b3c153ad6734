"""What the polling runner (bot/app.py) and the webhook server (bot/webhook.py) share about
a run's life: the keys under which a run keeps how it stops and how it records updates, and
the orderly stop. Its own module so that neither of the two imports the other."""

from __future__ import annotations

from typing import Any

from telegram.ext import Application

STOP_KEY = "stop"  # how this run stops itself: set by the polling runner or the webhook server
INBOX_KEY = "inbox"  # records raw updates as received (the webhook's, before it answers 200)


async def shut_down(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Stop a started application and release it, with the post_stop and post_shutdown
    hooks, in the order run_polling uses (the polling runner, tests, the webhook's run)."""
    if app.running:
        await app.stop()
        if app.post_stop:
            await app.post_stop(app)
    await app.shutdown()
    if app.post_shutdown:
        await app.post_shutdown(app)
