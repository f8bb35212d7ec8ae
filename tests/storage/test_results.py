"""Results: written once per game, read back by seat, the outcome kept on the game."""

from __future__ import annotations

import pytest

from bot.storage import Database, NotFoundError, ResultRow, ResultsAlreadyRecordedError
from tests.storage.conftest import add_players, new_game


async def test_record_and_read_back(db: Database) -> None:
    await add_players(db, 1, 2, 3)
    game = await new_game(db, users=(1, 2, 3), status="playing")
    rows = [
        ResultRow(seat=2, user_id=3, delta=-2, adjusted_delta=-20, won=False, escaped=True),
        ResultRow(seat=0, user_id=1, delta=2, adjusted_delta=2, won=True, escaped=False),
        ResultRow(seat=1, user_id=2, delta=-2, adjusted_delta=-2, won=False, escaped=False),
        ResultRow(seat=3, user_id=None, delta=2, adjusted_delta=2, won=True, escaped=False),
    ]
    await db.results.record(game_id=game.id, rows=rows, outcome="单扣", note="3 escaped")
    assert await db.results.for_game(game.id) == sorted(rows, key=lambda row: row.seat)
    stored = await db.games.get(game.id)
    assert stored is not None and (stored.outcome, stored.note) == ("单扣", "3 escaped")


async def test_a_game_without_results(db: Database) -> None:
    game = await new_game(db)
    assert await db.results.for_game(game.id) == []
    assert game.outcome is None and game.note is None


async def test_results_are_written_once(db: Database) -> None:
    await add_players(db, 1)
    game = await new_game(db, users=(1,))
    rows = [ResultRow(0, 1, 4, 4, True, False)]
    await db.results.record(game_id=game.id, rows=rows, outcome="双扣")
    with pytest.raises(ResultsAlreadyRecordedError):
        await db.results.record(game_id=game.id, rows=rows, outcome="平扣")
    assert await db.results.for_game(game.id) == rows
    stored = await db.games.get(game.id)
    assert stored is not None and stored.outcome == "双扣"


async def test_bad_results_are_refused_whole(db: Database) -> None:
    await add_players(db, 1)
    game = await new_game(db, users=(1, 2))
    with pytest.raises(ValueError, match="twice"):
        await db.results.record(
            game_id=game.id,
            rows=[ResultRow(0, 1, 1, 1, True, False), ResultRow(0, 1, 1, 1, True, False)],
            outcome="win",
        )
    with pytest.raises(NotFoundError, match="2"):  # player 2 was never upserted
        await db.results.record(
            game_id=game.id,
            rows=[ResultRow(0, 1, 1, 1, True, False), ResultRow(1, 2, -1, -1, False, False)],
            outcome="win",
        )
    with pytest.raises(NotFoundError):
        await db.results.record(game_id=999, rows=[], outcome="win")
    assert await db.results.for_game(game.id) == []
