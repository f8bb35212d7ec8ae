"""A restart: every lobby and unfinished game comes back from the database.

A game is its deal plus its log: the log is replayed through the engine; the turn timer is
re-armed from the stored deadline; stale buttons are taken off; the group gets a fresh table
message (the old one's text is unknown, and an identical edit is an error).
"""

from __future__ import annotations

import asyncio
import logging

from bot.game.common import Action, GameOver
from bot.game.protocol import GameState
from bot.game.variants import VARIANTS
from bot.presentation.strings import Lang
from bot.service.base import seat_language
from bot.service.group_options import GroupOptions, options_from_json
from bot.service.hub import Hub
from bot.service.replay import replay
from bot.service.settlement import settlement_of
from bot.service.tables import Table
from bot.storage import GameRecord

log = logging.getLogger(__name__)

#: the least time a player gets for their turn after a restart
RECOVERED_TURN_SECONDS = 15.0


class Recovery:
    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    async def log_of(self, game_id: int) -> list[Action]:
        records = await self.hub.db.actions.list(game_id)
        return [Action.from_log(a.kind, a.seat, a.cards) for a in records]

    async def rebuild(self, record: GameRecord) -> GameState | None:
        """The game of a stored record, replayed from its deal and log (None: not dealt)."""
        if record.seed is None and record.hands is None:
            return None
        seed = int(record.seed) if record.seed is not None else None
        actions = await self.log_of(record.id)
        return replay(VARIANTS[record.variant], seed, record.leader, record.hands, actions)

    async def finished(self, game_id: int) -> Table | None:
        """A finished game as its result screen shows it, from the database (the table in
        memory went with a restart): the deal and log replayed, the stored scores. None for
        a game that is not finished."""
        record = await self.hub.db.games.get(game_id)
        if record is None or record.status != "finished":
            return None
        game = await self.rebuild(record)
        if game is None or game.result is None:
            return None
        table = await self._table_of(record)
        table.game = game
        table.log = await self.log_of(record.id)
        table.fixed_scores = self._fixed_scores(table, record)
        rows = await self.hub.db.results.for_game(record.id)
        table.settlement = settlement_of(table, rows, record.note)
        return table

    async def _table_of(self, record: GameRecord) -> Table:
        """The stored table with the settings it plays by: those it was dealt with, or for a
        lobby its group's as they are now. It speaks the group's chosen language, or its
        opener's (the first seat's)."""
        hub = self.hub
        if record.options is not None:
            options = options_from_json(record.options, GroupOptions.defaults(hub.settings))
        elif record.status == "lobby":
            options = await hub.group_settings.options(record.chat_id)
        else:
            options = None  # dealt before groups had settings: the environment's
        if options is not None and options.language is not None:
            lang: Lang = options.language
        elif record.seats:
            lang = seat_language(record.seats[0].language)
        else:
            lang = hub.settings.default_language
        table = Table.from_record(record, lang)
        table.options = options
        return table

    async def recover(self) -> int:
        """Rebuild every unfinished lobby and game from the database; returns how many.

        The tables are rebuilt side by side: each one's first messages wait for their chats'
        pace (the recovered players' windows count as full), and one after the other twenty
        tables would keep the bot from polling for a minute."""
        records = await self.hub.db.games.unfinished()
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
        hub = self.hub
        table = await self._table_of(record)
        hub.registry.add(table)
        for seat in table.seats:
            if seat.user_id is not None and not seat.escaped:
                hub.registry.seat(table, seat.user_id)
                # the process before may have just sent this player a burst
                hub.messenger.assume_private_full(seat.user_id)
        if record.status == "lobby":
            return
        actions = await self.log_of(record.id)
        table.game = game = replay(table.variant, table.seed, table.leader, record.hands, [])
        for action in actions:
            game.apply(action)
            table.log.append(action)
            table.seats[action.seat].version += 1
        table.fixed_scores = self._fixed_scores(table, record)
        async with table.lock:
            # what the old table message shows is unknown after a crash (an identical edit
            # is an error): post a fresh one and delete the old
            if record.table_message_id is not None:
                await hub.messenger.delete(table.chat_id, record.table_message_id)
            hub.starting.open_channel(table)
            if table.variant.has_reveal and game.reveal_phase:
                await self._reopen_gate(table, actions)
            elif game.result is not None:  # finished in the log but not settled: settle now
                await hub.flow.finish(table, [GameOver(game.result)])
            else:
                await self._resume(table, record)

    async def _reopen_gate(self, table: Table, actions: list[Action]) -> None:
        hub = self.hub
        humans = {i for i, s in enumerate(table.seats) if s.is_human and not s.escaped}
        answered = {a.seat for a in actions if a.kind in ("reveal", "decline")}
        table.ready_pending = humans - answered
        for index in sorted(table.ready_pending):
            await hub.gate.prompt(table, index)
        if table.ready_pending:
            hub.timers.arm(table, hub.options(table).reveal_seconds, hub.gate.timeout)
        else:
            await hub.gate.close(table)

    async def _resume(self, table: Table, record: GameRecord) -> None:
        hub = self.hub
        # bring every live hand message up to date: the old buttons carry old versions
        turn = table.engine.turn
        for index, seat in enumerate(table.seats):
            if seat.live_message_id is not None and index != turn:
                await hub.hands.retire(table, index, "")
        if turn is None or not hub.flow.decides(table, turn):
            await hub.flow.advance(table)
            return
        turn_seconds = hub.options(table).turn_seconds
        remaining = turn_seconds
        if record.deadline is not None:
            # the stored deadline may be an earlier turn's (the bot stopped between an
            # action and the next prompt): a restart leaves a player some time
            floor = min(turn_seconds, RECOVERED_TURN_SECONDS)
            remaining = max(floor, record.deadline - hub.clock())
        table.deadline = hub.clock() + remaining
        await hub.hands.send(table, turn, deciding=True)
        hub.timers.arm(table, remaining, hub.flow.turn_timeout)

    def _fixed_scores(self, table: Table, record: GameRecord) -> list[int | None]:
        """The scores desertions fixed, as stored. A game stored before they were (schema
        version 1) has only its 逃跑 flags: those seats are priced now, as deserters of the
        game as it stands."""
        if len(record.fixed_scores) == table.size:
            return list(record.fixed_scores)
        fixed: list[int | None] = [None] * table.size
        started = table.started_at if table.started_at is not None else self.hub.clock()
        elapsed = self.hub.clock() - started
        for index, seat in enumerate(table.seats):
            if seat.escaped:
                fixed = list(table.engine.desertion_scores(index, fixed, seconds=elapsed))
        return fixed
