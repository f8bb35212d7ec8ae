"""Games as the database holds them, read back: the deal and the log replayed.

A finished game's table (its result screen, its replay, the next game's leader) and an
unfinished one's at a restart are both rebuilt here.
"""

from __future__ import annotations

from bot.game.common import Action
from bot.game.protocol import GameState
from bot.game.replay import replay
from bot.game.variants import VARIANTS
from bot.presentation.strings import Lang
from bot.service.base import seat_language
from bot.service.deps import Deps
from bot.service.group_options import GroupOptions, options_from_json
from bot.service.group_settings import GroupSettings
from bot.service.settlement import settlement_of
from bot.service.tables import Table
from bot.storage import GameRecord


class StoredGames:
    def __init__(self, deps: Deps, group_settings: GroupSettings) -> None:
        self.deps = deps
        self.group_settings = group_settings

    async def log_of(self, game_id: int) -> list[Action]:
        records = await self.deps.db.actions.list(game_id)
        return [Action.from_log(a.kind, a.seat, a.cards) for a in records]

    async def rebuild(self, record: GameRecord) -> GameState | None:
        """The game of a stored record, replayed from its deal and log (None: not dealt)."""
        if record.seed is None and record.hands is None:
            return None
        seed = int(record.seed) if record.seed is not None else None
        actions = await self.log_of(record.id)
        return replay(VARIANTS[record.variant], seed, record.leader, record.hands, actions)

    async def finished(self, game_id: int) -> Table | None:
        """A finished game as its result screen shows it, from the database (the table in
        memory went with a restart): the deal and log replayed, the stored scores. None for
        a game that is not finished."""
        record = await self.deps.db.games.get(game_id)
        if record is None or record.status != "finished":
            return None
        game = await self.rebuild(record)
        if game is None or game.result is None:
            return None
        table = await self.table_of(record)
        table.engine = game
        table.log = await self.log_of(record.id)
        table.fixed_scores = self.fixed_scores(table, record)
        rows = await self.deps.db.results.for_game(record.id)
        table.settlement = settlement_of(table, rows, record.note)
        table.settlement.earned = await self.deps.db.achievements.of_game(record.id)
        return table

    async def table_of(self, record: GameRecord) -> Table:
        """The stored table with the settings it plays by: those it was dealt with, or for a
        lobby its group's as they are now. It speaks the group's chosen language, or its
        opener's (the first seat's)."""
        deps = self.deps
        if record.options is not None:
            options = options_from_json(record.options, GroupOptions.defaults(deps.settings))
        elif record.status == "lobby":
            options = await self.group_settings.options(record.chat_id)
        else:
            options = None  # dealt before groups had settings: the environment's
        if options is not None and options.language is not None:
            lang: Lang = options.language
        elif record.seats:
            lang = seat_language(record.seats[0].language)
        else:
            lang = deps.settings.default_language
        table = Table.from_record(record, lang)
        table.options = options
        return table

    def fixed_scores(self, table: Table, record: GameRecord) -> list[int | None]:
        """The scores desertions fixed, as stored. A game stored before they were (schema
        version 1) has only its 逃跑 flags: those seats are priced now, as deserters of the
        game as it stands."""
        if len(record.fixed_scores) == table.size:
            return list(record.fixed_scores)
        fixed: list[int | None] = [None] * table.size
        started = table.started_at if table.started_at is not None else self.deps.clock()
        elapsed = self.deps.clock() - started
        for index, seat in enumerate(table.seats):
            if seat.escaped:
                fixed = list(table.engine.desertion_scores(index, fixed, seconds=elapsed))
        return fixed
