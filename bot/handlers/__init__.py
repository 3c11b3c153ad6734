"""Telegram adapters: read the update, call practice/core/storage, render, send. No rules here."""
