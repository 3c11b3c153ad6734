# The same steps as the README: install the package, run `interview-bot run`.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    DATABASE_PATH=/data/bot.sqlite3 \
    CONTENT_DIR=/app/content

# No system fonts needed: the /stats picture uses the CJK font subset in content/fonts.
WORKDIR /app
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY content ./content
RUN pip install .

RUN useradd --create-home --uid 10001 bot && mkdir -p /data && chown bot /data
USER bot
VOLUME ["/data"]

CMD ["interview-bot", "run"]
