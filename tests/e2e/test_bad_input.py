"""Bad input in the middle of a game: each gets a clear answer and changes nothing.

Strangers pressing other people's buttons, stale buttons, malformed and forged callback data,
garbage typed in the private chat, commands in the wrong kind of chat; and a hypothesis
test that throws random presses and random text at a running game. "Changes nothing" is
checked on a :class:`Snapshot` (the log, the turn, the hands, the seats' versions, flags and
selections) taken before and after.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.service import GameService
from bot.service.tables import Table
from fakebot import CallbackAnswer, FakeMessage, FakeTelegram
from tests.e2e.driver import GROUP, live_message, running_bot, setup_world
from tests.e2e.helpers_robust import (
    FAST,
    decider,
    fast_settings,
    hint_and_play,
    say,
    snapshot,
    start_game,
)

STRANGER = 301


@pytest.fixture
def fake_telegram_options() -> dict[str, Any]:
    return FAST


@dataclass
class World:
    fake: FakeTelegram
    service: GameService
    table: Table
    people: list[int]
    lobby: FakeMessage  # the lobby message in the group (its keyboard is gone once started)
    hello: FakeMessage  # the stranger's /start answer: a message they may press on

    def other(self, user_id: int) -> int:
        return next(p for p in self.people if p != user_id)

    def data(self, message: FakeMessage) -> list[str]:
        return [b["callback_data"] for b in message.buttons if "callback_data" in b]


@pytest.fixture
async def world(fake_telegram: FakeTelegram, tmp_path: Any) -> AsyncIterator[World]:
    """A 双扣 game of two people and two computers, and a stranger who started the bot."""
    fake = fake_telegram
    people = setup_world(fake, 2)
    fake.add_user(STRANGER, "路人", language_code="zh-hans")
    async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3")) as service:
        hello = await say(fake, STRANGER, STRANGER, "/start")
        table = await start_game(fake, service, people, "双扣", 2)
        lobby = fake.chat(GROUP).message(table.lobby_message_id or 0)
        assert lobby is not None
        yield World(fake, service, table, people, lobby, hello)
    assert not fake.unanswered_callbacks()
    fake.assert_clean()


async def _press(fake: FakeTelegram, user: int, chat: int, message: int, data: str) -> str:
    answer: CallbackAnswer = await (await fake.press_raw(user, chat, message, data)).answered()
    assert answer.text, f"{data!r} pressed by {user} got an empty answer"
    return answer.text


async def test_a_stranger_pressing_a_players_buttons_is_refused(world: World) -> None:
    fake, table = world.fake, world.table
    player, hand = await decider(fake, table, world.people)
    before = snapshot(table)
    game_id = table.game_id
    # every button of the player's live hand, pressed from the stranger's own chat
    for data in world.data(hand):
        answer = await fake.press_raw(STRANGER, STRANGER, world.hello.message_id, data)
        shown = await answer.answered()
        assert shown.text == "这不是你的按钮。" and shown.show_alert, (data, shown)
    # the lobby's buttons (a game in play has no lobby any more)
    for act in "jlcsx":
        text = await _press(fake, STRANGER, GROUP, world.lobby.message_id, f"{game_id}:0:{act}:")
        assert text == "这个按钮已过期。", (act, text)
    # the player's hand buttons pressed in the group (hand buttons live in private chats)
    for data in world.data(hand)[:3]:
        text = await _press(fake, world.other(player), GROUP, world.lobby.message_id, data)
        assert text == "这不是你的按钮。"
    assert snapshot(table) == before
    assert live_message(fake, player) is hand and hand.edit_count == 0


async def test_a_seated_player_forging_their_own_buttons_out_of_turn_is_refused(
    world: World,
) -> None:
    fake, table = world.fake, world.table
    player, _ = await decider(fake, table, world.people)
    other = world.other(player)
    seat = table.seat_of(other)
    assert seat is not None
    before = snapshot(table)
    version = table.seats[seat].version
    message = fake.chat(other).last_message
    assert message is not None
    # buttons of their own seat (right version) that no message of theirs offers right now
    for act, arg in (("t", "0"), ("t", "3"), ("r", ""), ("h", ""), ("p", ""), ("n", "")):
        data = f"{table.game_id}:{version}:{act}:{arg}"
        text = await _press(fake, other, other, message.message_id, data)
        assert text in ("还没轮到你。", "这个按钮已过期。", "请先选牌。"), (data, text)
    assert snapshot(table) == before


async def test_stale_buttons_are_answered_outdated(world: World) -> None:
    fake, table = world.fake, world.table
    player, hand = await decider(fake, table, world.people)
    old = world.data(hand)
    await hint_and_play(fake, player, hand)
    # the played message is retired: no keyboard; its old buttons come from a stale client
    retired = fake.chat(player).message(hand.message_id)
    assert retired is not None and not retired.reply_markup
    await decider(fake, table, world.people)
    before = snapshot(table)
    for data in old:
        text = await _press(fake, player, player, hand.message_id, data)
        assert text == "这个按钮已过期。", (data, text)
    assert snapshot(table) == before


async def test_a_stale_keyboard_left_by_a_failed_edit_is_taken_off_when_pressed(
    world: World,
) -> None:
    fake, table = world.fake, world.table
    player, hand = await decider(fake, table, world.people)
    await (await fake.press(player, player, hand.message_id, "提示")).answered()
    # Telegram fails every try of the edit that would retire the message after the play
    fault = fake.inject("editMessageText", "500", chat_id=player, times=4)
    played = fake.press(player, player, hand.message_id, lambda s: s.startswith("出牌"))
    answer = await (await played).answered()
    assert answer.text and answer.text.startswith("已出")
    # the press is answered before the edits that render it: those tries come after
    await fake.wait_for(lambda: fault.fired == 4, 30, what="every try of the retiring edit")
    assert hand.reply_markup is not None  # the old buttons are still there
    await decider(fake, table, world.people)
    before = snapshot(table)
    text = await _press(fake, player, player, hand.message_id, world.data(hand)[0])
    assert text == "这个按钮已过期。"
    await fake.wait_for(lambda: hand.reply_markup is None, what="the old buttons removed")
    assert snapshot(table) == before


async def test_malformed_and_forged_callback_data_change_nothing(world: World) -> None:
    fake, table = world.fake, world.table
    player, hand = await decider(fake, table, world.people)
    seat = table.seat_of(player)
    assert seat is not None
    game_id, version = table.game_id, table.seats[seat].version
    before = snapshot(table)
    edits = hand.edit_count
    forged = [
        "garbage",
        "x" * 64,
        "1:2:3",
        f"{game_id}:{version}:z:",  # no such act
        f"{game_id}:{version}:t:999",  # no such card
        f"{game_id}:{version}:t:-1",
        f"{game_id}:{version + 1}:p:",  # a version from the future
        f"{game_id}:{max(0, version - 1)}:h:" if version else f"{game_id}:{version + 7}:h:",
        f"{game_id + 1}:{version}:p:",  # no such game
        f"999999999999:{version}:p:",
        f"9999999999999:{version}:p:",  # too long for the pattern
        f"{game_id}:{version}:v:1",  # 亮王 in 双扣
        f"{game_id}:{version}:k:",
        f"{game_id}:0:b:",  # 我回来了 while not 托管
        f"{game_id}:0:a:",  # 再来一局 of a game still in play
        f"{game_id}:{version}:p:",  # 出牌 with nothing selected
        f"{game_id}:0:j:",  # 加入 a game in play
        "0:0:s:",
        # the same press as 提示, spelt otherwise: a trailing newline, Arabic-Indic digits,
        # a leading zero; each must be refused, not taken for the hint
        f"{game_id}:{version}:h:\n",
        f"{_arabic_indic(game_id)}:{version}:h:",
        f"{game_id}:{_arabic_indic(version)}:h:",
        f"0{game_id}:{version}:h:",
    ]
    for data in forged:
        text = await _press(fake, player, player, hand.message_id, data)
        assert text in ("这个按钮已过期。", "请先选牌。", "这不是你的按钮。"), (data, text)
    assert snapshot(table) == before
    assert hand.edit_count == edits  # a hint taken would have edited the hand message
    # the live message is still the one to use, and still works
    assert live_message(fake, player) is hand
    answer = await (await fake.press(player, player, hand.message_id, "提示")).answered()
    assert answer.text and answer.text.startswith("提示：")


def _arabic_indic(number: int) -> str:
    """``number`` in Arabic-Indic digits (٠-٩), which Python's int() reads as ASCII ones."""
    return "".join(chr(0x0660 + int(digit)) for digit in str(number))


