# The same steps as the README: install the package, run `interview-bot run`.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    DATABASE_PATH=/data/bot.sqlite3 \
    CONTENT_DIR=/app/content

# A CJK font so pictures with Chinese text render without missing-glyph boxes.
RUN apt-get update \
    && apt-get install -y --no-install-recommends fonts-noto-cjk \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY content ./content
RUN pip install .

RUN useradd --create-home --uid 10001 bot && mkdir -p /data && chown bot /data
USER bot
VOLUME ["/data"]

CMD ["interview-bot", "run"]
