"""What the parts of the service share: the outside world they use, and the tables.

Not the parts themselves: a part that needs another is given it when it is built
(:mod:`bot.service.service` builds them in order), and what follows from something a part
did travels as an event on :attr:`Deps.events`, never as a call back into another part.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from bot.config import Settings
from bot.service.base import MemberCheck, Messages, Scheduler
from bot.service.events import TableEvents
from bot.service.group_options import GroupOptions
from bot.service.registry import TableRegistry
from bot.service.tables import Table
from bot.storage import Database


@dataclass
class Deps:
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
    events: TableEvents = field(default_factory=TableEvents)
    #: told of every change any seat could see (the web table's live views)
    watchers: list[Callable[[Table], None]] = field(default_factory=list)
    #: whether a user has the web table of a game open (game id, user id): set by the web
    page_open: Callable[[int, int], bool] = lambda _game, _user: False
    #: told how long each command took at the door, its table's lock included, by its
    #: source ("button", "timer", …): the metrics
    command_timers: list[Callable[[str, float], None]] = field(default_factory=list)

    def options(self, table: Table) -> GroupOptions:
        """The settings the table plays by: its group's, taken when it was dealt."""
        return table.options or GroupOptions.defaults(self.settings)

    def changed(self, table: Table) -> None:
        """Something any seat could see changed: tell the watchers (they must not block)."""
        for watcher in self.watchers:
            watcher(table)