async def test_clear_with_nothing_selected_edits_nothing(world: World) -> None:
    fake, table = world.fake, world.table
    player, hand = await decider(fake, table, world.people)
    edits = hand.edit_count
    answer = await (await fake.press(player, player, hand.message_id, "清空")).answered()
    assert answer.text == "已选 0 张"
    assert hand.edit_count == edits  # an identical edit would be refused by Telegram
    card = next(label for label in hand.labels if label[0] in "♠♥♣♦大小")
    await (await fake.press(player, player, hand.message_id, card)).answered()
    await (await fake.press(player, player, hand.message_id, "清空")).answered()
    assert hand.edit_count == edits + 2
    assert not any(label.startswith("✔") for label in hand.labels)


async def test_garbage_text_gets_an_answer_and_changes_nothing(world: World) -> None:
    fake, table = world.fake, world.table
    player, _ = await decider(fake, table, world.people)
    other = world.other(player)
    before = snapshot(table)
    for typed in ("你好呀", "♠1", "XYZ", "出 牌 啦 !!", "🂡🂢", "3 3 3 3 3 3 3 3 3"):
        reply = await say(fake, player, player, typed)
        assert reply.text and (
            reply.text.startswith("看不懂") or reply.text in ("你手里没有这些牌。",)
        ), (typed, reply.text)
    reply = await say(fake, other, other, "33")
    assert reply.text == "还没轮到你。"
    reply = await say(fake, STRANGER, STRANGER, "不出")
    assert reply.text == "现在没有进行中的牌局。"
    assert snapshot(table) == before


