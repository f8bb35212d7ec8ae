"""刨王's 亮王 gate: every human answers before the first lead.

大王 holders choose 亮王 / 不亮, everyone else presses 知道了; computer holders decide when the
gate closes. So the group sees the same messages at the same moments, whoever holds the 大王s;
only an actual reveal is announced.
"""

from __future__ import annotations

from bot.game.cards import BIG_JOKER
from bot.game.common import Action
from bot.presentation.keyboards import Keyboard
from bot.presentation.render import (
    event_lines,
    hand_text,
    ready_keyboard,
    reveal_keyboard,
    web_table_button,
)
from bot.presentation.strings import text
from bot.service.base import Reply
from bot.service.computers import ComputerSeats
from bot.service.deps import Deps
from bot.service.events import Dealt, Deserted, GateClosed, GateOpened
from bot.service.hands import HandMessages
from bot.service.ledger import Ledger
from bot.service.tables import Table
from bot.service.web_links import web_table_url


class RevealGate:
    def __init__(
        self, deps: Deps, ledger: Ledger, hands: HandMessages, computers: ComputerSeats
    ) -> None:
        self.deps = deps
        self.ledger = ledger
        self.hands = hands
        self.computers = computers

    async def on_dealt(self, table: Table, _event: Dealt) -> None:
        if table.variant.has_reveal and not table.engine.over:
            await self.open(table)

    async def on_deserted(self, table: Table, event: Deserted) -> None:
        """A human gone before answering: the gate no longer waits for them."""
        if not event.during_gate or event.seat not in table.ready_pending:
            return
        table.ready_pending.discard(event.seat)
        if not table.ready_pending:
            await self.close(table)

    async def open(self, table: Table) -> None:
        """Ask every human; close at once if nobody is to answer, else arm the gate's timer."""
        table.ready_pending = {i for i, seat in enumerate(table.seats) if seat.is_human}
        for index in sorted(table.ready_pending):
            await self.prompt(table, index)
        if not table.ready_pending:
            await self.close(table)
        else:
            await self.wait(table, self.deps.options(table).reveal_seconds)

    async def wait(self, table: Table, seconds: float) -> None:
        """The gate waits ``seconds`` at most (the timers follow; the pages count down)."""
        table.deadline = self.deps.clock() + seconds
        await self.deps.events.emit(table, GateOpened(seconds))

    async def prompt(self, table: Table, index: int) -> None:
        seat = table.seats[index]
        view = table.shown_view(index)
        holder = index in table.engine.reveal_pending
        jokers = sum(1 for card in view.hand if card >> 3 == BIG_JOKER)
        note = text(
            seat.language, "hand.reveal_question" if holder else "hand.no_big_joker", jokers=jokers
        )
        body = hand_text(seat.language, view, table.labels(), deciding=False, note=note)
        markup = (
            reveal_keyboard(seat.language, game_id=table.game_id, version=seat.version)
            if holder
            else ready_keyboard(seat.language, game_id=table.game_id, version=seat.version)
        )
        url = web_table_url(self.deps.settings, table.game_id)
        if url is not None:
            markup = Keyboard(
                [*markup.inline_keyboard, [web_table_button(seat.language, url)]]
            )
        await self.hands.send_live(table, index, body, markup)

    async def answer(self, table: Table, index: int, reveal: bool | None) -> Reply:
        """A human's answer: reveal yes/no (holders) or OK (``None``, everyone else)."""
        seat = table.seats[index]
        lang = seat.language
        if index not in table.ready_pending:
            return Reply(text(lang, "err.outdated"))
        holder = index in table.engine.reveal_pending
        if holder != (reveal is not None):
            return Reply(text(lang, "err.outdated"))
        note = ""
        if reveal is not None:
            events = await self.ledger.apply(table, Action.answer(index, reveal))
            table.held_lines += event_lines(table.lang, events, table.labels())
            note = text(lang, "ok.revealed" if reveal else "ok.not_revealed")
        else:
            seat.version += 1
        table.ready_pending.discard(index)
        await self.hands.retire(table, index, note)
        if not table.ready_pending:
            await self.close(table)
        return Reply(note, accepted=True)

    async def timeout(self, table: Table) -> None:
        """The gate's time ran out: whoever has not answered declines (or has seen)."""
        for index in sorted(table.ready_pending):
            if index in table.engine.reveal_pending:
                await self.ledger.apply(table, Action.answer(index, False))
            else:
                table.seats[index].version += 1
            await self.hands.retire(table, index, "")
        table.ready_pending.clear()
        await self.close(table)

    async def close(self, table: Table) -> None:
        game = table.engine
        for index in list(game.reveal_pending):  # computer holders decide now
            choice = self.computers.player(table, index).choose_reveal(game.view(index))
            events = await self.ledger.apply(table, Action.answer(index, choice))
            table.held_lines += event_lines(table.lang, events, table.labels())
        channel = table.channel
        for line in table.held_lines:
            channel.post(line)
        table.held_lines.clear()
        for index, seat in enumerate(table.seats):
            if seat.is_human and index != game.turn and not game.over:
                await self.hands.send(table, index, deciding=False)
        await self.deps.events.emit(table, GateClosed())
