"""The web table's API against the real bot and the fake Bot API server: whole games played
through it, every live message checked for what it must not show, and every refusal."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

import aiohttp
import pytest

from bot.service import GameService
from bot.service.tables import Table
from fakebot import FakeTelegram
from fakebot.miniapp import WebClient, init_data_for
from tests.e2e.driver import GROUP, open_lobby, setup_world
from tests.web.helpers import WEBAPP_URL, dealt_to, running_web_bot, web_settings

OTHER_GROUP = -1002
STRANGER = 555


def client_for(
    fake: FakeTelegram, session: aiohttp.ClientSession, port: int, user_id: int, **kw: Any
) -> WebClient:
    data = init_data_for(fake.token, user_id, f"玩家{user_id}", **kw)
    return WebClient(f"http://127.0.0.1:{port}/", data, session)


async def start_game(
    fake: FakeTelegram, service: GameService, people: list[int], variant: str
) -> Table:
    lobby = await open_lobby(fake, people, variant, 0)
    game_id = service.by_chat[GROUP]
    table = service.tables[game_id]
    await (await fake.press(people[0], GROUP, lobby.message_id, "开始")).answered()
    await fake.wait_for(lambda: table.dealt, what="the deal")
    return table


def web_buttons(fake: FakeTelegram, user: int) -> list[str]:
    return [
        button["web_app"]["url"]
        for message in fake.chat(user).bot_messages
        for button in message.buttons
        if "web_app" in button
    ]


def url_buttons(fake: FakeTelegram, chat: int) -> list[str]:
    return [
        button["url"]
        for message in fake.chat(chat).bot_messages
        for button in message.buttons
        if "url" in button
    ]


def private_calls(fake: FakeTelegram, people: Sequence[int]) -> int:
    """Sends and edits to the players' private chats so far."""
    return sum(
        1
        for method in ("sendMessage", "editMessageText")
        for record in fake.calls(method)
        if record.chat_id in people
    )


def prompts(fake: FakeTelegram, people: Sequence[int]) -> int:
    """Hand prompts sent so far (a new message that says it is the player's turn)."""
    return sum(
        1
        for record in fake.calls("sendMessage")
        if record.chat_id in people and "轮到你了" in str(record.params.get("text", ""))
    )


def check_hidden(client: WebClient, seat: int, table: Table) -> None:
    """No live message showed a card outside the seat's own hand and the public plays, nor a
    partner the seat could not know by the end."""
    final = table.engine.view(seat)
    dealt = dealt_to(table, seat)
    assert client.raw
    for raw in client.raw:
        view = json.loads(raw)
        assert view["seat"] == seat
        assert set(view["hand"]) <= dealt
        for play in view["me"]["legal"]:
            assert set(play["cards"]) <= set(view["hand"])
        for index, entry in enumerate(view["seats"]):
            if entry["partner"]:
                assert index in final.partners, (index, final.partners)


async def play_through_pages(
    table: Table, clients: dict[int, WebClient], people: Sequence[int]
) -> int:
    """Every human decides on their page until the game is over; returns the actions."""
    actions = 0
    turn = 0
    while table.status == "playing":
        game = table.engine
        if table.gate_open:
            for index in sorted(table.ready_pending):
                user = table.seats[index].user_id
                status, state = await clients[user].state(table.game_id)
                assert status == 200
                kind = "ready"
                if state["me"]["reveal"]:
                    kind = "reveal" if index % 2 == 0 else "decline"
                status, body = await clients[user].act(table.game_id, kind)
                assert status == 200 and body["accepted"], body
            continue
        index = game.turn
        assert index is not None
        user = table.seats[index].user_id
        client = clients[user]
        # the page learns its turn from the live socket, not from a poll
        seq = table.public_seq  # what a page counts (not the hidden 亮王 answers)
        # the gate's close changes no count a page sees, only the view: wait for that too
        view = await client.wait_view(lambda v, seq=seq: v["seq"] >= seq and not v["gate"])
        if view["seq"] > seq or view["turn"] != view["seat"]:
            continue  # 要不起: the bot passed for them already
        me = view["me"]
        if me["auto_pass"]:  # 要不起: the bot passes for them in a moment
            assert not me["legal"] and not me["can_pass"]
            await client.wait_view(lambda v, seq=seq: v["seq"] > seq)
            continue
        turn += 1
        if me["can_pass"] and (turn % 3 == 0 or not me["legal"]):
            status, body = await client.act(table.game_id, "pass")
        else:
            status, body = await client.act(table.game_id, "play", me["legal"][0]["cards"])
        assert status == 200 and body["accepted"], body
        actions += 1
    return actions


