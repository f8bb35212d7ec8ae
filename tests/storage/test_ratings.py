"""Ratings: zeros to start, moved by finished games, listed per chat."""

from __future__ import annotations

import pytest

from bot.storage import Database, NotFoundError, Rating, RatingChange, ResultRow
from tests.storage.conftest import add_players, new_game


async def test_a_player_without_games_has_zeros(db: Database) -> None:
    assert await db.ratings.get(user_id=1, game="shuangkou") == Rating(1, "shuangkou", 0, 0, 0)


async def test_apply_returns_before_and_after(db: Database) -> None:
    await add_players(db, 1, 2, 3, 4)
    changes = [
        RatingChange(user_id=1, delta=4, won=True),
        RatingChange(user_id=2, delta=-4, won=False),
        RatingChange(user_id=3, delta=4, won=True),
        RatingChange(user_id=4, delta=-4, won=False),
    ]
    pairs = await db.ratings.apply(game="shuangkou", changes=changes)
    assert [before for before, _ in pairs] == [Rating(u, "shuangkou") for u in (1, 2, 3, 4)]
    assert [after for _, after in pairs] == [
        Rating(1, "shuangkou", 4, 1, 1),
        Rating(2, "shuangkou", -4, 1, 0),
        Rating(3, "shuangkou", 4, 1, 1),
        Rating(4, "shuangkou", -4, 1, 0),
    ]

    pairs = await db.ratings.apply(
        game="shuangkou",
        changes=[RatingChange(1, -2, False), RatingChange(2, 2, True)],
    )
    assert pairs == [
        (Rating(1, "shuangkou", 4, 1, 1), Rating(1, "shuangkou", 2, 2, 1)),
        (Rating(2, "shuangkou", -4, 1, 0), Rating(2, "shuangkou", -2, 2, 1)),
    ]
    assert await db.ratings.get(user_id=2, game="shuangkou") == Rating(2, "shuangkou", -2, 2, 1)
    assert await db.ratings.get(user_id=1, game="shuangkou") == Rating(1, "shuangkou", 2, 2, 1)


async def test_each_variant_has_its_own_rating(db: Database) -> None:
    await add_players(db, 1)
    await db.ratings.apply(game="paowang", changes=[RatingChange(1, 8, True)])
    assert await db.ratings.get(user_id=1, game="shuangkou") == Rating(1, "shuangkou")
    assert await db.ratings.get(user_id=1, game="paowang") == Rating(1, "paowang", 8, 1, 1)


async def test_apply_is_all_or_nothing(db: Database) -> None:
    await add_players(db, 1, 2)
    with pytest.raises(NotFoundError, match="99"):
        await db.ratings.apply(
            game="shuangkou", changes=[RatingChange(1, 4, True), RatingChange(99, -4, False)]
        )
    assert await db.ratings.get(user_id=1, game="shuangkou") == Rating(1, "shuangkou")

    with pytest.raises(RuntimeError):
        async with db.transaction():
            await db.ratings.apply(game="shuangkou", changes=[RatingChange(1, 4, True)])
            raise RuntimeError("the service failed after applying")
    assert await db.ratings.get(user_id=1, game="shuangkou") == Rating(1, "shuangkou")


async def test_a_player_twice_in_one_apply_is_refused(db: Database) -> None:
    await add_players(db, 1)
    with pytest.raises(ValueError, match="twice"):
        await db.ratings.apply(
            game="shuangkou", changes=[RatingChange(1, 4, True), RatingChange(1, 4, True)]
        )


async def test_a_computer_seat_has_no_rating(db: Database) -> None:
    with pytest.raises(ValueError, match="computer"):
        await db.ratings.apply(
            game="shuangkou",
            changes=[RatingChange(None, 4, True)],  # type: ignore[arg-type]
        )


async def finish(
    db: Database,
    *,
    chat_id: int,
    users: tuple[int, ...],
    deltas: tuple[int, ...],
    variant: str = "shuangkou",
) -> None:
    """A game played to the end the way the service records one: results, ratings, status."""
    game = await new_game(db, chat_id=chat_id, users=users, variant=variant, status="playing")
    async with db.transaction():
        await db.results.record(
            game_id=game.id,
            rows=[
                ResultRow(seat, user, delta, delta, delta > 0, False)
                for seat, (user, delta) in enumerate(zip(users, deltas, strict=True))
            ],
            outcome="单扣",
        )
        await db.ratings.apply(
            game=variant,
            changes=[
                RatingChange(user, delta, delta > 0)
                for user, delta in zip(users, deltas, strict=True)
            ],
        )
        await db.games.update(game.id, status="finished", finished_at=1.0)


async def test_top_lists_the_chats_players_by_score(db: Database) -> None:
    await add_players(db, *range(1, 10))
    chat_a, chat_b = -100, -200
    await finish(db, chat_id=chat_a, users=(1, 2, 3, 4), deltas=(2, -2, 2, -2))
    await finish(db, chat_id=chat_a, users=(1, 2, 3, 5), deltas=(4, -4, 4, -4))
    # players 6..9 never played in chat A; 1 also plays in chat B, which moves their score
    await finish(db, chat_id=chat_b, users=(6, 7, 8, 1), deltas=(10, -10, 10, -10))
    # a 刨王 game in chat A does not put its players on the 双扣 board
    await finish(
        db, chat_id=chat_a, users=(9, 6, 7, 8, 2), deltas=(8, -2, -2, -2, -2), variant="paowang"
    )

    board = await db.ratings.top(game="shuangkou", chat_id=chat_a)
    scores = [(player.user_id, rating.score) for player, rating in board]
    # 1 scored 6 in chat A and -10 in chat B: the overall score counts; 1 and 5 tie at -4 and
    # 1 comes first on wins
    assert scores == [(3, 6), (4, -2), (1, -4), (5, -4), (2, -6)]
    assert board[0][0].name == "player 3"
    assert board[0][1].games == 2 and board[0][1].wins == 2

    top_two = await db.ratings.top(game="shuangkou", chat_id=chat_a, limit=2)
    assert [player.user_id for player, _ in top_two] == [3, 4]

    chat_b_board = await db.ratings.top(game="shuangkou", chat_id=chat_b)
    assert [player.user_id for player, _ in chat_b_board] == [6, 8, 1, 7]

    paowang_board = await db.ratings.top(game="paowang", chat_id=chat_a)
    assert [player.user_id for player, _ in paowang_board] == [9, 2, 6, 7, 8]
    assert await db.ratings.top(game="shuangkou", chat_id=-300) == []


async def test_a_game_without_results_does_not_list_its_players(db: Database) -> None:
    await add_players(db, 1, 2, 3, 4)
    await new_game(db, chat_id=-100, users=(1, 2, 3, 4), status="playing")
    assert await db.ratings.top(game="shuangkou", chat_id=-100) == []
