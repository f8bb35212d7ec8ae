"""Live pages are capped, against the real bot and the fake Bot API server: one user's extra
socket, and one game's, is refused with a close code and a short JSON error, and the pages
already open stay live (they get the next view)."""

from __future__ import annotations

import json
from typing import Any

import aiohttp

from bot.web.guard import SERVER_NAME
from fakebot import FakeTelegram
from tests.e2e.driver import setup_world
from tests.web.helpers import running_web_bot, web_settings
from tests.web.test_api import client_for, contextlib_all, start_game


async def refused_live(
    session: aiohttp.ClientSession, port: int, init_data: str, game: int
) -> tuple[dict[str, Any], int | None]:
    """A live socket the server refuses: what it said, and its close code."""
    socket = await session.ws_connect(f"http://127.0.0.1:{port}/api/live")
    await socket.send_str(json.dumps({"auth": init_data, "game": game}))
    said = await socket.receive(timeout=10.0)
    assert said.type == aiohttp.WSMsgType.TEXT, said
    closing = await socket.receive(timeout=10.0)
    assert closing.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED), closing
    await socket.close()
    return json.loads(said.data), socket.close_code


async def test_a_users_and_a_games_extra_live_pages_are_refused(
    fake_telegram: FakeTelegram, tmp_path: Any
) -> None:
    fake = fake_telegram
    people = setup_world(fake, 4)
    settings = web_settings(
        fake, tmp_path / "bot.sqlite3", web_sockets_per_user=2, web_sockets_per_game=3
    )
    async with running_web_bot(settings) as (service, web):
        table = await start_game(fake, service, people, "双扣")
        game = table.game_id
        first, second, third = people[0], people[1], people[2]
        async with aiohttp.ClientSession() as session:
            pages = [client_for(fake, session, web.port, first) for _ in range(2)]
            pages.append(client_for(fake, session, web.port, second))
            async with contextlib_all([page.live(game) for page in pages]):
                for page in pages:
                    await page.wait_view(lambda v: v["game_id"] == game)
                assert web.live.count() == 3
                seq = table.seq
                # the first user's third page: over their cap
                said, code = await refused_live(session, web.port, pages[0].init_data, game)
                assert said == {"error": "too many live pages of yours"}
                assert code == 4429
                # someone else's first page: over the game's cap
                stranger_page = client_for(fake, session, web.port, third)
                said, code = await refused_live(session, web.port, stranger_page.init_data, game)
                assert said == {"error": "too many live pages of this game"}
                assert code == 4429
                # nothing else was done: the same pages, the table unmoved
                assert web.live.count() == 3
                assert table.seq == seq
                # and the pages let in are live: an action reaches every one of them
                turn = table.engine.turn
                assert turn is not None
                mover = client_for(fake, session, web.port, table.seats[turn].user_id)
                status, state = await mover.state(game)
                assert status == 200
                play = state["me"]["legal"][0]["cards"]
                status, body = await mover.act(game, "play", play)
                assert status == 200 and body["accepted"], body
                for page in pages:
                    await page.wait_view(lambda v, seq=seq: v["seq"] > seq)
            # closed pages make room again
            await fake.wait_for(lambda: web.live.count() == 0, what="pages closed")
            again = client_for(fake, session, web.port, first)
            async with again.live(game):
                await again.wait_view(lambda v, seq=seq: v["seq"] > seq)
            # the API's answers do not name aiohttp either
            status_page = await session.get(f"http://127.0.0.1:{web.port}/healthz")
            assert status_page.headers["Server"] == SERVER_NAME
            status_page.release()
