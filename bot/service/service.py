"""The game service: tables in progress, their locks, timers and persistence, and what to tell
whom. Handlers call it with decoded input; it answers with a :class:`Reply`.

The flow of one action (design.md): take the table's lock, apply the action to the engine,
append it to the log in one transaction (with the settlement when the game ends), then render:
the actor's hand message, the group's table and lines, the next seat's prompt, the next timer.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from bot.callbacks import Act, Callback
from bot.config import Settings
from bot.game.cards import Card, format_cards
from bot.game.common import Combo, Event, GameOver, IllegalPlay, Played
from bot.render import (
    again_keyboard,
    event_lines,
    hand_keyboard,
    hand_text,
    lobby_text,
    play_button_label,
    play_html,
    ready_keyboard,
    reveal_keyboard,
    table_text,
    takeback_keyboard,
)
from bot.service.base import Reply, Scheduler, UserInfo, timer_name
from bot.service.lobby import LobbyMixin
from bot.service.outbox import Delivery, GroupChannel, Messenger
from bot.service.queries import rank_text, top_text
from bot.service.replay import replay
from bot.service.result_text import desertion_rule, result_text
from bot.service.settlement import Settlement, scored_by_desertion, settle
from bot.service.tables import Seat, Table
from bot.storage import Database, GameRecord
from bot.strings import Lang, language_of, text
from bot.variants import VARIANTS, Action, apply_action, cannot_beat

log = logging.getLogger(__name__)

#: seconds before a failed timer job (a computer's turn, an auto-pass, a time-out) runs again
RETRY = 5.0
#: the least time a player gets for their turn after a restart
RECOVERED_TURN_SECONDS = 15.0


class GameService(LobbyMixin):
    """Every table the bot hosts. One instance per running bot."""

    def __init__(
        self,
        *,
        db: Database,
        messenger: Messenger,
        scheduler: Scheduler,
        settings: Settings,
        bot_username: str,
        is_admin: Callable[[int, int], Awaitable[bool]],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.db = db
        self.messenger = messenger
        self.scheduler = scheduler
        self.settings = settings
        self.bot_username = bot_username
        self.is_admin = is_admin
        self.clock = clock
        self.tables: dict[int, Table] = {}
        self.by_chat: dict[int, int] = {}
        self.by_user: dict[int, int] = {}
        self._players: dict[str, Any] = {}
        self._background: set[asyncio.Task[None]] = set()

    # ---- people ------------------------------------------------------------------------

    async def remember(self, user: UserInfo) -> Lang:
        """Record a user (name, Telegram language) and return their language."""
        record = await self.db.players.upsert(
            user_id=user.user_id,
            name=user.name,
            username=user.username,
            language_code=user.language_code,
        )
        if record.language in ("zh", "en"):
            return record.language  # type: ignore[return-value]
        return language_of(user.language_code, self.settings.default_language)

    async def language(self, user: UserInfo) -> Lang:
        record = await self.db.players.get(user.user_id)
        if record is not None and record.language in ("zh", "en"):
            return record.language  # type: ignore[return-value]
        return language_of(user.language_code, self.settings.default_language)

    async def set_language(self, user: UserInfo, lang: Lang) -> None:
        await self.remember(user)
        await self.db.players.set_language(user_id=user.user_id, language=lang)
        table = self._table_of_user(user.user_id)
        if table is not None:
            seat = table.seat_of(user.user_id)
            if seat is not None:
                table.seats[seat].language = lang

    def _table_of_user(self, user_id: int) -> Table | None:
        game_id = self.by_user.get(user_id)
        return self.tables.get(game_id) if game_id is not None else None

    # ---- starting ----------------------------------------------------------------------

    async def _next_leader(self, table: Table) -> int | None:
        """The leader after a previous game at this table (None: the engine's own rule)."""
        if table.previous_game_id is None:
            return None
        previous = await self.db.games.get(table.previous_game_id)
        if previous is None or previous.status != "finished":
            return None
        game = await self._rebuild(previous)
        if game is None or game.result is None:
            return None
        if table.variant.name == "shuangkou":
            if game.result.outcome == "双扣" or not game.result.finish_order:
                return random.Random(table.seed).randrange(table.size)
            return int(game.result.finish_order[0])
        leader = game.next_game_leader()
        return int(leader) if leader is not None else None

    async def _start(self, table: Table) -> None:
        table.seed = secrets.randbits(62)
        table.leader = await self._next_leader(table)
        table.game = table.variant.deal(table.seed, table.leader)
        table.status = "playing"
        table.started_at = self.clock()
        table.fixed_scores = [None] * table.size
        await self.db.games.update(
            table.game_id,
            status="playing",
            seed=table.seed,
            leader=table.leader,
            started_at=table.started_at,
            seats=[seat.record() for seat in table.seats],
            takeover=[False] * table.size,
            timeouts=[0] * table.size,
            escaped=[False] * table.size,
            fixed_scores=table.fixed_scores,
        )
        if table.lobby_message_id is not None:
            await self.messenger.edit(
                table.chat_id,
                table.lobby_message_id,
                lobby_text(table.lang, table.variant.name, table.labels(), table.size),
            )
        self._open_channel(table)
        await self._deal_out(table)
        if table.game.over:  # 刨王: all four jokers in one hand
            await self._finish(table, [GameOver(table.game.result)])
            return
        await self._advance(table)

    def _open_channel(self, table: Table, table_message_id: int | None = None) -> None:
        limit = self.settings.group_messages_per_minute
        interval = 60.0 / limit
        budget = max(1, limit - max(2, limit // 10))  # room for lobby and command replies

        async def remember_table(message_id: int) -> None:
            await self.db.games.save(table.game_id, table_message_id=message_id)

        table.channel = GroupChannel(
            self.messenger,
            table.chat_id,
            interval=interval,
            budget=budget,
            render_table=lambda: self._render_table(table),
            on_table_message=remember_table,
            table_message_id=table_message_id,
        )
        table.channel.table_changed()

    def _render_table(self, table: Table) -> str:
        view = table.game.view(None)
        return table_text(
            table.lang,
            view,
            table.labels(),
            # plays and passes only: the log also counts the 亮王 answers, and how many there
            # were would tell the group how many seats hold a 大王
            number=len(view.history) + 1,
            reveal_phase=table.gate_open or view.reveal_phase,
        )

    async def _deal_out(self, table: Table) -> None:
        """Every human gets their hand; in 刨王 every human also passes the 亮王 gate."""
        game = table.game
        if table.variant.has_reveal and not game.over:
            table.ready_pending = {i for i, seat in enumerate(table.seats) if seat.is_human}
            for index, seat in enumerate(table.seats):
                if seat.is_human:
                    await self._prompt_gate(table, index)
            if not table.ready_pending:
                await self._close_gate(table)
            else:
                self._arm(table, self.settings.reveal_seconds, self._gate_timeout)
            return
        for index, seat in enumerate(table.seats):
            if seat.is_human and index != game.turn:
                await self._send_hand(table, index, deciding=False)

    # ---- 刨王's 亮王 gate ----------------------------------------------------------------
    # Every human answers before play starts: holders reveal or not, the others press OK.
    # So the group sees the same thing, at the same moments, whoever holds the 大王s.

    async def _prompt_gate(self, table: Table, index: int) -> None:
        seat = table.seats[index]
        view = table.game.view(index)
        holder = index in table.game.reveal_pending
        jokers = sum(1 for card in view.hand if card >> 3 == 17)
        note = text(
            seat.language, "hand.reveal_question" if holder else "hand.no_big_joker", jokers=jokers
        )
        body = hand_text(seat.language, view, table.labels(), deciding=False, note=note)
        markup = (
            reveal_keyboard(seat.language, game_id=table.game_id, version=seat.version)
            if holder
            else ready_keyboard(seat.language, game_id=table.game_id, version=seat.version)
        )
        await self._send_live(table, index, body, markup)

    async def gate_answer(self, table: Table, index: int, reveal: bool | None) -> Reply:
        """A human's answer at the gate: reveal yes/no (holders) or OK (everyone else)."""
        seat = table.seats[index]
        lang = seat.language
        if index not in table.ready_pending:
            return Reply(text(lang, "err.outdated"))
        holder = index in table.game.reveal_pending
        if holder != (reveal is not None):
            return Reply(text(lang, "err.outdated"))
        note = ""
        if holder:
            kind = "reveal" if reveal else "decline"
            events = await self._apply(table, (kind, index, None))
            table.held_lines += event_lines(table.lang, events, table.labels())
            note = text(lang, "ok.revealed" if reveal else "ok.not_revealed")
        else:
            seat.version += 1
        table.ready_pending.discard(index)
        await self._retire(table, index, note)
        if not table.ready_pending:
            await self._close_gate(table)
        return Reply(note)

    async def _gate_timeout(self, table: Table) -> None:
        for index in sorted(table.ready_pending):
            if index in table.game.reveal_pending:
                await self._apply(table, ("decline", index, None))
            else:
                table.seats[index].version += 1
            await self._retire(table, index, "")
        table.ready_pending.clear()
        await self._close_gate(table)

    async def _close_gate(self, table: Table) -> None:
        game = table.game
        for index in list(game.reveal_pending):  # computer holders decide now
            choice = self._computer(table, index).choose_reveal(game.view(index))
            events = await self._apply(table, ("reveal" if choice else "decline", index, None))
            table.held_lines += event_lines(table.lang, events, table.labels())
        for line in table.held_lines:
            assert table.channel is not None
            table.channel.post(line)
        table.held_lines.clear()
        for index, seat in enumerate(table.seats):
            if seat.is_human and index != game.turn and not game.over:
                await self._send_hand(table, index, deciding=False)
        if game.over:
            await self._finish(table, [GameOver(game.result)])
            return
        await self._advance(table)

    # ---- private hand messages -----------------------------------------------------------

    async def _send_live(self, table: Table, index: int, body: str, markup: Any) -> None:
        """Send a seat a new message with buttons (it notifies); the old one is retired."""
        seat = table.seats[index]
        if seat.user_id is None or seat.gone:
            return
        if seat.live_message_id is not None:
            await self._retire(table, index, "")
        sent = await self.messenger.send(seat.user_id, body, markup)
        if sent.delivery is Delivery.BLOCKED:
            await self._blocked(table, index)
            return
        seat.live_message_id = sent.message_id
        await self._save_hand_messages(table)

    async def _save_hand_messages(self, table: Table) -> None:
        """Store which messages have live buttons, with the turn's deadline (one statement):
        a restart takes those buttons off and gives the seat to act its remaining time."""
        ids = {i: s.live_message_id for i, s in enumerate(table.seats) if s.live_message_id}
        await self.db.games.save(table.game_id, hand_message_ids=ids, deadline=table.deadline)

    def _hand_body(self, table: Table, index: int, *, deciding: bool, note: str = "") -> str:
        seat = table.seats[index]
        view = table.game.view(index)
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

    def _hand_markup(self, table: Table, index: int) -> Any:
        seat = table.seats[index]
        view = table.game.view(index)
        hand = sorted(view.hand)
        chosen = [hand[i] for i in sorted(seat.selected) if i < len(hand)]
        combo = self._classify(table, index, chosen) if chosen else None
        label = play_button_label(
            seat.language, table.variant.name, combo, bool(chosen), table.game.on_table
        )
        return hand_keyboard(
            seat.language,
            game_id=table.game_id,
            version=seat.version,
            hand=hand,
            selected=seat.selected,
            play_label=label,
            can_pass=table.game.can_pass(index),
        )

    def _classify(self, table: Table, index: int, cards: Sequence[Card]) -> Combo | None:
        view = table.game.view(index)
        revealed = bool(view.revealed and view.revealed[index])
        return table.variant.classify(cards, revealed)

    async def _send_hand(self, table: Table, index: int, *, deciding: bool, note: str = "") -> None:
        seat = table.seats[index]
        if seat.user_id is None or seat.gone:
            return
        body = self._hand_body(table, index, deciding=deciding, note=note)
        if deciding:
            await self._send_live(table, index, body, self._hand_markup(table, index))
        elif seat.takeover:
            markup = takeback_keyboard(seat.language, game_id=table.game_id)
            await self._send_live(table, index, body, markup)
        else:
            sent = await self.messenger.send(seat.user_id, body, notify=False)
            if sent.delivery is Delivery.BLOCKED:
                await self._blocked(table, index)

    async def _refresh_live(self, table: Table, index: int) -> None:
        """Re-render the deciding seat's live message (after a selection change)."""
        seat = table.seats[index]
        if seat.user_id is None or seat.live_message_id is None:
            return
        body = self._hand_body(table, index, deciding=True)
        delivery = await self.messenger.edit(
            seat.user_id, seat.live_message_id, body, self._hand_markup(table, index)
        )
        if delivery is Delivery.GONE:
            seat.live_message_id = None
            await self._send_hand(table, index, deciding=True)

    async def _retire(self, table: Table, index: int, note: str) -> None:
        """Turn a seat's live message into a plain record of the hand (no buttons)."""
        seat = table.seats[index]
        message_id, seat.live_message_id = seat.live_message_id, None
        if seat.user_id is None or message_id is None:
            return
        body = self._hand_body(table, index, deciding=False, note=note)
        if seat.takeover and not table.game.over:
            markup = takeback_keyboard(seat.language, game_id=table.game_id)
            await self.messenger.edit(seat.user_id, message_id, body, markup)
            seat.live_message_id = message_id
            return
        await self.messenger.edit(seat.user_id, message_id, body)

    async def _retire_all(self, table: Table) -> None:
        for index, seat in enumerate(table.seats):
            if seat.live_message_id is not None and table.game is not None:
                seat.takeover = seat.takeover and not table.game.over
                await self._retire(table, index, "")
        if table.game is not None:
            await self._save_hand_messages(table)

    # ---- actions ---------------------------------------------------------------------------

    async def _apply(self, table: Table, action: Action) -> list[Event]:
        """Apply an action to the engine and log it durably (one transaction).

        Raises IllegalPlay (nothing changed). If the database write fails, the engine is
        rebuilt from the log so memory and storage never disagree.
        """
        kind, index, _ = action
        events = apply_action(table.game, action)
        if kind == "play":
            played = next(e for e in events if isinstance(e, Played))
            action = ("play", index, format_cards(played.combo.cards))
        table.log.append(action)
        seat = table.seats[index]
        seat.version += 1
        seat.reset_private()
        entry = {
            "game_id": table.game_id,
            "seq": table.seq - 1,
            "seat": index,
            "kind": action[0],
            "cards": action[2],
            "at": self.clock(),
        }
        try:
            if table.game.over:  # the last action and the settlement: all or nothing
                async with self.db.transaction():
                    await self.db.actions.append(**entry)
                    await self._settle(table)
            else:  # one INSERT is atomic by itself
                await self.db.actions.append(**entry)
        except Exception:
            table.log.pop()
            seat.version -= 1
            table.game = replay(table.variant, table.seed, table.leader, None, table.log)
            raise
        return events

    async def _outdated(self, user: UserInfo, lang: Lang, message_id: int | None) -> Reply:
        """An old button was pressed: say so, and take the buttons off that old message."""
        if message_id is not None:
            await self.messenger.clear_buttons(user.user_id, message_id)
        return Reply(text(lang, "err.outdated"))

    async def on_hand_callback(
        self, user: UserInfo, callback: Callback, message_id: int | None = None
    ) -> Reply:
        """A button of a private hand message. ``message_id``: the message it was on."""
        table = self.tables.get(callback.game_id)
        # a seat's language is on the seat: the database is asked only for strangers
        if table is None or table.status != "playing" or table.game is None:
            return await self._outdated(user, await self.language(user), message_id)
        index = table.seat_of(user.user_id)
        if index is None:
            return Reply(text(await self.language(user), "err.not_yours"), alert=True)
        async with table.lock:
            seat = table.seats[index]
            lang = seat.language
            if table.status != "playing":
                return Reply(text(lang, "err.game_over"))
            if callback.act is Act.TAKEBACK:
                return await self._takeback(table, index)
            if callback.version != seat.version:
                stale = message_id if message_id != seat.live_message_id else None
                return await self._outdated(user, lang, stale)
            if callback.act is Act.REVEAL:
                return await self.gate_answer(table, index, bool(callback.arg))
            if callback.act is Act.READY:
                return await self.gate_answer(table, index, None)
            if table.gate_open:
                return Reply(text(lang, "err.reveal_pending"))
            if seat.takeover:
                return Reply(text(lang, "hand.takeover_on"))
            if callback.act in (Act.TOGGLE, Act.CLEAR) and table.game.turn != index:
                return Reply(text(lang, "err.not_your_turn"))  # cards are chosen on one's turn
            if callback.act is Act.TOGGLE:
                return await self._toggle(table, index, callback.arg)
            if callback.act is Act.CLEAR:
                if seat.selected:  # clearing nothing would be an identical edit (a 400)
                    seat.selected.clear()
                    await self._refresh_live(table, index)
                return Reply(text(lang, "ok.selected", count=0))
            if callback.act is Act.HINT:
                return await self._hint(table, index)
            if callback.act is Act.PLAY:
                hand = sorted(table.game.hands[index])
                cards = [hand[i] for i in sorted(seat.selected) if i < len(hand)]
                if not cards:
                    return Reply(text(lang, "err.nothing_selected"))
                return await self._human_play(table, index, cards)
            if callback.act is Act.PASS:
                return await self._human_pass(table, index)
        return Reply(text(lang, "err.outdated"))

    async def _toggle(self, table: Table, index: int, arg: int | None) -> Reply:
        seat = table.seats[index]
        hand_size = len(table.game.hands[index])
        if arg is None or not 0 <= arg < hand_size:
            return Reply(text(seat.language, "err.outdated"))
        seat.selected ^= {arg}
        await self._refresh_live(table, index)
        return Reply(text(seat.language, "ok.selected", count=len(seat.selected)))

    async def _hint(self, table: Table, index: int) -> Reply:
        seat = table.seats[index]
        if table.game.turn != index:
            return Reply(text(seat.language, "err.not_your_turn"))
        plays = table.variant.legal_plays(table.game.view(index))
        if not plays:
            return Reply(text(seat.language, "ok.no_hint"))
        plays.sort(key=_hint_order)
        seat.hint_index = (seat.hint_index + 1) % len(plays)
        combo = plays[seat.hint_index]
        selected = _indexes_of(sorted(table.game.hands[index]), combo.cards)
        if selected != seat.selected:  # the same cards again: an identical edit is a 400
            seat.selected = selected
            await self._refresh_live(table, index)
        play = play_html(seat.language, table.variant.name, combo, table.game.on_table)
        return Reply(text(seat.language, "ok.hint", play=play))

    async def _human_play(self, table: Table, index: int, cards: Sequence[Card]) -> Reply:
        seat = table.seats[index]
        beaten = table.game.on_table
        try:
            events = await self._apply(table, ("play", index, format_cards(cards)))
        except IllegalPlay as error:
            return Reply(_refusal(seat.language, error))
        seat.timeouts = 0
        played = next(e for e in events if isinstance(e, Played))
        play = play_html(seat.language, table.variant.name, played.combo, beaten)
        note = text(seat.language, "hand.you_played", play=play)
        await self._after(table, index, events, note)
        return Reply(
            text(seat.language, "ok.played", play=format_cards(sorted(played.combo.cards))),
            accepted=True,
        )

    async def _human_pass(self, table: Table, index: int) -> Reply:
        seat = table.seats[index]
        try:
            events = await self._apply(table, ("pass", index, None))
        except IllegalPlay as error:
            return Reply(_refusal(seat.language, error))
        seat.timeouts = 0
        await self._after(table, index, events, text(seat.language, "hand.you_passed"))
        return Reply(text(seat.language, "ok.passed"), accepted=True)

    async def typed_play(self, user: UserInfo, message: str) -> Reply | None:
        """A play typed in the private chat; None when the user has no game (not for us)."""
        from bot.game.textplay import is_pass, parse_play_text

        table = self._table_of_user(user.user_id)
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
            if table.game.turn != index:
                return Reply(text(lang, "err.not_your_turn"))
            if is_pass(message):
                reply = await self._human_pass(table, index)
                return Reply() if reply.accepted else reply
            try:
                cards = parse_play_text(message)
            except ValueError:
                return Reply(text(lang, "err.bad_text", text=_quote(message)))
            if not cards:
                return Reply(text(lang, "err.bad_text", text=_quote(message)))
            reply = await self._human_play(table, index, cards)
            return Reply() if reply.accepted else reply

    async def _after(self, table: Table, index: int, events: list[Event], note: str) -> None:
        """Render an accepted action and move the table on."""
        # the retired message's id is stored with the next prompt's (one write per action);
        # should the bot stop before that, a restart edits the retired message once more
        await self._retire(table, index, note)
        assert table.channel is not None
        for line in event_lines(table.lang, events, table.labels()):
            table.channel.post(line)
        if table.game.over:
            await self._finish(table, events)
            return
        await self._advance(table)

    async def _advance(self, table: Table) -> None:
        """Prompt whoever acts next, or let the computer act; arm the timer."""
        assert table.channel is not None
        table.channel.table_changed()
        game = table.game
        index = game.turn
        if index is None or game.over:
            return
        seat = table.seats[index]
        if not seat.plays_itself:
            self._arm(table, self.settings.computer_delay, self._computer_turn)
            return
        if self._cannot_beat(table, index):
            self._arm(table, self.settings.computer_delay, self._auto_pass)
            return
        # stored with the prompt's message id, by _send_live
        table.deadline = self.clock() + self.settings.turn_seconds
        await self._send_hand(table, index, deciding=True)
        if not seat.plays_itself:  # the prompt found them gone (blocked): the computer's turn
            return  # is armed already (_abandon advanced), and must not become a time-out
        self._arm(table, self.settings.turn_seconds, self._turn_timeout)

    def _cannot_beat(self, table: Table, index: int) -> bool:
        """要不起: the seat may pass and holds nothing that beats the table (where it shows)."""
        return (
            self.settings.auto_pass
            and table.variant.auto_passes
            and table.game.can_pass(index)
            and cannot_beat(table.game, index)
        )

    def _decides(self, table: Table, index: int) -> bool:
        """Whether the seat's player is asked now (a live hand message with buttons)."""
        return (
            table.game.turn == index
            and table.seats[index].plays_itself
            and not self._cannot_beat(table, index)
        )

    async def _auto_pass(self, table: Table) -> None:
        """Pass for a player who cannot beat the table, without asking them."""
        index = table.game.turn
        if index is None:
            return
        if not self._cannot_beat(table, index):  # cannot happen as things stand; never stall
            await self._advance(table)
            return
        events = await self._apply(table, ("pass", index, None))
        await self._after_silent(table, events)

    def _arm(self, table: Table, delay: float, job: Callable[[Table], Awaitable[None]]) -> None:
        seq = table.seq
        game_id = table.game_id

        async def fire() -> None:
            current = self.tables.get(game_id)
            if current is None:
                return
            async with current.lock:
                if current.seq != seq or current.status != "playing":
                    return  # something happened since: this timer is stale
                try:
                    await job(current)
                except Exception:
                    # never leave the table waiting for a timer that is gone
                    log.exception("timer of table %s failed; again in %.0f s", game_id, RETRY)
                    if current.seq == seq:  # nothing was applied (the write was refused, say)
                        self._arm(current, RETRY, job)
                    else:  # the action went through, what follows it did not: move on
                        self._arm(current, RETRY, self._advance)

        self.scheduler.schedule(timer_name(game_id), delay, fire)

    def _computer(self, table: Table, index: int) -> Any:
        from bot.game.players import make_player

        key = f"{table.game_id}:{index}"
        player = self._players.get(key)
        if player is None:
            player = make_player("ai", seed=(table.seed or 0) + index)
            self._players[key] = player
        return player

    def _computer_choice(self, table: Table, index: int) -> Action:
        game = table.game
        view = game.view(index)
        try:
            combo = self._computer(table, index).choose(view)
        except Exception:  # a player bug must not stall the table: fall back to the simplest
            log.exception("computer player failed; falling back")
            combo = None
        if combo is None and not game.can_pass(index):
            plays = table.variant.legal_plays(view)
            combo = min(plays, key=_hint_order)
        if combo is None:
            return ("pass", index, None)
        return ("play", index, format_cards(combo.cards))

    async def _computer_turn(self, table: Table) -> None:
        index = table.game.turn
        if index is None:
            return
        events = await self._apply(table, self._computer_choice(table, index))
        await self._after_silent(table, events)

    async def _after_silent(self, table: Table, events: list[Event]) -> None:
        assert table.channel is not None
        for line in event_lines(table.lang, events, table.labels()):
            table.channel.post(line)
        if table.game.over:
            await self._finish(table, events)
            return
        await self._advance(table)

    async def _turn_timeout(self, table: Table) -> None:
        """The seat to act ran out of time: pass if it may, else the computer's lead."""
        index = table.game.turn
        if index is None:
            return
        seat = table.seats[index]
        can_pass = table.game.can_pass(index)
        action = ("pass", index, None) if can_pass else self._computer_choice(table, index)
        events = await self._apply(table, action)
        seat.timeouts += 1
        assert table.channel is not None
        key = "event.timeout_pass" if can_pass else "event.timeout_play"
        table.channel.post(
            text(
                table.lang, "event.timeout", name=seat.label().html(), action=text(table.lang, key)
            )
        )
        if seat.timeouts >= 2 and not seat.takeover:
            seat.takeover = True
            table.channel.post(text(table.lang, "event.takeover", name=seat.label().html()))
        await self._save_flags(table)
        note = text(seat.language, "hand.you_passed") if can_pass else ""
        await self._retire(table, index, note)
        await self._after_silent(table, events)

    async def _save_flags(self, table: Table) -> None:
        await self.db.games.save(
            table.game_id,
            takeover=[s.takeover for s in table.seats],
            timeouts=[s.timeouts for s in table.seats],
            escaped=[s.escaped for s in table.seats],
            fixed_scores=table.fixed_scores,
        )

    async def _takeback(self, table: Table, index: int) -> Reply:
        seat = table.seats[index]
        if not seat.takeover or seat.gone:
            return Reply(text(seat.language, "err.outdated"))
        seat.takeover = False
        seat.timeouts = 0
        await self._save_flags(table)
        assert table.channel is not None
        table.channel.post(text(table.lang, "event.takeback", name=seat.label().html()))
        table.channel.table_changed()
        await self._retire(table, index, "")
        if table.game.turn == index and not table.gate_open:
            await self._advance(table)
        return Reply(text(seat.language, "ok.takeback"))

    # ---- people leaving ----------------------------------------------------------------

    async def _abandon(self, table: Table, index: int, key: str) -> None:
        """The seat's player is gone (left, kicked, blocked): the computer takes over."""
        seat = table.seats[index]
        if seat.gone:
            return
        if self._out_of_cards(table, index):
            await self._release(table, index)
            return
        seat.escaped = True
        seat.takeover = True
        counted_before = not scored_by_desertion(table)
        table.fixed_scores = list(
            table.variant.desertion_scores(
                table.game,
                index,
                table.fixed_scores,
                seconds=self.clock() - (table.started_at or self.clock()),
            )
        )
        await self._save_flags(table)
        self._forget_user(table, index)
        assert table.channel is not None
        table.channel.post(text(table.lang, key, name=seat.label().html()))
        if counted_before and scored_by_desertion(table):  # 刨王: the game stops counting
            rule = desertion_rule(table.lang, table.fixed_scores)
            table.channel.post(text(table.lang, "event.unscored", rule=rule))
        table.channel.table_changed()
        if table.gate_open and index in table.ready_pending:
            table.ready_pending.discard(index)
            if not table.ready_pending:
                await self._close_gate(table)
                return
        if table.game.turn == index and not table.gate_open:
            await self._advance(table)

    @staticmethod
    def _out_of_cards(table: Table, index: int) -> bool:
        return table.game is not None and not table.game.over and not table.game.hands[index]

    def _forget_user(self, table: Table, index: int) -> None:
        user_id = table.seats[index].user_id
        if user_id is not None and self.by_user.get(user_id) == table.game_id:
            del self.by_user[user_id]

    async def _release(self, table: Table, index: int) -> None:
        """A player who is out of cards goes: they have nothing left to decide, so it is no
        逃跑; the game is scored as it ends. They may join another game at once."""
        seat = table.seats[index]
        seat.left = True
        self._forget_user(table, index)
        assert table.channel is not None
        table.channel.post(text(table.lang, "event.left_out", name=seat.label().html()))

    async def _blocked(self, table: Table, index: int) -> None:
        seat = table.seats[index]
        if seat.user_id is not None:
            await self.db.players.set_can_message(user_id=seat.user_id, can_message=False)
        seat.live_message_id = None
        if table.status == "playing":
            await self._abandon(table, index, "event.escaped")

    async def private_chat_changed(self, user: UserInfo, *, works: bool) -> None:
        """Telegram says a user blocked (or unblocked) the bot in their private chat.

        A blocked player in a game is gone at once: the computer takes the seat (逃跑), so
        the table does not wait for the turn timer to notice.
        """
        await self.remember(user)
        await self.db.players.set_can_message(user_id=user.user_id, can_message=works)
        if works:
            return
        table = self._table_of_user(user.user_id)
        if table is None:
            return
        async with table.lock:
            index = table.seat_of(user.user_id)
            if index is None:
                return
            if table.status == "lobby":
                del table.seats[index]
                self.by_user.pop(user.user_id, None)
                await self._save_seats(table)
                await self._post_lobby(table)
            elif table.status == "playing":
                await self._blocked(table, index)

    async def leave(self, user: UserInfo) -> Reply:
        lang = await self.language(user)
        table = self._table_of_user(user.user_id)
        if table is None:
            return Reply(text(lang, "err.no_game"))
        async with table.lock:
            index = table.seat_of(user.user_id)
            if index is None:
                return Reply(text(lang, "err.no_game"))
            if table.status == "lobby":
                return await self.leave_lobby(table, user)
            key = "leave.done_out" if self._out_of_cards(table, index) else "leave.done"
            await self._retire(table, index, text(lang, key))
            await self._abandon(table, index, "event.escaped")
        return Reply(text(lang, key))

    async def kick(self, chat_id: int, admin: UserInfo, target_id: int) -> Reply:
        lang = await self.language(admin)
        table = self.tables.get(self.by_chat.get(chat_id, -1))
        if table is None or table.status != "playing":
            return Reply(text(lang, "err.no_game"))
        async with table.lock:
            if not await self._may_manage(table, admin.user_id):
                return Reply(text(lang, "err.not_admin"))
            index = table.seat_of(target_id)
            if index is None:
                return Reply(text(lang, "lobby.not_seated"))
            await self._retire(table, index, "")
            await self._abandon(table, index, "event.kicked")
        return Reply()

    async def cancel_in_chat(self, chat_id: int, user: UserInfo) -> Reply:
        lang = await self.language(user)
        table = self.tables.get(self.by_chat.get(chat_id, -1))
        if table is None:
            return Reply(text(lang, "err.no_game"))
        async with table.lock:
            return await self.cancel(table, user)

    async def resend_hand(self, user: UserInfo) -> Reply:
        lang = await self.language(user)
        table = self._table_of_user(user.user_id)
        if table is None or table.status != "playing":
            return Reply(text(lang, "err.no_game"))
        async with table.lock:
            index = table.seat_of(user.user_id)
            if index is None:
                return Reply(text(lang, "err.no_game"))
            if table.gate_open and index in table.ready_pending:
                await self._prompt_gate(table, index)
            else:
                await self._send_hand(table, index, deciding=self._decides(table, index))
        return Reply()

    # ---- the end -------------------------------------------------------------------------

    async def _settle(self, table: Table) -> Settlement:
        """Settle with the bot's adjustments, inside the transaction of the last action."""
        settlement = await settle(
            self.db, table, now=self.clock(), min_game_seconds=self.settings.min_game_seconds
        )
        table.settlement = settlement
        return settlement

    async def _finish(self, table: Table, events: list[Event]) -> None:
        settlement = table.settlement
        if settlement is None:  # a game over from the deal (four jokers): nothing logged yet
            async with self.db.transaction():
                settlement = await self._settle(table)
        table.status = "finished"
        self.scheduler.cancel(timer_name(table.game_id))
        assert table.channel is not None
        table.channel.stop_following()  # the result, with its button, stays the last message
        table.channel.post(
            result_text(table, settlement),
            again_keyboard(table.lang, game_id=table.game_id),
        )
        table.channel.table_changed()
        await self._retire_all(table)
        self._unregister(table)
        # the channel's last posts may wait for the group's pace: close it when drained
        closing = asyncio.create_task(table.channel.close())
        self._background.add(closing)
        closing.add_done_callback(self._background.discard)
        log.info("game %s finished: %s", table.game_id, table.game.result.outcome)

    # ---- restart -------------------------------------------------------------------------

    async def _rebuild(self, record: GameRecord) -> Any:
        if record.seed is None and record.hands is None:
            return None
        actions = [(a.kind, a.seat, a.cards) for a in await self.db.actions.list(record.id)]
        seed = int(record.seed) if record.seed is not None else None
        return replay(VARIANTS[record.variant], seed, record.leader, record.hands, actions)

    async def recover(self) -> int:
        """Rebuild every unfinished lobby and game from the database; returns how many."""
        count = 0
        for record in await self.db.games.unfinished():
            try:
                await self._recover_one(record)
                count += 1
            except Exception:
                log.exception("could not recover game %s", record.id)
        return count

    async def _recover_one(self, record: GameRecord) -> None:
        variant = VARIANTS[record.variant]
        seats = [Seat.from_record(s) for s in record.seats]
        for index, seat in enumerate(seats):
            seat.takeover = bool(record.takeover[index]) if index < len(record.takeover) else False
            seat.timeouts = int(record.timeouts[index]) if index < len(record.timeouts) else 0
            seat.escaped = bool(record.escaped[index]) if index < len(record.escaped) else False
            seat.live_message_id = record.hand_message_ids.get(index)
        opener_lang: Lang = seats[0].language if seats else self.settings.default_language
        table = Table(
            game_id=record.id,
            chat_id=record.chat_id,
            chat_title="",
            variant=variant,
            opener_id=record.opener_id,
            lang=opener_lang,
            seats=seats,
            status=record.status,
            lobby_message_id=record.lobby_message_id,
            previous_game_id=record.previous_game_id,
        )
        self._register(table)
        for seat in seats:
            if seat.user_id is not None and not seat.escaped:
                self.by_user[seat.user_id] = table.game_id
        if record.status == "lobby":
            return
        table.seed = int(record.seed) if record.seed is not None else None
        table.leader = record.leader
        table.started_at = record.started_at
        table.deadline = record.deadline
        actions = [(a.kind, a.seat, a.cards) for a in await self.db.actions.list(record.id)]
        table.game = replay(variant, table.seed, table.leader, record.hands, [])
        for action in actions:
            apply_action(table.game, action)
            table.log.append(action)
            table.seats[action[1]].version += 1
        table.fixed_scores = self._recovered_fixed_scores(table, record)
        async with table.lock:
            # what the old table message shows is unknown after a crash (an identical edit
            # is an error): post a fresh one and delete the old
            if record.table_message_id is not None:
                await self.messenger.delete(table.chat_id, record.table_message_id)
            self._open_channel(table)
            if variant.has_reveal and table.game.reveal_phase:
                pending = {i for i, s in enumerate(seats) if s.is_human and not s.escaped}
                answered = {a[1] for a in actions if a[0] in ("reveal", "decline")}
                table.ready_pending = {i for i in pending if i not in answered}
                for index in sorted(table.ready_pending):
                    await self._prompt_gate(table, index)
                if table.ready_pending:
                    self._arm(table, self.settings.reveal_seconds, self._gate_timeout)
                else:
                    await self._close_gate(table)
                return
            if table.game.over:  # finished in the log but not settled: settle now
                await self._finish(table, [GameOver(table.game.result)])
                return
            # bring every live hand message up to date: the old buttons carry old versions
            for index, seat in enumerate(seats):
                if seat.live_message_id is not None and index != table.game.turn:
                    await self._retire(table, index, "")
            turn = table.game.turn
            if turn is not None and self._decides(table, turn):
                remaining = self.settings.turn_seconds
                if record.deadline is not None:
                    # the stored deadline may be an earlier turn's (the bot stopped between
                    # an action and the next prompt): a restart leaves a player some time
                    floor = min(self.settings.turn_seconds, RECOVERED_TURN_SECONDS)
                    remaining = max(floor, record.deadline - self.clock())
                table.deadline = self.clock() + remaining
                await self._send_hand(table, turn, deciding=True)
                self._arm(table, remaining, self._turn_timeout)
            else:
                await self._advance(table)

    def _recovered_fixed_scores(self, table: Table, record: GameRecord) -> list[int | None]:
        """The scores desertions fixed, as stored. A game stored before they were (schema
        version 1) has only its 逃跑 flags: those seats are priced now, as deserters of the
        game as it stands."""
        if len(record.fixed_scores) == table.size:
            return list(record.fixed_scores)
        fixed: list[int | None] = [None] * table.size
        elapsed = self.clock() - (table.started_at or self.clock())
        for index, seat in enumerate(table.seats):
            if seat.escaped:
                fixed = list(
                    table.variant.desertion_scores(table.game, index, fixed, seconds=elapsed)
                )
        return fixed

    async def shutdown(self) -> None:
        for table in list(self.tables.values()):
            self.scheduler.cancel(timer_name(table.game_id))
            if table.channel is not None:
                await table.channel.close()
        for task in list(self._background):
            await task

    # ---- queries ---------------------------------------------------------------------------

    async def rank(self, user: UserInfo) -> str:
        lang = await self.remember(user)
        return await rank_text(self.db, user.user_id, user.name, lang)

    async def top(self, chat_id: int, user: UserInfo) -> str:
        return await top_text(self.db, chat_id, await self.language(user))


# ---- small helpers -----------------------------------------------------------------------


def _escape(value: str) -> str:
    from html import escape

    return escape(value)


def _quote(message: str) -> str:
    return _escape(message[:40])


def _refusal(lang: Lang, error: IllegalPlay) -> str:
    return text(lang, f"err.{error.reason.value}")


def _hint_order(combo: Combo) -> tuple[int, int, int, int]:
    """Cheapest first: non-bombs before bombs, then by tier/key, then fewer cards."""
    bomb = combo.kind in ("bomb", "triple_bomb", "joker_bomb", "ladder")
    return (int(bomb), combo.tier, combo.key, len(combo.cards))


def _indexes_of(hand: Sequence[Card], cards: Sequence[Card]) -> set[int]:
    chosen: set[int] = set()
    for card in cards:
        for index, held in enumerate(hand):
            if index not in chosen and held == card:
                chosen.add(index)
                break
    return chosen


__all__ = ["GameService", "Reply", "Scheduler", "Settlement", "UserInfo"]
