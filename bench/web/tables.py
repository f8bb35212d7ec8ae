"""The world of a web run: groups and people, their lobbies and games, the games' pages."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import aiohttp

from bench.harness import fake_settings, open_lobby
from bench.web.pages import Page
from bot.game import paowang
from fakebot import FakeTelegram
from fakebot.miniapp import init_data_for

WEBAPP_URL = "https://cards.example/t/"
HUMANS = {"shuangkou": 4, "paowang": 5}
GROUP_BASE = -1_005_000_000_000
USER_BASE = 300_000


def seeds_in_order(seeds: Sequence[int]) -> Callable[[], int]:
    """A seed source giving ``seeds`` in order, then the last one again."""
    queue = list(seeds)

    def next_seed() -> int:
        return queue.pop(0) if len(queue) > 1 else queue[0]

    return next_seed


def playable_seeds(count: int, seed: int) -> list[int]:
    """``count`` fixed seeds whose 刨王 deal does not end at once (all four jokers in one hand)."""
    rng = random.Random(seed)
    seeds: list[int] = []
    while len(seeds) < count:
        candidate = rng.getrandbits(62)
        if not paowang.Game.deal(candidate).over:
            seeds.append(candidate)
    return seeds


@dataclass
class TableSpec:
    index: int
    variant: str

    @property
    def group(self) -> int:
        return GROUP_BASE - self.index

    @property
    def people(self) -> list[int]:
        return [USER_BASE + 10 * self.index + n for n in range(HUMANS[self.variant])]


def add_world(fake: FakeTelegram, specs: Sequence[TableSpec]) -> None:
    for spec in specs:
        fake.add_group(spec.group, f"牌桌{spec.index + 1}", members=spec.people)
        for n, user_id in enumerate(spec.people):
            fake.add_user(user_id, f"玩家{spec.index + 1}-{n + 1}", language_code="zh-hans")


def game_of(fake: FakeTelegram, user_id: int) -> int | None:
    """The game of the newest 🃏 牌桌 button in the user's private chat, as a page opens it."""
    for message in reversed(fake.chat(user_id).bot_messages):
        for button in message.buttons:
            app = button.get("web_app")
            if app:
                return int(parse_qs(urlsplit(app["url"]).query)["game"][0])
    return None


async def start_table(fake: FakeTelegram, spec: TableSpec, timeout: float = 120.0) -> int:
    """/start, /newgame, 加入, 开始 as the people would; the game id from the hand messages."""
    people = spec.people
    lobby = await open_lobby(fake, spec.group, spec.variant, people, people[0], timeout)
    await (await fake.press(people[0], spec.group, lobby.message_id, "开始")).answered(timeout)
    games = await fake.wait_for(
        lambda: all(game_of(fake, u) for u in people) and {game_of(fake, u) for u in people},
        timeout,
        what="every hand message with its 🃏 牌桌 button",
    )
    assert len(games) == 1, games
    return int(next(iter(games)))


async def open_pages(
    fake: FakeTelegram,
    session: aiohttp.ClientSession,
    base: str,
    spec: TableSpec,
    game_id: int,
    timeout: float = 60.0,
) -> list[Page]:
    pages = [
        Page(session, base, init_data_for(fake.token, u, f"玩家{u}"), game_id) for u in spec.people
    ]
    for page in pages:
        await page.open()
    async with asyncio.timeout(timeout):
        for page in pages:
            await page.first.wait()
    return pages


def web_settings(fake: FakeTelegram, db_path: Path, **overrides: Any) -> dict[str, Any]:
    """The bot's defaults, pointed at the fake, with the web table on a free local port."""
    return fake_settings(
        fake, db_path, webapp_url=WEBAPP_URL, web_listen="127.0.0.1", web_port=0, **overrides
    )
