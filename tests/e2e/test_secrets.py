"""Hidden information stays hidden.

- No group message ever shows a card still in someone's hand, checked at the moment of each
  message (the service's messenger is wrapped, and the hands are read when it is called).
- A private message shows only its recipient's own cards and cards already played, and a hand
  message shows exactly its recipient's hand: hands go to their owners only.
- 刨王: until a 大王 is revealed or played, nothing the group is shown (texts, their order,
  their buttons) depends on who holds the 大王s: the same deal with the 大王s moved between
  hands, everyone declining 亮王 and the same plays, gives the same group transcript.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import pytest

from bot.game import paowang
from bot.game.cards import BIG_JOKER, SMALL_JOKER, Card
from bot.game.variants import PAOWANG, VARIANTS
from bot.service import GameService
from bot.service.tables import Table
from fakebot import FakeTelegram
from tests.e2e.driver import GROUP, live_message, running_bot, setup_world
from tests.e2e.helpers_robust import (
    FAST,
    Recorder,
    check_settlement,
    counter_by_name,
    fast_settings,
    finish,
    hand_line,
    shown_cards,
    start_game,
)


@pytest.fixture
def fake_telegram_options() -> dict[str, Any]:
    return FAST


def check_recorded(recorder: Recorder, people: Sequence[int]) -> tuple[int, int]:
    """Every recorded message against the hands of its moment; (group, hand) messages seen."""
    group = hands = 0
    for sent in recorder.messages:
        shown = shown_cards(sent.text)
        held = counter_by_name(sent.held)
        if sent.chat_id == GROUP:
            group += 1
            for card, count in shown.items():
                # two decks: a card shown twice needs both copies played, once needs one
                assert count <= 2 - held[card], (card, sent.text, sorted(held.elements()))
            continue
        own = sent.hands.get(sent.chat_id)
        if own is None:  # not a player (a stranger's hello): nothing of a hand in it
            assert not shown, sent.text
            continue
        assert sent.chat_id in people
        mine = counter_by_name(own.elements())
        for card, count in shown.items():
            assert count <= mine[card] + 2 - held[card], (sent.chat_id, card, sent.text)
        if "你的手牌" in sent.text:
            hands += 1
            assert hand_line(own.elements()) in sent.text.split("\n"), (sent.chat_id, sent.text)
    return group, hands


@pytest.mark.parametrize("seed", [11, 23, 37])
@pytest.mark.parametrize(("variant", "computers"), [("双扣", 2), ("刨王", 3)])
async def test_no_message_shows_a_card_it_should_not(
    fake_telegram: FakeTelegram,
    tmp_path: Any,
    monkeypatch: Any,
    variant: str,
    computers: int,
    seed: int,
) -> None:
    fake = fake_telegram
    people = setup_world(fake, 2)
    async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3"), deals=[seed]) as service:
        recorder = Recorder(service)
        recorder.install()
        table = await start_game(fake, service, people, variant, computers)
        assert table.seed == seed
        result = await finish(fake, service, people, table)
        await check_settlement(service, table, result)
    group, hands = check_recorded(recorder, people)
    assert group > 10 and hands > 10, (group, hands)
    # the recorder saw every message the game sent (command replies aside)
    assert group + hands <= len(recorder.messages)
    assert len(fake.calls("sendMessage")) + len(fake.calls("editMessageText")) >= len(
        recorder.messages
    )
    assert not fake.unanswered_callbacks()
    fake.assert_clean()


# ---- 刨王: who holds the 大王 does not show ------------------------------------------------


def _is_joker(card: Card) -> bool:
    return card.rank in (SMALL_JOKER, BIG_JOKER)


def _move_big_joker(
    hands: list[list[Card]], source: int, target: int
) -> tuple[list[list[Card]], Card]:
    """A copy of ``hands`` with one 大王 of ``source`` exchanged for ``target``'s highest
    card that is no joker; returns the hands and that card."""
    moved = [list(hand) for hand in hands]
    big = next(card for card in moved[source] if card.rank == BIG_JOKER)
    other = max(card for card in moved[target] if not _is_joker(card))
    moved[source].remove(big)
    moved[target].remove(other)
    moved[source].append(other)
    moved[target].append(big)
    return moved, other


def _arrangements(case: str) -> tuple[list[list[Card]], list[list[Card]], int, Card]:
    """Two deals that differ only in where the 大王s are (and one ordinary card exchanged
    for one), the leader, and that ordinary card. The first seeded deal with two holders
    (neither with both 小王: moved together, four jokers would end the game at once)."""
    for seed in range(1000):
        base = paowang.Game.deal(seed)
        holders = [seat for seat, n in enumerate(base.big_jokers) if n]
        smalls = [sum(card.rank == SMALL_JOKER for card in hand) for hand in base.hands]
        if len(holders) == 2 and all(smalls[seat] < 2 for seat in holders):
            break
    first, second = holders
    hands = [list(hand) for hand in base.hands]
    if case == "swap":  # 2 against 3 both times, a different pair
        nobody = next(seat for seat in range(5) if seat not in holders)
        moved, card = _move_big_joker(hands, first, nobody)
    else:  # 2 against 3, then one hand with both 大王: 1 against 4
        moved, card = _move_big_joker(hands, second, first)
    return hands, moved, base.leader, card


def _choice(table: Table, excluded: set[Card]) -> tuple[int, str | None]:
    """The seat to act, and its scripted play: the lowest single that beats the table (or
    leads) among its cards that are no joker and not ``excluded``; None: pass."""
    game = table.engine
    seat = game.turn
    assert seat is not None
    usable = sorted({card for card in game.hands[seat] if not _is_joker(card)} - excluded)
    for card in usable:
        combo = paowang.classify([card])
        assert combo is not None
        if game.on_table is None or paowang.beats(combo, game.on_table):
            return seat, str(card)
    if game.on_table is None:
        raise LookupError("nothing left to lead with")
    return seat, None


async def _transcript(
    tmp_path: Any, hands: list[list[Card]], leader: int, excluded: set[Card], actions: int
) -> tuple[list[tuple[Any, ...]], list[tuple[str, int, str | None]]]:
    """Play the deal with five people who all decline 亮王 and then follow the script for
    ``actions`` moves; the group's transcript (and the log), settled after every action."""
    async with FakeTelegram(**FAST) as fake:
        people = setup_world(fake, 5)
        with pytest.MonkeyPatch.context() as patch:
            dealt = dataclasses.replace(
                PAOWANG, deal=lambda seed, _=None: PAOWANG.from_hands(hands, leader)
            )
            patch.setitem(VARIANTS, "paowang", dealt)
            async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3")) as service:
                table = await start_game(fake, service, people, "刨王", 0)
                await _gate(fake, service, table, people)
                for _ in range(actions):
                    try:
                        seat, card = _choice(table, excluded)
                    except LookupError:
                        break
                    await _act(fake, table, people[seat], card)
                log = list(table.log)
                await service.db.games.update(table.game_id, status="cancelled")
        history = [(v.kind, v.message_id, v.text, v.reply_markup) for v in fake.chat(GROUP).history]
        assert not fake.unanswered_callbacks()
        fake.assert_clean()
    return history, log


