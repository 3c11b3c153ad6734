"""Persistence: the one place that speaks SQL (see `repository.py` and `migrations/`)."""

from bot.storage.repository import Storage

__all__ = ["Storage"]
