"""Part 1 of ``bench.web``: the Bot API calls per action of games played on pages."""

from __future__ import annotations

import asyncio
import random
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

from bench.web.pages import Act, Person, brain_policy
from bench.web.tables import (
    TableSpec,
    add_world,
    open_pages,
    playable_seeds,
    seeds_in_order,
    start_table,
    web_settings,
)
from bot.config import Settings
from bot.edge.app import build_application, running_application
from bot.service import GameService
from fakebot import FakeTelegram, RequestRecord


@dataclass
class GameCalls:
    spec: TableSpec
    seed: int
    game_id: int = 0
    actions: int = 0
    page_plays: int = 0  # plays and passes sent by pages
    gate_answers: int = 0
    auto_passes: int = 0  # 要不起 passes the bot made
    seconds: float = 0.0  # from every page open to the result
    boxes: Counter[str] = field(default_factory=Counter)
    refused: int = 0  # page actions not accepted

    @property
    def calls(self) -> int:
        return sum(self.boxes.values())


def box_of(record: RequestRecord, group: int) -> str:
    where = "group" if record.chat_id == group else "private"
    if record.status == 429:
        return f"{where} 429"
    names = {
        "sendMessage": "send",
        "editMessageText": "edit",
        "editMessageReplyMarkup": "edit",
        "deleteMessage": "delete",
    }
    return f"{where} {names.get(record.method, record.method)}"


async def run_calls(
    games: int, think: tuple[float, float], seed: int
) -> tuple[list[GameCalls], dict[str, int]]:
    """Every game at once, each in its own group; returns them and the window's calls that
    name no chat (by method, getUpdates left out)."""
    specs = [TableSpec(n, "shuangkou") for n in range(games)]
    specs += [TableSpec(games + n, "paowang") for n in range(games)]
    seeds = playable_seeds(len(specs), seed)
    results = [GameCalls(spec, s) for spec, s in zip(specs, seeds, strict=True)]
    async with FakeTelegram() as fake:
        add_world(fake, specs)
        with tempfile.TemporaryDirectory(prefix="bench-web-") as folder:
            settings = Settings(**web_settings(fake, Path(folder) / "bot.sqlite3"))
            application = build_application(settings, new_seed=seeds_in_order(seeds))
            async with running_application(application) as application:
                service: GameService = application.bot_data["service"]
                port = application.bot_data["web"].port
                for result in results:  # in order: each game gets its seed
                    result.game_id = await start_table(fake, result.spec)
                connector = aiohttp.TCPConnector(limit=0)
                async with aiohttp.ClientSession(connector=connector) as session:
                    base = f"http://127.0.0.1:{port}/"
                    first = len(fake.requests)
                    await asyncio.gather(
                        *(_calls_game(fake, service, session, base, r, think) for r in results)
                    )
                    await asyncio.sleep(1.0)  # the last requests finish
                    last = len(fake.requests)
            window = fake.requests[first:last]
            no_chat = Counter(
                r.method for r in window if r.chat_id is None and r.method != "getUpdates"
            )
    return results, dict(no_chat)


async def _calls_game(
    fake: FakeTelegram,
    service: GameService,
    session: aiohttp.ClientSession,
    base: str,
    result: GameCalls,
    think: tuple[float, float],
) -> None:
    spec = result.spec
    table = service.tables[result.game_id]
    pages = await open_pages(fake, session, base, spec, result.game_id)
    first = len(fake.requests)
    seq0 = table.seq
    began = time.monotonic()
    acts: list[Act] = []
    rng = random.Random(result.seed)
    persons = []
    for page, user_id in zip(pages, spec.people, strict=True):
        seat = table.seat_of(user_id)
        assert seat is not None
        decide = brain_policy(table, seat, rng.randrange(1 << 30))
        persons.append(Person(spec.index, page, decide, think, random.Random(user_id), acts))
    await asyncio.gather(*(p.play() for p in persons))
    await fake.wait_for_message(spec.group, contains="🏆", timeout=120)
    assert table.has_channel
    await table.channel.drain()
    await asyncio.sleep(1.0)
    result.seconds = time.monotonic() - began
    for page in pages:
        await page.close()
    chats = {spec.group, *spec.people}
    for record in fake.requests[first:]:
        if record.chat_id in chats:
            result.boxes[box_of(record, spec.group)] += 1
    result.actions = table.seq - seq0
    accepted = [a for a in acts if a.accepted]
    result.page_plays = sum(1 for a in accepted if a.kind in ("play", "pass"))
    result.gate_answers = sum(1 for a in accepted if a.kind in ("reveal", "decline", "ready"))
    result.refused = sum(1 for a in acts if not a.accepted)
    # every seat is a page: what the pages did not send (nor answer at the gate, which
    # logs a reveal or not) the bot did, 要不起
    reveals = sum(1 for a in accepted if a.kind in ("reveal", "decline"))
    result.auto_passes = result.actions - result.page_plays - reveals
