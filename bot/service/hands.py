"""Each player's private hand message: sent, kept up to date, retired to a plain record.

A deciding player has one live message with buttons; selection changes edit it in place; when
they act (or their turn ends) it is retired: edited to a record of the hand without buttons.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from bot.game.cards import Card
from bot.game.common import Combo
from bot.presentation.keyboards import Keyboard
from bot.presentation.render import (
    hand_keyboard,
    hand_text,
    play_button_label,
    play_html,
    takeback_keyboard,
    web_table_button,
)
from bot.presentation.strings import text
from bot.service.base import Delivery
from bot.service.commands import Source
from bot.service.deps import Deps
from bot.service.events import Acted, Blocked, Dealt, Finished, TookBack, TurnBegan, TurnMode
from bot.service.tables import Table
from bot.service.web_links import web_table_url

log = logging.getLogger(__name__)


class HandMessages:
    def __init__(self, deps: Deps) -> None:
        self.deps = deps
        self._behind: set[asyncio.Task[None]] = set()

    # ---- what it follows ------------------------------------------------------------------

    async def on_acted(self, table: Table, event: Acted) -> None:
        """The actor's live message becomes a record of what they did (a timer's pass, too:
        the player hears their turn is gone)."""
        if not (event.source.human or event.source is Source.TIMER):
            return
        seat = table.seats[event.seat]
        lang = seat.language
        combo = event.played
        if combo is None:
            note = text(lang, "hand.you_passed")
        elif event.source is Source.TIMER:
            note = ""
        else:
            shown = play_html(lang, table.variant.name, combo, event.beaten)
            note = text(lang, "hand.you_played", play=shown)
        # the retired message's id is stored with the next prompt's (one write per action);
        # should the bot stop before that, a restart edits the retired message once more
        await self.retire(table, event.seat, note)

    async def on_dealt(self, table: Table, _event: Dealt) -> None:
        """Every human not to lead gets their hand (in 刨王 the 亮王 gate asks them first)."""
        game = table.engine
        if table.variant.has_reveal and not game.over:
            return
        for index, seat in enumerate(table.seats):
            if seat.is_human and index != game.turn:
                await self.send(table, index, deciding=False)

    async def on_turn(self, table: Table, event: TurnBegan) -> None:
        if event.mode is TurnMode.ASKED:
            await self.send(table, event.seat, deciding=True)

    async def on_took_back(self, table: Table, event: TookBack) -> None:
        await self.retire(table, event.seat, "")

    async def on_finished(self, table: Table, _event: Finished) -> None:
        await self.retire_all(table)

    # ---- what it does ---------------------------------------------------------------------

    async def send_live(
        self, table: Table, index: int, body: str, markup: Keyboard
    ) -> None:
        """Send a seat a new message with buttons (it notifies); the old one is retired."""
        seat = table.seats[index]
        if seat.user_id is None or seat.gone:
            return
        if seat.live_message_id is not None:
            await self.retire(table, index, "")
        sent = await self.deps.messenger.send(seat.user_id, body, markup)
        if sent.delivery is Delivery.BLOCKED:
            await self.deps.events.emit(table, Blocked(index))
            return
        seat.live_message_id = sent.message_id
        await self.save(table)

    async def save(self, table: Table) -> None:
        """Store which messages have live buttons, with the turn's deadline (one statement):
        a restart takes those buttons off and gives the seat to act its remaining time."""
        ids = {i: s.live_message_id for i, s in enumerate(table.seats) if s.live_message_id}
        await self.deps.db.games.save(table.game_id, hand_message_ids=ids, deadline=table.deadline)

    def body(self, table: Table, index: int, *, deciding: bool, note: str = "") -> str:
        seat = table.seats[index]
        view = table.shown_view(index)
        hand = sorted(view.hand)
        selected = [hand[i] for i in sorted(seat.selected) if i < len(hand)]
        return hand_text(
            seat.language,
            view,
            table.labels(),
            deciding=deciding,
            selected=selected,
            note=note,
            takeover=seat.takeover,
        )

    def markup(self, table: Table, index: int) -> Keyboard:
        seat = table.seats[index]
        game = table.engine
        hand = sorted(game.hands[index])
        chosen = [hand[i] for i in sorted(seat.selected) if i < len(hand)]
        combo = self.classify(table, index, chosen) if chosen else None
        label = play_button_label(
            seat.language, table.variant.name, combo, bool(chosen), game.on_table
        )
        return hand_keyboard(
            seat.language,
            game_id=table.game_id,
            version=seat.version,
            hand=hand,
            selected=seat.selected,
            play_label=label,
            can_pass=game.can_pass(index),
            web_url=web_table_url(self.deps.settings, table.game_id),
        )

    def classify(self, table: Table, index: int, cards: Sequence[Card]) -> Combo | None:
        view = table.engine.view(index)
        revealed = bool(view.revealed and view.revealed[index])
        return table.variant.classify(cards, revealed)

    async def send(
        self, table: Table, index: int, *, deciding: bool, note: str = "", asked: bool = False
    ) -> None:
        """The seat's hand: with buttons when they decide (or may take their seat back), else
        a silent record. ``asked``: the player asked for it (/hand), page open or not."""
        seat = table.seats[index]
        if seat.user_id is None or seat.gone:
            return
        if not asked and not seat.takeover and self.deps.page_open(table.game_id, seat.user_id):
            # the page shows the hand and the turn: a message would be one more call for
            # nothing (the deal's message, with the page's button, goes before any page)
            if deciding:
                await self.save(table)  # the deadline, for a restart
            return
        body = self.body(table, index, deciding=deciding, note=note)
        if deciding:
            await self.send_live(table, index, body, self.markup(table, index))
        elif seat.takeover:
            markup = takeback_keyboard(seat.language, game_id=table.game_id)
            await self.send_live(table, index, body, markup)
        else:
            url = web_table_url(self.deps.settings, table.game_id)
            markup = None
            if url is not None:  # the way to the web table, from the first hand on
                markup = Keyboard([[web_table_button(seat.language, url)]])
            sent = await self.deps.messenger.send(seat.user_id, body, markup, notify=False)
            if sent.delivery is Delivery.BLOCKED:
                await self.deps.events.emit(table, Blocked(index))

    async def refresh(self, table: Table, index: int) -> None:
        """Re-render the deciding seat's live message (after a selection change)."""
        seat = table.seats[index]
        if seat.user_id is None or seat.live_message_id is None:
            return
        body = self.body(table, index, deciding=True)
        delivery = await self.deps.messenger.edit(
            seat.user_id, seat.live_message_id, body, self.markup(table, index)
        )
        if delivery is Delivery.GONE:
            seat.live_message_id = None
            await self.send(table, index, deciding=True)

    async def retire(self, table: Table, index: int, note: str) -> None:
        """Turn a seat's live message into a plain record of the hand (no buttons)."""
        seat = table.seats[index]
        message_id, seat.live_message_id = seat.live_message_id, None
        if seat.user_id is None or message_id is None:
            return
        body = self.body(table, index, deciding=False, note=note)
        if seat.takeover and not table.engine.over:
            markup = takeback_keyboard(seat.language, game_id=table.game_id)
            await self.deps.messenger.edit(seat.user_id, message_id, body, markup)
            seat.live_message_id = message_id
            return
        await self.deps.messenger.edit(seat.user_id, message_id, body)

    def retire_behind(self, table: Table, index: int) -> None:
        """Retire the seat's live message without waiting for the edit (its buttons are
        outdated at once, the message's id forgotten now): a page that opens right after the
        deal must not wait for the private chat's pace before its first view."""
        seat = table.seats[index]
        message_id, seat.live_message_id = seat.live_message_id, None
        if seat.user_id is None or message_id is None:
            return
        body = self.body(table, index, deciding=False)
        edit = asyncio.create_task(self._edit_behind(seat.user_id, message_id, body))
        self._behind.add(edit)
        edit.add_done_callback(self._behind.discard)

    async def _edit_behind(self, chat_id: int, message_id: int, body: str) -> None:
        try:
            await self.deps.messenger.edit(chat_id, message_id, body)
        except Exception:  # nobody awaits it: say so rather than lose it
            log.exception("retiring hand message %s of %s failed", message_id, chat_id)

    async def shutdown(self) -> None:
        """Let the edits made behind go out."""
        for edit in list(self._behind):
            await edit

    async def retire_all(self, table: Table) -> None:
        if not table.dealt:
            return
        for index, seat in enumerate(table.seats):
            if seat.live_message_id is not None:
                seat.takeover = seat.takeover and not table.engine.over
                await self.retire(table, index, "")
        await self.save(table)
