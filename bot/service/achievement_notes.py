"""Telling players what they earned: one private message each, after the game's end is stored
(never to the group: its budget is the game's)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.presentation.achievement_text import earned_note
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
            await self.deps.messenger.send(user_id, earned_note(seat.language, keys))
