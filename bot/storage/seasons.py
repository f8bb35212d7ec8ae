"""What the seasons need of the database: a group's ended games in a period, the groups that
played in one, and which seasons' ends were announced."""

from __future__ import annotations

import builtins

from bot.storage.results import GAME_ENDED
from bot.storage.session import Session


class SeasonsRepository:
    def __init__(self, db: Session) -> None:
        self._db = db

    async def ended_games(self, chat_id: int, since: float, until: float) -> builtins.list[int]:
        """The group's games that ended in [since, until), in the order they ended."""
        async with self._db.reading():
            rows = await self._db.fetch_all(
                f"SELECT g.id FROM games g WHERE g.chat_id = ?"
                f" AND g.status IN ('finished', 'cancelled')"
                f" AND {GAME_ENDED} >= ? AND {GAME_ENDED} < ?"
                f" ORDER BY {GAME_ENDED}, g.id",
                (chat_id, since, until),
            )
        return [int(row[0]) for row in rows]

    async def groups_that_played(self, since: float, until: float) -> builtins.list[int]:
        """The groups with a finished game in [since, until)."""
        async with self._db.reading():
            rows = await self._db.fetch_all(
                "SELECT DISTINCT g.chat_id FROM games g WHERE g.status = 'finished'"
                " AND g.finished_at >= ? AND g.finished_at < ? ORDER BY g.chat_id",
                (since, until),
            )
        return [int(row[0]) for row in rows]

    async def first_game_at(self, chat_id: int) -> float | None:
        """When the group's first game ended (None: none has)."""
        async with self._db.reading():
            row = await self._db.fetch_one(
                f"SELECT MIN({GAME_ENDED}) FROM games g WHERE g.chat_id = ?"
                " AND g.status = 'finished'",
                (chat_id,),
            )
        return None if row is None or row[0] is None else float(row[0])

    async def mark_announced(self, chat_id: int, season: str, at: float) -> bool:
        """Note that the group was told of the season's end; False if it already was."""
        rows = await self._db.write(
            "INSERT INTO season_announcements (chat_id, season, at) VALUES (?, ?, ?)"
            " ON CONFLICT (chat_id, season) DO NOTHING RETURNING chat_id",
            (chat_id, season, at),
        )
        return bool(rows)
