"""Games: create, read, one open game per chat, updates, and the list a restart recovers."""

from __future__ import annotations

import pytest

from bot.game.cards import parse_cards
from bot.storage import (
    Database,
    GameRecord,
    NotFoundError,
    OpenGameExistsError,
    SeatRecord,
)
from tests.storage.conftest import FakeClock, human_seats, new_game


async def test_create_makes_a_lobby(db: Database, clock: FakeClock) -> None:
    seats = [SeatRecord(1, "张三", False, "zh"), SeatRecord(None, "电脑", True, None)]
    game = await db.games.create(
        chat_id=-1001234567890, variant="shuangkou", opener_id=1, seats=seats, seed=7
    )
    assert game == GameRecord(
        id=game.id,
        chat_id=-1001234567890,
        variant="shuangkou",
        status="lobby",
        opener_id=1,
        seats=tuple(seats),
        seed=7,
        leader=None,
        hands=None,
        created_at=clock.now,
        started_at=None,
        finished_at=None,
        table_message_id=None,
        lobby_message_id=None,
        hand_message_ids={},
        takeover=(False, False),
        timeouts=(0, 0),
        escaped=(False, False),
        deadline=None,
        previous_game_id=None,
    )
    assert game.is_open
    assert game.seat_of(1) == 0 and game.seat_of(2) is None
    assert await db.games.get(game.id) == game


async def test_an_unknown_game_is_none(db: Database) -> None:
    assert await db.games.get(12345) is None


async def test_an_explicit_deal_round_trips(db: Database) -> None:
    hands = [["♠3", "♥3"], ["小王"], ["大王", "♦10"], [], ["♣2"]]
    game = await db.games.create(
        chat_id=-1,
        variant="paowang",
        opener_id=1,
        seats=human_seats(1, 2, 3, 4, 5),
        seed=None,
        leader=2,
        hands=hands,
    )
    assert game.hands == hands and game.leader == 2 and game.seed is None
    assert (await db.games.get(game.id)) == game


async def test_hands_may_be_given_as_the_engines_cards(db: Database) -> None:
    cards = parse_cards("♠3 ♥10 小王 大王")
    game = await db.games.create(
        chat_id=-1,
        variant="shuangkou",
        opener_id=1,
        seats=human_seats(1),
        seed=None,
        hands=[cards, "♣4 ♦5"],
    )
    assert game.hands == [["♠3", "♥10", "小王", "大王"], ["♣4", "♦5"]]
    assert parse_cards(" ".join(game.hands[0])) == cards


@pytest.mark.parametrize("seed", [0, 7, -5, 2**64 + 1, "a string seed"])
async def test_a_seed_round_trips_exactly(db: Database, seed: int | str) -> None:
    game = await new_game(db, seed=None)
    await db.games.update(game.id, seed=seed)
    stored = await db.games.get(game.id)
    assert stored is not None and stored.seed == seed and type(stored.seed) is type(seed)


async def test_a_chat_has_one_open_game_at_most(db: Database) -> None:
    lobby = await new_game(db, chat_id=-100)
    assert await db.games.open_in_chat(-100) == lobby
    assert await db.games.open_in_chat(-200) is None
    with pytest.raises(OpenGameExistsError):
        await new_game(db, chat_id=-100)
    other = await new_game(db, chat_id=-200)  # other chats are not affected
    assert other.id != lobby.id

    await db.games.update(lobby.id, status="playing")
    with pytest.raises(OpenGameExistsError):
        await new_game(db, chat_id=-100, status="playing")
    finished = await db.games.update(lobby.id, status="finished")
    assert not finished.is_open
    assert await db.games.open_in_chat(-100) is None

    again = await db.games.create(
        chat_id=-100,
        variant="shuangkou",
        opener_id=1,
        seats=human_seats(1, 2, 3, 4),
        seed=8,
        previous_game_id=lobby.id,
    )
    assert again.previous_game_id == lobby.id
    assert await db.games.open_in_chat(-100) == again
    # a finished game cannot come back while another one is open
    with pytest.raises(OpenGameExistsError):
        await db.games.update(lobby.id, status="playing")


async def test_following_an_unknown_game_is_refused(db: Database) -> None:
    with pytest.raises(NotFoundError):
        await db.games.create(
            chat_id=-1, variant="shuangkou", opener_id=1, seats=[], seed=1, previous_game_id=99
        )


async def test_finished_and_cancelled_games_may_pile_up(db: Database) -> None:
    for status in ("finished", "cancelled", "finished"):
        await new_game(db, chat_id=-100, status=status)
    assert await db.games.open_in_chat(-100) is None
    assert await db.games.unfinished() == []


