"""What a table emits, and the bus that carries it to the parts that follow it.

Something happens at a table (an action is applied, the deal, a seat deserts, the turn passes,
the game ends): the part that made it happen emits one event and is done. Every part that
follows such events subscribes to their type (in the order :mod:`bot.service.service` wires
them: the hand messages before the group's lines before the next turn) and may emit more.

Events of one table are handled one at a time, in the order they were emitted, each by all of
its subscribers before the next (breadth first): an event emitted while another is handled
waits its turn instead of running inside the handler that emitted it. So no part ever runs
inside a part that called it, and a late event (a prompt that finds its player gone) follows
the event that caused it, whatever depth it came from. All of it happens under the table's
lock, held by whoever emitted the first event.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, TypeVar

from bot.game.common import Action, Combo, Event, Played

if TYPE_CHECKING:
    from bot.service.commands import Source
    from bot.service.tables import Settlement, Table


class TableEvent:
    """Something that happened at a table."""


@dataclass(frozen=True, slots=True)
class Dealt(TableEvent):
    """The game began: the deal is stored, the group's table is open."""


@dataclass(frozen=True, slots=True)
class Acted(TableEvent):
    """A play or a pass was applied and logged (刨王's 亮王 answers stay with the gate: they are
    not for everyone to see). ``beaten``: what was on the table before it."""

    seat: int
    action: Action
    source: Source
    events: tuple[Event, ...]
    beaten: Combo | None

    @property
    def played(self) -> Combo | None:
        return next((e.combo for e in self.events if isinstance(e, Played)), None)


@dataclass(frozen=True, slots=True)
class GateOpened(TableEvent):
    """刨王's 亮王 gate asks every human (it waits ``seconds`` at most)."""

    seconds: float


@dataclass(frozen=True, slots=True)
class GateClosed(TableEvent):
    """Everyone answered (or time ran out): the held lines are out, play begins."""


class TurnMode(Enum):
    ASKED = "asked"  # the seat's player decides, on a live hand message or page
    COMPUTER = "computer"  # a computer seat or 托管
    AUTO_PASS = "auto_pass"  # 要不起: the bot passes for the seat


@dataclass(frozen=True, slots=True)
class TurnBegan(TableEvent):
    """Seat ``seat`` is to act, and how; ``seconds``: how long until the timer acts."""

    seat: int
    mode: TurnMode
    seconds: float


@dataclass(frozen=True, slots=True)
class TimedOut(TableEvent):
    """The seat's time ran out and the bot acted for it (``passed`` or played)."""

    seat: int
    passed: bool


@dataclass(frozen=True, slots=True)
class Deserted(TableEvent):
    """A player left the game (逃跑, kicked, blocked): the computer took the seat.
    ``during_gate``: it happened while the 亮王 gate was open (the gate moves on)."""

    seat: int
    during_gate: bool


@dataclass(frozen=True, slots=True)
class TookBack(TableEvent):
    """A player in 托管 took their seat back."""

    seat: int


@dataclass(frozen=True, slots=True)
class Blocked(TableEvent):
    """A message to the seat's player was refused: they blocked the bot."""

    seat: int


@dataclass(frozen=True, slots=True)
class Resumed(TableEvent):
    """Go on from where the table stands (after a follow-up failed, or a restart)."""


@dataclass(frozen=True, slots=True)
class Finished(TableEvent):
    """The game is over and settled (the settlement was stored with the last action)."""

    settlement: Settlement


@dataclass(frozen=True, slots=True)
class Closed(TableEvent):
    """The table is gone from memory (finished or cancelled): forget it everywhere."""


#: what every seat (and a spectator) may see happen, as it happens: the web table's pages
#: hear these (to animate a play, say). Not the 亮王 answers (held until the gate closes),
#: nor whose turn it is or how (a 要不起 pass is the bot's knowledge of a hand).
PUBLIC_EVENTS: tuple[type[TableEvent], ...] = (Acted, GateClosed, Deserted, TookBack, Finished)

E = TypeVar("E", bound=TableEvent)
Handler = Callable[["Table", Any], Awaitable[None]]


class TableEvents:
    """Subscribers by event type, and each table's queue of events still to handle."""

    def __init__(self) -> None:
        self._handlers: dict[type[TableEvent], list[Handler]] = {}
        self._queues: dict[int, deque[TableEvent]] = {}

    def subscribe(self, kind: type[E], handler: Callable[[Table, E], Awaitable[None]]) -> None:
        """``handler(table, event)`` for every event of ``kind``, after those subscribed
        before it."""
        self._handlers.setdefault(kind, []).append(handler)

    async def emit(self, table: Table, event: TableEvent) -> None:
        """Handle ``event`` now, or after the events before it when the table is already
        handling one (then this returns at once)."""
        queue = self._queues.get(table.game_id)
        if queue is not None:
            queue.append(event)
            return
        queue = self._queues[table.game_id] = deque([event])
        try:
            while queue:
                current = queue.popleft()
                for handler in self._handlers.get(type(current), ()):
                    await handler(table, current)
        finally:
            # a failed handler drops what was still queued: whoever retries starts afresh
            del self._queues[table.game_id]
