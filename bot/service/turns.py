"""Whose turn it is next, and the end: the table moves on after whatever happened.

It follows the events that can change the turn (an action, the gate closing, a desertion, a
player back from 托管, the deal, a resumption) and emits who is to act and how
(:class:`TurnBegan`: asked, the computer, or the bot's 要不起 pass), or that the game is over
(:class:`Finished`, once settled). It sends nothing itself: the hand messages and the timers
follow the turn.
"""

from __future__ import annotations

import logging

from bot.game.variants import cannot_beat
from bot.presentation.strings import text
from bot.service.commands import Source
from bot.service.deps import Deps
from bot.service.events import (
    Acted,
    Closed,
    Dealt,
    Deserted,
    Finished,
    GateClosed,
    Resumed,
    TookBack,
    TurnBegan,
    TurnMode,
)
from bot.service.ledger import Ledger
from bot.service.tables import Table

log = logging.getLogger(__name__)


def passes_itself(deps: Deps, table: Table, index: int) -> bool:
    """要不起: the seat may pass and holds nothing that beats the table (where it shows)."""
    return (
        deps.options(table).auto_pass
        and table.variant.auto_passes
        and table.engine.can_pass(index)
        and cannot_beat(table.engine, index)
    )


def decides(deps: Deps, table: Table, index: int) -> bool:
    """Whether the seat's player is asked now (a live hand message with buttons)."""
    return (
        table.engine.turn == index
        and table.seats[index].plays_itself
        and not passes_itself(deps, table, index)
    )


class Turns:
    def __init__(self, deps: Deps, ledger: Ledger) -> None:
        self.deps = deps
        self.ledger = ledger

    # ---- what it follows ------------------------------------------------------------------

    async def on_timer_acted(self, table: Table, event: Acted) -> None:
        """The bot acted for a seat whose time ran out: tell the group; a second time in a
        row starts 托管. (Before the hand and the group hear of the action itself.)"""
        if event.source is not Source.TIMER:
            return
        seat = table.seats[event.seat]
        seat.timeouts += 1
        passed = event.played is None
        key = "event.timeout_pass" if passed else "event.timeout_play"
        name = seat.label().html()
        lang = table.lang
        table.channel.post(text(lang, "event.timeout", name=name, action=text(lang, key)))
        if seat.timeouts >= 2 and not seat.takeover:
            seat.takeover = True
            table.channel.post(text(lang, "event.takeover", name=name))
        await self.ledger.save_flags(table)

    async def on_acted(self, table: Table, _event: Acted) -> None:
        await self.move_on(table)

    async def on_dealt(self, table: Table, _event: Dealt) -> None:
        if table.variant.has_reveal and not table.engine.over:
            return  # the 亮王 gate goes first; its closing moves on
        await self.move_on(table)

    async def on_gate_closed(self, table: Table, _event: GateClosed) -> None:
        await self.move_on(table)

    async def on_deserted(self, table: Table, event: Deserted) -> None:
        if not event.during_gate and table.engine.turn == event.seat:
            await self.advance(table)

    async def on_took_back(self, table: Table, event: TookBack) -> None:
        if table.engine.turn == event.seat and not table.gate_open:
            await self.advance(table)

    async def on_resumed(self, table: Table, _event: Resumed) -> None:
        if table.status == "playing":
            await self.move_on(table)

    # ---- what it does ---------------------------------------------------------------------

    async def move_on(self, table: Table) -> None:
        """The game is over (settle and finish) or someone acts next."""
        if table.engine.over:
            await self.finish(table)
        else:
            await self.advance(table)

    async def advance(self, table: Table) -> None:
        """Say who acts next and how; the hand messages and the timers follow."""
        table.channel.table_changed()
        game = table.engine
        index = game.turn
        if index is None or game.over:
            return
        seat = table.seats[index]
        options = self.deps.options(table)
        if not seat.plays_itself:
            turn = TurnBegan(index, TurnMode.COMPUTER, options.computer_delay)
        elif passes_itself(self.deps, table, index):
            turn = TurnBegan(index, TurnMode.AUTO_PASS, options.computer_delay)
        else:
            # stored with the prompt's message id (HandMessages.send_live): a restart gives
            # the seat what is left of it
            table.deadline = self.deps.clock() + options.turn_seconds
            turn = TurnBegan(index, TurnMode.ASKED, options.turn_seconds)
        await self.deps.events.emit(table, turn)

    async def finish(self, table: Table) -> None:
        settlement = await self.ledger.settled(table)
        table.status = "finished"
        log.info("game %s finished: %s", table.game_id, table.engine.result)
        await self.deps.events.emit(table, Finished(settlement))
        await self.deps.events.emit(table, Closed())
