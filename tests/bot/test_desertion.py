"""逃跑 through the service: who scores what when a player abandons a game, in both games.

刨王 (shared/rules/paowang.md, Settlement): the first desertion ends the game's scoring: the
deserter scores its side's losing row ×4, its partners 0, the other side its winning row ×1
if the game had lasted 30 s and every seat had had 4 turns (0 otherwise); the computer plays
the seat on, the group is told in a line of its own. A second deserter is charged too. In
both games the one-minute rule never waives a deserter's penalty.

The clock is the service's own (a manual one here), so the 30-second and one-minute
thresholds are exact.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.game import paowang_scoring
from bot.game.cards import format_cards
from bot.game.variants import PAOWANG, SHUANGKOU, Variant
from bot.presentation.callbacks import Act, Callback
from bot.presentation.strings import text
from bot.service import GameService
from bot.service.tables import Table
from bot.storage import Database, open_database
from tests.bot.harness import RecordingMessenger, running_service, user, wait_until

GROUP = -100
TWO_AGAINST_THREE = 0  # a seed: the 大王 in seats 0 and 4
ONE_AGAINST_FOUR = 4  # a seed: both 大王 in seat 2
UNSCORED = "本局从现在起不再计分"


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def db(tmp_path: Any) -> AsyncIterator[Database]:
    database = await open_database(str(tmp_path / "bot.sqlite3"))
    yield database
    await database.close()


def running(db: Database, clock: Clock, seed: int = 0, **settings: Any) -> Any:
    """The service on ``clock``, every game dealt from ``seed``."""
    return running_service(db, clock=clock, seed=seed, **settings)


async def start(service: GameService, variant: Variant, humans: int) -> tuple[Table, list[Any]]:
    people = [user(10 + i) for i in range(humans)]
    for person in people:
        await service.start_private(person, None)
    await service.new_game(chat_id=GROUP, chat_title="g", opener=people[0], variant=variant)
    table = service.tables[service.by_chat[GROUP]]
    for person in people[1:]:
        await service.on_lobby_callback(person, Callback(table.game_id, 0, Act.JOIN))
    while not table.full:
        await service.on_lobby_callback(people[0], Callback(table.game_id, 0, Act.COMPUTER))
    await service.on_lobby_callback(people[0], Callback(table.game_id, 0, Act.START))
    return table, people


def person_of(table: Table, people: list[Any], index: int) -> Any:
    return next(p for p in people if p.user_id == table.seats[index].user_id)


async def answer_gate(service: GameService, table: Table, people: list[Any], reveal: bool) -> None:
    for index in sorted(table.ready_pending):
        seat = table.seats[index]
        holder = index in table.engine.reveal_pending
        act = Act.REVEAL if holder else Act.READY
        arg = int(reveal) if holder else None
        reply = await service.on_hand_callback(
            person_of(table, people, index), Callback(table.game_id, seat.version, act, arg)
        )
        assert reply.text != text("zh", "err.outdated")
    assert not table.gate_open


async def act_once(
    service: GameService, messenger: RecordingMessenger, table: Table, people: list[Any]
) -> None:
    """The seat to act, a human playing itself: lead its lowest card, or pass."""
    await wait_until(
        lambda: (
            table.status != "playing"
            or (table.engine.turn is not None and table.seats[table.engine.turn].plays_itself)
        ),
        messenger.changed,
    )
    if table.status != "playing":
        return
    index = table.engine.turn
    lowest = sorted(table.engine.hands[index])[:1]
    words = "不出" if table.engine.can_pass(index) else format_cards(lowest)
    reply = await service.typed_play(person_of(table, people, index), words)
    assert reply is not None and reply.text == "", reply


async def take_turns(
    service: GameService, messenger: RecordingMessenger, table: Table, people: list[Any], turns: int
) -> None:
    while min(paowang_scoring.turns_taken(table.engine)) < turns:
        await act_once(service, messenger, table, people)


async def play_to_the_end(
    service: GameService, messenger: RecordingMessenger, table: Table, people: list[Any]
) -> None:
    while table.status == "playing":
        await act_once(service, messenger, table, people)
    await table.channel.drain()


async def scores(db: Database, table: Table) -> tuple[int, ...]:
    rows = await db.results.for_game(table.game_id)
    return tuple(row.adjusted_delta for row in rows)


def group_text(messenger: RecordingMessenger) -> str:
    return "\n".join(messenger.everything_shown(GROUP))


# (seed, deserter, reveal) -> every seat's score: deserter ×4 loss, partners 0, others ×1 win
AFTER_THE_THRESHOLD = [
    # a 王 side of two (seats 0 and 4): its partner 0, the three others +2
    (TWO_AGAINST_THREE, 4, False, (0, 2, 2, 2, -12)),
    (TWO_AGAINST_THREE, 0, True, (-12, 2, 2, 2, 0)),  # no ×2 for the reveal
    # the other side in 2 against 3: its two partners 0, the 王 side +3 each
    (TWO_AGAINST_THREE, 1, True, (3, -8, 0, 0, 3)),
    # the 王 in one hand (1 against 4): the four others +2
    (ONE_AGAINST_FOUR, 2, False, (2, 2, -32, 2, 2)),
    # one of the four: its three partners 0, the 王 +8
    (ONE_AGAINST_FOUR, 3, True, (0, 0, 8, -8, 0)),
]


@pytest.mark.parametrize(("seed", "deserter", "reveal", "expected"), AFTER_THE_THRESHOLD)
async def test_paowang_逃跑_after_30_s_and_4_turns_fixes_every_score(
    db: Database, seed: int, deserter: int, reveal: bool, expected: tuple
) -> None:
    clock = Clock()
    async with running(db, clock, seed, min_game_seconds=60.0) as (service, messenger):
        table, people = await start(service, PAOWANG, humans=5)
        await answer_gate(service, table, people, reveal)
        await take_turns(service, messenger, table, people, paowang_scoring.ESCAPE_MIN_TURNS)
        clock.now += paowang_scoring.ESCAPE_MIN_SECONDS
        reply = await service.leave(person_of(table, people, deserter))
        assert reply.text == text("zh", "leave.done")
        assert tuple(table.fixed_scores) == expected
        stored = await db.games.get(table.game_id)
        assert stored is not None and stored.fixed_scores == expected  # survives a restart
        await table.channel.drain()
        assert group_text(messenger).count(UNSCORED) == 1
        assert "另一方每人按赢 1 局计分" in group_text(messenger)
        clock.now += 60  # past the one-minute rule
        await play_to_the_end(service, messenger, table, people)
        assert table.status == "finished"
        # the game's own result changed no score: the desertion's stand
        assert await scores(db, table) == expected
        for index, person in enumerate(people):
            rating = await db.ratings.get(user_id=person.user_id, game="paowang")
            assert rating.score == expected[index] and rating.games == 1
            assert rating.wins == (1 if expected[index] > 0 else 0)
        result = messenger.chat(GROUP)[-1].text
        assert "结果：逃跑" in result and "（逃跑）" in result
        assert "牌局本身（不计分）" in result
        assert f"{expected[deserter]:+d}" in result


@pytest.mark.parametrize(("seed", "deserter", "reveal", "expected"), AFTER_THE_THRESHOLD)
@pytest.mark.parametrize(("seconds", "turns"), [(29.0, 4), (300.0, 3)])
async def test_paowang_逃跑_before_the_threshold_scores_only_the_deserter(
    db: Database,
    seed: int,
    deserter: int,
    reveal: bool,
    expected: tuple,
    seconds: float,
    turns: int,
) -> None:
    clock = Clock()
    async with running(db, clock, seed) as (service, messenger):
        table, people = await start(service, PAOWANG, humans=5)
        await answer_gate(service, table, people, reveal)
        await take_turns(service, messenger, table, people, turns)
        clock.now += seconds
        await service.leave(person_of(table, people, deserter))
        only_deserter = tuple(expected[s] if s == deserter else 0 for s in range(5))
        assert tuple(table.fixed_scores) == only_deserter
        await table.channel.drain()
        assert "另一方也不计分" in group_text(messenger)
        await play_to_the_end(service, messenger, table, people)
        assert await scores(db, table) == only_deserter


async def test_paowang_逃跑_at_the_亮王_gate_and_a_second_deserter(db: Database) -> None:
    """Seat 1 leaves before answering 亮王 (no turns yet: the others score 0); seat 4, a 王
    holder, leaves later and is charged its own loss; nobody else's score changes again."""
    clock = Clock()
    async with running(db, clock, TWO_AGAINST_THREE) as (service, messenger):
        table, people = await start(service, PAOWANG, humans=5)
        assert table.gate_open
        await service.leave(person_of(table, people, 1))
        assert tuple(table.fixed_scores) == (0, -8, 0, 0, 0)
        await answer_gate(service, table, people, reveal=False)
        await take_turns(service, messenger, table, people, 4)
        clock.now += 120
        await service.leave(person_of(table, people, 4))
        assert tuple(table.fixed_scores) == (0, -8, 0, 0, -12)
        await table.channel.drain()
        assert group_text(messenger).count(UNSCORED) == 1  # told once, at the first
        await play_to_the_end(service, messenger, table, people)
        assert await scores(db, table) == (0, -8, 0, 0, -12)
        rows = await db.results.for_game(table.game_id)
        assert [row.escaped for row in rows] == [False, True, False, False, True]


