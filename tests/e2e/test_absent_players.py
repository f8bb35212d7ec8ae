"""Absent players: the turn timer, 托管 and 「我回来了」, /leave, /cancel and /kick.

Short turn timers (settings overrides) stand in for people who do not answer; the tests wait
on what the group and the players are shown, never on the clock.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from bot.game.paowang import Game
from fakebot import FakeMessage, FakeTelegram
from tests.e2e.driver import ADMIN, GROUP, live_message, running_bot, setup_world
from tests.e2e.helpers_robust import (
    FAST,
    check_settlement,
    decider,
    escape_penalty,
    fast_settings,
    finish,
    hint_and_play,
    say,
    seed_where,
    snapshot,
    start_game,
    wait_turn_of,
)

TIMEOUT_LINE = "⏰ 玩家1 超时，自动"
TAKEOVER_LINE = "🤖 玩家1 连续超时，由电脑托管。"
TAKEBACK_LINE = "🙋 玩家1 回来了，取消托管。"


@pytest.fixture
def fake_telegram_options() -> dict[str, Any]:
    return FAST


def _group_lines(fake: FakeTelegram, start: str) -> list[str]:
    return [
        line for text in fake.sent_to(GROUP) for line in text.split("\n") if line.startswith(start)
    ]


def _retired(message: FakeMessage) -> Callable[[], bool]:
    return lambda: not message.reply_markup


@pytest.mark.parametrize(
    ("leader", "first"), [(0, "出牌"), (3, "不出")], ids=["auto-lead", "auto-pass"]
)
async def test_time_outs_then_托管_then_我回来了(
    fake_telegram: FakeTelegram, tmp_path: Any, monkeypatch: Any, leader: int, first: str
) -> None:
    """The human (seat 0) does not answer: the first time-out leads for them when they lead
    and passes when they may, the second one in a row hands the seat to the computer (the
    group is told); 「我回来了」 takes it back, and the game finishes."""
    fake = fake_telegram
    people = setup_world(fake, 1)
    player = people[0]
    deals = [seed_where("shuangkou", leader)]
    # the computers take a moment, so that the game is still on when they come back
    settings = fast_settings(fake, tmp_path / "bot.sqlite3", turn_seconds=0.4, computer_delay=0.02)
    async with running_bot(settings, deals=deals) as service:
        table = await start_game(fake, service, people, "双扣", 3)
        assert table.leader is None and table.engine.leader == leader
        seat = table.seats[0]
        prompt = await wait_turn_of(fake, table, player)
        mine_before = [a for a in table.log if a[1] == 0]
        assert not mine_before
        # the first time-out: the group is told what was done, and it is in the log
        line = await fake.wait_for(lambda: _group_lines(fake, TIMEOUT_LINE), what="time-out")
        assert line == [f"{TIMEOUT_LINE}{first}。"]
        kind, _, _ = next(a for a in table.log if a[1] == 0)
        assert kind == ("play" if first == "出牌" else "pass")
        await fake.wait_for(lambda: not prompt.reply_markup, what="the prompt retired")
        # the second one in a row: 托管, and the group is told
        await fake.wait_for(lambda: _group_lines(fake, TAKEOVER_LINE), what="托管")
        assert len(_group_lines(fake, TIMEOUT_LINE)) == 2
        assert seat.takeover and not seat.escaped
        back = await fake.wait_for(
            lambda: (m := live_message(fake, player)) and "我回来了" in m.labels and m,
            what="the 我回来了 button",
        )
        assert back.text and "电脑正在替你出牌" in back.text
        # the computer plays the seat now, with no more time-outs
        mine = len([a for a in table.log if a[1] == 0])
        await fake.wait_for(
            lambda: len([a for a in table.log if a[1] == 0]) > mine or table.status != "playing",
            what="the computer playing the seat",
        )
        assert len(_group_lines(fake, TIMEOUT_LINE)) == 2
        assert "托管" in service.parts.starting.render_table(table)
        # 我回来了: the seat is theirs again, and they play their turns themselves (with
        # time enough for a slow machine from now on)
        assert table.status == "playing"
        assert table.options is not None  # the settings the game was dealt with
        table.options = dataclasses.replace(table.options, turn_seconds=30.0)
        answer = await (await fake.press(player, player, back.message_id, "我回来了")).answered()
        assert answer.text == "欢迎回来！"
        await fake.wait_for(lambda: _group_lines(fake, TAKEBACK_LINE), what="takeback line")
        assert not seat.takeover and seat.timeouts == 0
        message = await wait_turn_of(fake, table, player)
        answer = await hint_and_play(fake, player, message)
        assert answer.text and (answer.text.startswith("已出") or answer.text == "不出")
        result = await finish(fake, service, people, table)
        await check_settlement(service, table, result)
        assert len(_group_lines(fake, TIMEOUT_LINE)) == 2
    assert not fake.unanswered_callbacks()
    fake.assert_clean()


@pytest.mark.parametrize(("variant", "computers"), [("双扣", 2), ("刨王", 3)])
async def test_leave_during_a_game_is_逃跑_and_the_game_goes_on(
    fake_telegram: FakeTelegram, tmp_path: Any, variant: str, computers: int
) -> None:
    """双扣: 玩家2 leaves on their own turn (-20). 刨王: 玩家2 leaves before answering the
    亮王 gate (the engine's escape_penalty). The computer takes the seat, the game finishes."""
    fake = fake_telegram
    people = setup_world(fake, 2)
    stays, leaves = people
    async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3")) as service:
        table = await start_game(fake, service, people, variant, computers)
        seat = table.seat_of(leaves)
        assert seat is not None
        if variant == "双扣":
            while (await decider(fake, table, people))[0] != leaves:
                user, message = await decider(fake, table, people)
                await hint_and_play(fake, user, message)
        else:
            assert table.gate_open and seat in table.ready_pending
        reply = await say(fake, leaves, leaves, "/leave")
        assert reply.text == "你已离开牌局，计为逃跑。"
        sent_before = len(fake.chat(leaves).messages)
        assert live_message(fake, leaves) is None  # their buttons are gone
        await fake.wait_for_message(GROUP, contains="🚪 玩家2 离开了牌局（逃跑），由电脑接替。")
        if variant == "刨王":  # the game stops counting, and the group is told why
            line = await fake.wait_for_message(GROUP, contains="本局从现在起不再计分")
            assert "另一方也不计分" in (line.text or "")  # nobody had had a turn yet
        assert table.seats[seat].escaped and table.seats[seat].takeover
        assert seat not in table.ready_pending
        result = await finish(fake, service, [stays], table)
        await check_settlement(service, table, result, escaped={seat: escape_penalty(table, seat)})
        # nothing more was sent to them, and they are in no game any more
        assert len(fake.chat(leaves).messages) == sent_before
        reply = await say(fake, leaves, leaves, "/leave")
        assert reply.text == "现在没有进行中的牌局。"
    assert "玩家2（逃跑）" in (result.text or "")
    assert not fake.unanswered_callbacks()
    fake.assert_clean()


async def test_cancel_by_an_admin_or_the_opener_ends_a_game_without_scores(
    fake_telegram: FakeTelegram, tmp_path: Any
) -> None:
    fake = fake_telegram
    people = setup_world(fake, 2)
    opener, other = people
    fake.add_user(ADMIN, "管理员")
    async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3")) as service:
        for canceller in (ADMIN, opener):
            table = await start_game(fake, service, people, "双扣", 2)
            await decider(fake, table, people)
            before = snapshot(table)
            # neither the opener nor an admin: refused, nothing changes
            reply = await say(fake, other, GROUP, "/cancel")
            assert reply.text == "只有开局者或群管理员可以这样做。"
            assert snapshot(table) == before and service.by_chat.get(GROUP) == table.game_id
            told_before = len(_group_lines(fake, "牌局已取消"))
            reply = await say(fake, canceller, GROUP, "/cancel")
            assert reply.text == "牌局已取消，不计分。"
            assert table.status == "cancelled" and GROUP not in service.by_chat
            # the table's channel was drained and closed before the answer: the group was
            # told once, by the answer to the command
            assert len(_group_lines(fake, "牌局已取消")) == told_before + 1
            record = await service.db.games.get(table.game_id)
            assert record is not None and record.status == "cancelled"
            assert await service.db.results.for_game(table.game_id) == []
            for user in people:
                rating = await service.db.ratings.get(user_id=user, game="shuangkou")
                assert rating.games == 0 and rating.score == 0
                assert live_message(fake, user) is None  # no buttons left anywhere
                assert user not in service.by_user
            logged = len(table.log)
        # the computers stopped with it: nothing was played in the cancelled games since
        assert len(table.log) == logged
        # and the group can open a new game at once
        reply = await say(fake, opener, GROUP, "/newgame")
        assert reply.text and "等待玩家" in reply.text
    assert not fake.unanswered_callbacks()
    fake.assert_clean()


async def test_kick_by_an_admin_hands_the_seat_to_the_computer(
    fake_telegram: FakeTelegram, tmp_path: Any
) -> None:
    fake = fake_telegram
    people = setup_world(fake, 2)
    stays, kicked = people
    stranger = 301
    fake.add_user(ADMIN, "管理员")
    fake.add_user(stranger, "路人")
    async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3")) as service:
        table = await start_game(fake, service, people, "双扣", 2)
        seat = table.seat_of(kicked)
        assert seat is not None
        await decider(fake, table, people)
        said = await fake.send_text(kicked, GROUP, "我去吃个饭")
        before = snapshot(table)
        # /kick without a reply, by someone who may not, and of someone not seated
        reply = await say(fake, ADMIN, GROUP, "/kick")
        assert reply.text == "请回复要移出的玩家的消息再用 /kick。"
        await fake.send_text(stranger, GROUP, "/kick", reply_to=said.message_id)
        reply = await fake.wait_for_message(GROUP, contains="只有开局者或群管理员")
        assert reply.text == "只有开局者或群管理员可以这样做。"
        stranger_said = await fake.send_text(stranger, GROUP, "路过")
        await fake.send_text(ADMIN, GROUP, "/kick", reply_to=stranger_said.message_id)
        reply = await fake.wait_for_message(GROUP, contains="你不在这局里")
        assert snapshot(table) == before
        # the admin's /kick as a reply to the player's message
        await fake.send_text(ADMIN, GROUP, "/kick", reply_to=said.message_id)
        await fake.wait_for_message(GROUP, contains="🚪 玩家2 被移出，由电脑接替。")
        assert table.seats[seat].escaped and table.seats[seat].takeover
        assert live_message(fake, kicked) is None
        result = await finish(fake, service, [stays], table)
        # a kicked player is scored as one who left (逃跑)
        await check_settlement(service, table, result, escaped={seat: escape_penalty(table, seat)})
    assert not fake.unanswered_callbacks()
    fake.assert_clean()


async def test_an_unanswered_亮王_gate_closes_on_its_timer(
    fake_telegram: FakeTelegram, tmp_path: Any, monkeypatch: Any
) -> None:
    """Nobody answers 亮王: when reveal_seconds have passed, the human holder (seat 0)
    declines, the other human's prompt is retired, and play starts; the game finishes."""
    fake = fake_telegram
    people = setup_world(fake, 2)
    deals = [next(s for s in range(1000) if Game.deal(s).big_jokers[:2] == (1, 0))]
    settings = fast_settings(fake, tmp_path / "bot.sqlite3", reveal_seconds=0.3)
    async with running_bot(settings, deals=deals) as service:
        table = await start_game(fake, service, people, "刨王", 3)
        assert table.gate_open and table.ready_pending == {0, 1}
        prompts = [live_message(fake, user) for user in people]
        assert all(prompt is not None and prompt.reply_markup for prompt in prompts)
        await fake.wait_for(lambda: not table.gate_open, what="the gate closed by its timer")
        humans = {0, 1}
        holders = {seat for seat, n in enumerate(table.engine.big_jokers) if n}
        declined = {seat for kind, seat, _ in table.log if kind == "decline"}
        revealed = {seat for kind, seat, _ in table.log if kind == "reveal"}
        assert 0 in holders and holders & humans <= declined and not revealed & humans
        for prompt in prompts:
            assert prompt is not None
            await fake.wait_for(_retired(prompt), what="the prompt retired")
        assert not any(seat.timeouts or seat.takeover for seat in table.seats)
        result = await finish(fake, service, people, table)
        await check_settlement(service, table, result)
    assert not fake.unanswered_callbacks()
    fake.assert_clean()
