"""The engine and the log kept in step: an action is applied and stored, or neither.

design.md's flow of one action: the engine validates and applies, the action is appended to
the log (with the settlement, in one transaction, when it ends the game). If the database
refuses, the engine is rebuilt from the log, so memory and storage never disagree.
"""

from __future__ import annotations

from bot.game.common import Action, Event, Played
from bot.game.replay import replay
from bot.service.deps import Deps
from bot.service.settlement import settle
from bot.service.tables import Settlement, Table


class Ledger:
    def __init__(self, deps: Deps) -> None:
        self.deps = deps

    async def apply(self, table: Table, action: Action) -> list[Event]:
        """Apply an action to the engine and append it to the log (with the settlement when
        it ends the game). Raises IllegalPlay (nothing changed)."""
        events = table.engine.apply(action)
        if action.kind == "play":  # the exact cards taken (a typed "3" takes a suited 3)
            played = next(e for e in events if isinstance(e, Played))
            action = Action.play(action.seat, played.combo.cards)
        table.log.append(action)
        seat = table.seats[action.seat]
        seat.version += 1
        seat.reset_private()
        db = self.deps.db
        try:
            if table.engine.over:  # the last action and the settlement: all or nothing
                async with db.transaction():
                    await self._log(table, action)
                    await self.settle(table)
            else:  # one INSERT is atomic by itself
                await self._log(table, action)
        except Exception:
            table.log.pop()
            seat.version -= 1
            table.engine = replay(table.variant, table.seed, table.leader, None, table.log)
            raise
        return events

    async def _log(self, table: Table, action: Action) -> None:
        await self.deps.db.actions.append(
            game_id=table.game_id,
            seq=table.seq - 1,
            seat=action.seat,
            kind=action.kind,
            cards=action.log_text,
            at=self.deps.clock(),
        )

    async def settle(self, table: Table) -> Settlement:
        """Settle with the bot's adjustments (inside the transaction of the last action)."""
        deps = self.deps
        # the one-minute rule (against quick games played for points) is the group's choice
        shortest = deps.settings.min_game_seconds if deps.options(table).one_minute_rule else 0.0
        settlement = await settle(deps.db, table, now=deps.clock(), min_game_seconds=shortest)
        table.settlement = settlement
        return settlement

    async def settled(self, table: Table) -> Settlement:
        """The game's settlement: stored with its last action, or now (a game over from the
        deal, four jokers in one hand, has no last action)."""
        if table.settlement is not None:
            return table.settlement
        async with self.deps.db.transaction():
            return await self.settle(table)

    async def save_flags(self, table: Table) -> None:
        """Store the seats' 托管, time-out and 逃跑 flags and the scores desertions fixed."""
        await self.deps.db.games.save(
            table.game_id,
            takeover=[s.takeover for s in table.seats],
            timeouts=[s.timeouts for s in table.seats],
            escaped=[s.escaped for s in table.seats],
            fixed_scores=table.fixed_scores,
        )
