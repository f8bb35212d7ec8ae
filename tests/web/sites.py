"""A game in progress on one server with the web table and a webhook, and the people who
send it bad requests (tests/web/test_bad_requests.py, tests/web/test_fuzz.py)."""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.service import GameService
from bot.service.tables import Table
from bot.web.server import WebTable
from fakebot import FakeTelegram
from fakebot.miniapp import init_data_for
from tests.e2e.driver import GROUP, setup_world
from tests.e2e.helpers_robust import start_game
from tests.web.helpers import web_and_webhook, web_settings

STRANGER, SPECTATOR = 555, 777
SECRET = "the-webhook-secret"


@dataclass
class Site:
    fake: FakeTelegram
    service: GameService
    table: Table
    web: WebTable
    base: str
    session: aiohttp.ClientSession
    waiter: str  # initData of a seated player whose turn it is not
    stranger: str  # of someone outside the group
    spectator: str  # of a member of the group who is not seated

    async def post(
        self, body: bytes, init_data: str | None, **headers: str
    ) -> tuple[int, Any]:
        if init_data is not None:
            headers["Authorization"] = f"tma {init_data}"
        async with self.session.post(
            f"{self.base}api/action", data=body, headers=headers
        ) as response:
            return response.status, await _json(response)

    async def get(self, path: str, init_data: str) -> tuple[int, Any]:
        headers = {"Authorization": f"tma {init_data}"}
        async with self.session.get(f"{self.base}{path}", headers=headers) as response:
            return response.status, await _json(response)


async def _json(response: aiohttp.ClientResponse) -> Any:
    text = await response.text()
    try:
        return json.loads(text)
    except ValueError:
        return text


@contextlib.asynccontextmanager
async def open_site(fake_telegram: FakeTelegram, tmp_path: Path) -> AsyncIterator[Site]:
    """A 双扣 game of four people, on a server with the web table and the webhook."""
    fake = fake_telegram
    people = setup_world(fake, 4)
    fake.add_user(STRANGER, "路人")
    fake.add_user(SPECTATOR, "观众")
    fake.chat(GROUP).members.add(SPECTATOR)
    settings = web_settings(fake, tmp_path / "bot.sqlite3")
    async with web_and_webhook(settings, SECRET) as (service, web, port):
        table = await start_game(fake, service, people, "双扣", 0)
        turn = table.engine.turn
        assert turn is not None
        waiter = people[(turn + 1) % 4]
        async with aiohttp.ClientSession() as session:
            yield Site(
                fake,
                service,
                table,
                web,
                f"http://127.0.0.1:{port}/",
                session,
                init_data_for(fake.token, waiter, "玩家"),
                init_data_for(fake.token, STRANGER, "路人"),
                init_data_for(fake.token, SPECTATOR, "观众"),
            )
    fake.assert_clean()


def no_errors(caplog: pytest.LogCaptureFixture) -> None:
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, caplog.text
