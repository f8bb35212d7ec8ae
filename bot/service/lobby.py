"""Lobbies: opening a game in a group, seats, joining through the deep link, starting.

A mixin of :class:`bot.service.service.GameService`, which holds the state it uses.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from bot.callbacks import Act, Callback
from bot.render import lobby_keyboard, lobby_text, variant_name
from bot.service.base import Reply, Scheduler, UserInfo, timer_name
from bot.service.outbox import Delivery, Messenger
from bot.service.settlement import charge_deserters
from bot.service.tables import Seat, Table
from bot.storage import Database, OpenGameExistsError
from bot.strings import Lang, text
from bot.variants import VARIANTS, Variant


class LobbyMixin:
    # state and steps of the game service this part uses (GameService provides them)
    db: Database
    messenger: Messenger
    scheduler: Scheduler
    bot_username: str
    is_admin: Callable[[int, int], Awaitable[bool]]
    clock: Callable[[], float]
    tables: dict[int, Table]
    by_chat: dict[int, int]
    by_user: dict[int, int]
    _players: dict[str, Any]
    _background: set[asyncio.Task[None]]

    if TYPE_CHECKING:

        async def remember(self, user: UserInfo) -> Lang: ...
        async def language(self, user: UserInfo) -> Lang: ...
        async def _start(self, table: Table) -> None: ...
        async def _retire_all(self, table: Table) -> None: ...

    def deep_link(self, game_id: int) -> str:
        return f"https://t.me/{self.bot_username}?start=j{game_id}"

    # ---- lobby -------------------------------------------------------------------------

    async def new_game(
        self,
        *,
        chat_id: int,
        chat_title: str,
        opener: UserInfo,
        variant: Variant,
        command_message_id: int | None = None,
    ) -> Reply:
        """Open a lobby; its message answers ``command_message_id`` (the /newgame), if any."""
        lang = await self.remember(opener)
        existing = self.tables.get(self.by_chat.get(chat_id, -1))
        if existing is not None:
            shown = existing.lobby_message_id if existing.status == "lobby" else None
            if existing.channel is not None and existing.status != "lobby":
                shown = existing.channel.table_message_id
            return Reply(
                text(lang, "lobby.already_open", variant=variant_name(lang, existing.variant.name)),
                reply_to=shown,
            )
        try:
            record = await self.db.games.create(
                chat_id=chat_id, variant=variant.name, opener_id=opener.user_id, seats=[], seed=None
            )
        except OpenGameExistsError:  # a second /newgame raced this one
            return Reply(text(lang, "lobby.already_open", variant=variant_name(lang, variant.name)))
        table = Table(
            game_id=record.id,
            chat_id=chat_id,
            chat_title=chat_title,
            variant=variant,
            opener_id=opener.user_id,
            lang=lang,
            seats=[],
        )
        self._register(table)
        player = await self.db.players.get(opener.user_id)
        if player is not None and player.can_message and opener.user_id not in self.by_user:
            await self._seat_human(table, opener, lang, confirm=False)
        await self._post_lobby(table, reply_to=command_message_id)
        return Reply()

    def _register(self, table: Table) -> None:
        self.tables[table.game_id] = table
        self.by_chat[table.chat_id] = table.game_id

    def _unregister(self, table: Table) -> None:
        self.tables.pop(table.game_id, None)
        if self.by_chat.get(table.chat_id) == table.game_id:
            del self.by_chat[table.chat_id]
        for seat in table.seats:
            if seat.user_id is not None and self.by_user.get(seat.user_id) == table.game_id:
                del self.by_user[seat.user_id]
        self.scheduler.cancel(timer_name(table.game_id))
        for index in range(len(table.seats)):  # its computer players go with it (no leak)
            self._players.pop(f"{table.game_id}:{index}", None)

    async def _post_lobby(self, table: Table, reply_to: int | None = None) -> None:
        body = lobby_text(table.lang, table.variant.name, table.labels(), table.size)
        markup = lobby_keyboard(table.lang, table.game_id)
        if table.lobby_message_id is not None:
            delivery = await self.messenger.edit(
                table.chat_id, table.lobby_message_id, body, markup
            )
            if delivery is not Delivery.GONE:
                return
        sent = await self.messenger.send(table.chat_id, body, markup, reply_to=reply_to)
        if sent.message_id is not None:
            table.lobby_message_id = sent.message_id
            await self.db.games.save(table.game_id, lobby_message_id=sent.message_id)

    async def _save_seats(self, table: Table) -> None:
        await self.db.games.update(table.game_id, seats=[seat.record() for seat in table.seats])

    async def _seat_human(
        self, table: Table, user: UserInfo, lang: Lang, *, confirm: bool = True
    ) -> Reply | None:
        """Seat ``user`` if their private chat works; None when seated, else the answer."""
        if confirm:
            sent = await self.messenger.send(
                user.user_id,
                text(
                    lang,
                    "lobby.joined_private",
                    chat=table.chat_title,
                    variant=variant_name(lang, table.variant.name),
                ),
                notify=False,
            )
            if sent.delivery is Delivery.BLOCKED:
                await self.db.players.set_can_message(user_id=user.user_id, can_message=False)
                return Reply(text(lang, "lobby.need_private"), url=self.deep_link(table.game_id))
        table.seats.append(Seat(user.user_id, user.name, language=lang))
        self.by_user[user.user_id] = table.game_id
        await self._save_seats(table)
        return None

    async def join(self, table: Table, user: UserInfo) -> Reply:
        lang = await self.remember(user)
        refused = self._no_seat(table, user, lang)
        if refused is not None:
            return refused
        player = await self.db.players.get(user.user_id)
        if player is None or not player.can_message:
            return Reply(text(lang, "lobby.need_private"), url=self.deep_link(table.game_id))
        refused = await self._seat_human(table, user, lang)
        if refused is not None:
            return refused
        await self._post_lobby(table)
        return Reply(text(lang, "lobby.joined"))

    def _no_seat(self, table: Table, user: UserInfo, lang: Lang) -> Reply | None:
        """Why ``user`` cannot take a seat at ``table`` now, or None if they can."""
        if table.seat_of(user.user_id) is not None:
            return Reply(text(lang, "lobby.already_seated"))
        if user.user_id in self.by_user:
            return Reply(text(lang, "lobby.busy_elsewhere"))
        if table.full:
            return Reply(text(lang, "lobby.full"))
        return None

    async def start_private(self, user: UserInfo, payload: str | None) -> Reply:
        """``/start`` in private: the chat works now; a ``j<game>`` payload seats the user."""
        lang = await self.remember(user)
        await self.db.players.set_can_message(user_id=user.user_id, can_message=True)
        hello = text(
            lang,
            "start.hello",
            shuangkou=variant_name(lang, "shuangkou"),
            paowang=variant_name(lang, "paowang"),
        )
        if not payload or not payload.startswith("j") or not payload[1:].isdigit():
            return Reply(hello)
        table = self.tables.get(int(payload[1:]))
        if table is None or table.status != "lobby":
            return Reply(text(lang, "err.no_game"))
        async with table.lock:
            refused = self._no_seat(table, user, lang)
            if refused is not None:
                return refused
            await self._seat_human(table, user, lang, confirm=False)
            await self._post_lobby(table)
        return Reply(
            text(
                lang,
                "lobby.joined_private",
                chat=table.chat_title,
                variant=variant_name(lang, table.variant.name),
            )
        )

    async def leave_lobby(self, table: Table, user: UserInfo) -> Reply:
        lang = await self.language(user)
        seat = table.seat_of(user.user_id)
        if seat is None:
            return Reply(text(lang, "lobby.not_seated"))
        del table.seats[seat]
        self.by_user.pop(user.user_id, None)
        await self._save_seats(table)
        await self._post_lobby(table)
        return Reply(text(lang, "lobby.left"))

    async def add_computer(self, table: Table, user: UserInfo) -> Reply:
        lang = await self.language(user)
        if table.full:
            return Reply(text(lang, "lobby.full"))
        number = sum(1 for seat in table.seats if seat.is_computer) + 1
        table.seats.append(
            Seat(
                None,
                text(table.lang, "lobby.computer_name", n=number),
                is_computer=True,
                language=table.lang,
            )
        )
        await self._save_seats(table)
        await self._post_lobby(table)
        return Reply()

    async def _may_manage(self, table: Table, user_id: int) -> bool:
        return user_id == table.opener_id or await self.is_admin(table.chat_id, user_id)

    async def cancel(self, table: Table, user: UserInfo) -> Reply:
        lang = await self.language(user)
        if not await self._may_manage(table, user.user_id):
            return Reply(text(lang, "lobby.only_opener"), alert=True)
        table.status = "cancelled"
        async with self.db.transaction():
            await self.db.games.update(table.game_id, status="cancelled", finished_at=self.clock())
            charged = await charge_deserters(self.db, table)
        self._unregister(table)
        if table.lobby_message_id is not None and table.game is None:
            await self.messenger.edit(
                table.chat_id, table.lobby_message_id, text(table.lang, "lobby.cancelled")
            )
        else:
            await self._retire_all(table)
            if table.channel is not None:
                # the group is told once: by the answer to /cancel, not by the table too
                await table.channel.close()
        return Reply(text(lang, "cancel.done_charged" if charged else "cancel.done"))

    async def on_lobby_callback(self, user: UserInfo, callback: Callback) -> Reply:
        table = self.tables.get(callback.game_id)
        lang = await self.language(user)
        if table is None or table.status != "lobby":
            return Reply(text(lang, "err.outdated"))
        async with table.lock:
            if table.status != "lobby":
                return Reply(text(lang, "err.outdated"))
            if callback.act is Act.JOIN:
                return await self.join(table, user)
            if callback.act is Act.LEAVE:
                return await self.leave_lobby(table, user)
            if callback.act is Act.COMPUTER:
                if table.seat_of(user.user_id) is None and not await self._may_manage(
                    table, user.user_id
                ):
                    return Reply(text(lang, "lobby.not_seated"))
                return await self.add_computer(table, user)
            if callback.act is Act.CANCEL:
                return await self.cancel(table, user)
            if callback.act is Act.START:
                if not await self._may_manage(table, user.user_id):
                    return Reply(text(lang, "lobby.only_opener"), alert=True)
                if not table.full:
                    return Reply(text(lang, "lobby.not_full"))
                await self._start(table)
                return Reply()
        return Reply(text(lang, "err.outdated"))

    async def play_again(self, user: UserInfo, callback: Callback) -> Reply:
        """「再来一局」: a new lobby with the finished game's seats, ready to start."""
        lang = await self.remember(user)
        previous = await self.db.games.get(callback.game_id)
        if previous is None or previous.status != "finished":
            return Reply(text(lang, "err.outdated"))
        if previous.seat_of(user.user_id) is None:
            return Reply(text(lang, "lobby.not_seated"))
        if previous.chat_id in self.by_chat:
            return Reply(
                text(lang, "lobby.already_open", variant=variant_name(lang, previous.variant))
            )
        busy = [s for s in previous.seats if s.user_id is not None and s.user_id in self.by_user]
        if busy:
            return Reply(text(lang, "lobby.busy_elsewhere"))
        variant = VARIANTS[previous.variant]
        try:
            record = await self.db.games.create(
                chat_id=previous.chat_id,
                variant=variant.name,
                opener_id=user.user_id,
                seats=list(previous.seats),
                seed=None,
            )
        except OpenGameExistsError:
            return Reply(text(lang, "lobby.already_open", variant=variant_name(lang, variant.name)))
        await self.db.games.update(record.id, previous_game_id=previous.id)
        seats = [Seat.from_record(s) for s in previous.seats]
        table = Table(
            game_id=record.id,
            chat_id=previous.chat_id,
            chat_title="",
            variant=variant,
            opener_id=user.user_id,
            lang=lang,
            seats=seats,
            previous_game_id=previous.id,
        )
        self._register(table)
        for seat in seats:
            if seat.user_id is not None:
                self.by_user[seat.user_id] = table.game_id
        async with table.lock:
            await self._post_lobby(table)
        return Reply()
