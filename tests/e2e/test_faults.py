"""Telegram's faults injected into running games: every game still finishes and settles.

Each test starts a real game through the fake Bot API server, makes Telegram fail in one way
(429 with retry_after, 5xx, a time-out, a player who blocks the bot, a message the user
deleted) and checks that the game ends with its settlement recorded and its ratings right,
and that what failed was delivered after all (or handled the way the design says).
"""

from __future__ import annotations

from typing import Any

import pytest

from fakebot import FakeTelegram, Fault, RequestRecord
from tests.e2e.driver import GROUP, live_message, open_lobby, running_bot, setup_world
from tests.e2e.helpers_robust import (
    FAST,
    assert_clean_but_lost_table_probes,
    check_settlement,
    escape_penalty,
    fast_settings,
    finish,
    hint_and_play,
    start_game,
    wait_turn_of,
)


@pytest.fixture
def fake_telegram_options() -> dict[str, Any]:
    return FAST


def _retry_of(fake: FakeTelegram, faulted: RequestRecord) -> RequestRecord:
    """The next request of the faulted one's method to its chat: it must be the same request
    again (a retry in place: nothing lost, nothing sent in its stead)."""
    index = fake.requests.index(faulted)
    again = next(
        (
            r
            for r in fake.requests[index + 1 :]
            if r.method == faulted.method and r.chat_id == faulted.chat_id
        ),
        None,
    )
    assert again is not None, f"{faulted.method} to {faulted.chat_id} was never retried"
    assert again.params.get("text") == faulted.params.get("text"), (faulted, again)
    assert again.params.get("message_id") == faulted.params.get("message_id")
    return again


def _delivered(fake: FakeTelegram) -> None:
    """Every faulted request went through in the end (its last retry succeeded)."""
    for faulted in fake.fault_log:
        again = _retry_of(fake, faulted)
        while again.fault is not None:
            again = _retry_of(fake, again)
        assert again.ok, again


def _inject_everywhere(fake: FakeTelegram, kind: str, user_id: int, **options: Any) -> list[Fault]:
    """The next group post, table edit, hand message and hand edit each fail once."""
    return [
        fake.inject("sendMessage", kind, chat_id=GROUP, **options),
        fake.inject("editMessageText", kind, chat_id=GROUP, **options),
        fake.inject("sendMessage", kind, chat_id=user_id, **options),
        fake.inject("editMessageText", kind, chat_id=user_id, **options),
    ]


async def test_429_retry_after_is_honoured_and_the_game_finishes(
    fake_telegram: FakeTelegram, tmp_path: Any
) -> None:
    fake = fake_telegram
    people = setup_world(fake, 2)
    async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3")) as service:
        table = await start_game(fake, service, people, "双扣", 2)
        faults = _inject_everywhere(fake, "429", people[1], retry_after=1)
        result = await finish(fake, service, people, table)
        await check_settlement(service, table, result)

    assert all(fault.fired == 1 for fault in faults), faults
    assert len(fake.fault_log) == len(faults)
    _delivered(fake)
    for faulted in fake.fault_log:
        # the same request went again only once retry_after had passed
        again = _retry_of(fake, faulted)
        assert again.time - faulted.time >= 1.0 - 0.05, (faulted, again)
    assert not fake.unanswered_callbacks()
    fake.assert_clean()


@pytest.mark.parametrize("kind", ["500", "502"])
async def test_server_errors_are_retried_and_the_game_finishes(
    fake_telegram: FakeTelegram, tmp_path: Any, kind: str
) -> None:
    fake = fake_telegram
    people = setup_world(fake, 2)
    async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3")) as service:
        table = await start_game(fake, service, people, "双扣", 2)
        faults = _inject_everywhere(fake, kind, people[1], times=2)
        result = await finish(fake, service, people, table)
        await check_settlement(service, table, result)

    assert all(fault.fired == 2 for fault in faults), faults
    _delivered(fake)
    assert not fake.unanswered_callbacks()
    fake.assert_clean()


