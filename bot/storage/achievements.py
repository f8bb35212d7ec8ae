"""Achievements earned (each once per player) and the history they are judged on."""

from __future__ import annotations

import builtins
from dataclasses import dataclass

from bot.storage.results import GAME_ENDED
from bot.storage.session import Session


@dataclass(frozen=True, slots=True)
class Earned:
    key: str
    game_id: int
    at: float


class AchievementsRepository:
    def __init__(self, db: Session) -> None:
        self._db = db

    async def earn(self, user_id: int, key: str, game_id: int, at: float) -> bool:
        """Note an achievement; False when the player had it already."""
        rows = await self._db.write(
            "INSERT INTO achievements (user_id, key, game_id, at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (user_id, key) DO NOTHING RETURNING user_id",
            (user_id, key, game_id, at),
        )
        return bool(rows)

    async def of_player(self, user_id: int) -> builtins.list[Earned]:
        """A player's achievements in the order they were earned."""
        async with self._db.reading():
            rows = await self._db.fetch_all(
                "SELECT key, game_id, at FROM achievements WHERE user_id = ? ORDER BY at, key",
                (user_id,),
            )
        return [Earned(str(r["key"]), int(r["game_id"]), float(r["at"])) for r in rows]

    async def of_game(self, game_id: int) -> dict[int, builtins.list[str]]:
        """What each player earned with this game."""
        async with self._db.reading():
            rows = await self._db.fetch_all(
                "SELECT user_id, key FROM achievements WHERE game_id = ? ORDER BY user_id, key",
                (game_id,),
            )
        found: dict[int, builtins.list[str]] = {}
        for row in rows:
            found.setdefault(int(row["user_id"]), []).append(str(row["key"]))
        return found

    async def results_before(
        self, user_id: int, game_id: int, limit: int
    ) -> tuple[int, builtins.list[bool | None]]:
        """How many finished games the player had a result in before this game ended, and
        the last ``limit`` of them, newest first: won (True), lost (False), a draw (None:
        a 双扣 平扣, where nobody won)."""
        before = (
            f"({GAME_ENDED}, g.id) < (SELECT COALESCE(t.finished_at, t.created_at), t.id"
            " FROM games t WHERE t.id = ?)"
        )
        async with self._db.reading():
            count = await self._db.fetch_one(
                "SELECT COUNT(*) FROM results r JOIN games g ON g.id = r.game_id"
                f" WHERE r.user_id = ? AND g.status = 'finished' AND {before}",
                (user_id, game_id),
            )
            rows = await self._db.fetch_all(
                "SELECT r.won, g.outcome FROM results r JOIN games g ON g.id = r.game_id"
                f" WHERE r.user_id = ? AND g.status = 'finished' AND {before}"
                f" ORDER BY {GAME_ENDED} DESC, g.id DESC LIMIT ?",
                (user_id, game_id, limit),
            )
        recent: builtins.list[bool | None] = [
            None if row["outcome"] == "平扣" else bool(row["won"]) for row in rows
        ]
        return (int(count[0]) if count is not None else 0), recent
