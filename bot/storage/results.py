"""Results: how a finished game scored, per seat, plus its outcome."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from bot.storage.codec import result_from_row
from bot.storage.errors import NotFoundError, ResultsAlreadyRecordedError
from bot.storage.models import ResultRow
from bot.storage.ratings import require_players
from bot.storage.session import Session

#: SQL over ``games g JOIN results r``: the games that count for a player (/stats,
#: /history): finished ones, and cancelled ones where they were charged for 逃跑
#: (``settlement.charge_deserters`` writes a result row for them alone)
COUNTED_GAME: Final = "(g.status = 'finished' OR (g.status = 'cancelled' AND r.escaped))"
#: SQL: when a game ended (a cancelled game's finished_at is when it was cancelled)
GAME_ENDED: Final = "COALESCE(g.finished_at, g.created_at)"


class ResultsRepository:
    def __init__(self, db: Session) -> None:
        self._db = db

    async def record(
        self,
        *,
        game_id: int,
        rows: Sequence[ResultRow],
        outcome: str,
        note: str | None = None,
    ) -> None:
        """Write a game's results once; the outcome and note go on the game
        (``GameRecord.outcome``, ``GameRecord.note``).

        Raises :class:`ResultsAlreadyRecordedError` on a second call for the same game, since
        recording twice would also count the game twice in the leaderboards.
        """
        seats = [row.seat for row in rows]
        if len(set(seats)) != len(seats):
            raise ValueError(f"a seat appears twice in one game's results: {seats}")
        async with self._db.transaction():
            game = await self._db.fetch_one("SELECT id FROM games WHERE id = ?", (game_id,))
            if game is None:
                raise NotFoundError(f"no game {game_id}")
            existing = await self._db.fetch_one(
                "SELECT 1 FROM results WHERE game_id = ? LIMIT 1", (game_id,)
            )
            if existing is not None:
                raise ResultsAlreadyRecordedError(game_id)
            await require_players(self._db, [row.user_id for row in rows])
            for row in rows:
                await self._db.execute(
                    "INSERT INTO results"
                    " (game_id, seat, user_id, delta, adjusted_delta, won, escaped)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        game_id,
                        int(row.seat),
                        row.user_id,
                        int(row.delta),
                        int(row.adjusted_delta),
                        bool(row.won),
                        bool(row.escaped),
                    ),
                )
            await self._db.execute(
                "UPDATE games SET outcome = ?, note = ? WHERE id = ?", (outcome, note, game_id)
            )

    async def note_scores_after(self, game_id: int, scores: Mapping[int, int]) -> None:
        """Write down each player's score once the game's ratings were applied (user ->
        score), in the transaction that applied them."""
        for user_id, score in scores.items():
            await self._db.execute(
                "UPDATE results SET score_after = ? WHERE game_id = ? AND user_id = ?",
                (int(score), game_id, user_id),
            )

    async def for_game(self, game_id: int) -> list[ResultRow]:
        """The game's results by seat (empty when none were recorded)."""
        async with self._db.reading():
            rows = await self._db.fetch_all(
                "SELECT seat, user_id, delta, adjusted_delta, won, escaped, score_after"
                " FROM results"
                " WHERE game_id = ? ORDER BY seat",
                (game_id,),
            )
        return [result_from_row(row) for row in rows]
