"""The flow of a game: apply an action (engine, log, settlement), render it, move on.

design.md's flow of one action: the engine validates and applies, the action is appended to
the log (with the settlement, in one transaction, when it ends the game), then the actor's
hand message, the group's table and lines, the next prompt and the next timer follow.
"""

from __future__ import annotations

import asyncio
import logging

from bot.game.common import Action, Event, Played
from bot.game.variants import cannot_beat
from bot.presentation.render import again_keyboard, event_lines
from bot.presentation.strings import text
from bot.service.base import Source
from bot.service.hub import Hub
from bot.service.replay import replay
from bot.service.result_message import result_text
from bot.service.settlement import settle
from bot.service.tables import Settlement, Table

log = logging.getLogger(__name__)


class PlayFlow:
    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self._closing: set[asyncio.Task[None]] = set()

    async def apply(self, table: Table, action: Action) -> list[Event]:
        """Apply an action to the engine and append it to the log (with the settlement when
        it ends the game). Raises IllegalPlay (nothing changed). If the database write fails,
        the engine is rebuilt from the log so memory and storage never disagree."""
        events = table.engine.apply(action)
        if action.kind == "play":  # the exact cards taken (a typed "3" takes a suited 3)
            played = next(e for e in events if isinstance(e, Played))
            action = Action.play(action.seat, played.combo.cards)
        table.log.append(action)
        seat = table.seats[action.seat]
        seat.version += 1
        seat.reset_private()
        db = self.hub.db
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
            table.game = replay(table.variant, table.seed, table.leader, None, table.log)
            raise
        return events

    async def _log(self, table: Table, action: Action) -> None:
        await self.hub.db.actions.append(
            game_id=table.game_id,
            seq=table.seq - 1,
            seat=action.seat,
            kind=action.kind,
            cards=action.log_text,
            at=self.hub.clock(),
        )

    async def after(self, table: Table, index: int, events: list[Event], note: str) -> None:
        """Render a human's accepted action and move the table on."""
        # the retired message's id is stored with the next prompt's (one write per action);
        # should the bot stop before that, a restart edits the retired message once more
        await self.hub.hands.retire(table, index, note)
        await self.after_silent(table, events)

    async def after_silent(self, table: Table, events: list[Event]) -> None:
        """Render an action nobody is answered for (a computer's, a timer's) and move on."""
        channel = table.group
        for line in event_lines(table.lang, events, table.labels()):
            channel.post(line)
        if table.engine.over:
            await self.finish(table, events)
            return
        await self.advance(table)

    async def advance(self, table: Table) -> None:
        """Prompt whoever acts next, or let the computer act; arm the timer."""
        table.group.table_changed()
        game = table.engine
        index = game.turn
        if index is None or game.over:
            return
        seat = table.seats[index]
        options = self.hub.options(table)
        if not seat.plays_itself:
            self.hub.timers.arm(table, options.computer_delay, self.computer_turn)
            return
        if self.cannot_beat(table, index):
            self.hub.timers.arm(table, options.computer_delay, self.auto_pass)
            return
        # stored with the prompt's message id, by HandMessages.send_live
        table.deadline = self.hub.clock() + options.turn_seconds
        await self.hub.hands.send(table, index, deciding=True)
        if not seat.plays_itself:  # the prompt found them gone (blocked): the computer's turn
            return  # is armed already (Departures advanced), and must not become a time-out
        self.hub.timers.arm(table, options.turn_seconds, self.turn_timeout)

    def cannot_beat(self, table: Table, index: int) -> bool:
        """要不起: the seat may pass and holds nothing that beats the table (where it shows)."""
        return (
            self.hub.options(table).auto_pass
            and table.variant.auto_passes
            and table.engine.can_pass(index)
            and cannot_beat(table.engine, index)
        )

    def decides(self, table: Table, index: int) -> bool:
        """Whether the seat's player is asked now (a live hand message with buttons)."""
        return (
            table.engine.turn == index
            and table.seats[index].plays_itself
            and not self.cannot_beat(table, index)
        )

    async def auto_pass(self, table: Table) -> None:
        """Pass for a player who cannot beat the table, without asking them."""
        index = table.engine.turn
        if index is None:
            return
        if not self.cannot_beat(table, index):  # cannot happen as things stand; never stall
            await self.advance(table)
            return
        await self.hub.actions.act(table, index, Action.pass_(index), Source.AUTO_PASS)

    async def computer_turn(self, table: Table) -> None:
        index = table.engine.turn
        if index is None:
            return
        action = await self.hub.computers.choice(table, index)
        await self.hub.actions.act(table, index, action, Source.COMPUTER)

    async def turn_timeout(self, table: Table) -> None:
        """The seat to act ran out of time: pass if it may, else the computer's lead."""
        index = table.engine.turn
        if index is None:
            return
        can_pass = table.engine.can_pass(index)
        action = Action.pass_(index) if can_pass else await self.hub.computers.choice(table, index)
        await self.hub.actions.act(table, index, action, Source.TIMER)

    async def timed_out(self, table: Table, index: int, passed: bool) -> None:
        """Tell the group the seat's time ran out; a second time in a row starts 托管."""
        seat = table.seats[index]
        seat.timeouts += 1
        key = "event.timeout_pass" if passed else "event.timeout_play"
        name = seat.label().html()
        lang = table.lang
        table.group.post(text(lang, "event.timeout", name=name, action=text(lang, key)))
        if seat.timeouts >= 2 and not seat.takeover:
            seat.takeover = True
            table.group.post(text(lang, "event.takeover", name=name))
        await self.save_flags(table)

    async def save_flags(self, table: Table) -> None:
        await self.hub.db.games.save(
            table.game_id,
            takeover=[s.takeover for s in table.seats],
            timeouts=[s.timeouts for s in table.seats],
            escaped=[s.escaped for s in table.seats],
            fixed_scores=table.fixed_scores,
        )

    # ---- the end -------------------------------------------------------------------------

    async def settle(self, table: Table) -> Settlement:
        """Settle with the bot's adjustments, inside the transaction of the last action."""
        hub = self.hub
        # the one-minute rule (against quick games played for points) is the group's choice
        shortest = hub.settings.min_game_seconds if hub.options(table).one_minute_rule else 0.0
        settlement = await settle(hub.db, table, now=hub.clock(), min_game_seconds=shortest)
        table.settlement = settlement
        return settlement

    async def finish(self, table: Table, events: list[Event]) -> None:
        settlement = table.settlement
        if settlement is None:  # a game over from the deal (four jokers): nothing logged yet
            async with self.hub.db.transaction():
                settlement = await self.settle(table)
        table.status = "finished"
        self.hub.timers.cancel(table)
        channel = table.group
        channel.stop_following()  # the result, with its button, stays the last message
        channel.post(
            result_text(table, settlement),
            again_keyboard(table.lang, game_id=table.game_id),
        )
        channel.table_changed()
        await self.hub.hands.retire_all(table)
        self.hub.forget(table)
        # the channel's last posts may wait for the group's pace: close it when drained
        closing = asyncio.create_task(channel.close())
        self._closing.add(closing)
        closing.add_done_callback(self._closing.discard)
        log.info("game %s finished: %s", table.game_id, table.engine.result)

    async def shutdown(self) -> None:
        """Let the finished tables' last posts go out."""
        for task in list(self._closing):
            await task
