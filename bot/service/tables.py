"""A table in memory: the lobby or game of one group, with its seats and their private state."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from bot.render import SeatLabel
from bot.service.base import seat_language
from bot.service.outbox import GroupChannel
from bot.storage import SeatRecord
from bot.strings import Lang
from bot.variants import Action, Variant


@dataclass
class Seat:
    """One seat: who sits there, and the bot's private bookkeeping for it."""

    user_id: int | None
    name: str
    is_computer: bool = False
    language: Lang = "zh"
    takeover: bool = False  # 托管: the computer plays for this human
    timeouts: int = 0  # consecutive turns that timed out
    escaped: bool = False  # 逃跑 (left, kicked or blocked the bot)
    left: bool = False  # gone after going out of cards: no 逃跑, nothing more is sent to them
    live_message_id: int | None = None  # the private message with this seat's buttons
    selected: set[int] = field(default_factory=set)  # indexes into the sorted hand
    hint_index: int = -1
    version: int = 0  # actions this seat took: older buttons are outdated

    @property
    def is_human(self) -> bool:
        return not self.is_computer

    @property
    def gone(self) -> bool:
        """The player left the table (逃跑, or after going out): send them nothing more."""
        return self.escaped or self.left

    @property
    def plays_itself(self) -> bool:
        """A human who decides their own moves (not a computer, not taken over)."""
        return not self.is_computer and not self.takeover

    def label(self) -> SeatLabel:
        return SeatLabel(self.name, self.is_computer, self.takeover)

    @classmethod
    def from_record(cls, record: SeatRecord) -> Seat:
        """The seat as stored: who sits there, and in which language they read."""
        language = seat_language(record.language)
        return cls(record.user_id, record.name, is_computer=record.is_computer, language=language)

    def record(self) -> SeatRecord:
        return SeatRecord(self.user_id, self.name, self.is_computer, self.language)

    def reset_private(self) -> None:
        self.selected.clear()
        self.hint_index = -1


@dataclass
class Table:
    """A lobby or a game in progress in one group chat."""

    game_id: int
    chat_id: int
    chat_title: str
    variant: Variant
    opener_id: int | None
    lang: Lang
    seats: list[Seat]
    status: str = "lobby"
    game: Any = None  # the engine's Game once started
    seed: int | None = None
    leader: int | None = None
    started_at: float | None = None
    deadline: float | None = None  # when the seat to act runs out of time (clock())
    log: list[Action] = field(default_factory=list)
    #: per seat, a score a desertion fixed (it replaces the game's result), or None
    fixed_scores: list[int | None] = field(default_factory=list)
    lobby_message_id: int | None = None
    channel: GroupChannel | None = None
    previous_game_id: int | None = None
    ready_pending: set[int] = field(default_factory=set)  # 刨王: humans yet to pass the 亮王 gate
    held_lines: list[str] = field(default_factory=list)  # group lines held back by the gate
    settlement: Any = None  # set with the last action, in the same transaction
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def size(self) -> int:
        return self.variant.seats

    @property
    def full(self) -> bool:
        return len(self.seats) >= self.size

    @property
    def seq(self) -> int:
        """The number of logged engine actions: timers carry it to detect staleness."""
        return len(self.log)

    @property
    def gate_open(self) -> bool:
        return bool(self.ready_pending)

    def seat_of(self, user_id: int) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat.user_id == user_id and not seat.is_computer:
                return index
        return None

    def labels(self) -> list[SeatLabel]:
        return [seat.label() for seat in self.seats]
