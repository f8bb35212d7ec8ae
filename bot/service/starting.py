"""A game begins: who leads, the deal, the group's table message, the hands sent out."""

from __future__ import annotations

from bot.presentation.keyboards import Keyboard
from bot.presentation.render import lobby_text, table_link_keyboard, table_text
from bot.service.deps import Deps
from bot.service.events import Dealt
from bot.service.group_channel import GroupChannel
from bot.service.group_options import options_json
from bot.service.group_settings import GroupSettings
from bot.service.stored import StoredGames
from bot.service.tables import Table
from bot.service.web_links import direct_link


class TableStart:
    def __init__(self, deps: Deps, stored: StoredGames, group_settings: GroupSettings) -> None:
        self.deps = deps
        self.stored = stored
        self.group_settings = group_settings

    async def next_leader(self, table: Table) -> int | None:
        """The leader after a previous game at this table (None: the engine's own rule)."""
        if table.previous_game_id is None:
            return None
        previous = await self.deps.db.games.get(table.previous_game_id)
        if previous is None or previous.status != "finished":
            return None
        game = await self.stored.rebuild(previous)
        return None if game is None else game.next_game_leader()

    async def start(self, table: Table) -> None:
        """Deal, store the deal, show the table; the hands and the first turn follow."""
        deps = self.deps
        table.seed = deps.new_seed()
        table.leader = await self.next_leader(table)
        table.engine = table.variant.deal(table.seed, table.leader)
        table.status = "playing"
        table.started_at = deps.clock()
        table.fixed_scores = [None] * table.size
        # the group's settings as they are now hold for the whole game, across restarts
        table.options = await self.group_settings.options(table.chat_id)
        if table.options.language is not None:
            table.lang = table.options.language
        await deps.db.games.update(
            table.game_id,
            options=options_json(table.options),
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
            await deps.messenger.edit(
                table.chat_id,
                table.lobby_message_id,
                lobby_text(table.lang, table.variant.name, table.labels(), table.size),
            )
        self.open_channel(table)
        await deps.events.emit(table, Dealt())

    def open_channel(self, table: Table, table_message_id: int | None = None) -> None:
        """The table's paced channel to its group (one live table message, merged posts)."""
        deps = self.deps
        limit = deps.settings.group_messages_per_minute
        budget = max(1, limit - max(2, limit // 10))  # room for lobby and command replies

        async def remember_table(message_id: int) -> None:
            await deps.db.games.save(table.game_id, table_message_id=message_id)

        table.channel = GroupChannel(
            deps.messenger,
            table.chat_id,
            interval=60.0 / limit,
            budget=budget,
            render_table=lambda: self.render_table(table),
            on_table_message=remember_table,
            table_message_id=table_message_id,
            on_change=lambda: deps.changed(table),
            table_markup=self._table_markup(table),
            unhurried=lambda: self._all_on_pages(table),
        )
        table.channel.table_changed()

    def _all_on_pages(self, table: Table) -> bool:
        """Every player still at the table follows it on an open web page."""
        players = [s for s in table.seats if s.is_human and not s.gone and s.user_id is not None]
        return bool(players) and all(
            self.deps.page_open(table.game_id, s.user_id or 0) for s in players
        )

    def _table_markup(self, table: Table) -> Keyboard | None:
        link = direct_link(self.deps.settings, self.deps.bot_username, table.game_id)
        return table_link_keyboard(table.lang, link) if link is not None else None

    def render_table(self, table: Table) -> str:
        view = table.shown_view(None)
        return table_text(
            table.lang,
            view,
            table.labels(),
            # plays and passes only: the log also counts the 亮王 answers, and how many there
            # were would tell the group how many seats hold a 大王
            number=len(view.history) + 1,
            reveal_phase=table.gate_open or view.reveal_phase,
        )
