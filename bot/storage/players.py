"""Players: the Telegram users the bot knows, their language and whether they can be messaged."""

from __future__ import annotations

from bot.storage.codec import player_from_row
from bot.storage.errors import NotFoundError
from bot.storage.models import PlayerRecord
from bot.storage.session import Session

_COLUMNS = "user_id, name, username, language, telegram_language, can_message, created_at"


class PlayersRepository:
    def __init__(self, db: Session) -> None:
        self._db = db

    async def upsert(
        self,
        *,
        user_id: int,
        name: str,
        username: str | None = None,
        language_code: str | None = None,
    ) -> PlayerRecord:
        """Record what Telegram says about a user (on every update that carries one).

        The name and username follow Telegram (a removed username becomes None), but a missing
        ``language_code`` keeps the last one seen: Telegram omits it at times. The /lang choice
        and ``can_message`` are the bot's own knowledge and are left alone.
        """
        now = self._db.clock()
        async with self._db.transaction():
            await self._db.execute(
                "INSERT INTO players"
                " (user_id, name, username, telegram_language, can_message, created_at,"
                " updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET"
                " name = excluded.name,"
                " username = excluded.username,"
                " telegram_language = COALESCE(excluded.telegram_language,"
                " players.telegram_language),"
                " updated_at = excluded.updated_at",
                (user_id, name, username, language_code, False, now, now),
            )
            player = await self.get(user_id)
        assert player is not None  # just written in this transaction
        return player

    async def get(self, user_id: int) -> PlayerRecord | None:
        async with self._db.reading():
            row = await self._db.fetch_one(
                f"SELECT {_COLUMNS} FROM players WHERE user_id = ?", (user_id,)
            )
        return None if row is None else player_from_row(row)

    async def set_language(self, *, user_id: int, language: str | None) -> PlayerRecord:
        """The language chosen with /lang; None goes back to Telegram's."""
        return await self._set(user_id, "language", language)

    async def set_can_message(self, *, user_id: int, can_message: bool) -> PlayerRecord:
        """Whether the private chat works: True after /start, False once a send is refused."""
        return await self._set(user_id, "can_message", bool(can_message))

    async def _set(self, user_id: int, column: str, value: object) -> PlayerRecord:
        # ``column`` comes from this module only, never from a caller.
        async with self._db.transaction():
            changed = await self._db.fetch_all(
                f"UPDATE players SET {column} = ?, updated_at = ? WHERE user_id = ?"
                " RETURNING user_id",
                (value, self._db.clock(), user_id),
            )
            if not changed:
                raise NotFoundError(f"no player {user_id}: upsert them first")
            player = await self.get(user_id)
        assert player is not None
        return player
