"""One timer per table: the turn timer, the 亮王 gate's, a computer's short delay.

It follows the turn (:class:`TurnBegan`: a time-out for a player who is asked, a short delay
for the computer and for the bot's 要不起 pass) and the gate; when a timer fires it decides
what the seat does and sends that through the door like any other command. Each timer is
numbered (``Table.timer``): a command decided by one that was replaced meanwhile is stale and
dropped. A job that fails is retried after ``retry_delay``: the same job if nothing was
applied (the database refused the write, say), otherwise the table goes on from the action
that did go through.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from bot.game.common import Action
from bot.service.base import timer_name
from bot.service.commands import Command, Source
from bot.service.computers import ComputerSeats
from bot.service.deps import Deps
from bot.service.door import TableDoor
from bot.service.events import Closed, GateOpened, TurnBegan, TurnMode
from bot.service.tables import Table
from bot.service.turns import passes_itself

log = logging.getLogger(__name__)

#: what a timer does when it fires: given the table and the timer's number
Job = Callable[[Table, int], Awaitable[None]]


class Timers:
    def __init__(self, deps: Deps, door: TableDoor, computers: ComputerSeats) -> None:
        self.deps = deps
        self.door = door
        self.computers = computers

    # ---- what it follows ------------------------------------------------------------------

    async def on_turn(self, table: Table, event: TurnBegan) -> None:
        jobs: dict[TurnMode, Job] = {
            TurnMode.ASKED: self._time_out,
            TurnMode.COMPUTER: self._computer,
            TurnMode.AUTO_PASS: self._auto_pass,
        }
        self.arm(table, event.seconds, jobs[event.mode])

    async def on_gate_opened(self, table: Table, event: GateOpened) -> None:
        self.arm(table, event.seconds, self._expire_gate)

    async def on_closed(self, table: Table, _event: Closed) -> None:
        self.cancel(table)

    # ---- the timer ------------------------------------------------------------------------

    def arm(self, table: Table, delay: float, job: Job) -> None:
        """Run ``job`` in ``delay`` seconds, unless the table moves on first (replaces the
        table's previous timer)."""
        table.timer += 1
        timer = table.timer
        seq = table.seq
        game_id = table.game_id
        deps = self.deps

        async def fire() -> None:
            current = deps.registry.get(game_id)
            if current is None or current.timer != timer or current.status != "playing":
                return  # a newer timer took over: this one is stale
            try:
                await job(current, timer)
            except Exception:
                # never leave the table waiting for a timer that is gone
                retry = deps.retry_delay
                log.exception("timer of table %s failed; again in %.0f s", game_id, retry)
                if current.timer != timer:
                    return  # the table moved on (and armed its next timer) after all
                if current.seq == seq:  # nothing was applied (the write was refused, say)
                    self.arm(current, retry, job)
                else:  # the action went through, what follows it did not: move on
                    self.arm(current, retry, self._resume)

        deps.scheduler.schedule(timer_name(game_id), delay, fire)

    def cancel(self, table: Table) -> None:
        self.deps.scheduler.cancel(timer_name(table.game_id))

    # ---- what a timer does ----------------------------------------------------------------

    async def _computer(self, table: Table, timer: int) -> None:
        index = table.engine.turn
        if index is None:
            return
        action = await self.computers.choice(table, index)
        await self.door.act(Command.of(table.game_id, action, Source.COMPUTER, timer))

    async def _auto_pass(self, table: Table, timer: int) -> None:
        """Pass for a player who cannot beat the table, without asking them."""
        index = table.engine.turn
        if index is None:
            return
        if not passes_itself(self.deps, table, index):  # cannot happen; never stall
            await self.door.resume(table.game_id)
            return
        await self.door.act(Command.of(table.game_id, Action.pass_(index), Source.AUTO_PASS, timer))

    async def _time_out(self, table: Table, timer: int) -> None:
        """The seat to act ran out of time: pass if it may, else the computer's lead."""
        index = table.engine.turn
        if index is None:
            return
        if table.engine.can_pass(index):
            action = Action.pass_(index)
        else:
            action = await self.computers.choice(table, index)
        await self.door.act(Command.of(table.game_id, action, Source.TIMER, timer))

    async def _expire_gate(self, table: Table, timer: int) -> None:
        await self.door.expire_gate(table.game_id, timer)

    async def _resume(self, table: Table, _timer: int) -> None:
        await self.door.resume(table.game_id)