@pytest.mark.parametrize(("variant", "humans"), [("双扣", 4), ("刨王", 5)])
async def test_a_whole_game_played_on_pages(
    fake_telegram: FakeTelegram, tmp_path: Any, variant: str, humans: int
) -> None:
    fake = fake_telegram
    people = setup_world(fake, humans)
    settings = web_settings(fake, tmp_path / "bot.sqlite3", miniapp_short_name="cards")
    async with running_web_bot(settings) as (service, web):
        table = await start_game(fake, service, people, variant)
        game = table.game_id
        # the ways in: every hand message has the web_app button to this game's page, and
        # the group's table message a direct link for spectators
        for user in people:
            await fake.wait_for(lambda u=user: web_buttons(fake, u), what="the hand message")
            assert web_buttons(fake, user)[0] == f"{WEBAPP_URL}?game={game}"
        link = f"https://t.me/{fake.bot_username}/cards?startapp=g{game}"
        await fake.wait_for(lambda: link in url_buttons(fake, GROUP), what="the table's link")
        async with aiohttp.ClientSession() as session:
            clients = {u: client_for(fake, session, web.port, u) for u in people}
            async with contextlib_all([c.live(game) for c in clients.values()]):
                await fake.wait_for(lambda: web.live.count() == humans, what="pages open")
                private_before = private_calls(fake, people)
                prompts_before = prompts(fake, people)
                actions = await play_through_pages(table, clients, people)
                # with every page open, no hand prompt is sent or edited for a turn: at
                # most the one prompt sent before the pages opened is retired
                # with every page open, no hand prompt is sent for a turn; what reaches the
                # private chats is a constant per game (the messages sent before the pages
                # opened retired, 刨王's hands after the 亮王 gate), not a message per turn
                assert private_calls(fake, people) - private_before <= 2 * humans
                assert prompts(fake, people) == prompts_before
                # the end reaches every page: the result, with each seat's change
                settlement = table.settlement
                assert settlement is not None
                deltas = {row.seat: row.adjusted_delta for row in settlement.rows}
                for client in clients.values():
                    end = await client.wait_view(lambda v: v["status"] == "finished")
                    assert end["result"]["deltas"] == [deltas[i] for i in range(humans)]
                    assert end["result"]["headline"] in end["result"]["html"]
        assert actions > 10
        for index, user in enumerate(people):
            check_hidden(clients[user], index, table)
        record = await service.db.games.get(table.game_id)
        assert record is not None and record.status == "finished"
        assert not fake.unanswered_callbacks()
        fake.assert_clean()


class contextlib_all:
    """Enter several async context managers at once, leave them all."""

    def __init__(self, managers: Sequence[Any]) -> None:
        self.managers = managers

    async def __aenter__(self) -> None:
        for manager in self.managers:
            await manager.__aenter__()

    async def __aexit__(self, *exc: object) -> None:
        for manager in reversed(self.managers):
            await manager.__aexit__(*exc)


