"""Game history: a group's last finished games, a player's last counted games, each with its
seats (the names they played under) and their results (for ``/history`` and its replays).

Only reads. The deal and the log of a game are the games and actions repositories' (a replay
rebuilds the game from them); what a result means is the service's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from bot.storage.codec import seats_from_json
from bot.storage.results import COUNTED_GAME, GAME_ENDED
from bot.storage.session import Row, Session

#: the columns a history line needs
_GAME_COLUMNS: Final = (
    "g.id, g.chat_id, g.variant, g.status, g.seats, g.outcome, g.note,"
    f" {GAME_ENDED} AS ended"
)
#: newest first
_NEWEST: Final = f"ORDER BY {GAME_ENDED} DESC, g.id DESC"
#: the most games one query returns
MAX_LIMIT: Final = 100


@dataclass(frozen=True, slots=True)
class HistorySeat:
    """One seat of a past game: who sat there (as named then) and how it came out for them.
    ``won`` and ``adjusted_delta`` are None when the seat has no result (a cancelled game's
    seats other than the deserters')."""

    seat: int
    user_id: int | None
    name: str
    is_computer: bool
    won: bool | None = None
    escaped: bool = False
    adjusted_delta: int | None = None


@dataclass(frozen=True, slots=True)
class HistoryGame:
    """One past game: a finished one, or (in a player's history) a cancelled one they were
    charged for. ``outcome`` is ``games.outcome`` (双扣 / 单扣 / 平扣; 刨王: win / 小雪 / 大雪;
    ``cancelled``), ``note`` the remark recorded with the results (``short game``)."""

    game_id: int
    chat_id: int
    variant: str
    status: str
    ended_at: float
    outcome: str | None
    note: str | None
    seats: tuple[HistorySeat, ...]

    @property
    def replayable(self) -> bool:
        """Only a finished game has a replay: it has no secrets left."""
        return self.status == "finished"

    @property
    def winners(self) -> tuple[HistorySeat, ...]:
        return tuple(seat for seat in self.seats if seat.won)

    @property
    def escaped(self) -> tuple[HistorySeat, ...]:
        return tuple(seat for seat in self.seats if seat.escaped)

    def seat_of(self, user_id: int) -> HistorySeat | None:
        return next(
            (s for s in self.seats if s.user_id == user_id and not s.is_computer), None
        )


class HistoryRepository:
    def __init__(self, db: Session) -> None:
        self._db = db

    async def of_chat(self, chat_id: int, *, limit: int = 10) -> list[HistoryGame]:
        """The group's last ``limit`` finished games, newest first."""
        limit = max(0, min(limit, MAX_LIMIT))
        async with self._db.reading():
            rows = await self._db.fetch_all(
                f"SELECT {_GAME_COLUMNS} FROM games g"
                f" WHERE g.chat_id = ? AND g.status = 'finished' {_NEWEST} LIMIT ?",
                (chat_id, limit),
            )
            return await self._with_results(rows)

    async def of_user(self, user_id: int, *, limit: int = 20) -> list[HistoryGame]:
        """The player's last ``limit`` counted games (finished, or cancelled and charged for
        their 逃跑), newest first, in every group."""
        limit = max(0, min(limit, MAX_LIMIT))
        async with self._db.reading():
            rows = await self._db.fetch_all(
                f"SELECT {_GAME_COLUMNS} FROM results r JOIN games g ON g.id = r.game_id"
                f" WHERE r.user_id = ? AND {COUNTED_GAME} {_NEWEST} LIMIT ?",
                (user_id, limit),
            )
            return await self._with_results(rows)

    async def _with_results(self, rows: Sequence[Row]) -> list[HistoryGame]:
        """The games of ``rows`` with their seats' results (inside the caller's read)."""
        if not rows:
            return []
        ids = [int(row["id"]) for row in rows]
        marks = ", ".join("?" for _ in ids)
        result_rows = await self._db.fetch_all(
            "SELECT game_id, seat, adjusted_delta, won, escaped FROM results"
            f" WHERE game_id IN ({marks})",
            ids,
        )
        results: dict[tuple[int, int], Row] = {
            (int(r["game_id"]), int(r["seat"])): r for r in result_rows
        }
        games = []
        for row in rows:
            game_id = int(row["id"])
            seats = []
            for index, seat in enumerate(seats_from_json(str(row["seats"]))):
                result = results.get((game_id, index))
                seats.append(
                    HistorySeat(
                        seat=index,
                        user_id=seat.user_id,
                        name=seat.name,
                        is_computer=seat.is_computer,
                        won=None if result is None else bool(result["won"]),
                        escaped=False if result is None else bool(result["escaped"]),
                        adjusted_delta=None if result is None else int(result["adjusted_delta"]),
                    )
                )
            games.append(
                HistoryGame(
                    game_id=game_id,
                    chat_id=int(row["chat_id"]),
                    variant=str(row["variant"]),
                    status=str(row["status"]),
                    ended_at=float(row["ended"]),
                    outcome=None if row["outcome"] is None else str(row["outcome"]),
                    note=None if row["note"] is None else str(row["note"]),
                    seats=tuple(seats),
                )
            )
        return games


__all__ = ["HistoryGame", "HistoryRepository", "HistorySeat"]
