"""A restart: every lobby and unfinished game comes back from the database.

A game is its deal plus its log: the log is replayed through the engine; the turn timer is
re-armed from the stored deadline; stale buttons are taken off; the group gets a fresh table
message (the old one's text is unknown, and an identical edit is an error).
"""

from __future__ import annotations

import asyncio
import logging

from bot.game.common import Action
from bot.game.replay import replay
from bot.service.deps import Deps
from bot.service.events import Resumed, TurnBegan, TurnMode
from bot.service.gate import RevealGate
from bot.service.hands import HandMessages
from bot.service.starting import TableStart
from bot.service.stored import StoredGames
from bot.service.tables import Table
from bot.service.turns import decides
from bot.storage import GameRecord

log = logging.getLogger(__name__)

#: the least time a player gets for their turn after a restart
RECOVERED_TURN_SECONDS = 15.0


class Recovery:
    def __init__(
        self,
        deps: Deps,
        stored: StoredGames,
        starting: TableStart,
        gate: RevealGate,
        hands: HandMessages,
    ) -> None:
        self.deps = deps
        self.stored = stored
        self.starting = starting
        self.gate = gate
        self.hands = hands

    async def recover(self) -> int:
        """Rebuild every unfinished lobby and game from the database; returns how many.

        The tables are rebuilt side by side: each one's first messages wait for their chats'
        pace (the recovered players' windows count as full), and one after the other twenty
        tables would keep the bot from polling for a minute."""
        records = await self.deps.db.games.unfinished()
        done = await asyncio.gather(*(self._recover_safely(record) for record in records))
        return sum(done)

    async def _recover_safely(self, record: GameRecord) -> bool:
        try:
            await self._recover_one(record)
        except Exception:
            log.exception("could not recover game %s", record.id)
            return False
        return True

    async def _recover_one(self, record: GameRecord) -> None:
        deps = self.deps
        table = await self.stored.table_of(record)
        deps.registry.add(table)
        for seat in table.seats:
            if seat.user_id is not None and not seat.escaped:
                deps.registry.seat(table, seat.user_id)
                # the process before may have just sent this player a burst
                deps.messenger.assume_private_full(seat.user_id)
        if record.status == "lobby":
            return
        actions = await self.stored.log_of(record.id)
        table.engine = game = replay(table.variant, table.seed, table.leader, record.hands, [])
        for action in actions:
            game.apply(action)
            table.log.append(action)
            table.seats[action.seat].version += 1
        table.fixed_scores = self.stored.fixed_scores(table, record)
        async with table.lock:
            # what the old table message shows is unknown after a crash (an identical edit
            # is an error): post a fresh one and delete the old
            if record.table_message_id is not None:
                await deps.messenger.delete(table.chat_id, record.table_message_id)
            self.starting.open_channel(table)
            if table.variant.has_reveal and game.reveal_phase:
                await self._reopen_gate(table, actions)
            elif game.result is not None:  # finished in the log but not settled: settle now
                await deps.events.emit(table, Resumed())
            else:
                await self._resume(table, record)

    async def _reopen_gate(self, table: Table, actions: list[Action]) -> None:
        humans = {i for i, s in enumerate(table.seats) if s.is_human and not s.escaped}
        answered = {a.seat for a in actions if a.kind in ("reveal", "decline")}
        table.ready_pending = humans - answered
        for index in sorted(table.ready_pending):
            await self.gate.prompt(table, index)
        if table.ready_pending:
            await self.gate.wait(table, self.deps.options(table).reveal_seconds)
        else:
            await self.gate.close(table)

    async def _resume(self, table: Table, record: GameRecord) -> None:
        deps = self.deps
        # bring every live hand message up to date: the old buttons carry old versions
        turn = table.engine.turn
        for index, seat in enumerate(table.seats):
            if seat.live_message_id is not None and index != turn:
                await self.hands.retire(table, index, "")
        if turn is None or not decides(deps, table, turn):
            await deps.events.emit(table, Resumed())
            return
        turn_seconds = deps.options(table).turn_seconds
        remaining = turn_seconds
        if record.deadline is not None:
            # the stored deadline may be an earlier turn's (the bot stopped between an
            # action and the next prompt): a restart leaves a player some time
            floor = min(turn_seconds, RECOVERED_TURN_SECONDS)
            remaining = max(floor, record.deadline - deps.clock())
        table.deadline = deps.clock() + remaining
        await deps.events.emit(table, TurnBegan(turn, TurnMode.ASKED, remaining))