async def test_refusals_change_nothing(fake_telegram: FakeTelegram, tmp_path: Any) -> None:
    fake = fake_telegram
    people = setup_world(fake, 4)
    fake.add_group(OTHER_GROUP, "别的群", members=[STRANGER])
    fake.add_user(STRANGER, "路人", language_code="zh-hans")
    async with running_web_bot(web_settings(fake, tmp_path / "bot.sqlite3")) as (service, web):
        table = await start_game(fake, service, people, "双扣")
        game = table.game_id
        turn = table.engine.turn
        assert turn is not None
        mover, waiter = people[turn], people[(turn + 1) % 4]
        before = (table.seq, [list(h) for h in table.engine.hands])
        async with aiohttp.ClientSession() as session:
            base = f"http://127.0.0.1:{web.port}/"
            # missing, forged and expired initData: 401
            for data in ("", "user=%7B%22id%22%3A101%7D&auth_date=1&hash=00"):
                bad = WebClient(base, data, session)
                assert (await bad.state(game))[0] == 401
                assert (await bad.act(game, "pass"))[0] == 401
            old = client_for(fake, session, web.port, mover, age=2 * 86400)
            assert (await old.act(game, "pass"))[0] == 401
            # someone not in the group: no view, no action, and the same answer as for a
            # game that does not exist (nothing tells them which ids do)
            stranger = client_for(fake, session, web.port, STRANGER)
            nowhere = (404, {"error": "no such game"})
            assert await stranger.state(game) == await stranger.state(10_000) == nowhere
            assert await stranger.act(game, "pass") == await stranger.act(10_000, "pass")
            assert await stranger.act(game, "pass") == nowhere
            # a seated player acts only for their own seat, and only on their turn
            waiting = client_for(fake, session, web.port, waiter)
            status, body = await waiting.act(game, "pass")
            assert status == 200 and not body["accepted"] and "还没轮到你" in body["message"]
            # cards not held, garbage cards, unknown actions, no such game
            playing = client_for(fake, session, web.port, mover)
            held = set(table.engine.hands[turn])
            missing = next(int(c) for c in table.engine.hands[(turn + 1) % 4] if c not in held)
            status, body = await playing.act(game, "play", [missing])
            assert status == 200 and not body["accepted"]
            for cards in ([1], [9999], ["♠3"], [True]):
                assert (await playing.act(game, "play", cards))[0] == 400  # type: ignore[list-item]
            assert (await playing.act(game, "cheat"))[0] == 400
            assert (await playing.act(10_000, "pass"))[0] == 404
            assert (await playing.state(10_000))[0] == 404
            # the live socket refuses forged data too, and says why
            socket = await session.ws_connect(f"{base}api/live")
            await socket.send_str(json.dumps({"auth": "hash=1", "game": game}))
            refusal = await socket.receive_json()
            assert refusal == {"error": "wrong hash"}
            await socket.close()
            # a member of the group who is not seated watches: the public view, no hand
            fake.add_user(ADMIN_SPECTATOR, "观众", language_code="zh-hans")
            fake.chat(GROUP).members.add(ADMIN_SPECTATOR)
            watcher = client_for(fake, session, web.port, ADMIN_SPECTATOR)
            status, view = await watcher.state(game)
            assert status == 200 and view["seat"] is None and view["hand"] == []
            assert view["me"]["legal"] == []
            assert (await watcher.act(game, "pass"))[0] == 403
            # the group's direct link carries the game as startapp=g<id>
            linked = client_for(fake, session, web.port, ADMIN_SPECTATOR, start_param=f"g{game}")
            status, view = await linked.state(None)
            assert status == 200 and view["game_id"] == game and view["seat"] is None
        assert (table.seq, [list(h) for h in table.engine.hands]) == before
        assert table.engine.turn == turn


ADMIN_SPECTATOR = 777


