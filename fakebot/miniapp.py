"""A Telegram client's side of the web table (the Mini App): signed ``initData`` as Telegram
hands it to the page, and the page's calls (state, actions, the live socket). Tests and
benchmarks act as pages with it; the browser tests use a real browser instead."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from bot.web.initdata import sign_init_data


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
