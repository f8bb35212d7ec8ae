"""The game service: every table the bot hosts, behind the one face the edges call.

It is built of parts with one job each, given what they need when they are built (nothing
finds another part at run time): a command goes in through the door (:mod:`.door`), the
events a table emits go out to the parts that follow them, in the order :func:`wire` gives.
Handlers and the web table call this facade with decoded input; it answers with a
:class:`Reply`.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from html import escape
from typing import Any

from bot.config import Settings
from bot.game.cards import Card
from bot.game.variants import Variant
from bot.presentation.callbacks import Callback
from bot.presentation.keyboards import Keyboard
from bot.presentation.strings import Lang, text
from bot.service.base import (
    Delivery,
    EarlyAnswer,
    MemberCheck,
    Messages,
    Reply,
    Scheduler,
    UserInfo,
)
from bot.service.command_answers import CommandAnswers
from bot.service.deps import Deps
from bot.service.events import PUBLIC_EVENTS, Acted, TableEvent
from bot.service.group_options import GroupOptions
from bot.service.parts import Parts
from bot.service.queries import rank_text
from bot.service.stats import PlayerStats, StatsAnswer
from bot.service.tables import Settlement, Table
from bot.service.turns import passes_itself
from bot.storage import Database

#: seconds before a failed timer job (a computer's turn, an auto-pass, a time-out) runs again
RETRY = 5.0



def random_seed() -> int:
    """A fresh deal: 62 random bits from the operating system."""
    return secrets.randbits(62)


class GameService:
    """Every table the bot hosts. One instance per running bot."""

    def __init__(
        self,
        *,
        db: Database,
        messenger: Messages,
        scheduler: Scheduler,
        settings: Settings,
        bot_username: str,
        is_admin: Callable[[int, int], Awaitable[bool]],
        is_member: MemberCheck,
        clock: Callable[[], float] = time.time,
        new_seed: Callable[[], int] = random_seed,
        retry_delay: float = RETRY,
    ) -> None:
        deps = Deps(
            db=db,
            messenger=messenger,
            scheduler=scheduler,
            settings=settings,
            bot_username=bot_username,
            is_admin=is_admin,
            is_member=is_member,
            clock=clock,
            new_seed=new_seed,
            retry_delay=retry_delay,
        )
        self.deps = deps
        self.parts = parts = Parts(deps)
        self.people = parts.people
        self.lobby = parts.lobby
        self.player_stats = PlayerStats(db)
        self.answers = CommandAnswers(messenger, can_message=parts.people.can_message)

    def time_commands(self, timer: Callable[[str, float], None]) -> None:
        """``timer(source, seconds)`` after every command at a table's door (the metrics)."""
        self.deps.command_timers.append(timer)

    def count_actions(self, count: Callable[[str, str], None]) -> None:
        """``count(game, source)`` for every play and pass applied (the metrics)."""

        async def acted(table: Table, event: Acted) -> None:
            count(table.variant.name, event.source.value)

        self.deps.events.subscribe(Acted, acted)

    # ---- what tests and the app read -----------------------------------------------------

    @property
    def db(self) -> Database:
        return self.deps.db

    @property
    def messenger(self) -> Messages:
        return self.deps.messenger

    @property
    def scheduler(self) -> Scheduler:
        return self.deps.scheduler

    @property
    def settings(self) -> Settings:
        return self.deps.settings

    @property
    def clock(self) -> Callable[[], float]:
        return self.deps.clock

    @property
    def tables(self) -> dict[int, Table]:
        return self.deps.registry.tables

    @property
    def by_chat(self) -> dict[int, int]:
        return self.deps.registry.by_chat

    @property
    def by_user(self) -> dict[int, int]:
        return self.deps.registry.by_user

    # ---- people --------------------------------------------------------------------------

    async def remember(self, user: UserInfo) -> Lang:
        return await self.people.remember(user)

    async def language(self, user: UserInfo) -> Lang:
        return await self.people.language(user)

    async def set_language(self, user: UserInfo, lang: Lang) -> None:
        await self.people.set_language(user, lang)

    async def start_private(self, user: UserInfo, payload: str | None) -> Reply:
        return await self.lobby.start_private(user, payload)

    async def private_chat_changed(self, user: UserInfo, *, works: bool) -> None:
        await self.parts.departures.private_chat_changed(user, works=works)

    # ---- lobbies -------------------------------------------------------------------------

    def deep_link(self, game_id: int) -> str:
        return self.lobby.deep_link(game_id)

    async def new_game(
        self,
        *,
        chat_id: int,
        chat_title: str,
        opener: UserInfo,
        variant: Variant,
        command_message_id: int | None = None,
    ) -> Reply:
        return await self.lobby.new_game(
            chat_id=chat_id,
            chat_title=chat_title,
            opener=opener,
            variant=variant,
            command_message_id=command_message_id,
        )

    async def on_lobby_callback(self, user: UserInfo, callback: Callback) -> Reply:
        return await self.lobby.on_lobby_callback(user, callback)

    async def play_again(self, user: UserInfo, callback: Callback) -> Reply:
        return await self.lobby.play_again(user, callback)

    async def cancel_in_chat(self, chat_id: int, user: UserInfo) -> Reply:
        table = self.deps.registry.in_chat(chat_id)
        if table is None:
            return await self.lobby.no_game(user)
        async with table.lock:
            return await self.lobby.cancel(table, user)

    # ---- playing -------------------------------------------------------------------------

    async def on_hand_callback(
        self,
        user: UserInfo,
        callback: Callback,
        message_id: int | None = None,
        early: EarlyAnswer | None = None,
    ) -> Reply:
        """A hand button; ``early`` hears the answer before the edits that render it."""
        return await self.parts.inputs.on_button(user, callback, message_id, early)

    async def typed_play(self, user: UserInfo, message: str) -> Reply | None:
        return await self.parts.inputs.typed(user, message)

    async def resend_hand(self, user: UserInfo) -> Reply:
        return await self.parts.hand_requests.resend_hand(user)

    async def leave(self, user: UserInfo) -> Reply:
        return await self.parts.departures.leave(user)

    async def kick(self, chat_id: int, admin: UserInfo, target_id: int) -> Reply:
        return await self.parts.departures.kick(chat_id, admin, target_id)

    # ---- queries -------------------------------------------------------------------------

    async def rank(self, user: UserInfo) -> str:
        lang = await self.remember(user)
        return await rank_text(self.db, user.user_id, user.name, lang)

    async def show_top(
        self, chat_id: int, user: UserInfo, *, reply_to: int | None = None, chat_title: str = ""
    ) -> Reply:
        """/top in a group: the skill board, with buttons to the other boards."""
        body, markup = await self.parts.league.top(chat_id, user)
        await self.answer_in_group(chat_id, user, body, reply_to, markup, chat_title)
        return Reply()

    async def on_top_press(
        self, user: UserInfo, chat_id: int | None, message_id: int | None, callback: Callback
    ) -> Reply:
        return await self.parts.league.on_top_press(user, chat_id, message_id, callback)

    async def show_season(
        self, chat_id: int, user: UserInfo, number: int | None = None, *,
        reply_to: int | None = None, chat_title: str = "",
    ) -> Reply:
        """/season in a group: the current season's tables, or season ``number``'s."""
        body = await self.parts.league.season(chat_id, user, number)
        await self.answer_in_group(chat_id, user, body, reply_to, None, chat_title)
        return Reply()

    async def stats(
        self, user: UserInfo, *, chat_id: int | None = None, of: UserInfo | None = None
    ) -> StatsAnswer:
        """/stats: the record of ``of`` (default: the asker), in the asker's language (in a
        group, the group's if it chose one); in a group (``chat_id``) that group's games and
        all of them."""
        lang = await self.remember(user)
        if chat_id is not None:  # a group's posts speak its chosen language (/settings)
            lang = (await self.group_options(chat_id)).language or lang
        subject = of or user
        return await self.player_stats.answer(
            user_id=subject.user_id, name=subject.name, lang=lang, chat_id=chat_id
        )

    # ---- history and replays ------------------------------------------------------------

    async def show_history(
        self, chat_id: int, user: UserInfo, *, group: bool, reply_to: int | None = None,
        chat_title: str = "",
    ) -> Reply:
        """/history: a group's last games, or in a private chat the player's own."""
        if not group:
            return await self.parts.history.show(chat_id, user, group=False, reply_to=reply_to)
        body, markup = await self.parts.history.message(chat_id, user, group=True)
        await self.answer_in_group(chat_id, user, body, reply_to, markup, chat_title)
        return Reply()

    # ---- answers to commands in groups -----------------------------------------------------

    async def answer_in_group(
        self,
        chat_id: int,
        user: UserInfo | None,
        body: str,
        reply_to: int | None = None,
        markup: Keyboard | None = None,
        chat_title: str = "",
    ) -> Delivery:
        """A command's answer in a group; when the group's budget has no room for it, in the
        asker's private chat, or merged with others in the group's short queue (never lost
        to silence: see :mod:`bot.service.command_answers`)."""
        note = ""
        if user is not None:
            lang = await self.language(user)
            note = text(lang, "answers.private_note", group=escape(chat_title or "?"))
        return await self.answers.answer(
            chat_id,
            user.user_id if user is not None else None,
            body,
            reply_to=reply_to,
            markup=markup,
            private_note=note,
        )

    async def on_replay_press(
        self, user: UserInfo, chat_id: int | None, message_id: int | None, callback: Callback
    ) -> Reply:
        return await self.parts.history.on_press(user, chat_id, message_id, callback)

    async def replay_step(self, game_id: int, user: UserInfo, step: int) -> dict[str, Any] | str:
        """A replay's step as the web table shows it, or why not (see History.web_step)."""
        return await self.parts.history.web_step(game_id, user, step)

    # ---- group settings ------------------------------------------------------------------

    async def group_options(self, chat_id: int) -> GroupOptions:
        """The settings the group's next game is played with."""
        return await self.parts.group_settings.options(chat_id)

    async def open_settings(self, chat_id: int, user: UserInfo, *, admin: bool) -> Reply:
        return await self.parts.group_settings.open_menu(chat_id, user, admin=admin)

    async def on_settings_press(
        self, user: UserInfo, chat_id: int | None, message_id: int | None, callback: Callback
    ) -> Reply:
        return await self.parts.group_settings.on_press(user, chat_id, message_id, callback)

    # ---- the web table's face: what bot/web may ask of the service -----------------------

    def watch(
        self,
        changed: Callable[[Table], None],
        page_open: Callable[[int, int], bool],
        heard: Callable[[Table, TableEvent], None] | None = None,
    ) -> None:
        """``changed(table)`` after anything a seat could see changes (it must not block);
        ``page_open(game, user)``: whether the user has a live page on the game;
        ``heard(table, event)``: each public event as it happens (PUBLIC_EVENTS: a play, a
        pass, the gate closing, a desertion, a seat taken back, the end; it must not block).
        """
        self.deps.watchers.append(changed)
        self.deps.page_open = page_open
        if heard is not None:
            listener = heard

            async def hear(table: Table, event: TableEvent) -> None:
                listener(table, event)

            for kind in PUBLIC_EVENTS:
                self.deps.events.subscribe(kind, hear)

    def table(self, game_id: int) -> Table | None:
        """The game's table while it is in memory (a lobby, a game, or just finished)."""
        return self.deps.registry.get(game_id)

    def table_in_chat(self, chat_id: int) -> Table | None:
        return self.deps.registry.in_chat(chat_id)

    async def finished_table(self, game_id: int) -> Table | None:
        """A finished game read back from the database (its result screen after a restart)."""
        return await self.parts.stored.finished(game_id)

    async def is_member(self, chat_id: int, user_id: int) -> bool | None:
        """Whether the user is in the group; None when that is not known now."""
        return await self.deps.is_member(chat_id, user_id)

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        return await self.deps.is_admin(chat_id, user_id)

    def cannot_beat(self, table: Table, seat: int) -> bool:
        """要不起: the seat on turn has nothing that beats the table (the bot passes for it)."""
        return passes_itself(self.deps, table, seat)

    async def web_action(
        self, user_id: int, game_id: int, kind: str, cards: Sequence[Card]
    ) -> Reply:
        """A play, a pass, 亮王 or an answer from the web table."""
        return await self.parts.inputs.on_web(user_id, game_id, kind, cards)

    async def page_opened(self, table: Table, seat: int) -> None:
        """A seat's live page took over from its hand message (call under the table's lock)."""
        await self.parts.hand_requests.page_opened(table, seat)

    async def page_closed(self, table: Table, seat: int) -> None:
        """The seat's last page closed: its hand message prompts again (under the lock)."""
        await self.parts.hand_requests.page_closed(table, seat)

    # ---- start and stop ------------------------------------------------------------------

    async def recover(self) -> int:
        """Rebuild every unfinished lobby and game from the database; returns how many
        (after the league's start: the ratings caught up, the seasons' ends announced)."""
        await self.parts.league.start()
        return await self.parts.recovery.recover()

    async def shutdown(self) -> None:
        for table in list(self.tables.values()):
            self.parts.timers.cancel(table)
            if table.has_channel:
                await table.channel.close()
        await self.parts.lines.shutdown()
        await self.parts.hands.shutdown()
        await self.answers.close()


__all__ = ["GameService", "Reply", "Scheduler", "Settlement", "UserInfo"]