async def test_a_page_closed_on_its_turn_brings_the_prompt_back(
    fake_telegram: FakeTelegram, tmp_path: Any
) -> None:
    """While the next player's page is open their turn sends no prompt; when they close it,
    the prompt comes, so they can go on with the buttons."""
    fake = fake_telegram
    people = setup_world(fake, 4)
    async with running_web_bot(web_settings(fake, tmp_path / "bot.sqlite3"), deals=[5]) as (
        service,
        web,
    ):
        table = await start_game(fake, service, people, "双扣")
        first = table.engine.turn
        assert first is not None
        second = (first + 1) % 4
        prompt = table.seats[first].live_message_id
        assert prompt is not None
        async with aiohttp.ClientSession() as session:
            mover = client_for(fake, session, web.port, people[first])
            watcher = client_for(fake, session, web.port, people[second])
            # the first player's page opens: the prompt's buttons come off at once (not in
            # their first action, which would wait for that edit)
            async with mover.live(table.game_id):
                chat = fake.chat(people[first])
                await fake.wait_for(
                    lambda: not getattr(chat.message(prompt), "buttons", True),
                    what="the prompt's buttons off",
                )
                assert table.seats[first].live_message_id is None
            async with watcher.live(table.game_id):
                await fake.wait_for(lambda: web.live.count() == 1, what="the page open")
                before = prompts(fake, [people[second]])
                _, view = await mover.state(table.game_id)
                status, body = await mover.act(
                    table.game_id, "play", view["me"]["legal"][0]["cards"]
                )
                assert status == 200 and body["accepted"]
                assert table.engine.turn == second and table.seats[second].plays_itself
                assert not service.cannot_beat(table, second)  # asked: a prompt would go out
                turn = await watcher.wait_view(lambda v: v["turn"] == second)
                assert turn["me"]["legal"]
                # the page heard the play as it happened (to animate it), once
                heard = [e for v in watcher.views for e in v["events"] if e["type"] == "play"]
                assert [(e["seat"], sorted(e["cards"]), e["seq"]) for e in heard] == [
                    (first, sorted(view["me"]["legal"][0]["cards"]), 1)
                ]
                assert heard[0]["name"] and not heard[0]["bomb"] and not heard[0]["timed_out"]
                assert prompts(fake, [people[second]]) == before
            await fake.wait_for(
                lambda: prompts(fake, [people[second]]) == before + 1, what="the prompt"
            )
        assert table.seats[second].live_message_id is not None


async def test_the_page_speaks_the_players_language(
    fake_telegram: FakeTelegram, tmp_path: Any
) -> None:
    """Texts and play names follow the seat's language: the player's Telegram language (or
    their /lang choice) when they sat down."""
    fake = fake_telegram
    people = setup_world(fake, 4)
    fake.user(people[1]).language_code = "en"
    async with running_web_bot(web_settings(fake, tmp_path / "bot.sqlite3")) as (service, web):
        table = await start_game(fake, service, people, "双扣")
        async with aiohttp.ClientSession() as session:
            english = client_for(fake, session, web.port, people[1])
            chinese = client_for(fake, session, web.port, people[0])
            _, en = await english.state(table.game_id)
            _, zh = await chinese.state(table.game_id)
    assert (en["lang"], zh["lang"]) == ("en", "zh")
    assert en["strings"]["pass"] == "Pass" and zh["strings"]["pass"] == "不出"
    assert (en["variant_name"], zh["variant_name"]) == ("Shuangkou", "绍兴双扣")


async def test_a_page_opened_right_after_the_deal_does_not_wait_for_the_prompts_edit(
    fake_telegram: FakeTelegram, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opening the page takes the buttons off the seat's prompt; that edit may wait for the
    private chat's pace (the deal's messages just went out). The first view does not wait
    for it, and the buttons come off all the same."""
    fake = fake_telegram
    people = setup_world(fake, 4)
    async with running_web_bot(web_settings(fake, tmp_path / "bot.sqlite3")) as (service, web):
        table = await start_game(fake, service, people, "双扣")
        first = table.engine.turn
        assert first is not None
        prompt = table.seats[first].live_message_id
        assert prompt is not None
        paced, edits = asyncio.Event(), []
        edit = service.messenger.edit

        async def slow_edit(chat_id: int, message_id: int, *args: Any, **kwargs: Any) -> Any:
            if message_id == prompt:
                edits.append(message_id)
                await paced.wait()  # as if the chat's pace held it
            return await edit(chat_id, message_id, *args, **kwargs)

        monkeypatch.setattr(service.messenger, "edit", slow_edit)
        async with aiohttp.ClientSession() as session:
            mover = client_for(fake, session, web.port, people[first])
            async with mover.live(table.game_id):
                view = await mover.wait_view(lambda v: v["turn"] == first)
                assert view["me"]["legal"] and edits == [prompt] and not paced.is_set()
                assert table.seats[first].live_message_id is None  # its buttons are stale
                paced.set()
                chat = fake.chat(people[first])
                await fake.wait_for(
                    lambda: not getattr(chat.message(prompt), "buttons", True),
                    what="the prompt's buttons off",
                )