async def test_commands_in_the_wrong_chat(world: World) -> None:
    fake, table = world.fake, world.table
    player, hand = await decider(fake, table, world.people)
    before = snapshot(table)
    for command in ("/newgame", "/newgame 刨王", "/top", "/cancel", "/kick"):
        reply = await say(fake, player, player, command)
        assert reply.text == "这个命令要在群里用。", (command, reply.text)
    reply = await say(fake, player, GROUP, "/newgame 刨王", expect="本群已有一局")
    assert reply.reply_to == table.channel.table_message_id  # it points to the table
    reply = await say(fake, player, GROUP, "/kick")
    assert reply.text == "请回复要移出的玩家的消息再用 /kick。"
    reply = await say(fake, STRANGER, GROUP, "/hand")
    assert reply.text == "现在没有进行中的牌局。"
    # /hand in the group: the hand goes to the private chat, never to the group
    group_texts = len(fake.sent_to(GROUP))
    await fake.send_text(player, GROUP, "/hand")
    fresh = await fake.wait_for(
        lambda: (m := live_message(fake, player)) is not hand and m, what="the hand again"
    )
    assert "提示" in fresh.labels and hand.reply_markup is None
    assert all("你的手牌" not in t for t in fake.sent_to(GROUP)[group_texts:])
    assert snapshot(table) == before


async def test_random_presses_and_text_change_no_game(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    """Random callback data and random text from people who may not act (the stranger, the
    player whose turn it is not, anyone pressing in the group): every press is answered,
    every text gets its answer, no game changes, Telegram refuses nothing."""
    fake, table = world.fake, world.table
    player, hand = await decider(fake, table, world.people)
    other = world.other(player)
    other_seat = table.seat_of(other)
    assert other_seat is not None
    before = snapshot(table)
    loop = asyncio.get_running_loop()
    game_id = table.game_id
    versions = st.sampled_from(sorted({s.version for s in table.seats})) | st.integers(0, 10**6)
    game_ids = st.sampled_from([game_id, game_id + 1, 0]) | st.integers(0, 10**12)
    acts = st.sampled_from(list("jlcsxatpnhrvkbz"))
    args = st.just("") | st.integers(0, 999).map(str)
    structured = st.builds(lambda g, v, a, x: f"{g}:{v}:{a}:{x}", game_ids, versions, acts, args)
    raw = st.text(min_size=1, max_size=64).filter(lambda s: len(s.encode()) <= 64)
    data = structured | raw
    text = st.text(min_size=1, max_size=40).filter(
        lambda s: s.strip() and not s.lstrip().startswith("/")
    )
    where = st.sampled_from(["stranger", "other", "group"])
    inputs = st.lists(
        st.tuples(st.sampled_from(["press", "type"]), where, data, text), min_size=1, max_size=4
    )

    async def one(batch: list[tuple[str, str, str, str]]) -> None:
        for kind, who, payload, typed in batch:
            if kind == "type":
                user = STRANGER if who == "stranger" else other
                reply = await say(fake, user, user, typed)
                assert reply.text in ("现在没有进行中的牌局。", "还没轮到你。"), (typed, reply)
            elif who == "group":
                pressed = await fake.press_raw(player, GROUP, world.lobby.message_id, payload)
                await pressed.answered()
            else:
                user = STRANGER if who == "stranger" else other
                last = fake.chat(user).last_message
                assert last is not None
                await (await fake.press_raw(user, user, last.message_id, payload)).answered()
        assert snapshot(table) == before, batch
        assert not fake.rejections and not fake.limit_violations

    @settings(
        max_examples=60,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(inputs)
    def check(batch: list[tuple[str, str, str, str]]) -> None:
        asyncio.run_coroutine_threadsafe(one(batch), loop).result(timeout=30)
        examples.append(len(batch))

    examples: list[int] = []

    with caplog.at_level(logging.ERROR):
        await asyncio.to_thread(check)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    assert len(examples) >= 40 and sum(examples) >= 80, examples
    assert not fake.unanswered_callbacks()
    # the game still goes on from the same message
    assert live_message(fake, player) is hand
    await hint_and_play(fake, player, hand)
    assert len(table.log) > len(before.log)
    assert table.log[len(before.log)][1] == table.seat_of(player)
