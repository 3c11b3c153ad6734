"""Waiting in tests for something another task or process does."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


async def until(condition: Callable[[], object], seconds: float = 10.0, what: str = "") -> None:
    """Return once `condition()` holds; fail the test after `seconds` (saying `what` waited)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"gave up waiting: {what or 'the condition never held'}")
        await asyncio.sleep(0.01)
