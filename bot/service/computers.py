"""Computer seats: one player object per seat of a table, and what it chooses."""

from __future__ import annotations

import asyncio
import logging

from bot.game.common import Action
from bot.game.players import Player, make_player
from bot.game.variants import cheapest_first
from bot.service.events import Closed
from bot.service.tables import Table

log = logging.getLogger(__name__)


class ComputerSeats:
    def __init__(self) -> None:
        self._players: dict[tuple[int, int], Player] = {}

    def player(self, table: Table, index: int) -> Player:
        key = (table.game_id, index)
        player = self._players.get(key)
        if player is None:
            player = make_player("ai", seed=(table.seed or 0) + index)
            self._players[key] = player
        return player

    async def choice(self, table: Table, index: int) -> Action:
        """What the computer plays for seat ``index`` now (it never refuses to choose).

        The choice is made in a worker thread: near the end of a 双扣 game the AI plays a few
        deals out (tens of milliseconds at worst), and the other tables, the web table and
        the updates must not wait for it. The player reads only the view, built here at
        once; should the table move on meanwhile, the command it becomes is stale.
        """
        game = table.engine
        view = game.view(index)
        player = self.player(table, index)
        try:
            combo = await asyncio.to_thread(player.choose, view)
        except Exception:  # a player bug must not stall the table: fall back to the simplest
            log.exception("computer player failed; falling back")
            combo = None
        if combo is None and not game.can_pass(index):
            combo = min(table.variant.legal_plays(view), key=cheapest_first)
        if combo is None:
            return Action.pass_(index)
        return Action.play(index, combo.cards)

    async def on_closed(self, table: Table, _event: Closed) -> None:
        self.forget(table)

    def forget(self, table: Table) -> None:
        """The table is gone: so are its players (no leak)."""
        for index in range(len(table.seats)):
            self._players.pop((table.game_id, index), None)
