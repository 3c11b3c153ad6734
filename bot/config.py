"""Settings: read once from the environment and `.env`, passed down; nothing else reads env."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import Field, SecretStr, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.core.timezones import resolve_timezone

WEBHOOK_PATH = "/telegram"  # the path the webhook listener serves (bot/webhook.py)


class SettingRefused(Exception):
    """Telegram refused a setting's value (setWebhook answered 400 to the webhook URL)."""

    def __init__(self, name: str, why: str) -> None:
        super().__init__(f"{name}: Telegram refused it: {why}")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    telegram_bot_token: SecretStr | None = None
    telegram_api_base_url: str | None = Field(
        default=None, description="Bot API base URL ending in /bot, e.g. http://localhost:8081/bot"
    )
    database_path: Path = Path("data/bot.sqlite3")
    content_dir: Path = Path("content")
    default_timezone: str = "UTC"
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    # The terminal's locale variables pick the language of terminal practice (see below).
    lc_all: str = ""
    lc_messages: str = ""
    lang: str = ""

    # Webhook mode (production); long polling when the URL is empty.
    telegram_webhook_url: str | None = None
    webhook_listen: str = "0.0.0.0"  # noqa: S104 - a container listens on all interfaces
    webhook_port: int = 8443
    # Checked even when unset: a webhook without it is refused (see _webhook_secret).
    webhook_secret_token: SecretStr | None = Field(default=None, validate_default=True)

    # Delivery: Telegram allows about 30 messages/s overall and 20/minute into one group.
    rate_limit_per_second: float = Field(default=30.0, gt=0)
    group_rate_limit_per_minute: float = Field(default=20.0, gt=0)
    send_concurrency: int = Field(default=16, ge=1, le=256)
    daily_grace_minutes: int = Field(default=120, ge=0, le=24 * 60)
    reminder_hour: int = Field(default=20, ge=0, le=23)
    scheduler_interval_seconds: float = Field(default=10.0, gt=0)
    round_minutes: int = Field(default=10, ge=1, le=24 * 60)

    # The outbox: messages owed to chats are retried until their deadline, with backoff.
    retry_base_seconds: float = Field(default=1.0, gt=0)
    retry_max_seconds: float = Field(default=60.0, gt=0)
    outbox_poll_seconds: float = Field(default=1.0, gt=0)
    outbox_deadline_minutes: int = Field(default=120, ge=1)  # rankings, feedback, reminders
    # One process per database: the lease it holds expires this long after its last renewal.
    lease_seconds: float = Field(default=30.0, gt=0)
    # On SIGTERM, requests already out get this long to be answered (then: 'unknown').
    stop_grace_seconds: float = Field(default=3.0, ge=0)

    # Voice answers: an OpenAI-compatible speech-to-text service (faster-whisper-server,
    # whisper.cpp's server, OpenAI); unset, a voice message is told they are not enabled.
    stt_base_url: str | None = None
    stt_api_key: SecretStr | None = None
    stt_model: str = "whisper-1"
    stt_max_seconds: int = Field(default=180, ge=1, le=3600)
    stt_timeout_seconds: float = Field(default=60.0, gt=0)

    @field_validator("default_timezone")
    @classmethod
    def _zone(cls, value: str) -> str:
        zone = resolve_timezone(value)
        if zone is None:
            raise ValueError(f"unknown IANA time zone {value!r} (example: Asia/Shanghai)")
        return zone

    @field_validator("telegram_api_base_url", "telegram_webhook_url", "stt_base_url", mode="before")
    @classmethod
    def _empty_is_none(cls, value: object) -> object:
        return None if value == "" else value

    @field_validator("telegram_api_base_url")
    @classmethod
    def _api_base(cls, value: str | None) -> str | None:
        """The token is appended to it (`…/bot<token>/getMe`): without the `/bot` every
        request went to a URL with no such path, retried forever as a redacted InvalidURL."""
        if value is None or value.rstrip("/").endswith("/bot"):
            return value
        raise ValueError(
            f"{value!r} does not end in /bot (the token is put right after it):"
            f" write {value.rstrip('/')}/bot"
        )

    @field_validator("telegram_webhook_url")
    @classmethod
    def _webhook_path(cls, value: str | None) -> str | None:
        """The listener serves /telegram only (bot/webhook.py): a URL Telegram posts
        elsewhere would bring no update, and nothing would say why."""
        if value is None:
            return None
        path = urlsplit(value).path.rstrip("/")
        if not path.endswith(WEBHOOK_PATH):
            fixed = urlunsplit(urlsplit(value)._replace(path=path + WEBHOOK_PATH))
            raise ValueError(
                f"{value!r} does not end in {WEBHOOK_PATH}, the only path the listener serves:"
                f" write {fixed} and have your proxy pass that path on"
            )
        return value

    @field_validator("webhook_secret_token")
    @classmethod
    def _webhook_secret(cls, value: SecretStr | None, info: ValidationInfo) -> SecretStr | None:
        """Refused, not warned about: the webhook's path is fixed and public (this code), so
        without the secret anyone who can reach the listener could post updates in any
        user's name (answer for them, /forget their answers); a warning in a log nobody
        reads would leave it open."""
        if value is None and info.data.get("telegram_webhook_url"):
            raise ValueError(
                "empty while TELEGRAM_WEBHOOK_URL is set: anyone who finds the URL could post"
                " updates as any user; set it to a random string of A-Z, a-z, 0-9, _ and -"
                " (up to 256), e.g. the output of `openssl rand -hex 32`"
            )
        # Telegram's setWebhook refuses any other (the value itself is never printed).
        if value is not None and not re.fullmatch(
            r"[A-Za-z0-9_-]{1,256}", value.get_secret_value()
        ):
            raise ValueError(
                "Telegram takes 1 to 256 of A-Z, a-z, 0-9, _ and - only, e.g. the output of"
                " `openssl rand -hex 32`"
            )
        return value

    @field_validator("stt_base_url")
    @classmethod
    def _stt_base(cls, value: str | None) -> str | None:
        """The service's root: `/v1/audio/transcriptions` is put after it, so a URL given
        with that path (or `/v1`) already would ask for it twice, and every answer fail."""
        if value is None:
            return None
        if not value.startswith(("http://", "https://")):
            raise ValueError(f"{value!r} is not an http:// or https:// URL")
        root = value.rstrip("/")
        for tail in ("/v1/audio/transcriptions", "/v1"):
            if root.endswith(tail):
                raise ValueError(
                    f"{value!r} ends in {tail}: give the service's root, {root.removesuffix(tail)}"
                )
        return root

    @field_validator("telegram_bot_token", "webhook_secret_token", "stt_api_key", mode="before")
    @classmethod
    def _empty_secret(cls, value: object) -> object:
        return None if value == "" else value

    @property
    def terminal_locale(self) -> str:
        """The locale messages are shown in: LC_ALL, else LC_MESSAGES, else LANG (POSIX order,
        an empty variable counting as unset), e.g. "zh_CN.UTF-8"."""
        return self.lc_all or self.lc_messages or self.lang
