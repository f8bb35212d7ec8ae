"""A player's record: the games they finished, with their seat, result and table, in the
order the games ended, and the deals and logs to replay them (for ``/stats``).

Only reads. The figures (wins, streaks, 上游, partners ...) are the service's
(``bot.service.stats``); this module knows the tables, not the rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from bot.storage.codec import action_from_row, loads
from bot.storage.models import ActionRecord
from bot.storage.results import COUNTED_GAME, GAME_ENDED
from bot.storage.session import Row, Session

#: ``IN (...)`` lists are cut into pieces of this many ids (SQLite allows 32,766 variables;
#: PostgreSQL far more; small pieces keep each statement cheap)
CHUNK: Final = 500



@dataclass(frozen=True, slots=True)
class SeatResult:
    """Another seat's result in the same game. ``name`` is the player's name as the bot
    knows it now (``players``), None for a computer seat."""

    seat: int
    user_id: int | None
    name: str | None
    won: bool
    escaped: bool


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """One game a player finished (or was charged for, 逃跑, in a cancelled game): their
    seat and result, and every other seat's result (``others``, by seat; empty for a
    cancelled game, where only deserters have a row).

    ``score_after`` is the player's score in the variant once this game counted (None for a
    row written before the bot kept it and not filled in since)."""

    game_id: int
    chat_id: int
    variant: str
    status: str  # "finished" or "cancelled"
    finished_at: float
    outcome: str | None  # games.outcome: 双扣 / 单扣 / 平扣; 刨王: win / 小雪 / 大雪; cancelled
    seat: int
    adjusted_delta: int
    won: bool
    escaped: bool
    score_after: int | None
    others: tuple[SeatResult, ...] = ()

    def same_side(self) -> tuple[SeatResult, ...]:
        """The seats whose result went the same way (won together or lost together).

        In 刨王 the sides are secret while the game is played; its result tells them
        afterwards: the same ``won``, the same side. A 双扣 平扣 has no winner, so there the
        service goes by the seating instead."""
        return tuple(other for other in self.others if other.won == self.won)


@dataclass(frozen=True, slots=True)
class GameLog:
    """What it takes to replay a game: its deal (seed, or hands and leader) and its log."""

    game_id: int
    variant: str
    seed: int | str | None
    leader: int | None
    hands: list[list[str]] | None
    actions: tuple[ActionRecord, ...]


class StatsRepository:
    def __init__(self, db: Session) -> None:
        self._db = db

    async def played(
        self, *, user_id: int, chat_id: int | None = None, variant: str | None = None
    ) -> list[PlayedGame]:
        """The player's counted games, in the order they ended (then by id); only those of
        ``chat_id`` (a group) and of ``variant`` when given."""
        where = ["r.user_id = ?", COUNTED_GAME]
        params: list[object] = [user_id]
        if chat_id is not None:
            where.append("g.chat_id = ?")
            params.append(chat_id)
        if variant is not None:
            where.append("g.variant = ?")
            params.append(variant)
        condition = " AND ".join(where)
        async with self._db.reading():
            rows = await self._db.fetch_all(
                "SELECT g.id, g.chat_id, g.variant, g.status, g.outcome,"
                f" {GAME_ENDED} AS ended, r.seat, r.adjusted_delta, r.won, r.escaped,"
                " r.score_after"
                " FROM results r JOIN games g ON g.id = r.game_id"
                f" WHERE {condition}"
                f" ORDER BY {GAME_ENDED}, g.id",
                params,
            )
            others = await self._others(user_id, condition, params)
        return [
            PlayedGame(
                game_id=int(row["id"]),
                chat_id=int(row["chat_id"]),
                variant=str(row["variant"]),
                status=str(row["status"]),
                finished_at=float(row["ended"]),
                outcome=row["outcome"],
                seat=int(row["seat"]),
                adjusted_delta=int(row["adjusted_delta"]),
                won=bool(row["won"]),
                escaped=bool(row["escaped"]),
                score_after=None if row["score_after"] is None else int(row["score_after"]),
                others=tuple(others.get(int(row["id"]), ())),
            )
            for row in rows
        ]

    async def _others(
        self, user_id: int, condition: str, params: Sequence[object]
    ) -> dict[int, list[SeatResult]]:
        """Every other seat's result in the same games, by game, by seat."""
        rows = await self._db.fetch_all(
            "SELECT o.game_id, o.seat, o.user_id, p.name, o.won, o.escaped"
            " FROM results r JOIN games g ON g.id = r.game_id"
            " JOIN results o ON o.game_id = r.game_id AND o.seat <> r.seat"
            " LEFT JOIN players p ON p.user_id = o.user_id"
            f" WHERE {condition}"
            " ORDER BY o.game_id, o.seat",
            params,
        )
        by_game: dict[int, list[SeatResult]] = {}
        for row in rows:
            by_game.setdefault(int(row["game_id"]), []).append(
                SeatResult(
                    seat=int(row["seat"]),
                    user_id=None if row["user_id"] is None else int(row["user_id"]),
                    name=row["name"],
                    won=bool(row["won"]),
                    escaped=bool(row["escaped"]),
                )
            )
        return by_game

    async def latest_game_id(self, *, user_id: int) -> int | None:
        """The id of the player's last counted game (in the order games ended), or None:
        what changes when they finish another one."""
        async with self._db.reading():
            row = await self._db.fetch_one(
                "SELECT g.id FROM results r JOIN games g ON g.id = r.game_id"
                f" WHERE r.user_id = ? AND {COUNTED_GAME}"
                f" ORDER BY {GAME_ENDED} DESC, g.id DESC LIMIT 1",
                (user_id,),
            )
        return None if row is None else int(row["id"])

    async def record_version(self, *, user_id: int) -> tuple[int, int | None]:
        """(how many counted games the player has, the id of the last one): changes with
        every game they finish, whatever order games end in (a key for caches of their
        record; ``latest_game_id`` alone would miss a game created before their last one
        and ending at the same second)."""
        async with self._db.reading():
            row = await self._db.fetch_one(
                "SELECT COUNT(*) AS n, MAX(g.id) AS last"
                " FROM results r JOIN games g ON g.id = r.game_id"
                f" WHERE r.user_id = ? AND {COUNTED_GAME}",
                (user_id,),
            )
        if row is None:
            return 0, None
        return int(row["n"]), None if row["last"] is None else int(row["last"])

    async def logs(self, game_ids: Iterable[int]) -> dict[int, GameLog]:
        """The deal and the action log of each game (games that do not exist are left out)."""
        wanted = sorted(set(game_ids))
        logs: dict[int, GameLog] = {}
        async with self._db.reading():
            for start in range(0, len(wanted), CHUNK):
                chunk = wanted[start : start + CHUNK]
                marks = ", ".join("?" for _ in chunk)
                games = await self._db.fetch_all(
                    f"SELECT id, variant, seed, leader, hands FROM games WHERE id IN ({marks})",
                    chunk,
                )
                actions = await self._db.fetch_all(
                    "SELECT game_id, seq, seat, kind, cards, at FROM actions"
                    f" WHERE game_id IN ({marks}) ORDER BY game_id, seq",
                    chunk,
                )
                logs.update(_logs_of(games, actions))
        return logs


def _logs_of(games: list[Row], actions: list[Row]) -> dict[int, GameLog]:
    by_game: dict[int, list[ActionRecord]] = {}
    for row in actions:
        by_game.setdefault(int(row["game_id"]), []).append(action_from_row(row))
    return {
        int(row["id"]): GameLog(
            game_id=int(row["id"]),
            variant=str(row["variant"]),
            seed=loads(row["seed"]),
            leader=None if row["leader"] is None else int(row["leader"]),
            hands=loads(row["hands"]),
            actions=tuple(by_game.get(int(row["id"]), ())),
        )
        for row in games
    }