@pytest.mark.parametrize("variant", [SHUANGKOU, PAOWANG])
async def test_the_one_minute_rule_never_waives_a_deserters_penalty(
    db: Database, variant: Variant
) -> None:
    """A /leave in the first minute of a game that then ends within the minute: everyone
    else scores 0, the deserter still pays (-20 in 双扣, the ×4 loss in 刨王)."""
    clock = Clock()
    seed = TWO_AGAINST_THREE
    async with running(db, clock, seed, min_game_seconds=60.0) as (service, messenger):
        table, people = await start(service, variant, humans=2)
        index = table.seat_of(people[1].user_id)
        assert index is not None
        await service.leave(people[1])
        await service.leave(people[0])  # the computers finish the game at once
        await wait_until(lambda: table.status == "finished", messenger.changed)
        await table.channel.drain()
        price = paowang_scoring.escape_penalty
        penalty = -20 if variant is SHUANGKOU else price(table.engine, index)
        opener_penalty = -20 if variant is SHUANGKOU else price(table.engine, 0)
        got = await scores(db, table)
        assert got[index] == penalty < 0 and got[0] == opener_penalty < 0
        assert all(score == 0 for seat, score in enumerate(got) if seat not in (0, index))
        for person, expected in ((people[0], opener_penalty), (people[1], penalty)):
            rating = await db.ratings.get(user_id=person.user_id, game=variant.name)
            assert rating.score == expected
        assert "除逃跑扣分外，不计分" in messenger.chat(GROUP)[-1].text


