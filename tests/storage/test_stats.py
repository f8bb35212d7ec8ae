"""The stats repository: a player's counted games in the order they ended, with the other
seats' results, the cache key that moves with each new game, and the logs to replay."""

from __future__ import annotations

from bot.storage import Database, ResultRow, SeatRecord
from bot.storage.models import ActionRecord
from tests.storage.conftest import FakeClock, add_players, new_game

GROUP, OTHER, THIRD = -100, -200, -300


async def finish(
    db: Database,
    clock: FakeClock,
    *,
    chat_id: int = GROUP,
    variant: str = "shuangkou",
    users: tuple[int | None, ...] = (1, 2, 3, 4),
    winners: tuple[int, ...] = (0, 2),
    outcome: str = "单扣",
    scores: dict[int, int] | None = None,
    escaped: tuple[int, ...] = (),
    status: str = "finished",
) -> int:
    """A game with results (and scores after), finished (or cancelled) now."""
    seats = [
        SeatRecord(user_id=u, name=f"player {u}" if u else "电脑", is_computer=u is None)
        for u in users
    ]
    game = await db.games.create(
        chat_id=chat_id,
        variant=variant,
        opener_id=users[0],
        seats=seats,
        seed=7,
        status="playing",
    )
    rows = [
        ResultRow(seat, user, 2, 2 if seat in winners else -2, seat in winners, seat in escaped)
        for seat, user in enumerate(users)
        if status == "finished" or seat in escaped
    ]
    await db.results.record(game_id=game.id, rows=rows, outcome=outcome)
    async with db.transaction():
        await db.results.note_scores_after(game.id, scores or {})
    await db.games.update(game.id, status=status, finished_at=clock())
    clock.advance(60)
    return game.id


async def test_played_in_order_with_the_other_seats(db: Database, clock: FakeClock) -> None:
    await add_players(db, 1, 2, 3, 4, 5)
    first = await finish(db, clock, scores={1: 2, 2: -2})
    second = await finish(
        db, clock, chat_id=OTHER, users=(2, 1, None, 5), winners=(1, 3), outcome="双扣"
    )
    third = await finish(
        db,
        clock,
        variant="paowang",
        users=(1, 2, 3, 4, 5),
        winners=(0, 3),
        outcome="小雪",
        scores={1: 12},
    )
    # unfinished: not counted
    await new_game(db, chat_id=THIRD, users=(1, 2, 3, 4), status="playing")
    await finish(db, clock, users=(2, 3, 4, 5))  # not theirs

    games = await db.stats.played(user_id=1)
    assert [g.game_id for g in games] == [first, second, third]
    one, two, three = games
    assert (one.chat_id, one.variant, one.outcome, one.seat) == (GROUP, "shuangkou", "单扣", 0)
    assert (one.won, one.escaped, one.score_after, one.adjusted_delta) == (True, False, 2, 2)
    assert [(o.seat, o.user_id, o.name, o.won) for o in one.others] == [
        (1, 2, "player 2", False),
        (2, 3, "player 3", True),
        (3, 4, "player 4", False),
    ]
    assert [s.user_id for s in one.same_side()] == [3]
    assert (two.seat, two.won, two.score_after) == (1, True, None)
    assert [(o.seat, o.user_id, o.name) for o in two.others] == [
        (0, 2, "player 2"),
        (2, None, None),  # the computer seat
        (3, 5, "player 5"),
    ]
    assert (three.variant, three.outcome, three.score_after) == ("paowang", "小雪", 12)
    assert len(three.others) == 4
    assert one.finished_at < two.finished_at < three.finished_at

    assert [g.game_id for g in await db.stats.played(user_id=1, chat_id=GROUP)] == [first, third]
    assert [g.game_id for g in await db.stats.played(user_id=1, variant="paowang")] == [third]
    assert await db.stats.played(user_id=99) == []


async def test_cancelled_games_count_only_for_deserters(db: Database, clock: FakeClock) -> None:
    await add_players(db, 1, 2, 3, 4)
    cancelled = await finish(
        db, clock, winners=(), escaped=(1,), outcome="cancelled", status="cancelled"
    )
    games = await db.stats.played(user_id=2)
    assert [(g.game_id, g.status, g.escaped, g.won) for g in games] == [
        (cancelled, "cancelled", True, False)
    ]
    assert games[0].others == ()  # only the deserters have rows
    assert await db.stats.played(user_id=1) == []
    assert await db.stats.record_version(user_id=1) == (0, None)
    assert await db.stats.latest_game_id(user_id=1) is None


async def test_the_version_moves_with_every_game(db: Database, clock: FakeClock) -> None:
    await add_players(db, 1, 2, 3, 4)
    assert await db.stats.record_version(user_id=1) == (0, None)
    # a lobby opened first and played last: its id is lower than the last game's
    early = await new_game(db, chat_id=THIRD, users=(1, 2, 3, 4), status="playing")
    late = await finish(db, clock)
    assert await db.stats.record_version(user_id=1) == (1, late)
    assert await db.stats.latest_game_id(user_id=1) == late
    await db.results.record(
        game_id=early.id,
        rows=[ResultRow(s, u, 0, 0, False, False) for s, u in enumerate((1, 2, 3, 4))],
        outcome="平扣",
    )
    await db.games.update(early.id, status="finished", finished_at=clock())
    assert await db.stats.record_version(user_id=1) == (2, late)  # the count moved
    assert await db.stats.latest_game_id(user_id=1) == early.id  # the last one to end


async def test_logs_of_games(db: Database) -> None:
    await add_players(db, 1, 2, 3, 4)
    game = await new_game(db, users=(1, 2, 3, 4), status="playing")
    other = await db.games.create(
        chat_id=THIRD,
        variant="paowang",
        opener_id=1,
        seats=[SeatRecord(user_id=u, name="x") for u in (1, 2, 3, 4, None)],
        seed=None,
        hands=[["♠3", "♥3"], ["♠4"], ["♠5"], ["♠6"], ["♠7"]],
        leader=2,
        status="playing",
    )
    await db.actions.append(game_id=game.id, seq=1, seat=0, kind="play", cards="♠3 ♥3", at=5.0)
    await db.actions.append(game_id=game.id, seq=2, seat=1, kind="pass", at=6.0)
    await db.actions.append(game_id=other.id, seq=1, seat=2, kind="reveal", at=7.0)
    logs = await db.stats.logs([other.id, game.id, game.id, 12345])
    assert set(logs) == {game.id, other.id}
    one = logs[game.id]
    assert (one.variant, one.seed, one.leader, one.hands) == ("shuangkou", 7, None, None)
    assert one.actions == (
        ActionRecord(1, 0, "play", "♠3 ♥3", 5.0),
        ActionRecord(2, 1, "pass", None, 6.0),
    )
    two = logs[other.id]
    assert (two.variant, two.seed, two.leader) == ("paowang", None, 2)
    assert two.hands == [["♠3", "♥3"], ["♠4"], ["♠5"], ["♠6"], ["♠7"]]
    assert [a.kind for a in two.actions] == ["reveal"]
    assert await db.stats.logs([]) == {}
