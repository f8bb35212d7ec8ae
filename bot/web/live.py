"""Live views: every open page of a table hears of each change at once.

The service calls :meth:`LiveViews.changed` whenever something any seat could see changed,
and :meth:`LiveViews.heard` with each public event (a play, a pass, the end: kept for the
page's next view, to animate). That only marks the table's pages as behind and wakes them;
each page's own connection task then renders *its* seat's view from the table as it is by
then, with the events since its last view, and sends it. So a burst of changes costs one
view per page, a slow page holds up nobody, and the service never waits for the network.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from dataclasses import dataclass, field

from bot.service import Table, TableEvent

#: public events a page keeps until its next view (a page that fell further behind resyncs
#: from the view alone)
EVENTS_KEPT = 64

#: finished tables kept for their pages (the result screen), newest last
KEEP_FINISHED = 500


class Crowded(Exception):
    """No room for one more page: the user's, or the game's, are at their cap."""


@dataclass(eq=False)
class Page:
    """One open page: whose, which game, and whether it is behind the table."""

    user_id: int
    game_id: int
    behind: asyncio.Event = field(default_factory=asyncio.Event)
    next_game: int | None = None  # set when this game's 再来一局 started another
    #: the public events since the last view sent, each with the table's seq after it
    events: deque[tuple[int, TableEvent]] = field(
        default_factory=lambda: deque(maxlen=EVENTS_KEPT)
    )

    def wake(self) -> None:
        self.behind.set()


class LiveViews:
    """The open pages, capped: each costs a socket, a task and a view per change, so one user
    (or one game's crowd) must not open thousands of them."""

    def __init__(self, *, per_user: int = 4, per_game: int = 64) -> None:
        self.per_user = per_user
        self.per_game = per_game
        self._pages: dict[int, set[Page]] = {}
        self._users: dict[int, int] = {}  # pages open per user, over all games
        self._finished: OrderedDict[int, Table] = OrderedDict()

    def open(self, user_id: int, game_id: int) -> Page:
        """A new page; raises Crowded, and opens nothing, past either cap."""
        pages = self._pages.get(game_id, set())
        if self._users.get(user_id, 0) >= self.per_user:
            raise Crowded("too many live pages of yours")
        if len(pages) >= self.per_game:
            raise Crowded("too many live pages of this game")
        page = Page(user_id, game_id)
        self._pages[game_id] = pages
        pages.add(page)
        self._users[user_id] = self._users.get(user_id, 0) + 1
        page.wake()  # the first view goes out at once
        return page

    def close(self, page: Page) -> None:
        pages = self._pages.get(page.game_id)
        if pages is None or page not in pages:
            return
        pages.discard(page)
        if not pages:
            del self._pages[page.game_id]
        left = self._users[page.user_id] - 1
        if left:
            self._users[page.user_id] = left
        else:
            del self._users[page.user_id]

    def watching(self, game_id: int, user_id: int) -> bool:
        """Whether the user has a page of this table open."""
        return any(page.user_id == user_id for page in self._pages.get(game_id, ()))

    def count(self) -> int:
        return sum(len(pages) for pages in self._pages.values())

    def finished(self, game_id: int) -> Table | None:
        return self._finished.get(game_id)

    def keep_finished(self, table: Table) -> None:
        self._finished[table.game_id] = table
        self._finished.move_to_end(table.game_id)
        while len(self._finished) > KEEP_FINISHED:
            self._finished.popitem(last=False)

    def heard(self, table: Table, event: TableEvent) -> None:
        """A public event at the table: each of its pages will send it with its next view."""
        for page in self._pages.get(table.game_id, ()):
            page.events.append((table.public_seq, event))
            page.wake()

    def changed(self, table: Table) -> None:
        """The table changed: wake its pages (and follow 再来一局)."""
        if table.status == "finished":
            self.keep_finished(table)
        for page in self._pages.get(table.game_id, ()):
            page.wake()
        previous = table.previous_game_id
        if previous is not None and table.status in ("lobby", "playing"):
            # 再来一局: the finished game's pages see the lobby, then follow into the game
            for page in self._pages.get(previous, ()):
                if table.seat_of(page.user_id) is not None:
                    if table.status == "playing":
                        page.next_game = table.game_id
                    page.wake()
