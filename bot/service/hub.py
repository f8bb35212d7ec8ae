"""What every part of the service shares: its dependencies, the tables, and the other parts.

The service is composed of parts with one job each (lobby, hand messages, the 亮王 gate, the
flow of actions, timers, departures, recovery). Each part holds the hub and reaches the others
through it; :class:`~bot.service.service.GameService` builds the hub and wires the parts.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.config import Settings
from bot.service.base import MemberCheck, Messages, Scheduler
from bot.service.group_options import GroupOptions
from bot.service.registry import TableRegistry
from bot.service.tables import Table
from bot.storage import Database

if TYPE_CHECKING:
    from bot.service.actions import PlayerActions
    from bot.service.computers import ComputerSeats
    from bot.service.departures import Departures
    from bot.service.flow import PlayFlow
    from bot.service.gate import RevealGate
    from bot.service.group_settings import GroupSettings
    from bot.service.hands import HandMessages
    from bot.service.lobby import Lobby
    from bot.service.people import People
    from bot.service.recovery import Recovery
    from bot.service.starting import TableStart
    from bot.service.timers import Timers


@dataclass
class Hub:
    db: Database
    messenger: Messages
    scheduler: Scheduler
    settings: Settings
    bot_username: str
    #: whether a user is an admin of a group (a Telegram call in the app)
    is_admin: Callable[[int, int], Awaitable[bool]]
    is_member: MemberCheck
    clock: Callable[[], float]
    #: where each game's deal comes from (a fresh random seed in the app)
    new_seed: Callable[[], int]
    #: seconds before a failed timer job runs again
    retry_delay: float
    registry: TableRegistry = field(default_factory=TableRegistry)
    #: told of every change any seat could see (the web table's live views)
    watchers: list[Callable[[Table], None]] = field(default_factory=list)
    #: whether a user has the web table of a game open (game id, user id): set by the web
    page_open: Callable[[int, int], bool] = lambda _game, _user: False

    # the parts, set once by GameService
    people: People = field(init=False)
    hands: HandMessages = field(init=False)
    gate: RevealGate = field(init=False)
    timers: Timers = field(init=False)
    computers: ComputerSeats = field(init=False)
    flow: PlayFlow = field(init=False)
    starting: TableStart = field(init=False)
    actions: PlayerActions = field(init=False)
    departures: Departures = field(init=False)
    lobby: Lobby = field(init=False)
    recovery: Recovery = field(init=False)
    group_settings: GroupSettings = field(init=False)

    def options(self, table: Table) -> GroupOptions:
        """The settings the table plays by: its group's, taken when it was dealt."""
        return table.options or GroupOptions.defaults(self.settings)

    def changed(self, table: Table) -> None:
        """Something any seat could see changed: tell the watchers (they must not block)."""
        for watcher in self.watchers:
            watcher(table)

    def forget(self, table: Table) -> None:
        """A table is over (finished or cancelled): drop it, its timer and its players."""
        self.registry.remove(table)
        self.timers.cancel(table)
        self.computers.forget(table)
