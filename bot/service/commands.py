"""What a seat asks of its table, decoded once by whichever edge it came in at.

A button, typed text, the web table, the turn timer, a computer seat and the auto-pass each
turn their input into one :class:`Command`: the seat, what it does, the cards as ``Card``
values, and where it came from. :meth:`bot.service.door.TableDoor.act` takes every one.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, StrEnum

from bot.game.cards import Card
from bot.game.common import Action


class Source(Enum):
    """Who made a command: every one goes through the same door."""

    BUTTON = "button"  # a button of the private hand message
    TEXT = "text"  # a play typed in the private chat
    TIMER = "timer"  # the turn ran out
    COMPUTER = "computer"  # a computer seat, or 托管
    AUTO_PASS = "auto_pass"  # 要不起: the bot passes for a player who cannot beat the table
    WEB = "web"  # the web table (the Mini App)

    @property
    def human(self) -> bool:
        """The seat's player chose it (they are answered, their hand message says so)."""
        return self in (Source.BUTTON, Source.TEXT, Source.WEB)


class Kind(StrEnum):
    PLAY = "play"
    PASS = "pass"
    REVEAL = "reveal"  # 刨王: 亮王
    DECLINE = "decline"  # 刨王: 不亮
    READY = "ready"  # 刨王: 知道了, from a seat without a 大王
    TAKEBACK = "takeback"  # 「我回来了」: out of 托管


#: the kinds the 亮王 gate answers (it alone may take them, and only while it is open)
GATE_KINDS = frozenset({Kind.REVEAL, Kind.DECLINE, Kind.READY})


@dataclass(frozen=True, slots=True)
class Command:
    """Seat ``seat`` of game ``game_id`` does ``kind`` (with ``cards`` for a play).

    ``version``: the seat's version the person decided on (a button's): once the seat has
    acted since, the command is outdated. ``timer``: the table's timer the command was
    decided by (a time-out's, a computer's, an auto-pass's): once the table has armed
    another (anything moved it on meanwhile), the command is stale and dropped.
    """

    game_id: int
    seat: int
    kind: Kind
    source: Source
    cards: tuple[Card, ...] = ()
    version: int | None = None
    timer: int | None = None

    @classmethod
    def of(cls, game_id: int, action: Action, source: Source, timer: int | None = None) -> Command:
        """The command that applies an engine ``action``."""
        return cls(game_id, action.seat, Kind(action.kind), source, action.cards, timer=timer)

    def action(self) -> Action:
        """The engine's action for a play, a pass or a 亮王 answer."""
        if self.kind is Kind.PLAY:
            return Action.play(self.seat, self.cards)
        if self.kind is Kind.PASS:
            return Action.pass_(self.seat)
        if self.kind in (Kind.REVEAL, Kind.DECLINE):
            return Action.answer(self.seat, self.kind is Kind.REVEAL)
        raise ValueError(f"{self.kind} is no engine action")
