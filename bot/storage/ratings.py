"""Ratings: one score per player and game variant, moved by finished games."""

from __future__ import annotations

from collections.abc import Sequence

from bot.storage.codec import player_from_row, rating_from_row
from bot.storage.errors import NotFoundError
from bot.storage.models import PlayerRecord, Rating, RatingChange
from bot.storage.session import Session


async def require_players(db: Session, user_ids: Sequence[int | None]) -> None:
    """Raise :class:`NotFoundError` naming any user who is not in ``players``.

    The foreign keys would refuse the rows anyway; checking first names the missing players
    in the storage layer's own error instead of the driver's IntegrityError.
    """
    wanted = sorted({user for user in user_ids if user is not None})
    if not wanted:
        return
    marks = ", ".join("?" for _ in wanted)
    rows = await db.fetch_all(f"SELECT user_id FROM players WHERE user_id IN ({marks})", wanted)
    missing = set(wanted) - {int(row["user_id"]) for row in rows}
    if missing:
        raise NotFoundError(f"no players {sorted(missing)}: upsert them first")


class RatingsRepository:
    def __init__(self, db: Session) -> None:
        self._db = db

    async def get(self, *, user_id: int, game: str) -> Rating:
        """The player's rating; zeros when they have not finished a game of this variant."""
        async with self._db.reading():
            row = await self._db.fetch_one(
                "SELECT user_id, game, score, games, wins FROM ratings"
                " WHERE user_id = ? AND game = ?",
                (user_id, game),
            )
        return Rating(user_id=user_id, game=game) if row is None else rating_from_row(row)

    async def apply(
        self, *, game: str, changes: Sequence[RatingChange]
    ) -> list[tuple[Rating, Rating]]:
        """Add one finished game to each player's rating; returns (before, after) per change,
        in the order given. All or nothing: one transaction (or the caller's)."""
        users = [change.user_id for change in changes]
        if any(user is None for user in users):
            raise ValueError("computer seats have no rating: leave them out of the changes")
        if len(set(users)) != len(users):
            raise ValueError(f"a player appears twice in one game's rating changes: {users}")
        pairs: list[tuple[Rating, Rating]] = []
        async with self._db.transaction():
            await require_players(self._db, users)
            for change in changes:
                before = await self.get(user_id=change.user_id, game=game)
                # Increments rather than computed totals: correct even where another writer
                # could commit between the read and the write (PostgreSQL, READ COMMITTED).
                await self._db.execute(
                    "INSERT INTO ratings (user_id, game, score, games, wins)"
                    " VALUES (?, ?, ?, 1, ?)"
                    " ON CONFLICT (user_id, game) DO UPDATE SET"
                    " score = ratings.score + excluded.score,"
                    " games = ratings.games + 1,"
                    " wins = ratings.wins + excluded.wins",
                    (change.user_id, game, int(change.delta), 1 if change.won else 0),
                )
                after = await self.get(user_id=change.user_id, game=game)
                pairs.append((before, after))
        return pairs

    async def top(
        self, *, game: str, chat_id: int, limit: int = 10
    ) -> list[tuple[PlayerRecord, Rating]]:
        """The chat's leaderboard: players with a recorded result in a game of this variant in
        this chat, by score (then wins, then fewer games, then user id, so ties are stable).

        The score is the player's overall one; the chat only decides who is listed.
        """
        async with self._db.reading():
            rows = await self._db.fetch_all(
                "SELECT p.user_id, p.name, p.username, p.language, p.telegram_language,"
                " p.can_message, p.created_at, r.game, r.score, r.games, r.wins"
                " FROM ratings r JOIN players p ON p.user_id = r.user_id"
                " WHERE r.game = ? AND EXISTS ("
                "   SELECT 1 FROM results res JOIN games g ON g.id = res.game_id"
                "   WHERE res.user_id = r.user_id AND g.chat_id = ? AND g.variant = ?"
                " )"
                " ORDER BY r.score DESC, r.wins DESC, r.games ASC, r.user_id ASC"
                " LIMIT ?",
                (game, chat_id, game, max(0, int(limit))),
            )
        return [(player_from_row(row), rating_from_row(row)) for row in rows]