async def test_shuangkou_逃跑_costs_20_and_the_others_keep_the_result(db: Database) -> None:
    clock = Clock()
    async with running(db, clock, 3) as (service, messenger):
        table, people = await start(service, SHUANGKOU, humans=1)
        clock.now += 600
        await service.leave(people[0])
        assert table.fixed_scores == [-20, None, None, None]
        await wait_until(lambda: table.status == "finished", messenger.changed)
        await table.channel.drain()
        result = table.engine.result
        assert await scores(db, table) == (-20, *result.deltas[1:])
        assert UNSCORED not in group_text(messenger)


async def test_a_cancel_after_a_desertion_still_charges_the_deserter(db: Database) -> None:
    """The opener leaves, then cancels the game: the cancel ends it without scores for the
    others, but does not undo the opener's own 逃跑 penalty."""
    clock = Clock()
    async with running(db, clock, TWO_AGAINST_THREE) as (service, messenger):
        table, people = await start(service, PAOWANG, humans=5)
        await answer_gate(service, table, people, reveal=True)
        await take_turns(service, messenger, table, people, 4)
        clock.now += 45
        opener = people[0]
        await service.leave(opener)
        assert tuple(table.fixed_scores) == (-12, 2, 2, 2, 0)
        reply = await service.cancel_in_chat(GROUP, opener)
        assert reply.text == "牌局已取消：除逃跑扣分外，不计分。"
        assert table.status == "cancelled"
        rows = await db.results.for_game(table.game_id)
        assert [(row.seat, row.adjusted_delta, row.escaped) for row in rows] == [(0, -12, True)]
        assert rows[0].score_after == -12
        for index, person in enumerate(people):
            rating = await db.ratings.get(user_id=person.user_id, game="paowang")
            assert (rating.score, rating.games) == ((-12, 1) if index == 0 else (0, 0))
        record = await db.games.get(table.game_id)
        assert record is not None and record.status == "cancelled"
        await table.channel.drain()
        assert "牌局已取消" not in group_text(messenger)  # said once, by the answer


