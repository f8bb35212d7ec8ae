"""A player's hand asked for again: /hand, and the web table opened or closed.

A live page shows the hand and the turn, so while one is open the hand message's buttons
come off; when the last page closes, the seat's prompt comes back if they are to decide.
"""

from __future__ import annotations

from bot.presentation.strings import text
from bot.service.base import Reply, UserInfo
from bot.service.deps import Deps
from bot.service.gate import RevealGate
from bot.service.hands import HandMessages
from bot.service.people import People
from bot.service.tables import Table
from bot.service.turns import decides


class HandRequests:
    def __init__(self, deps: Deps, people: People, hands: HandMessages, gate: RevealGate) -> None:
        self.deps = deps
        self.people = people
        self.hands = hands
        self.gate = gate

    async def resend_hand(self, user: UserInfo) -> Reply:
        """/hand: the player's hand again (or their 亮王 question)."""
        lang = await self.people.language(user)
        table = self.deps.registry.of_user(user.user_id)
        if table is None or table.status != "playing":
            return Reply(text(lang, "err.no_game"))
        async with table.lock:
            index = table.seat_of(user.user_id)
            if index is None:
                return Reply(text(lang, "err.no_game"))
            if table.gate_open and index in table.ready_pending:
                await self.gate.prompt(table, index)
            else:
                deciding = decides(self.deps, table, index)
                await self.hands.send(table, index, deciding=deciding, asked=True)
        return Reply()

    async def page_opened(self, table: Table, index: int) -> None:
        """The seat's page opened: it takes over from the prompt's buttons, which are taken
        off now rather than in the seat's first action (a Telegram call the page would wait
        for), and behind: the page's first view does not wait for that edit either. Called
        under the table's lock."""
        seat = table.seats[index]
        if table.status != "playing" or not table.dealt or seat.takeover:
            return
        if seat.live_message_id is not None:
            self.hands.retire_behind(table, index)  # the first view does not wait for it
            await self.hands.save(table)

    async def page_closed(self, table: Table, index: int) -> None:
        """The seat's last page closed: if they are to decide and have no prompt, send it.
        Called under the table's lock."""
        seat = table.seats[index]
        if table.status != "playing" or not table.dealt or seat.live_message_id is not None:
            return
        if table.gate_open:
            if index in table.ready_pending:
                await self.gate.prompt(table, index)
        elif decides(self.deps, table, index):
            await self.hands.send(table, index, deciding=True)
