"""Membership of the table's group, answered without asking Telegram each time (issue #24,
finding 2): the real bot, its web table and the fake Bot API server, counting getChatMember."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp

from bot.config import Settings
from bot.edge.app import build_application, running_application
from bot.edge.handlers.members import ChatMembers
from bot.service import GameService
from bot.web.server import WebTable
from fakebot import FakeTelegram
from tests.e2e.driver import GROUP, playable_seed, setup_world
from tests.web.helpers import web_settings
from tests.web.test_api import client_for, start_game

SPECTATOR = 777


@contextlib.asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[tuple[GameService, WebTable, ChatMembers]]:
    application = build_application(settings, new_seed=playable_seed)
    async with running_application(application) as application:
        data = application.bot_data
        yield data["service"], data["web"], data["members"]


def lookups(fake: FakeTelegram, user_id: int) -> int:
    return sum(1 for r in fake.calls("getChatMember") if r.params.get("user_id") == user_id)


async def hello(session: aiohttp.ClientSession, port: int, auth: str, game: int) -> Any:
    """A live socket's first answer: a view, or the refusal (and the close code)."""
    socket = await session.ws_connect(f"http://127.0.0.1:{port}/api/live")
    try:
        await socket.send_str(json.dumps({"auth": auth, "game": game}))
        first = json.loads((await socket.receive()).data)
        if "error" in first:
            await socket.receive()  # the close that follows a refusal
            return first, socket.close_code
        return first, None
    finally:
        await socket.close()


async def test_many_spectator_asks_make_one_call(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    fake = fake_telegram
    people = setup_world(fake, 4)
    fake.add_user(SPECTATOR, "观众")
    fake.chat(GROUP).members.add(SPECTATOR)
    # 20 live pages of one person (the cap is 4): this test counts lookups, not pages
    settings = web_settings(fake, tmp_path / "bot.sqlite3", web_sockets_per_user=20)
    async with running(settings) as (service, web, members):
        table = await start_game(fake, service, people, "双扣")
        game = table.game_id
        # they only pressed 加入 in the group: known members from their presses
        assert all(members.cache.known(GROUP, person) is True for person in people[1:])
        async with aiohttp.ClientSession() as session:
            watcher = client_for(fake, session, web.port, SPECTATOR)
            # 40 pages at once, each asking five times, and 20 live sockets
            async def page() -> list[int]:
                return [(await watcher.state(game))[0] for _ in range(5)]

            pages = await asyncio.gather(*(page() for _ in range(40)))
            sockets = await asyncio.gather(
                *(hello(session, web.port, watcher.init_data, game) for _ in range(20))
            )
        assert all(status == 200 for statuses in pages for status in statuses)
        assert all(view["seat"] is None and closed is None for view, closed in sockets)
        assert lookups(fake, SPECTATOR) == 1
        # the players wrote and pressed in the group: known members, never looked up
        assert all(lookups(fake, person) == 0 for person in people)
    fake.assert_clean()


async def test_a_ban_ends_spectating_at_once(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    fake = fake_telegram
    people = setup_world(fake, 4)
    fake.chat(GROUP).bot_is_admin = True  # so Telegram sends it chat_member updates
    fake.add_user(SPECTATOR, "观众")
    async with running(web_settings(fake, tmp_path / "bot.sqlite3")) as (service, web, members):
        table = await start_game(fake, service, people, "双扣")
        # writing in the group makes the spectator a known member: no lookup
        await fake.send_text(SPECTATOR, GROUP, "/help")
        await fake.wait_for(
            lambda: members.cache.known(GROUP, SPECTATOR) is True, what="the writer noted"
        )
        async with aiohttp.ClientSession() as session:
            watcher = client_for(fake, session, web.port, SPECTATOR)
            assert (await watcher.state(table.game_id))[0] == 200
            fake.ban(SPECTATOR, GROUP, by=people[0])
            await fake.wait_for(
                lambda: members.cache.known(GROUP, SPECTATOR) is False, what="the ban heard"
            )
            status, body = await watcher.state(table.game_id)
            # an outsider hears what they would of a game that does not exist
            assert (status, body) == (404, {"error": "no such game"})
            # and back in the group: the join is heard too
            fake.join_group(SPECTATOR, GROUP)
            await fake.wait_for(
                lambda: members.cache.known(GROUP, SPECTATOR) is True, what="the join heard"
            )
            assert (await watcher.state(table.game_id))[0] == 200
        assert lookups(fake, SPECTATOR) == 0
    fake.assert_clean()


async def test_beyond_the_budget_pages_are_told_to_try_again(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    fake = fake_telegram
    people = setup_world(fake, 4)
    strangers = list(range(2001, 2031))
    for user_id in strangers:
        fake.add_user(user_id, f"路人{user_id}")
    settings = web_settings(
        fake, tmp_path / "bot.sqlite3", member_lookups_per_second=0.01, member_lookup_burst=3
    )
    async with running(settings) as (service, web, members):
        table = await start_game(fake, service, people, "双扣")
        game = table.game_id
        async with aiohttp.ClientSession() as session:
            clients = [client_for(fake, session, web.port, u) for u in strangers]
            answers = await asyncio.gather(*(client.state(game) for client in clients))
            statuses = sorted(status for status, _ in answers)
            # three looked up (not members: as if no such game), the rest refused at once,
            # without a call
            assert statuses == [404] * 3 + [429] * 27
            assert {json.dumps(b) for s, b in answers if s == 429} == {'{"error": "try again"}'}
            assert len(fake.calls("getChatMember")) == 3
            refusal, code = await hello(session, web.port, clients[-1].init_data, game)
            assert (refusal, code) == ({"error": "try again"}, 4429)
            # the refused asks spent nothing of the games': a group command is answered
            await fake.send_text(people[1], GROUP, "/help")
            await fake.wait_for_message(
                GROUP, predicate=lambda m: (m.text or "").startswith("命令")
            )
        assert members.cache.refused >= 28
    fake.assert_clean()


async def test_telegram_failing_is_not_known_and_not_repeated(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    """A 500 is "try again" and is not asked again at once; a 400 is Telegram's "no"."""
    fake = fake_telegram
    people = setup_world(fake, 4)
    fake.add_user(SPECTATOR, "观众")
    fake.chat(GROUP).members.add(SPECTATOR)
    async with running(web_settings(fake, tmp_path / "bot.sqlite3")) as (service, web, _):
        table = await start_game(fake, service, people, "双扣")
        fake.inject("getChatMember", "500", times=1)
        async with aiohttp.ClientSession() as session:
            watcher = client_for(fake, session, web.port, SPECTATOR)
            for _ in range(3):
                assert await watcher.state(table.game_id) == (429, {"error": "try again"})
            assert len(fake.calls("getChatMember", ok=None)) == 1
            # someone Telegram does not know in the group: 400, answered as "not a member"
            ghost = client_for(fake, session, web.port, 4242)
            assert (await ghost.state(table.game_id))[0] == 404
    assert len(fake.fault_log) == 1
