"""Skill ratings (mu, sigma per player and game) and which ended games they have taken in.

What a rating is and how a game changes it is the service's (``bot/service/skill.py``); this
keeps the numbers. Computer players are one player of their own: ``COMPUTER``.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from bot.storage.codec import player_from_row
from bot.storage.models import PlayerRecord
from bot.storage.results import GAME_ENDED
from bot.storage.session import Row, Session

#: the player id the computer seats are rated under
COMPUTER: Final = -1


@dataclass(frozen=True, slots=True)
class SkillRecord:
    player: int
    game: str
    mu: float
    sigma: float
    rated: int = 0


class SkillsRepository:
    def __init__(self, db: Session) -> None:
        self._db = db

    async def get_many(self, game: str, players: Iterable[int]) -> dict[int, SkillRecord]:
        """The stored ratings of ``players`` in ``game`` (those without one are left out)."""
        wanted = sorted(set(players))
        if not wanted:
            return {}
        marks = ", ".join("?" for _ in wanted)
        async with self._db.reading():
            rows = await self._db.fetch_all(
                f"SELECT player, game, mu, sigma, rated FROM skills"
                f" WHERE game = ? AND player IN ({marks})",
                (game, *wanted),
            )
        return {int(row["player"]): _record(row) for row in rows}

    async def of_player(self, player: int) -> dict[str, SkillRecord]:
        """A player's ratings by game."""
        async with self._db.reading():
            rows = await self._db.fetch_all(
                "SELECT player, game, mu, sigma, rated FROM skills WHERE player = ?", (player,)
            )
        return {str(row["game"]): _record(row) for row in rows}

    async def take_in(self, game_id: int, changed: Sequence[SkillRecord]) -> None:
        """Write the ratings a game changed and mark it taken in (``changed`` empty: it did
        not count), all at once."""
        async with self._db.transaction():
            for record in changed:
                await self._db.execute(
                    "INSERT INTO skills (player, game, mu, sigma, rated) VALUES (?, ?, ?, ?, ?)"
                    " ON CONFLICT (player, game) DO UPDATE SET mu = excluded.mu,"
                    " sigma = excluded.sigma, rated = excluded.rated",
                    (record.player, record.game, record.mu, record.sigma, record.rated),
                )
            await self._db.execute(
                "INSERT INTO skill_games (game_id, rated) VALUES (?, ?)",
                (game_id, bool(changed)),
            )

    async def waiting(self) -> builtins.list[int]:
        """The ended games not taken in yet, in the order they ended."""
        async with self._db.reading():
            rows = await self._db.fetch_all(
                f"SELECT g.id FROM games g WHERE g.status IN ('finished', 'cancelled')"
                f" AND NOT EXISTS (SELECT 1 FROM skill_games s WHERE s.game_id = g.id)"
                f" ORDER BY {GAME_ENDED}, g.id"
            )
        return [int(row[0]) for row in rows]

    async def forget_all(self) -> None:
        """Every rating and mark gone: the next catch-up computes them all again."""
        async with self._db.transaction():
            await self._db.execute("DELETE FROM skills")
            await self._db.execute("DELETE FROM skill_games")

    async def top(
        self, *, game: str, chat_id: int | Sequence[int], min_rated: int, limit: int = 10
    ) -> builtins.list[tuple[PlayerRecord, SkillRecord]]:
        """The players of a chat (or of several) by conservative skill (mu - 3 sigma): those
        with a result in a game of this variant there and at least ``min_rated`` rated
        games."""
        chats = [chat_id] if isinstance(chat_id, int) else list(chat_id)
        if not chats:
            return []
        marks = ", ".join("?" for _ in chats)
        async with self._db.reading():
            rows = await self._db.fetch_all(
                "SELECT p.user_id, p.name, p.username, p.language, p.telegram_language,"
                " p.can_message, p.created_at, s.player, s.game, s.mu, s.sigma, s.rated"
                " FROM skills s JOIN players p ON p.user_id = s.player"
                " WHERE s.game = ? AND s.rated >= ? AND EXISTS ("
                "   SELECT 1 FROM results res JOIN games g ON g.id = res.game_id"
                f"   WHERE res.user_id = s.player AND g.chat_id IN ({marks}) AND g.variant = ?"
                " )"
                " ORDER BY s.mu - 3 * s.sigma DESC, s.rated DESC, s.player ASC LIMIT ?",
                (game, int(min_rated), *chats, game, max(0, int(limit))),
            )
        return [(player_from_row(row), _record(row)) for row in rows]

    async def unranked(self, *, game: str, chat_id: int, min_rated: int) -> builtins.list[str]:
        """The names of the chat's players in ``game`` with fewer rated games than that."""
        async with self._db.reading():
            rows = await self._db.fetch_all(
                "SELECT p.name FROM players p"
                " WHERE EXISTS (SELECT 1 FROM results res JOIN games g ON g.id = res.game_id"
                "   WHERE res.user_id = p.user_id AND g.chat_id = ? AND g.variant = ?)"
                " AND COALESCE((SELECT s.rated FROM skills s"
                "   WHERE s.player = p.user_id AND s.game = ?), 0) < ?"
                " ORDER BY p.user_id",
                (chat_id, game, game, int(min_rated)),
            )
        return [str(row[0]) for row in rows]


def _record(row: Row) -> SkillRecord:
    return SkillRecord(
        player=int(row["player"]),
        game=str(row["game"]),
        mu=float(row["mu"]),
        sigma=float(row["sigma"]),
        rated=int(row["rated"]),
    )
