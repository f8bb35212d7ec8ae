# The bot in a container: slim Python, a non-root user, the database on a volume.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    DATABASE_PATH=/data/cardbot.sqlite3

# fonts that show Chinese in the /stats chart
RUN apt-get update && apt-get install -y --no-install-recommends fonts-noto-cjk \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY pyproject.toml README.md ./
COPY bot ./bot
RUN pip install --upgrade pip && pip install . \
    && useradd --system --create-home --uid 10001 cardbot \
    && mkdir -p /data && chown cardbot /data

USER cardbot
VOLUME ["/data"]
# TELEGRAM_BOT_TOKEN (required), TELEGRAM_API_BASE_URL, TURN_SECONDS, DEFAULT_LANGUAGE,
# WEBHOOK_URL / WEBHOOK_PORT / WEBHOOK_SECRET, WEBAPP_URL / WEB_PORT ... come from the
# environment. 8443: the webhook (and the web table with it); 8080: the web table alone.
EXPOSE 8443 8080
CMD ["python", "-m", "bot", "run"]