async def _settled(table: Table) -> None:
    assert table.has_channel
    await table.channel.drain()


async def _gate(fake: FakeTelegram, service: GameService, table: Table, people: list[int]) -> None:
    """Everyone answers the gate in seat order: holders decline, the others press OK."""
    del service
    for user_id in people:
        message = live_message(fake, user_id)
        assert message is not None
        label = "不亮" if "不亮" in message.labels else "知道了，继续"
        await (await fake.press(user_id, user_id, message.message_id, label)).answered()
        await _settled(table)
    await fake.wait_for(lambda: _prompted(table), what="the leader prompted")
    await _settled(table)


def _prompted(table: Table) -> bool:
    turn = table.engine.turn
    return turn is not None and table.seats[turn].live_message_id is not None


async def _act(fake: FakeTelegram, table: Table, user_id: int, card: str | None) -> None:
    count = len(table.log)
    await fake.send_text(user_id, user_id, card or "不出")
    await fake.wait_for(
        lambda: len(table.log) == count + 1 and _prompted(table), what="the move taken"
    )
    await _settled(table)


@pytest.mark.parametrize("case", ["swap", "one-hand"])
async def test_the_group_cannot_tell_who_holds_the_big_jokers(tmp_path: Any, case: str) -> None:
    hands, moved, leader, card = _arrangements(case)
    excluded = {card}
    first, log_first = await _transcript(tmp_path / "a", hands, leader, excluded, 40)
    second, log_second = await _transcript(tmp_path / "b", moved, leader, excluded, 40)
    plays = [a for a in log_first if a[0] in ("play", "pass")]
    assert len(plays) >= 30, log_first  # the script got well into the game
    assert [a for a in log_second if a[0] in ("play", "pass")] == plays
    # the deals really differ in who holds the 大王s: other seats answered 亮王
    holders = [a[1] for a in log_first if a[0] == "decline"]
    assert holders != [a[1] for a in log_second if a[0] == "decline"]
    assert len(first) == len(second)
    for mine, theirs in zip(first, second, strict=True):
        assert mine == theirs
