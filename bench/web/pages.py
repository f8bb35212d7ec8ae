"""A person's page of the web table: its live socket, timestamped, and how the person decides."""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import json
import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import aiohttp

from bot.game.players import make_player
from bot.service.tables import Table

SEQ = re.compile(r'"seq":(\d+)')


class Page:
    """One person's open page: the live socket's messages with their arrival times and
    ``seq`` (the only thing parsed as they arrive), and the page's action calls."""

    def __init__(
        self, session: aiohttp.ClientSession, base: str, init_data: str, game_id: int
    ) -> None:
        self.session = session
        self.base = base
        self.init_data = init_data
        self.game_id = game_id
        self.times: list[float] = []  # arrival, perf_counter
        self.seqs: list[int] = []
        self.latest = ""
        self.changed = asyncio.Event()
        self.first = asyncio.Event()
        self.odd: list[str] = []  # messages that are no view (a refusal)
        self.backwards = 0  # views older than one received before
        self._socket: aiohttp.ClientWebSocketResponse | None = None
        self._reader: asyncio.Task[None] | None = None

    async def open(self) -> None:
        self._socket = await self.session.ws_connect(f"{self.base}api/live")
        await self._socket.send_str(json.dumps({"auth": self.init_data, "game": self.game_id}))
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self._socket is not None
        async for message in self._socket:
            at = time.perf_counter()
            if message.type != aiohttp.WSMsgType.TEXT:
                break
            found = SEQ.search(message.data)
            if found is None:
                self.odd.append(message.data[:200])
                continue
            seq = int(found.group(1))
            if self.seqs and seq < self.seqs[-1]:
                self.backwards += 1
            self.times.append(at)
            self.seqs.append(seq)
            self.latest = message.data
            self.changed.set()
            self.first.set()

    async def close(self) -> None:
        if self._socket is not None:
            await self._socket.close()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader

    @property
    def seq(self) -> int:
        return self.seqs[-1] if self.seqs else -1

    def view(self) -> dict[str, Any]:
        view: dict[str, Any] = json.loads(self.latest)
        return view

    def arrived(self, seq: int, after: float) -> float | None:
        """When the first view with ``seq`` or newer arrived (at or after ``after``)."""
        start = bisect.bisect_left(self.times, after)
        for index in range(start, len(self.seqs)):
            if self.seqs[index] >= seq:
                return self.times[index]
        return None

    async def act(self, kind: str, cards: Sequence[int] = ()) -> tuple[int, dict[str, Any]]:
        async with self.session.post(
            f"{self.base}api/action",
            json={"game": self.game_id, "kind": kind, "cards": list(cards)},
            headers={"Authorization": f"tma {self.init_data}"},
        ) as response:
            return response.status, await response.json()


@dataclass
class Act:
    """One action a page sent."""

    table: int  # the table's index in the run
    kind: str
    seq: int  # the view's seq it was decided on
    sent: float  # perf_counter just before the request
    answered: float
    status: int
    accepted: bool
    message: str = ""


Decide = Callable[[dict[str, Any]], tuple[str, list[int]]]


@dataclass
class Person:
    """A human on a page: waits for their turn in the views, thinks, decides, posts."""

    table: int
    page: Page
    decide: Decide
    think: tuple[float, float]
    rng: random.Random
    acts: list[Act]
    deadline: float = float("inf")  # perf_counter: no new action after it
    gate_answered: bool = False
    acted_on: int = -1  # the seq of the last view acted on

    async def play(self) -> None:
        page = self.page
        while True:
            await page.changed.wait()
            page.changed.clear()
            if time.perf_counter() >= self.deadline:
                return
            view = page.view()
            if view["status"] != "playing":
                return
            me = view["me"]
            if view["gate"]:
                if (me["reveal"] or me["ready"]) and not self.gate_answered:
                    kind, _ = self.decide(view)
                    act = await self._send(view, kind, [])
                    self.gate_answered = act.accepted
                continue
            if view["turn"] != view["seat"] or me["auto_pass"] or view["seq"] <= self.acted_on:
                continue
            if not me["legal"] and not me["can_pass"]:
                continue
            low, high = self.think
            if high > 0:
                await asyncio.sleep(self.rng.uniform(low, high))
            if time.perf_counter() >= self.deadline:
                return
            kind, cards = self.decide(view)
            act = await self._send(view, kind, cards)
            if act.accepted:
                self.acted_on = view["seq"]
            else:  # refused (too fast, say): look again in a moment
                await asyncio.sleep(0.2)
                page.changed.set()

    async def _send(self, view: dict[str, Any], kind: str, cards: list[int]) -> Act:
        sent = time.perf_counter()
        status, body = await self.page.act(kind, cards)
        act = Act(
            self.table,
            kind,
            int(view["seq"]),
            sent,
            time.perf_counter(),
            status,
            status == 200 and bool(body.get("accepted")),
            str(body.get("message") or body.get("error") or ""),
        )
        self.acts.append(act)
        return act


def json_policy(rng: random.Random) -> Decide:
    """Decide from the page's view alone: 亮王 half the time, else the cheapest legal play, or
    不出 a quarter of the times it may (always when nothing is legal)."""

    def decide(view: dict[str, Any]) -> tuple[str, list[int]]:
        me = view["me"]
        if view["gate"]:
            if me["reveal"]:
                return ("reveal" if rng.random() < 0.5 else "decline"), []
            return "ready", []
        if me["can_pass"] and (not me["legal"] or rng.random() < 0.25):
            return "pass", []
        return "play", list(me["legal"][0]["cards"])

    return decide


def brain_policy(table: Table, seat: int, seed: int) -> Decide:
    """The bot's AI player's choice from the seat's own view (what the page shows)."""
    brain = make_player("ai", seed=seed)

    def decide(view: dict[str, Any]) -> tuple[str, list[int]]:
        me = view["me"]
        seat_view = table.engine.view(seat)
        if view["gate"]:
            if me["reveal"]:
                return ("reveal" if brain.choose_reveal(seat_view) else "decline"), []
            return "ready", []
        choice = brain.choose(seat_view)
        if choice is None and me["can_pass"]:
            return "pass", []
        if choice is None:
            return "play", list(me["legal"][0]["cards"])
        return "play", [int(card) for card in choice.cards]

    return decide
