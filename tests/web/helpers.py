"""The bot with its web table, and a Python client that talks to it as the page does."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from bot.config import Settings
from bot.edge.app import build_application, running_application
from bot.game.cards import Card
from bot.service import GameService
from bot.service.tables import Table
from bot.web.http import HttpServer
from bot.web.server import WebTable
from bot.web.webhook import Webhook
from fakebot import FakeTelegram
from tests.e2e.driver import bot_settings, playable_seed, seeds_in_order

WEBAPP_URL = "https://cards.example/table/"


def web_settings(fake: FakeTelegram, db_path: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {"webapp_url": WEBAPP_URL, "web_listen": "127.0.0.1", "web_port": 0}
    values.update(overrides)
    return bot_settings(fake, db_path, **values)


@contextlib.asynccontextmanager
async def web_and_webhook(
    settings: Settings, secret: str, *, deals: Sequence[int] = ()
) -> AsyncIterator[tuple[GameService, WebTable, int]]:
    """The bot with its web table, plus one server that serves the table and a webhook on
    ``/tg/hook`` (as in webhook mode, where they share a server); yields its port."""
    new_seed = seeds_in_order(deals) if deals else playable_seed
    application = build_application(settings, new_seed=new_seed)
    async with running_application(application) as application:
        web: WebTable = application.bot_data["web"]
        server = HttpServer(table=web, webhook=Webhook(application, "tg/hook", secret))
        port = await server.start("127.0.0.1", 0)
        try:
            yield application.bot_data["service"], web, port
        finally:
            await server.stop()


@contextlib.asynccontextmanager
async def running_web_bot(
    settings: Settings, *, deals: Sequence[int] = ()
) -> AsyncIterator[tuple[GameService, WebTable]]:
    new_seed = seeds_in_order(deals) if deals else playable_seed
    application = build_application(settings, new_seed=new_seed)
    async with running_application(application) as application:
        yield application.bot_data["service"], application.bot_data["web"]


def dealt_to(table: Table, seat: int) -> set[int]:
    """The card codes the seat was dealt: what it holds and what it played."""
    played = {int(card) for kind, s, cards in _plays(table) if s == seat for card in cards}
    return {int(c) for c in table.engine.hands[seat]} | played


def _plays(table: Table) -> list[tuple[str, int, list[Card]]]:
    return [(kind, seat, list(cards)) for kind, seat, cards in table.log]
