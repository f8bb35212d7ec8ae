"""Figures for whoever runs the bot: Prometheus metrics and a health check on their own port.

Off unless ``METRICS_PORT`` is set. ``/metrics`` is Prometheus's text format (prometheus-client,
its own registry so that two bots in one process, as in the tests, never share a figure);
``/healthz`` answers 200 when the database answers and this instance is the active one, 503
otherwise, for a proxy or an orchestrator. The figures are fed from the edges: a handler
group of its own counts updates, the rate limiter reports each Bot API call, a flood wait and
a retry, the service times every command at a table's door and tells of each action applied.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from aiohttp import web
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest
from telegram import Update

log = logging.getLogger(__name__)

#: a database that takes longer than this to answer is not healthy
HEALTH_TIMEOUT = 2.0
#: seconds: a command is a button press answered within tens of milliseconds, a timer's
#: computer move within a few hundred
COMMAND_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


def update_kind(update: object) -> str:
    """What an update is, as a label: its one field that is set (message, callback_query…)."""
    if not isinstance(update, Update):
        return "other"
    for name in ("callback_query", "message", "edited_message", "my_chat_member",
                 "chat_member", "inline_query"):
        if getattr(update, name) is not None:
            return name
    return "other"


class Metrics:
    """The bot's figures, in a registry of their own."""

    def __init__(self) -> None:
        self.registry = registry = CollectorRegistry()
        self.updates = Counter(
            "cardbot_updates", "Telegram updates received, by kind", ["kind"], registry=registry
        )
        self.actions = Counter(
            "cardbot_actions", "Plays and passes applied to tables, by game and source",
            ["game", "source"], registry=registry,
        )
        self.commands = Histogram(
            "cardbot_command_seconds",
            "Time a command took at a table's door (its lock, the checks, the engine, the "
            "stored action), by source", ["source"], buckets=COMMAND_BUCKETS, registry=registry,
        )
        self.calls = Counter(
            "cardbot_telegram_calls", "Bot API requests sent, by method", ["method"],
            registry=registry,
        )
        self.floods = Counter(
            "cardbot_telegram_flood_waits", "Bot API 429 answers (flood waits), by method",
            ["method"], registry=registry,
        )
        self.retries = Counter(
            "cardbot_telegram_retries", "Bot API requests sent again after a flood wait, by "
            "method", ["method"], registry=registry,
        )
        self.tables = Gauge("cardbot_open_tables", "Tables open (lobbies and games)",
                            registry=registry)
        self.pages = Gauge("cardbot_open_pages", "Web table pages connected", registry=registry)
        self.active = Gauge(
            "cardbot_active", "1 when this instance is the active one (takes updates)",
            registry=registry,
        )
        self.is_active = True
        self.active.set(1)

    def set_active(self, active: bool) -> None:
        """A standby waiting for the lease is not active; the instance holding it is."""
        self.is_active = active
        self.active.set(1 if active else 0)

    # -- fed by the edges -------------------------------------------------------------------

    async def count_update(self, update: object, _context: object) -> None:
        self.updates.labels(update_kind(update)).inc()

    def time_command(self, source: str, seconds: float) -> None:
        self.commands.labels(source).observe(seconds)

    def acted(self, game: str, source: str) -> None:
        self.actions.labels(game, source).inc()

    def called(self, method: str) -> None:
        self.calls.labels(method).inc()

    def flood_wait(self, method: str, retried: bool) -> None:
        self.floods.labels(method).inc()
        if retried:
            self.retries.labels(method).inc()

    def text(self) -> bytes:
        return generate_latest(self.registry)


class MetricsServer:
    """``/metrics`` and ``/healthz`` on their own port (aiohttp, on the bot's event loop)."""

    def __init__(self, metrics: Metrics, database_answers: Callable[[], Awaitable[object]]) -> None:
        self.metrics = metrics
        self.database_answers = database_answers
        app = web.Application()
        app.router.add_get("/metrics", self._metrics)
        app.router.add_get("/healthz", self._health)
        self._runner = web.AppRunner(app, access_log=None)
        self.port = 0

    async def start(self, host: str, port: int) -> int:
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        addresses = self._runner.addresses
        self.port = int(addresses[0][1]) if addresses else port
        return self.port

    async def stop(self) -> None:
        await self._runner.cleanup()

    async def _metrics(self, _request: web.Request) -> web.StreamResponse:
        body = self.metrics.text()
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def _health(self, _request: web.Request) -> web.StreamResponse:
        active = self.metrics.is_active
        try:
            await asyncio.wait_for(self.database_answers(), HEALTH_TIMEOUT)
            database = True
        except Exception as error:  # any failure to answer is "not ready", said why
            log.warning("health check: the database does not answer: %s", error)
            database = False
        ready = database and active
        return web.json_response(
            {"ready": ready, "database": database, "active": active}, status=200 if ready else 503
        )
