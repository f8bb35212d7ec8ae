"""Replays on the web table's API: GET /api/replay/<game>?step=N for a finished game, step by
step to its result, and every refusal (no or forged initData, a stranger, no such game, a
game in progress, a step out of range)."""

from __future__ import annotations

from typing import Any

import aiohttp

from bot.web.inputs import card_of
from fakebot import FakeTelegram
from fakebot.miniapp import init_data_for
from tests.e2e.driver import GROUP, setup_world
from tests.e2e.helpers_robust import finish, start_game
from tests.web.helpers import running_web_bot, web_settings

STRANGER = 555
SPECTATOR = 777


async def get(
    session: aiohttp.ClientSession, base: str, path: str, init_data: str | None
) -> tuple[int, dict[str, Any]]:
    headers = {} if init_data is None else {"Authorization": f"tma {init_data}"}
    async with session.get(f"{base}{path}", headers=headers) as response:
        return response.status, await response.json()


async def test_a_finished_games_replay_step_by_step(
    fake_telegram: FakeTelegram, tmp_path: Any
) -> None:
    fake = fake_telegram
    people = setup_world(fake, 1)
    player = people[0]
    fake.add_user(STRANGER, "路人")
    fake.add_user(SPECTATOR, "观众")
    fake.chat(GROUP).members.add(SPECTATOR)
    async with running_web_bot(web_settings(fake, tmp_path / "bot.sqlite3")) as (service, web):
        table = await start_game(fake, service, people, "双扣", 3)
        result_message = await finish(fake, service, people, table)
        game = table.game_id
        base = f"http://127.0.0.1:{web.port}/"
        mine = init_data_for(fake.token, player, "玩家1")
        async with aiohttp.ClientSession() as session:
            status, first = await get(session, base, f"api/replay/{game}", mine)
            assert status == 200, first
            assert first["step"] == 0 and first["game_id"] == game and first["plays"] == []
            assert [len(s["hand"]) for s in first["seats"]] == [27, 27, 27, 27]
            dealt = table.variant.deal(table.seed or 0, table.leader)
            assert [sorted(s["hand"]) for s in first["seats"]] == [
                sorted(int(c) for c in hand) for hand in dealt.hands
            ]
            count = first["steps"]
            assert count > 5 and first["result"] is None
            left = 108
            for step in range(1, count):
                status, view = await get(session, base, f"api/replay/{game}?step={step}", mine)
                assert status == 200 and view["step"] == step
                now = sum(s["cards"] for s in view["seats"])
                played = sum(len(p["cards"]) for p in view["plays"])
                assert left - now == played > 0
                left = now
                assert view["over"] == (step == count - 1)
                assert (view["result"] is None) == (step < count - 1)
            # the last step: the game's result, as the group was shown it
            result = table.engine.result
            assert [s["place"] for s in view["seats"]] == [
                result.finish_order.index(i) + 1 if i in result.finish_order else None
                for i in range(4)
            ]
            assert view["result"]["headline"] in (result_message.text or "")
            assert "🏆" in view["result"]["html"]
            assert [sorted(card_of(c) for c in s["hand"]) for s in view["seats"]] == [
                sorted(hand) for hand in table.engine.hands
            ]
            # a member of the group who did not play may watch it too
            watcher = init_data_for(fake.token, SPECTATOR, "观众")
            assert (await get(session, base, f"api/replay/{game}", watcher))[0] == 200

            # refusals
            stranger = init_data_for(fake.token, STRANGER, "路人")
            assert (await get(session, base, f"api/replay/{game}", None))[0] == 401
            assert (await get(session, base, f"api/replay/{game}", "hash=00"))[0] == 401
            old = init_data_for(fake.token, player, "玩家1", age=2 * 86400)
            assert (await get(session, base, f"api/replay/{game}", old))[0] == 401
            # a stranger hears what they would of a game that does not exist
            assert await get(session, base, f"api/replay/{game}", stranger) == (
                404,
                {"error": "no replay"},
            )
            assert await get(session, base, "api/replay/987654", stranger) == (
                404,
                {"error": "no replay"},
            )
            assert await get(session, base, "api/replay/987654", mine) == (
                404,
                {"error": "no replay"},
            )
            for bad in (f"{game}?step={count}", f"{game}?step=-1", f"{game}?step=x", "x"):
                status, body = await get(session, base, f"api/replay/{bad}", mine)
                assert status == 400, (bad, body)
            # a game in progress has no replay
            playing = await start_game(fake, service, people, "双扣", 3)
            status, body = await get(session, base, f"api/replay/{playing.game_id}", mine)
            assert (status, body) == (404, {"error": "no replay"})
            assert playing.status == "playing"
    fake.assert_clean()
