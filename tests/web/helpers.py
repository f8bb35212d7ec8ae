"""The bot with its web table, and a Python client that talks to it as the page does."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from bot.app import build_application, running_application
from bot.config import Settings
from bot.game.cards import Card, parse_cards
from bot.service import GameService
from bot.service.tables import Table
from bot.web.initdata import sign_init_data
from bot.web.server import WebTable
from fakebot import FakeTelegram
from tests.e2e.driver import bot_settings, playable_seed, seeds_in_order

WEBAPP_URL = "https://cards.example/table/"


def web_settings(fake: FakeTelegram, db_path: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {"webapp_url": WEBAPP_URL, "web_listen": "127.0.0.1", "web_port": 0}
    values.update(overrides)
    return bot_settings(fake, db_path, **values)


@contextlib.asynccontextmanager
async def running_web_bot(
    settings: Settings, *, deals: Sequence[int] = ()
) -> AsyncIterator[tuple[GameService, WebTable]]:
    new_seed = seeds_in_order(deals) if deals else playable_seed
    application = build_application(settings, new_seed=new_seed)
    async with running_application(application) as application:
        yield application.bot_data["service"], application.bot_data["web"]


def init_data_for(
    token: str,
    user_id: int,
    name: str,
    *,
    language_code: str = "zh-hans",
    age: float = 0.0,
    start_param: str = "",
) -> str:
    user = {"id": user_id, "first_name": name, "language_code": language_code}
    return sign_init_data(token, user, auth_date=int(time.time() - age), start_param=start_param)


@dataclass
class WebClient:
    """One person's page, as HTTP calls and a live socket."""

    base: str
    init_data: str
    session: aiohttp.ClientSession
    views: list[dict[str, Any]] = field(default_factory=list)
    raw: list[str] = field(default_factory=list)  # every live message, as received
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"tma {self.init_data}"}

    async def state(self, game: int | str | None) -> tuple[int, dict[str, Any]]:
        params = {} if game is None else {"game": str(game)}
        async with self.session.get(
            f"{self.base}api/state", params=params, headers=self.headers()
        ) as response:
            return response.status, await response.json()

    async def act(
        self, game: int, kind: str, cards: Sequence[int] = ()
    ) -> tuple[int, dict[str, Any]]:
        async with self.session.post(
            f"{self.base}api/action",
            json={"game": game, "kind": kind, "cards": list(cards)},
            headers=self.headers(),
        ) as response:
            return response.status, await response.json()

    @contextlib.asynccontextmanager
    async def live(self, game: int | None) -> AsyncIterator[WebClient]:
        """Keep the live socket open: every view it receives lands in ``views``."""
        socket = await self.session.ws_connect(f"{self.base}api/live")
        await socket.send_str(json.dumps({"auth": self.init_data, "game": game}))

        async def read() -> None:
            async for message in socket:
                if message.type != aiohttp.WSMsgType.TEXT:
                    break
                self.raw.append(message.data)
                self.views.append(json.loads(message.data))
                self._changed.set()

        reader = asyncio.create_task(read())
        try:
            yield self
        finally:
            await socket.close()
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader

    async def wait_view(self, predicate: Any, timeout: float = 20.0) -> dict[str, Any]:
        """The first received view (from now back to the latest) that fits ``predicate``."""
        try:
            return await self._wait_view(predicate, timeout)
        except TimeoutError:
            last = self.views[-1] if self.views else {}
            raise AssertionError(
                f"no such view; the last: seq {last.get('seq')} turn {last.get('turn')} "
                f"seat {last.get('seat')} me {last.get('me')}"
            ) from None

    async def _wait_view(self, predicate: Any, timeout: float) -> dict[str, Any]:
        async with asyncio.timeout(timeout):
            while True:
                if self.views and predicate(self.views[-1]):
                    return self.views[-1]
                self._changed.clear()
                await self._changed.wait()


def dealt_to(table: Table, seat: int) -> set[int]:
    """The card codes the seat was dealt: what it holds and what it played."""
    played = {int(card) for kind, s, cards in _plays(table) if s == seat for card in cards}
    return {int(c) for c in table.engine.hands[seat]} | played


def _plays(table: Table) -> list[tuple[str, int, list[Card]]]:
    return [(kind, seat, parse_cards(cards) if cards else []) for kind, seat, cards in table.log]