async def test_time_outs_are_retried_and_the_game_finishes(
    fake_telegram: FakeTelegram, tmp_path: Any
) -> None:
    fake = fake_telegram
    people = setup_world(fake, 2)
    settings = fast_settings(fake, tmp_path / "bot.sqlite3", telegram_read_timeout=0.3)
    async with running_bot(settings) as service:
        table = await start_game(fake, service, people, "双扣", 2)
        # Edits are retried; a send whose answer is late (Telegram took it: performed) is
        # not, or the chat would show it twice. The player plays on the message that came.
        faults = [
            fake.inject("editMessageText", "timeout", chat_id=GROUP, hold=5.0),
            fake.inject("editMessageText", "timeout", chat_id=people[1], hold=5.0),
            fake.inject("sendMessage", "timeout", chat_id=GROUP, hold=5.0, performed=True),
            fake.inject("sendMessage", "timeout", chat_id=people[1], hold=5.0, performed=True),
        ]
        # a press whose answer times out is still answered (the error handler answers it)
        faults.append(fake.inject("answerCallbackQuery", "timeout", hold=5.0))
        result = await finish(fake, service, people, table)
        await check_settlement(service, table, result)

    assert all(fault.fired == 1 for fault in faults), faults
    for faulted in fake.fault_log:
        if faulted.method == "editMessageText":
            again = _retry_of(fake, faulted)
            assert again.ok, again
            # the request timed out: the retry came after the bot's read timeout
            assert again.time - faulted.time >= 0.3 - 0.05
        elif faulted.method == "sendMessage" and faulted.chat_id == people[1]:
            # a retry would be the next send to the chat, the same text, within a second
            # (the read timeout and a backoff). (Only the hand prompt is checked here: a
            # group's trick line may well repeat; tests/bot/test_outbox.py has the rule.)
            index = fake.requests.index(faulted)
            after = [
                r for r in fake.requests[index + 1 :]
                if r.method == "sendMessage" and r.chat_id == faulted.chat_id
            ]
            assert not after or not (
                after[0].params.get("text") == faulted.params.get("text")
                and after[0].time - faulted.time < 1.0
            ), f"a send that timed out was sent again: {faulted}"
    assert not fake.unanswered_callbacks()
    assert_clean_but_lost_table_probes(fake)


@pytest.mark.parametrize(
    ("variant", "computers", "notified"),
    [("双扣", 2, True), ("刨王", 3, True), ("双扣", 2, False), ("刨王", 3, False)],
)
async def test_a_player_who_blocks_the_bot_escapes_and_the_game_finishes(
    fake_telegram: FakeTelegram,
    tmp_path: Any,
    monkeypatch: Any,
    variant: str,
    computers: int,
    notified: bool,
) -> None:
    """Telegram tells the bot of a block (``my_chat_member``); when that update is lost, the
    bot learns it from the first message refused with 403. Either way the seat escapes."""
    # a fixed deal: with a random one, a 刨王 game could now and then end before the
    # blocker's next turn, and a bot that sends them nothing never learns of the block
    deals = [11]
    fake = fake_telegram
    people = setup_world(fake, 2)
    stays, blocks = people
    async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3"), deals=deals) as service:
        table = await start_game(fake, service, people, variant, computers)
        seat = table.seat_of(blocks)
        assert seat is not None
        # they answer what they were asked (亮王, or their lead), then block the bot: the bot
        # learns it from the next message it sends them
        if table.gate_open:
            gate = await fake.wait_for(lambda: live_message(fake, blocks), what="gate")
            label = "不亮" if "不亮" in gate.labels else "知道了，继续"
            await (await fake.press(blocks, blocks, gate.message_id, label)).answered()
        elif table.engine.turn == seat:
            await hint_and_play(fake, blocks, await wait_turn_of(fake, table, blocks))
        assert live_message(fake, blocks) is None
        if notified:
            fake.block(blocks)
        else:
            fake.user(blocks).blocked = True  # the my_chat_member update never arrives
        result = await finish(fake, service, [stays], table)
        expected = escape_penalty(table, seat)
        assert expected < 0
        await check_settlement(service, table, result, escaped={seat: expected})
        player = await service.db.players.get(blocks)
        assert player is not None and not player.can_message

    assert table.seats[seat].escaped and table.seats[seat].takeover
    assert any("逃跑" in t and "玩家2" in t for t in fake.sent_to(GROUP))
    assert "（逃跑）" in (result.text or "")
    assert all(int(r.params["chat_id"]) == blocks for r in fake.forbidden)
    # one refused message at most (told of the block, the bot stops at once, unless a prompt
    # was already on its way); without the update, the refusal itself is how it learns
    refused = [r for r in fake.forbidden if r.method == "sendMessage"]
    assert len(refused) <= 1 if notified else len(refused) == 1, refused
    assert not fake.unanswered_callbacks()
    fake.assert_clean()