async def test_update_sets_every_field(db: Database) -> None:
    game = await new_game(db)
    seats = [*human_seats(1, 2, 3), SeatRecord(None, "电脑", True, "zh")]
    updated = await db.games.update(
        game.id,
        status="playing",
        seats=seats,
        seed=99,
        leader=3,
        hands=[["♠3"], ["♥3"], ["♣3"], ["♦3"]],
        started_at=10.5,
        finished_at=20.25,
        table_message_id=501,
        lobby_message_id=500,
        hand_message_ids={0: 601, 3: 604},
        takeover=[False, True, False, True],
        timeouts=[0, 2, 0, 1],
        escaped=[False, True, False, False],
        deadline=1_700_000_030.5,
        previous_game_id=None,
    )
    assert updated.status == "playing"
    assert updated.seats == tuple(seats)
    assert (updated.seed, updated.leader) == (99, 3)
    assert updated.hands == [["♠3"], ["♥3"], ["♣3"], ["♦3"]]
    assert (updated.started_at, updated.finished_at) == (10.5, 20.25)
    assert (updated.table_message_id, updated.lobby_message_id) == (501, 500)
    assert updated.hand_message_ids == {0: 601, 3: 604}
    assert updated.takeover == (False, True, False, True)
    assert updated.timeouts == (0, 2, 0, 1)
    assert updated.escaped == (False, True, False, False)
    assert updated.deadline == 1_700_000_030.5
    assert await db.games.get(game.id) == updated

    cleared = await db.games.update(game.id, deadline=None, hands=None, table_message_id=None)
    assert (cleared.deadline, cleared.hands, cleared.table_message_id) == (None, None, None)
    assert cleared.hand_message_ids == {0: 601, 3: 604}  # untouched fields stay


async def test_per_seat_lists_follow_the_number_of_seats(db: Database) -> None:
    game = await new_game(db, users=(1,))
    assert game.takeover == (False,)
    game = await db.games.update(game.id, timeouts=[3])
    game = await db.games.update(game.id, seats=human_seats(1, 2, 3))
    assert (game.takeover, game.timeouts, game.escaped) == ((False,) * 3, (3, 0, 0), (False,) * 3)
    game = await db.games.update(game.id, seats=human_seats(1, 2), takeover=[True, True])
    assert (game.takeover, game.timeouts) == ((True, True), (3, 0))


async def test_update_refuses_what_it_does_not_know(db: Database) -> None:
    game = await new_game(db)
    with pytest.raises(TypeError, match="colour"):
        await db.games.update(game.id, colour="red")
    with pytest.raises(TypeError):
        await db.games.update(game.id, id=5)
    with pytest.raises(ValueError, match="paused"):
        await db.games.update(game.id, status="paused")
    with pytest.raises(NotFoundError):
        await db.games.update(game.id + 1000, deadline=1.0)
    assert await db.games.get(game.id) == game


async def test_save_stores_the_turns_bookkeeping_in_one_statement(db: Database) -> None:
    game = await new_game(db)
    await db.games.save(
        game.id, hand_message_ids={0: 11, 2: 13}, deadline=99.5, timeouts=[1, 0, 0, 2]
    )
    stored = await db.games.get(game.id)
    assert stored is not None
    assert stored.hand_message_ids == {0: 11, 2: 13}
    assert stored.deadline == 99.5
    assert list(stored.timeouts) == [1, 0, 0, 2]
    assert stored.seats == game.seats and stored.status == game.status


async def test_save_refuses_what_needs_updates_checks(db: Database) -> None:
    game = await new_game(db)
    with pytest.raises(TypeError, match="seats"):
        await db.games.save(game.id, seats=[])
    with pytest.raises(TypeError, match="status"):
        await db.games.save(game.id, status="finished")
    with pytest.raises(TypeError, match="colour"):
        await db.games.save(game.id, colour="red")
    with pytest.raises(NotFoundError):
        await db.games.save(game.id + 1000, deadline=1.0)
    assert await db.games.get(game.id) == game


async def test_save_inside_a_transaction_is_undone_with_it(db: Database) -> None:
    game = await new_game(db)
    with pytest.raises(RuntimeError):
        async with db.transaction():
            await db.games.save(game.id, deadline=5.0)
            raise RuntimeError("roll back")
    assert await db.games.get(game.id) == game


async def test_update_with_no_fields_returns_the_game(db: Database) -> None:
    game = await new_game(db)
    assert await db.games.update(game.id) == game


async def test_unfinished_lists_lobbies_and_games_in_progress(db: Database) -> None:
    lobby = await new_game(db, chat_id=-1)
    playing = await new_game(db, chat_id=-2, status="playing")
    await new_game(db, chat_id=-3, status="finished")
    await new_game(db, chat_id=-4, status="cancelled")
    finished_later = await new_game(db, chat_id=-5, status="playing")
    await db.games.update(finished_later.id, status="finished")
    assert await db.games.unfinished() == [lobby, playing]
