"""The people the bot knows: remembered as they act, and the language each one reads."""

from __future__ import annotations

from bot.presentation.strings import Lang, language_of
from bot.service.base import UserInfo, seat_language
from bot.service.deps import Deps


class People:
    def __init__(self, deps: Deps) -> None:
        self.deps = deps

    async def remember(self, user: UserInfo) -> Lang:
        """Record the user (name, Telegram language) and return the language they read."""
        record = await self.deps.db.players.upsert(
            user_id=user.user_id,
            name=user.name,
            username=user.username,
            language_code=user.language_code,
        )
        if record.language in ("zh", "en"):
            return seat_language(record.language)
        return language_of(user.language_code, self.deps.settings.default_language)

    async def can_message(self, user_id: int) -> bool:
        """Whether the bot may write to the user privately (they started it, never blocked)."""
        record = await self.deps.db.players.get(user_id)
        return record is not None and record.can_message

    async def language(self, user: UserInfo) -> Lang:
        """The language the user reads: their /lang choice, or their Telegram language."""
        record = await self.deps.db.players.get(user.user_id)
        if record is not None and record.language in ("zh", "en"):
            return seat_language(record.language)
        return language_of(user.language_code, self.deps.settings.default_language)

    async def set_language(self, user: UserInfo, lang: Lang) -> None:
        await self.remember(user)
        await self.deps.db.players.set_language(user_id=user.user_id, language=lang)
        table = self.deps.registry.of_user(user.user_id)
        if table is not None:
            seat = table.seat_of(user.user_id)
            if seat is not None:
                table.seats[seat].language = lang
