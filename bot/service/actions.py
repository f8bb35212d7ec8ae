"""One way in for every action of a seat: a button, typed text, a timer, the computer.

:meth:`PlayerActions.act` is the one typed entry point that changes a game: the same checks,
the same refusals, the same outcome (a :class:`Reply`) whoever acts. The button and text entry
points only decode what the person meant and find their seat; choosing cards (toggle, clear,
hint) changes no game and stays here too.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from bot.game.cards import Card, format_cards
from bot.game.common import Action, IllegalPlay, Played
from bot.game.textplay import is_pass, parse_play_text
from bot.game.variants import cheapest_first
from bot.presentation.callbacks import Act, Callback
from bot.presentation.render import play_html
from bot.presentation.strings import Lang, text
from bot.service.base import EarlyAnswer, Reply, Source, UserInfo, answer_early
from bot.service.hub import Hub
from bot.service.tables import Table


class PlayerActions:
    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    async def act(
        self,
        table: Table,
        index: int,
        action: Action,
        source: Source,
        early: EarlyAnswer | None = None,
    ) -> Reply:
        """Apply ``action`` for seat ``index`` (the table's lock held) and move the table on.

        Refusals change nothing: the 亮王 gate still open, a seat in 托管 acting by hand, an
        illegal play (the engine's reason). ``early`` hears the answer once the action is
        stored, before the hand messages, the group and the next prompt are brought up to date.
        """
        seat = table.seats[index]
        lang = seat.language
        if action.kind in ("reveal", "decline"):
            return await self.hub.gate.answer(table, index, action.kind == "reveal")
        if table.gate_open:
            return Reply(text(lang, "err.reveal_pending"))
        if source.human and seat.takeover:
            return Reply(text(lang, "hand.takeover_on"))
        beaten = table.engine.on_table
        try:
            events = await self.hub.flow.apply(table, action)
        except IllegalPlay as error:
            return Reply(text(lang, f"err.{error.reason.value}"))
        played = next((e for e in events if isinstance(e, Played)), None)
        if played is None:
            note, reply = text(lang, "hand.you_passed"), text(lang, "ok.passed")
        else:
            shown = play_html(lang, table.variant.name, played.combo, beaten)
            note = text(lang, "hand.you_played", play=shown)
            reply = text(lang, "ok.played", play=format_cards(sorted(played.combo.cards)))
        answer_early(early, Reply(reply, accepted=True))
        if source.human:
            seat.timeouts = 0
            await self.hub.flow.after(table, index, events, note)
        elif source is Source.TIMER:
            await self.hub.flow.timed_out(table, index, passed=played is None)
            await self.hub.flow.after(table, index, events, "" if played else note)
        else:
            await self.hub.flow.after_silent(table, events)
        return Reply(reply, accepted=True)

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
        hub = self.hub
        table = hub.registry.get(callback.game_id)
        # a seat's language is on the seat: the database is asked only for strangers
        if table is None or table.status != "playing" or table.game is None:
            return await self._outdated(user, await hub.people.language(user), message_id)
        index = table.seat_of(user.user_id)
        if index is None:
            return Reply(text(await hub.people.language(user), "err.not_yours"), alert=True)
        async with table.lock:
            seat = table.seats[index]
            lang = seat.language
            if table.status != "playing":
                return Reply(text(lang, "err.game_over"))
            if callback.act is Act.TAKEBACK:
                return await hub.departures.takeback(table, index)
            stale = callback.version != seat.version
            if not stale:
                if seat.live_message_id is None and message_id is not None:
                    # the prompt whose send timed out (it is not sent twice) did arrive: adopt
                    seat.live_message_id = message_id
                    await hub.hands.save(table)
                return await self._press(table, index, callback, early)
            old = message_id if message_id != seat.live_message_id else None
        # an old message's buttons come off outside the lock: that edit waits for the
        # presser's pace, which the seat to act must not wait for
        return await self._outdated(user, lang, old)

    async def _press(
        self, table: Table, index: int, callback: Callback, early: EarlyAnswer | None
    ) -> Reply:
        seat = table.seats[index]
        lang = seat.language
        if callback.act is Act.REVEAL:
            return await self.hub.gate.answer(table, index, bool(callback.arg))
        if callback.act is Act.READY:
            return await self.hub.gate.answer(table, index, None)
        if table.gate_open:
            return Reply(text(lang, "err.reveal_pending"))
        if seat.takeover:
            return Reply(text(lang, "hand.takeover_on"))
        if callback.act in (Act.TOGGLE, Act.CLEAR) and table.engine.turn != index:
            return Reply(text(lang, "err.not_your_turn"))  # cards are chosen on one's turn
        if callback.act is Act.TOGGLE:
            return await self._toggle(table, index, callback.arg, early)
        if callback.act is Act.CLEAR:
            reply = answer_early(early, Reply(text(lang, "ok.selected", count=0)))
            if seat.selected:  # clearing nothing would be an identical edit (a 400)
                seat.selected.clear()
                await self.hub.hands.refresh(table, index)
            return reply
        if callback.act is Act.HINT:
            return await self._hint(table, index, early)
        if callback.act is Act.PLAY:
            hand = sorted(table.engine.hands[index])
            cards = [hand[i] for i in sorted(seat.selected) if i < len(hand)]
            if not cards:
                return Reply(text(lang, "err.nothing_selected"))
            return await self.act(table, index, _play(index, cards), Source.BUTTON, early)
        if callback.act is Act.PASS:
            return await self.act(table, index, Action.pass_(index), Source.BUTTON, early)
        return Reply(text(lang, "err.outdated"))

    async def _outdated(self, user: UserInfo, lang: Lang, message_id: int | None) -> Reply:
        """An old button was pressed: say so, and take the buttons off that old message."""
        if message_id is not None:
            await self.hub.messenger.clear_buttons(user.user_id, message_id)
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
        await self.hub.hands.refresh(table, index)
        return reply

    async def _hint(self, table: Table, index: int, early: EarlyAnswer | None) -> Reply:
        seat = table.seats[index]
        game = table.engine
        if game.turn != index:
            return Reply(text(seat.language, "err.not_your_turn"))
        plays = table.variant.legal_plays(game.view(index))
        if not plays:
            return Reply(text(seat.language, "ok.no_hint"))
        plays.sort(key=cheapest_first)
        seat.hint_index = (seat.hint_index + 1) % len(plays)
        combo = plays[seat.hint_index]
        selected = _indexes_of(sorted(game.hands[index]), combo.cards)
        play = play_html(seat.language, table.variant.name, combo, game.on_table)
        reply = answer_early(early, Reply(text(seat.language, "ok.hint", play=play)))
        if selected != seat.selected:  # the same cards again: an identical edit is a 400
            seat.selected = selected
            await self.hub.hands.refresh(table, index)
        return reply

    # ---- the web table ---------------------------------------------------------------------

    async def on_web(self, user_id: int, game_id: int, kind: str, cards: Sequence[Card]) -> Reply:
        """An action sent by the web table, for the user's own seat (the caller checked who
        they are and that they sit at ``game_id``). The same checks and refusals as a button.
        """
        table = self.hub.registry.get(game_id)
        if table is None or table.status != "playing" or table.game is None:
            return Reply(text(await self._language_of(user_id), "err.game_over"))
        index = table.seat_of(user_id)
        if index is None:
            return Reply(text(await self._language_of(user_id), "err.not_yours"))
        async with table.lock:
            seat = table.seats[index]
            lang = seat.language
            if table.status != "playing":
                return Reply(text(lang, "err.game_over"))
            if kind == "takeback":
                return await self.hub.departures.takeback(table, index)
            if kind in ("reveal", "decline", "ready"):
                answer = None if kind == "ready" else kind == "reveal"
                return await self.hub.gate.answer(table, index, answer)
            if table.gate_open:
                return Reply(text(lang, "err.reveal_pending"))
            if table.engine.turn != index:
                return Reply(text(lang, "err.not_your_turn"))
            if kind == "pass":
                action = Action.pass_(index)
            elif kind == "play" and cards:
                action = _play(index, cards)
            else:
                return Reply(text(lang, "err.nothing_selected"))
            return await self.act(table, index, action, Source.WEB)

    async def _language_of(self, user_id: int) -> Lang:
        return await self.hub.people.language(UserInfo(user_id, ""))

    # ---- typed text ----------------------------------------------------------------------

    async def typed(self, user: UserInfo, message: str) -> Reply | None:
        """A play typed in the private chat; None when the user has no game (not for us)."""
        table = self.hub.registry.of_user(user.user_id)
        if table is None or table.status != "playing" or table.game is None:
            return None
        index = table.seat_of(user.user_id)
        if index is None:
            return None
        async with table.lock:
            seat = table.seats[index]
            lang = seat.language
            if table.gate_open:
                return Reply(text(lang, "err.reveal_pending"))
            if seat.takeover:
                return Reply(text(lang, "hand.takeover_on"))
            if table.engine.turn != index:
                return Reply(text(lang, "err.not_your_turn"))
            if is_pass(message):
                action = Action.pass_(index)
            else:
                try:
                    cards = parse_play_text(message)
                except ValueError:
                    cards = []
                if not cards:
                    return Reply(text(lang, "err.bad_text", text=escape(message[:40])))
                action = _play(index, cards)
            reply = await self.act(table, index, action, Source.TEXT)
            return Reply() if reply.accepted else reply


def _play(index: int, cards: Sequence[Card]) -> Action:
    return Action.play(index, cards)


def _indexes_of(hand: Sequence[Card], cards: Sequence[Card]) -> set[int]:
    chosen: set[int] = set()
    for card in cards:
        for position, held in enumerate(hand):
            if position not in chosen and held == card:
                chosen.add(position)
                break
    return chosen
