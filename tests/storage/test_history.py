"""History: a group's last finished games and a player's last counted games, newest first,
with the seats' names and results."""

from __future__ import annotations

from bot.storage import Database, GameRecord, ResultRow, SeatRecord
from tests.storage.conftest import FakeClock, add_players


async def finished_game(
    db: Database,
    clock: FakeClock,
    *,
    chat_id: int = -100,
    users: tuple[int | None, ...] = (1, 2, 3, 4),
    winners: tuple[int, ...] = (0, 2),
    outcome: str = "双扣",
    escaped: tuple[int, ...] = (),
    note: str | None = None,
    variant: str = "shuangkou",
) -> GameRecord:
    """A game dealt, played and finished now (results recorded as the service does)."""
    seats = [
        SeatRecord(user_id=u, name=f"人{u}" if u else f"电脑{i}", is_computer=u is None)
        for i, u in enumerate(users)
    ]
    game = await db.games.create(
        chat_id=chat_id, variant=variant, opener_id=users[0], seats=seats, seed=7,
        status="playing",
    )
    rows = [
        ResultRow(
            seat, user, 4 if seat in winners else -4, -20 if seat in escaped else (
                4 if seat in winners else -4
            ), seat in winners, seat in escaped
        )
        for seat, user in enumerate(users)
    ]
    await db.results.record(game_id=game.id, rows=rows, outcome=outcome, note=note)
    await db.games.update(game.id, status="finished", finished_at=clock())
    clock.advance(60)
    return game


async def test_a_groups_last_finished_games_newest_first(db: Database, clock: FakeClock) -> None:
    await add_players(db, 1, 2, 3, 4)
    ids = [(await finished_game(db, clock)).id for _ in range(12)]
    # another group's game, a game in progress and a cancelled one are not listed
    await finished_game(db, clock, chat_id=-200)
    await db.games.create(
        chat_id=-300, variant="shuangkou", opener_id=1,
        seats=[SeatRecord(1, "人1")], seed=1, status="playing",
    )
    cancelled = await db.games.create(
        chat_id=-100, variant="shuangkou", opener_id=1, seats=[SeatRecord(1, "人1")], seed=1,
        status="playing",
    )
    await db.games.update(cancelled.id, status="cancelled", finished_at=clock())

    games = await db.history.of_chat(-100)
    assert [g.game_id for g in games] == list(reversed(ids))[:10]
    assert await db.history.of_chat(-100, limit=3) == games[:3]
    newest = games[0]
    assert newest.status == "finished" and newest.replayable
    assert newest.variant == "shuangkou" and newest.outcome == "双扣"
    assert [s.name for s in newest.seats] == ["人1", "人2", "人3", "人4"]
    assert [s.name for s in newest.winners] == ["人1", "人3"]
    assert [s.adjusted_delta for s in newest.seats] == [4, -4, 4, -4]
    assert games[0].ended_at > games[1].ended_at
    assert await db.history.of_chat(-999) == []
    assert [g.game_id for g in await db.history.of_chat(-300)] == []


async def test_the_order_is_by_when_games_ended(db: Database, clock: FakeClock) -> None:
    """A game opened earlier but finished later comes first."""
    await add_players(db, 1, 2, 3, 4)
    early = await db.games.create(
        chat_id=-100, variant="shuangkou", opener_id=1,
        seats=[SeatRecord(u, f"人{u}") for u in (1, 2, 3, 4)], seed=1, status="finished",
    )  # (stored finished with no end time: it counts as ended when it was opened)
    clock.advance(10)
    later = await finished_game(db, clock)
    assert [g.game_id for g in await db.history.of_chat(-100)] == [later.id, early.id]
    await db.results.record(
        game_id=early.id,
        rows=[ResultRow(s, s + 1, 0, 0, False, False) for s in range(4)],
        outcome="平扣",
    )
    await db.games.update(early.id, status="finished", finished_at=clock())
    assert [g.game_id for g in await db.history.of_chat(-100)] == [early.id, later.id]
    assert (await db.history.of_chat(-100))[0].winners == ()


async def test_a_players_counted_games_in_every_group(db: Database, clock: FakeClock) -> None:
    await add_players(db, 1, 2, 3, 4, 5)
    here = await finished_game(db, clock, users=(1, None, 2, None))
    there = await finished_game(db, clock, chat_id=-200, users=(3, 1, 4, 5), winners=(1, 3))
    other = await finished_game(db, clock, users=(2, 3, 4, 5))
    # a game cancelled after player 1 deserted counts for them (逃跑 charged), not for 2
    cancelled = await db.games.create(
        chat_id=-300, variant="paowang", opener_id=1,
        seats=[SeatRecord(u, f"人{u}") for u in (1, 2, 3, 4, 5)], seed=1, status="playing",
    )
    await db.results.record(
        game_id=cancelled.id, rows=[ResultRow(0, 1, 0, -16, False, True)], outcome="cancelled",
        note="cancelled after 逃跑",
    )
    await db.games.update(cancelled.id, status="cancelled", finished_at=clock())

    mine = await db.history.of_user(1)
    assert [g.game_id for g in mine] == [cancelled.id, there.id, here.id]
    first = mine[0]
    assert not first.replayable and first.status == "cancelled"
    mine_there = mine[1].seat_of(1)
    assert mine_there is not None and mine_there.seat == 1 and mine_there.won
    assert mine_there.adjusted_delta == 4
    computer = mine[2].seats[1]
    assert computer.is_computer and computer.user_id is None and computer.name == "电脑1"
    assert first.escaped[0].user_id == 1 and first.seats[1].won is None
    assert [g.game_id for g in await db.history.of_user(1, limit=1)] == [cancelled.id]
    assert [g.game_id for g in await db.history.of_user(2)] == [other.id, here.id]
    assert await db.history.of_user(99) == []


async def test_escapes_and_notes_come_back(db: Database, clock: FakeClock) -> None:
    await add_players(db, 1, 2, 3, 4, 5)
    game = await finished_game(
        db, clock, users=(1, 2, 3, 4, 5), winners=(1, 3), outcome="小雪", escaped=(4,),
        note="short game", variant="paowang",
    )
    (stored,) = await db.history.of_chat(-100)
    assert stored.game_id == game.id and stored.variant == "paowang"
    assert stored.outcome == "小雪" and stored.note == "short game"
    assert [s.seat for s in stored.escaped] == [4]
    assert stored.seats[4].adjusted_delta == -20
