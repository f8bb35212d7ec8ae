"""Lobbies: opening a game in a group, seats, joining through the deep link, starting,
cancelling, and 「再来一局」."""

from __future__ import annotations

from html import escape

from bot.game.variants import VARIANTS, Variant
from bot.presentation.callbacks import Act, Callback
from bot.presentation.render import lobby_keyboard, lobby_text, variant_name
from bot.presentation.strings import Lang, text
from bot.service.base import Delivery, Reply, UserInfo
from bot.service.deps import Deps
from bot.service.events import Closed
from bot.service.group_settings import GroupSettings
from bot.service.hands import HandMessages
from bot.service.join_links import game_of_payload, join_payload, link_key
from bot.service.people import People
from bot.service.settlement import charge_deserters
from bot.service.starting import TableStart
from bot.service.tables import Seat, Table
from bot.storage import OpenGameExistsError


class Lobby:
    def __init__(
        self,
        deps: Deps,
        people: People,
        group_settings: GroupSettings,
        starting: TableStart,
        hands: HandMessages,
    ) -> None:
        self.deps = deps
        self.people = people
        self.group_settings = group_settings
        self.starting = starting
        self.hands = hands

    def deep_link(self, game_id: int) -> str:
        payload = join_payload(self._link_key, game_id)
        return f"https://t.me/{self.deps.bot_username}?start={payload}"

    @property
    def _link_key(self) -> bytes:
        return link_key(self.deps.settings.token)

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
        lang = await self.people.remember(opener)
        options = await self.group_settings.options(chat_id)
        existing = self.deps.registry.in_chat(chat_id)
        if existing is not None:
            shown = existing.lobby_message_id if existing.status == "lobby" else None
            if existing.has_channel and existing.status != "lobby":
                shown = existing.channel.table_message_id
            return Reply(
                text(lang, "lobby.already_open", variant=variant_name(lang, existing.variant.name)),
                reply_to=shown,
            )
        try:
            record = await self.deps.db.games.create(
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
            lang=options.language or lang,  # the group's posts: its chosen language
            seats=[],
            options=options,
        )
        self.deps.registry.add(table)
        player = await self.deps.db.players.get(opener.user_id)
        free = not self.deps.registry.busy(opener.user_id)
        if player is not None and player.can_message and free:
            await self._seat_human(table, opener, lang, confirm=False)
        await self._post_lobby(table, reply_to=command_message_id)
        return Reply()

    async def _post_lobby(self, table: Table, reply_to: int | None = None) -> None:
        body = lobby_text(table.lang, table.variant.name, table.labels(), table.size)
        options = await self.group_settings.options(table.chat_id)
        markup = lobby_keyboard(table.lang, table.game_id, computers=options.computers)
        if table.lobby_message_id is not None:
            delivery = await self.deps.messenger.edit(
                table.chat_id, table.lobby_message_id, body, markup
            )
            if delivery is not Delivery.GONE:
                return
        sent = await self.deps.messenger.send(table.chat_id, body, markup, reply_to=reply_to)
        if sent.message_id is not None:
            table.lobby_message_id = sent.message_id
            await self.deps.db.games.save(table.game_id, lobby_message_id=sent.message_id)

    async def _save_seats(self, table: Table) -> None:
        seats = [seat.record() for seat in table.seats]
        await self.deps.db.games.update(table.game_id, seats=seats)

    async def _seat_human(
        self, table: Table, user: UserInfo, lang: Lang, *, confirm: bool = True
    ) -> Reply | None:
        """Seat ``user`` if they sit nowhere and their private chat works; None when seated,
        else the answer.

        The seat is taken in memory before anything is awaited, so that two presses in two
        groups in the same moment cannot both pass the check: the second finds the user busy.
        """
        refused = self._no_seat(table, user, lang)
        if refused is not None:
            return refused
        table.seats.append(Seat(user.user_id, user.name, language=lang))
        self.deps.registry.seat(table, user.user_id)
        if confirm:
            sent = await self.deps.messenger.send(
                user.user_id,
                text(
                    lang,
                    "lobby.joined_private",
                    chat=escape(table.chat_title),
                    variant=variant_name(lang, table.variant.name),
                ),
                notify=False,
            )
            if sent.delivery is Delivery.BLOCKED:
                index = table.seat_of(user.user_id)
                if index is not None and table.status == "lobby":
                    self.deps.registry.unseat(table, index)
                    del table.seats[index]
                await self.deps.db.players.set_can_message(user_id=user.user_id, can_message=False)
                return Reply(text(lang, "lobby.need_private"), url=self.deep_link(table.game_id))
        await self._save_seats(table)
        return None

    async def join(self, table: Table, user: UserInfo) -> Reply:
        lang = await self.people.remember(user)
        refused = self._no_seat(table, user, lang)
        if refused is not None:
            return refused
        player = await self.deps.db.players.get(user.user_id)
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
        if self.deps.registry.busy(user.user_id):
            return Reply(text(lang, "lobby.busy_elsewhere"))
        if table.full:
            return Reply(text(lang, "lobby.full"))
        return None

    async def start_private(self, user: UserInfo, payload: str | None) -> Reply:
        """``/start`` in private: the chat works now; a ``j<game>`` payload seats the user."""
        lang = await self.people.remember(user)
        await self.deps.db.players.set_can_message(user_id=user.user_id, can_message=True)
        hello = text(
            lang,
            "start.hello",
            shuangkou=variant_name(lang, "shuangkou"),
            paowang=variant_name(lang, "paowang"),
        )
        if not payload:
            return Reply(hello)
        game_id = game_of_payload(self._link_key, payload)
        table = self.deps.registry.get(game_id) if game_id is not None else None
        if table is None or table.status != "lobby":
            return Reply(text(lang, "err.no_game"))
        async with table.lock:
            member = table.seat_of(user.user_id) is not None or await self.deps.is_member(
                table.chat_id, user.user_id, recheck=True
            )
            if member is None:
                return Reply(text(lang, "members.try_again"))
            if not member:
                return Reply(text(lang, "lobby.not_member", chat=escape(table.chat_title)))
            refused = await self._seat_human(table, user, lang, confirm=False)
            if refused is not None:
                return refused
            await self._post_lobby(table)
        return Reply(
            text(
                lang,
                "lobby.joined_private",
                chat=escape(table.chat_title),
                variant=variant_name(lang, table.variant.name),
            )
        )

    async def leave(self, table: Table, user: UserInfo) -> Reply:
        lang = await self.people.language(user)
        seat = table.seat_of(user.user_id)
        if seat is None:
            return Reply(text(lang, "lobby.not_seated"))
        await self.unseat(table, seat)
        return Reply(text(lang, "lobby.left"))

    async def unseat(self, table: Table, index: int) -> None:
        """Seat ``index`` of a lobby is free again."""
        self.deps.registry.unseat(table, index)
        del table.seats[index]
        await self._save_seats(table)
        await self._post_lobby(table)

    async def add_computer(self, table: Table, user: UserInfo) -> Reply:
        lang = await self.people.language(user)
        if table.full:
            return Reply(text(lang, "lobby.full"))
        if not (await self.group_settings.options(table.chat_id)).computers:
            return Reply(text(lang, "lobby.no_computers"), alert=True)
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

    async def may_manage(self, table: Table, user_id: int) -> bool:
        return user_id == table.opener_id or await self.deps.is_admin(table.chat_id, user_id)

    async def no_game(self, user: UserInfo) -> Reply:
        return Reply(text(await self.people.language(user), "err.no_game"))

    async def cancel(self, table: Table, user: UserInfo) -> Reply:
        lang = await self.people.language(user)
        if not await self.may_manage(table, user.user_id):
            return Reply(text(lang, "lobby.only_opener"), alert=True)
        table.status = "cancelled"
        db = self.deps.db
        async with db.transaction():
            await db.games.update(table.game_id, status="cancelled", finished_at=self.deps.clock())
            charged = await charge_deserters(db, table)
        await self.deps.events.emit(table, Closed())
        if table.lobby_message_id is not None and not table.dealt:
            await self.deps.messenger.edit(
                table.chat_id, table.lobby_message_id, text(table.lang, "lobby.cancelled")
            )
        else:
            await self.hands.retire_all(table)
            if table.has_channel:
                # the group is told once: by the answer to /cancel, not by the table too
                await table.channel.close()
        return Reply(text(lang, "cancel.done_charged" if charged else "cancel.done"))

    async def on_lobby_callback(self, user: UserInfo, callback: Callback) -> Reply:
        table = self.deps.registry.get(callback.game_id)
        lang = await self.people.language(user)
        if table is None or table.status != "lobby":
            return Reply(text(lang, "err.outdated"))
        async with table.lock:
            if table.status != "lobby":
                return Reply(text(lang, "err.outdated"))
            if callback.act is Act.JOIN:
                return await self.join(table, user)
            if callback.act is Act.LEAVE:
                return await self.leave(table, user)
            if callback.act is Act.COMPUTER:
                if table.seat_of(user.user_id) is None and not await self.may_manage(
                    table, user.user_id
                ):
                    return Reply(text(lang, "lobby.not_seated"))
                return await self.add_computer(table, user)
            if callback.act is Act.CANCEL:
                return await self.cancel(table, user)
            if callback.act is Act.START:
                if not await self.may_manage(table, user.user_id):
                    return Reply(text(lang, "lobby.only_opener"), alert=True)
                if not table.full:
                    return Reply(text(lang, "lobby.not_full"))
                await self.starting.start(table)
                return Reply()
        return Reply(text(lang, "err.outdated"))

    async def play_again(self, user: UserInfo, callback: Callback) -> Reply:
        """「再来一局」: a new lobby with the finished game's seats, ready to start."""
        lang = await self.people.remember(user)
        previous = await self.deps.db.games.get(callback.game_id)
        if previous is None or previous.status != "finished":
            return Reply(text(lang, "err.outdated"))
        if previous.seat_of(user.user_id) is None:
            return Reply(text(lang, "lobby.not_seated"))
        if self.deps.registry.in_chat(previous.chat_id) is not None:
            return Reply(
                text(lang, "lobby.already_open", variant=variant_name(lang, previous.variant))
            )
        registry = self.deps.registry
        if any(s.user_id is not None and registry.busy(s.user_id) for s in previous.seats):
            return Reply(text(lang, "lobby.busy_elsewhere"))
        variant = VARIANTS[previous.variant]
        options = await self.group_settings.options(previous.chat_id)
        seats = list(previous.seats)
        if not options.computers:  # the group turned computer seats off since
            seats = [seat for seat in seats if not seat.is_computer]
        try:
            record = await self.deps.db.games.create(
                chat_id=previous.chat_id,
                variant=variant.name,
                opener_id=user.user_id,
                seats=seats,
                seed=None,
            )
        except OpenGameExistsError:
            return Reply(text(lang, "lobby.already_open", variant=variant_name(lang, variant.name)))
        record = await self.deps.db.games.update(record.id, previous_game_id=previous.id)
        table = Table.from_record(record, options.language or lang)
        table.options = options
        registry.add(table)
        for seat in table.seats:
            if seat.user_id is not None:
                registry.seat(table, seat.user_id)
        async with table.lock:
            await self._post_lobby(table)
        self.deps.changed(table)  # the finished game's pages offer its 开始
        return Reply()
