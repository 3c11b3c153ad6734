"""Interview practice bot: question packs, keyword-coverage scoring, Telegram delivery."""

__version__ = "0.1.0"