async def test_an_edit_of_a_deleted_hand_message_sends_a_fresh_one(
    fake_telegram: FakeTelegram, tmp_path: Any
) -> None:
    fake = fake_telegram
    people = setup_world(fake, 1)
    player = people[0]
    async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3")) as service:
        table = await start_game(fake, service, people, "双扣", 3)
        old = await wait_turn_of(fake, table, player)
        # the user deleted the message: the edit after the next press gets 400 not found
        fault = fake.inject("editMessageText", "400_not_found", chat_id=player)
        answer = await (
            await fake.press(player, player, old.message_id, lambda s: s[0] in "♠♥♣♦小大")
        ).answered()
        assert answer.text == "已选 1 张"
        # the press is answered before its rendering (the edit, then the fresh message)
        fresh = await fake.wait_for(
            lambda: (m := live_message(fake, player)) is not None
            and m.message_id != old.message_id
            and m,
            what="the fresh hand message",
        )
        assert fault.fired == 1
        assert old.deleted
        assert sum(label.startswith("✔") for label in fresh.labels) == 1
        # the next press waits for the table (the first one's rendering holds it): by its
        # answer the fresh message is the seat's
        again = await (
            await fake.press(player, player, fresh.message_id, lambda s: s.startswith("✔"))
        ).answered()
        assert again.text is not None
        assert table.seats[0].live_message_id == fresh.message_id
        # the game goes on from the fresh message
        result = await finish(fake, service, people, table)
        await check_settlement(service, table, result)
    assert not fake.unanswered_callbacks()
    fake.assert_clean()


async def test_a_deleted_table_message_is_sent_again(
    fake_telegram: FakeTelegram, tmp_path: Any
) -> None:
    fake = fake_telegram
    people = setup_world(fake, 1)
    player = people[0]
    async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3")) as service:
        table = await start_game(fake, service, people, "双扣", 3)
        await wait_turn_of(fake, table, player)
        assert table.has_channel
        await table.channel.drain()
        first = table.channel.table_message_id
        assert first is not None
        fake.delete_message(GROUP, first)  # someone in the group deleted the table
        result = await finish(fake, service, people, table)
        await check_settlement(service, table, result)
        second = table.channel.table_message_id
        assert second is not None and second != first
        shown = fake.chat(GROUP).message(second)
        assert shown is not None and not shown.deleted
        assert shown.text is not None and "本局结束" in shown.text  # brought up to the end
    # the only refusal: the one edit of the deleted message that told the bot it was gone
    assert [int(r.params["message_id"]) for r in fake.rejections] == [first]
    assert all("not found" in r.description for r in fake.rejections)
    assert not fake.limit_violations
    assert not fake.unanswered_callbacks()


async def test_a_table_message_whose_send_timed_out_but_arrived_is_not_left_behind(
    fake_telegram: FakeTelegram, tmp_path: Any
) -> None:
    """The table's send times out after Telegram took it: the bot sends the table again (it
    never learnt the id), then finds the one that arrived and deletes it: one table shows."""
    fake = fake_telegram
    people = setup_world(fake, 2)
    settings = fast_settings(fake, tmp_path / "bot.sqlite3", telegram_read_timeout=0.3)
    async with running_bot(settings) as service:
        lobby = await open_lobby(fake, people, "双扣", 2)
        lost = fake.inject("sendMessage", "timeout", chat_id=GROUP, hold=5.0, performed=True)
        await (await fake.press(people[0], GROUP, lobby.message_id, "开始")).answered()
        table = service.tables[service.by_chat[GROUP]]
        result = await finish(fake, service, people, table)
        await check_settlement(service, table, result)
    assert lost.fired == 1
    [faulted] = [r for r in fake.fault_log if r.method == "sendMessage"]
    assert "第 1 手" in str(faulted.params.get("text")), faulted  # it was the table
    tables = [m for m in fake.chat(GROUP).bot_messages if " · 第 " in m.text]
    assert len(tables) == 1, [m.text[:40] for m in tables]
    # the one refusal is the look that found it: an edit to the same buttons
    [probe] = fake.rejections
    assert probe.method == "editMessageReplyMarkup" and "not modified" in probe.description
    assert not fake.limit_violations
