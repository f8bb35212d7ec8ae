"""The action log: appended in order, read back in order, never twice for one seq."""

from __future__ import annotations

import pytest

from bot.game.cards import parse_cards
from bot.storage import ActionRecord, Database, DuplicateActionError, NotFoundError
from bot.storage.driver import ConstraintViolation
from tests.storage.conftest import FakeClock, new_game


async def test_append_and_list_in_seq_order(db: Database) -> None:
    game = await new_game(db, status="playing")
    await db.actions.append(game_id=game.id, seq=1, seat=1, kind="pass", at=11.0)
    await db.actions.append(game_id=game.id, seq=0, seat=0, kind="play", cards="♠3 ♥3", at=10.0)
    record = await db.actions.append(
        game_id=game.id, seq=2, seat=2, kind="play", cards="♣4 ♦4", at=12.5
    )
    assert record == ActionRecord(seq=2, seat=2, kind="play", cards="♣4 ♦4", at=12.5)
    assert await db.actions.list(game.id) == [
        ActionRecord(0, 0, "play", "♠3 ♥3", 10.0),
        ActionRecord(1, 1, "pass", None, 11.0),
        record,
    ]


async def test_each_game_has_its_own_log(db: Database) -> None:
    first = await new_game(db, chat_id=-1)
    second = await new_game(db, chat_id=-2)
    await db.actions.append(game_id=first.id, seq=0, seat=0, kind="play", cards="♠3")
    await db.actions.append(game_id=second.id, seq=0, seat=3, kind="reveal")
    assert [a.kind for a in await db.actions.list(first.id)] == ["play"]
    assert [a.kind for a in await db.actions.list(second.id)] == ["reveal"]


async def test_an_empty_log(db: Database) -> None:
    game = await new_game(db)
    assert await db.actions.list(game.id) == []


async def test_the_time_defaults_to_now(db: Database, clock: FakeClock) -> None:
    game = await new_game(db)
    record = await db.actions.append(game_id=game.id, seq=0, seat=0, kind="decline")
    assert record.at == clock.now


async def test_cards_may_be_the_engines_cards(db: Database) -> None:
    game = await new_game(db)
    record = await db.actions.append(
        game_id=game.id, seq=0, seat=0, kind="play", cards=parse_cards("S3 H3 大王")
    )
    assert record.cards == "♠3 ♥3 大王"
    [stored] = await db.actions.list(game.id)
    assert parse_cards(stored.cards or "") == parse_cards("♠3 ♥3 大王")


async def test_an_existing_seq_is_refused(db: Database) -> None:
    game = await new_game(db)
    await db.actions.append(game_id=game.id, seq=0, seat=0, kind="play", cards="♠3", at=1.0)
    with pytest.raises(DuplicateActionError, match=f"game {game.id}.*seq 0") as caught:
        await db.actions.append(game_id=game.id, seq=0, seat=1, kind="play", cards="♠4", at=2.0)
    assert (caught.value.game_id, caught.value.seq) == (game.id, 0)
    assert await db.actions.list(game.id) == [ActionRecord(0, 0, "play", "♠3", 1.0)]


async def test_a_refused_action_undoes_the_services_whole_transaction(db: Database) -> None:
    """The service appends the action and updates the game in one transaction: a duplicate
    (a double click that slipped past the version check) must leave no half of it behind."""
    game = await new_game(db, status="playing")
    await db.actions.append(game_id=game.id, seq=0, seat=0, kind="play", cards="♠3")
    with pytest.raises(DuplicateActionError):
        async with db.transaction():
            await db.games.update(game.id, deadline=99.0, timeouts=[0, 0, 0, 1])
            await db.actions.append(game_id=game.id, seq=0, seat=0, kind="play", cards="♠3")
    assert await db.games.get(game.id) == game


async def test_appending_to_an_unknown_game_is_refused(db: Database) -> None:
    with pytest.raises(NotFoundError, match="777"):
        await db.actions.append(game_id=777, seq=0, seat=0, kind="play", cards="♠3")


async def test_a_broken_row_is_not_reported_as_a_duplicate(db: Database) -> None:
    """Only the primary key means "seq taken"; any other refusal is a constraint violation of
    its own kind, with the database's message."""
    game = await new_game(db, status="playing")
    with pytest.raises(ConstraintViolation) as refused:
        await db.actions.append(game_id=game.id, seq=0, seat=0, kind=None)  # type: ignore[arg-type]
    assert refused.value.kind == "other"
    assert "null" in str(refused.value).lower()
    assert await db.actions.list(game.id) == []
