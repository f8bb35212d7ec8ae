"""Telling players what they earned: one private message each, after the game's end is stored
(never to the group: its budget is the game's)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.presentation.strings import text
from bot.service.events import Finished
from bot.service.tables import Table

if TYPE_CHECKING:
    from bot.service.deps import Deps


class AchievementNotes:
    def __init__(self, deps: Deps) -> None:
        self.deps = deps

    async def on_finished(self, table: Table, event: Finished) -> None:
        for user_id, keys in event.settlement.earned.items():
            seat = next((s for s in table.seats if s.user_id == user_id), None)
            if seat is None or seat.gone or not keys:
                continue  # a player who left is sent nothing more (it is in /stats)
            lang = seat.language
            names = "\n".join(
                text(lang, "achievement.line", name=text(lang, f"achievement.{key}"))
                for key in keys
            )
            await self.deps.messenger.send(user_id, text(lang, "achievement.earned", names=names))
