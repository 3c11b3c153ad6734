# What `make run` does: the locked dependencies, the package, then `interview-bot run`.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    DATABASE_PATH=/data/bot.sqlite3 \
    CONTENT_DIR=/app/content

# No system fonts needed: the /stats picture uses the CJK font subset in content/fonts.
WORKDIR /app
# Dependencies first, exactly the versions the tests passed with (hash-checked), so this layer
# is reused until requirements.lock changes.
COPY requirements.lock ./
RUN pip install --require-hashes -r requirements.lock
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY content ./content
RUN pip install --no-deps .

RUN useradd --create-home --uid 10001 bot && mkdir -p /data && chown bot /data
USER bot
VOLUME ["/data"]

# Polling: the database opens read-only and answers, and the bot's heartbeat (its lease, renewed
# every 10 s) is under 90 s old. Webhook mode (TELEGRAM_WEBHOOK_URL set): the listener's
# GET /healthz answers 200.
HEALTHCHECK --interval=60s --timeout=10s --start-period=30s --retries=3 \
    CMD ["interview-bot", "health"]

CMD ["interview-bot", "run"]
