"""What a person sends about their seat, decoded once into a command for the door.

A button of the private hand message, a play typed in the private chat, an action of the
web table: each finds the person's seat, turns their input into a
:class:`~bot.service.commands.Command` (cards as ``Card`` values) and hands it to
:meth:`bot.service.door.TableDoor.act`, which checks and applies it. Choosing cards (toggle,
clear, hint) changes no game: it stays here, on the seat's private selection.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from html import escape

from bot.game.cards import Card
from bot.game.textplay import is_pass, parse_play_text
from bot.game.variants import hint_order
from bot.presentation.callbacks import Act, Callback
from bot.presentation.render import play_html
from bot.presentation.strings import Lang, text
from bot.service.base import EarlyAnswer, Reply, UserInfo, answer_early
from bot.service.commands import Command, Kind, Source
from bot.service.deps import Deps
from bot.service.door import TableDoor
from bot.service.hands import HandMessages
from bot.service.people import People
from bot.service.tables import Table

#: the hand message's buttons that are commands, and which
BUTTON_KINDS = {Act.PLAY: Kind.PLAY, Act.PASS: Kind.PASS, Act.TAKEBACK: Kind.TAKEBACK}
#: the web table's action kinds
WEB_KINDS = {kind.value: kind for kind in Kind}


class SeatInputs:
    def __init__(self, deps: Deps, people: People, door: TableDoor, hands: HandMessages) -> None:
        self.deps = deps
        self.people = people
        self.door = door
        self.hands = hands

    # ---- the hand message's buttons ------------------------------------------------------

    async def on_button(
        self,
        user: UserInfo,
        callback: Callback,
        message_id: int | None = None,
        early: EarlyAnswer | None = None,
    ) -> Reply:
        """A button of a private hand message. ``message_id``: the message it was on.
        ``early`` hears the answer as soon as it is known, before the edits that render it."""
        table = self.deps.registry.get(callback.game_id)
        # a seat's language is on the seat: the database is asked only for strangers
        if table is None or table.status != "playing" or not table.dealt:
            return await self._outdated(user, await self.people.language(user), message_id)
        index = table.seat_of(user.user_id)
        if index is None:
            return Reply(text(await self.people.language(user), "err.not_yours"), alert=True)
        if callback.act is Act.TAKEBACK:  # on the 托管 message, whatever the seat did since
            command = Command(table.game_id, index, Kind.TAKEBACK, Source.BUTTON)
            return await self.door.act(command, early)
        async with table.lock:
            seat = table.seats[index]
            lang = seat.language
            if table.status != "playing":
                return Reply(text(lang, "err.game_over"))
            if callback.version == seat.version:
                if seat.live_message_id is None and message_id is not None:
                    # the prompt whose send timed out (it is not sent twice) did arrive: adopt
                    seat.live_message_id = message_id
                    await self.hands.save(table)
                decided = await self._press(table, index, callback, early)
                if isinstance(decided, Reply):
                    return decided
            else:
                decided = None
                old = message_id if message_id != seat.live_message_id else None
        if decided is not None:  # the door takes the table's lock itself
            return await self.door.act(decided, early)
        # an old message's buttons come off outside the lock: that edit waits for the
        # presser's pace, which the seat to act must not wait for
        return await self._outdated(user, lang, old)

    async def _press(
        self, table: Table, index: int, callback: Callback, early: EarlyAnswer | None
    ) -> Reply | Command:
        """A press of the seat's current message: a choice of cards (answered here) or a
        command for the door (its checks are the door's)."""
        seat = table.seats[index]
        lang = seat.language
        act = callback.act
        command = Command(table.game_id, index, Kind.PASS, Source.BUTTON, version=seat.version)
        if act is Act.REVEAL:
            kind = Kind.REVEAL if callback.arg else Kind.DECLINE
            return replace(command, kind=kind)
        if act is Act.READY:
            return replace(command, kind=Kind.READY)
        if act is Act.PASS:
            return command
        if act is Act.PLAY:
            hand = sorted(table.engine.hands[index])
            cards = tuple(hand[i] for i in sorted(seat.selected) if i < len(hand))
            return replace(command, kind=Kind.PLAY, cards=cards)
        if table.gate_open:
            return Reply(text(lang, "err.reveal_pending"))
        if seat.takeover:
            return Reply(text(lang, "hand.takeover_on"))
        if act in (Act.TOGGLE, Act.CLEAR) and table.engine.turn != index:
            return Reply(text(lang, "err.not_your_turn"))  # cards are chosen on one's turn
        if act is Act.TOGGLE:
            return await self._toggle(table, index, callback.arg, early)
        if act is Act.CLEAR:
            reply = answer_early(early, Reply(text(lang, "ok.selected", count=0)))
            if seat.selected:  # clearing nothing would be an identical edit (a 400)
                seat.selected.clear()
                await self.hands.refresh(table, index)
            return reply
        if act is Act.HINT:
            return await self._hint(table, index, early)
        return Reply(text(lang, "err.outdated"))

    async def _outdated(self, user: UserInfo, lang: Lang, message_id: int | None) -> Reply:
        """An old button was pressed: say so, and take the buttons off that old message."""
        if message_id is not None:
            await self.deps.messenger.clear_buttons(user.user_id, message_id)
        return Reply(text(lang, "err.outdated"))

    async def _toggle(
        self, table: Table, index: int, arg: int | None, early: EarlyAnswer | None
    ) -> Reply:
        seat = table.seats[index]
        hand_size = len(table.engine.hands[index])
        if arg is None or not 0 <= arg < hand_size:
            return Reply(text(seat.language, "err.outdated"))
        seat.selected ^= {arg}
        reply = answer_early(
            early, Reply(text(seat.language, "ok.selected", count=len(seat.selected)))
        )
        await self.hands.refresh(table, index)
        return reply

    async def _hint(self, table: Table, index: int, early: EarlyAnswer | None) -> Reply:
        seat = table.seats[index]
        game = table.engine
        if game.turn != index:
            return Reply(text(seat.language, "err.not_your_turn"))
        plays = table.variant.legal_plays(game.view(index))
        if not plays:
            return Reply(text(seat.language, "ok.no_hint"))
        plays.sort(key=hint_order(game.on_table is None))
        seat.hint_index = (seat.hint_index + 1) % len(plays)
        combo = plays[seat.hint_index]
        selected = _indexes_of(sorted(game.hands[index]), combo.cards)
        play = play_html(seat.language, table.variant.name, combo, game.on_table)
        reply = answer_early(early, Reply(text(seat.language, "ok.hint", play=play)))
        if selected != seat.selected:  # the same cards again: an identical edit is a 400
            seat.selected = selected
            await self.hands.refresh(table, index)
        return reply

    # ---- the web table ---------------------------------------------------------------------

    async def on_web(self, user_id: int, game_id: int, kind: str, cards: Sequence[Card]) -> Reply:
        """An action sent by the web table, for the user's own seat (the caller checked who
        they are and that they sit at ``game_id``). The same checks and refusals as a button.
        """
        table = self.deps.registry.get(game_id)
        if table is None or table.status != "playing" or not table.dealt:
            return Reply(text(await self._language_of(user_id), "err.game_over"))
        index = table.seat_of(user_id)
        if index is None:
            return Reply(text(await self._language_of(user_id), "err.not_yours"))
        command_kind = WEB_KINDS.get(kind)
        if command_kind is None:
            return Reply(text(table.seats[index].language, "err.nothing_selected"))
        cards = tuple(cards) if command_kind is Kind.PLAY else ()
        return await self.door.act(Command(game_id, index, command_kind, Source.WEB, cards))

    async def _language_of(self, user_id: int) -> Lang:
        return await self.people.language(UserInfo(user_id, ""))

    # ---- typed text ----------------------------------------------------------------------

    async def typed(self, user: UserInfo, message: str) -> Reply | None:
        """A play typed in the private chat; None when the user has no game (not for us)."""
        table = self.deps.registry.of_user(user.user_id)
        if table is None or table.status != "playing" or not table.dealt:
            return None
        index = table.seat_of(user.user_id)
        if index is None:
            return None
        command = Command(table.game_id, index, Kind.PASS, Source.TEXT)
        if not is_pass(message):
            try:
                cards = parse_play_text(message)
            except ValueError:
                cards = []
            if not cards:  # refused as a play would be first, else as text not understood
                lang = table.seats[index].language
                refused = self.door.refusal(table, index, Source.TEXT)
                return refused or Reply(text(lang, "err.bad_text", text=escape(message[:40])))
            command = replace(command, kind=Kind.PLAY, cards=tuple(cards))
        reply = await self.door.act(command)
        return Reply() if reply.accepted else reply


def _indexes_of(hand: Sequence[Card], cards: Sequence[Card]) -> set[int]:
    chosen: set[int] = set()
    for card in cards:
        for position, held in enumerate(hand):
            if position not in chosen and held == card:
                chosen.add(position)
                break
    return chosen
