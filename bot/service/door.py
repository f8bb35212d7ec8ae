"""The one door through which a seat's command changes a game.

Every edge (a button, typed text, the web table, the turn timer, a computer seat, the
auto-pass) decodes its input into a :class:`~bot.service.commands.Command` and calls
:meth:`TableDoor.act`. It takes the table's lock, checks once (the game still on, the command
not stale, the 亮王 gate, 托管, whose turn), applies the engine and stores the action (the
:class:`~bot.service.ledger.Ledger`), answers, and emits what happened: the parts that
follow (hand messages, the group's lines, the next turn, the timers, the live pages) take it
from there. A refusal changes nothing.
"""

from __future__ import annotations

import time

from bot.game.cards import format_cards
from bot.game.common import IllegalPlay, Reason
from bot.presentation.render import on_table_html
from bot.presentation.strings import text
from bot.service.base import EarlyAnswer, Reply, answer_early
from bot.service.commands import GATE_KINDS, Command, Kind, Source
from bot.service.departures import Departures
from bot.service.deps import Deps
from bot.service.events import Acted, Resumed
from bot.service.gate import RevealGate
from bot.service.ledger import Ledger
from bot.service.tables import Table


class TableDoor:
    def __init__(
        self, deps: Deps, ledger: Ledger, gate: RevealGate, departures: Departures
    ) -> None:
        self.deps = deps
        self.ledger = ledger
        self.gate = gate
        self.departures = departures

    async def act(self, command: Command, early: EarlyAnswer | None = None) -> Reply:
        """Carry out ``command``; ``early`` hears the answer once the action is stored,
        before the hand messages, the group and the next prompt are brought up to date.
        A timer's command whose timer was replaced since is dropped with an empty answer."""
        table = self.deps.registry.get(command.game_id)
        if table is None:
            return Reply()
        started = time.perf_counter()
        async with table.lock:
            reply = await self._act(table, command, early)
        for timer in self.deps.command_timers:
            timer(command.source.value, time.perf_counter() - started)
        return reply

    async def _act(self, table: Table, command: Command, early: EarlyAnswer | None) -> Reply:
        index = command.seat
        seat = table.seats[index]
        lang = seat.language
        if table.status != "playing" or not table.dealt:
            return Reply(text(lang, "err.game_over"))
        if command.timer is not None and command.timer != table.timer:
            return Reply()  # the table moved on while it was decided
        if command.version is not None and command.version != seat.version:
            return Reply(text(lang, "err.outdated"))  # an older message's button
        kind = command.kind
        if kind is Kind.TAKEBACK:
            return await self.departures.takeback(table, index)
        if kind in GATE_KINDS:
            reveal = None if kind is Kind.READY else kind is Kind.REVEAL
            return await self.gate.answer(table, index, reveal)
        refused = self.refusal(table, index, command.source)
        if refused is not None:
            return refused
        if kind is Kind.PLAY and not command.cards:
            return Reply(text(lang, "err.nothing_selected"))
        beaten = table.engine.on_table
        try:
            events = await self.ledger.apply(table, command.action())
        except IllegalPlay as error:
            if error.reason is Reason.DOES_NOT_BEAT and beaten is not None:  # say what
                shown = on_table_html(lang, table.engine.view(index))
                return Reply(text(lang, "err.does_not_beat_play", play=shown))
            return Reply(text(lang, f"err.{error.reason.value}"))
        acted = Acted(index, table.log[-1], command.source, tuple(events), beaten)
        played = acted.played
        if played is None:
            reply = Reply(text(lang, "ok.passed"), accepted=True)
        else:
            cards = format_cards(sorted(played.cards))
            reply = Reply(text(lang, "ok.played", play=cards), accepted=True)
        answer_early(early, reply)
        if command.source.human:
            seat.timeouts = 0
        await self.deps.events.emit(table, acted)
        return reply

    def refusal(self, table: Table, index: int, source: Source) -> Reply | None:
        """Why seat ``index`` may not play or pass now, if it may not: the 亮王 gate still
        open, a seat in 托管 acting by hand, another seat's turn."""
        seat = table.seats[index]
        if table.gate_open:
            return Reply(text(seat.language, "err.reveal_pending"))
        if source.human and seat.takeover:
            return Reply(text(seat.language, "hand.takeover_on"))
        if table.engine.turn != index:
            return Reply(text(seat.language, "err.not_your_turn"))
        return None

    async def expire_gate(self, game_id: int, timer: int) -> None:
        """The 亮王 gate's time ran out (unless its timer was replaced since)."""
        table = self.deps.registry.get(game_id)
        if table is None:
            return
        async with table.lock:
            if table.timer == timer and table.status == "playing" and table.gate_open:
                await self.gate.timeout(table)

    async def resume(self, game_id: int) -> None:
        """Go on from where the table stands (what followed an action failed)."""
        table = self.deps.registry.get(game_id)
        if table is None:
            return
        async with table.lock:
            if table.status == "playing" and table.dealt:
                await self.deps.events.emit(table, Resumed())