@pytest.mark.parametrize("variant", [PAOWANG, SHUANGKOU])
async def test_leaving_after_going_out_is_no_desertion(db: Database, variant: Variant) -> None:
    """A player out of cards has nothing left to decide: /leave lets them go without 逃跑,
    nothing more is sent to them, and the game is scored by its result."""
    clock = Clock()
    async with running(db, clock, TWO_AGAINST_THREE) as (service, messenger):
        table, people = await start(service, variant, humans=variant.seats)
        if table.gate_open:
            await answer_gate(service, table, people, reveal=False)
        while not any(not table.engine.hands[table.seat_of(p.user_id)] for p in people):
            await act_once(service, messenger, table, people)
        assert not table.engine.over
        out = next(p for p in people if not table.engine.hands[table.seat_of(p.user_id)])
        index = table.seat_of(out.user_id)
        sent_to_them = len(messenger.chat(out.user_id))
        reply = await service.leave(out)
        assert reply.text == "你已出完牌，离开不算逃跑；本局照常计分。"
        seat = table.seats[index]
        assert seat.left and not seat.escaped
        assert out.user_id not in service.by_user
        assert all(score is None for score in table.fixed_scores)
        await play_to_the_end(service, messenger, table, [p for p in people if p is not out])
        assert await scores(db, table) == table.engine.result.deltas
        text_shown = group_text(messenger)
        assert "先走一步（不算逃跑）" in text_shown and UNSCORED not in text_shown
        # nothing new was sent to them (their old messages may be edited, not added to)
        assert len(messenger.chat(out.user_id)) == sent_to_them


async def test_the_fixed_scores_survive_a_restart(db: Database) -> None:
    """What a desertion fixed is stored at once: a restart brings it back, and a game stored
    before the scores were (its 逃跑 flags only) has its deserters priced when recovered."""
    clock = Clock()
    async with running(db, clock, TWO_AGAINST_THREE) as (service, messenger):
        table, people = await start(service, PAOWANG, humans=5)
        await answer_gate(service, table, people, reveal=False)
        await take_turns(service, messenger, table, people, 4)
        clock.now += 31
        await service.leave(person_of(table, people, 1))
        fixed = tuple(table.fixed_scores)
        assert fixed == (3, -8, 0, 0, 3)
        game_id = table.game_id
    async with running(db, clock, TWO_AGAINST_THREE) as (service, _):
        assert await service.recover() == 1
        again = service.tables[game_id]
        assert tuple(again.fixed_scores) == fixed and again.seats[1].escaped
    # as if stored before migration 2: the flags only
    await db.games.save(game_id, fixed_scores=[])
    async with running(db, clock, TWO_AGAINST_THREE) as (service, _):
        await service.recover()
        again = service.tables[game_id]
        assert again.fixed_scores[1] == -8 and all(
            again.fixed_scores[s] is not None for s in range(5)
        )
