"""Players who go: /leave, /kick, blocking the bot (逃跑), and coming back from 托管.

A player who goes in the middle of a game deserts it (逃跑): the computer takes the seat, the
engine prices the desertion (``GameState.desertion_scores``) and the scores it fixes are
stored at once. A player already out of cards has nothing left to decide: they may go freely.
"""

from __future__ import annotations

from bot.presentation.strings import text
from bot.service.base import Reply, UserInfo
from bot.service.deps import Deps
from bot.service.events import Blocked, Deserted, TookBack
from bot.service.hands import HandMessages
from bot.service.ledger import Ledger
from bot.service.lobby import Lobby
from bot.service.people import People
from bot.service.result_message import desertion_rule
from bot.service.settlement import scored_by_desertion
from bot.service.tables import Table


class Departures:
    def __init__(
        self, deps: Deps, ledger: Ledger, hands: HandMessages, people: People, lobby: Lobby
    ) -> None:
        self.deps = deps
        self.ledger = ledger
        self.hands = hands
        self.people = people
        self.lobby = lobby

    async def on_blocked(self, table: Table, event: Blocked) -> None:
        await self.blocked(table, event.seat)

    async def abandon(self, table: Table, index: int, key: str) -> None:
        """The seat's player is gone (left, kicked, blocked): the computer takes over."""
        seat = table.seats[index]
        if seat.gone:
            return
        if _out_of_cards(table, index):
            self._release(table, index)
            return
        seat.escaped = True
        seat.takeover = True
        counted_before = not scored_by_desertion(table)
        started = table.started_at if table.started_at is not None else self.deps.clock()
        table.fixed_scores = list(
            table.engine.desertion_scores(
                index, table.fixed_scores, seconds=self.deps.clock() - started
            )
        )
        await self.ledger.save_flags(table)
        self.deps.registry.unseat(table, index)
        channel = table.channel
        channel.post(text(table.lang, key, name=seat.label().html()))
        if counted_before and scored_by_desertion(table):  # 刨王: the game stops counting
            rule = desertion_rule(table.lang, table.fixed_scores)
            channel.post(text(table.lang, "event.unscored", rule=rule))
        channel.table_changed()
        await self.deps.events.emit(table, Deserted(index, during_gate=table.gate_open))

    def _release(self, table: Table, index: int) -> None:
        """A player who is out of cards goes: they have nothing left to decide, so it is no
        逃跑; the game is scored as it ends. They may join another game at once."""
        seat = table.seats[index]
        seat.left = True
        self.deps.registry.unseat(table, index)
        table.channel.post(text(table.lang, "event.left_out", name=seat.label().html()))

    async def blocked(self, table: Table, index: int) -> None:
        """A message to the seat's player was refused: they blocked the bot."""
        seat = table.seats[index]
        if seat.user_id is not None:
            await self.deps.db.players.set_can_message(user_id=seat.user_id, can_message=False)
        seat.live_message_id = None
        if table.status == "playing":
            await self.abandon(table, index, "event.escaped")

    async def private_chat_changed(self, user: UserInfo, *, works: bool) -> None:
        """Telegram says a user blocked (or unblocked) the bot in their private chat.

        A blocked player in a game is gone at once: the computer takes the seat (逃跑), so
        the table does not wait for the turn timer to notice.
        """
        deps = self.deps
        await self.people.remember(user)
        await deps.db.players.set_can_message(user_id=user.user_id, can_message=works)
        if works:
            return
        table = deps.registry.of_user(user.user_id)
        if table is None:
            return
        async with table.lock:
            index = table.seat_of(user.user_id)
            if index is None:
                return
            if table.status == "lobby":
                await self.lobby.unseat(table, index)
            elif table.status == "playing":
                await self.blocked(table, index)

    async def leave(self, user: UserInfo) -> Reply:
        deps = self.deps
        lang = await self.people.language(user)
        table = deps.registry.of_user(user.user_id)
        if table is None:
            return Reply(text(lang, "err.no_game"))
        async with table.lock:
            index = table.seat_of(user.user_id)
            if index is None:
                return Reply(text(lang, "err.no_game"))
            if table.status == "lobby":
                return await self.lobby.leave(table, user)
            key = "leave.done_out" if _out_of_cards(table, index) else "leave.done"
            await self.hands.retire(table, index, text(lang, key))
            await self.abandon(table, index, "event.escaped")
        return Reply(text(lang, key))

    async def kick(self, chat_id: int, admin: UserInfo, target_id: int) -> Reply:
        deps = self.deps
        lang = await self.people.language(admin)
        table = deps.registry.in_chat(chat_id)
        if table is None or table.status not in ("lobby", "playing"):
            return Reply(text(lang, "err.no_game"))
        async with table.lock:
            if not await self.lobby.may_manage(table, admin.user_id):
                return Reply(text(lang, "err.not_admin"))
            index = table.seat_of(target_id)
            if index is None:
                return Reply(text(lang, "lobby.not_seated"))
            if table.status == "lobby":  # before the start: the seat is simply free again
                name = table.seats[index].label().html()
                await self.lobby.unseat(table, index)
                return Reply(text(lang, "lobby.removed", name=name))
            await self.hands.retire(table, index, "")
            await self.abandon(table, index, "event.kicked")
        return Reply()

    async def takeback(self, table: Table, index: int) -> Reply:
        """「我回来了」: a player in 托管 takes their seat back."""
        seat = table.seats[index]
        if not seat.takeover or seat.gone:
            return Reply(text(seat.language, "err.outdated"))
        seat.takeover = False
        seat.timeouts = 0
        await self.ledger.save_flags(table)
        table.channel.post(text(table.lang, "event.takeback", name=seat.label().html()))
        table.channel.table_changed()
        await self.deps.events.emit(table, TookBack(index))
        return Reply(text(seat.language, "ok.takeback"))


def _out_of_cards(table: Table, index: int) -> bool:
    game = table.engine
    return game is not None and not game.over and not game.hands[index]
