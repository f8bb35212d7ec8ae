"""A table in memory: the lobby or game of one group, with its seats and their private state."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace

from bot.game.common import Action, Result, SeatView
from bot.game.protocol import GameState
from bot.game.variants import VARIANTS, Variant
from bot.presentation.render import SeatLabel
from bot.presentation.strings import Lang
from bot.service.base import seat_language
from bot.service.group_channel import GroupChannel
from bot.service.group_options import GroupOptions
from bot.storage import GameRecord, GameStatus, Rating, ResultRow, SeatRecord

#: the logged actions every seat sees happen (刨王's 亮王 answers are held, a 不亮 forever)
PUBLIC_KINDS = frozenset({"play", "pass"})


@dataclass
class Settlement:
    """How a finished game was scored: the rows written, whether it was too short to count,
    each player's rating before and after (by user), and whether desertions fixed it all."""

    rows: list[ResultRow] = field(default_factory=list)
    short_game: bool = False
    before_after: dict[int, tuple[Rating, Rating]] = field(default_factory=dict)  # by user
    #: every score was fixed by a desertion: the game's own result changed none (刨王)
    by_desertion: bool = False
    #: the achievements each player earned with this game (by user id; told privately)
    earned: dict[int, list[str]] = field(default_factory=dict)


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
    status: GameStatus = "lobby"
    _engine: GameState | None = field(default=None, repr=False)  # once dealt: see engine
    seed: int | None = None
    leader: int | None = None
    started_at: float | None = None
    deadline: float | None = None  # when the seat to act runs out of time (clock())
    log: list[Action] = field(default_factory=list)
    #: per seat, a score a desertion fixed (it replaces the game's result), or None
    fixed_scores: list[int | None] = field(default_factory=list)
    lobby_message_id: int | None = None
    _channel: GroupChannel | None = field(default=None, repr=False)  # see channel
    previous_game_id: int | None = None
    ready_pending: set[int] = field(default_factory=set)  # 刨王: humans yet to pass the 亮王 gate
    held_lines: list[str] = field(default_factory=list)  # group lines held back by the gate
    settlement: Settlement | None = None  # set with the last action, in its transaction
    #: the group's settings (/settings), taken again when the game is dealt; None: the
    #: environment's
    options: GroupOptions | None = None
    #: which timer is the table's now (counts the timers armed): an older one is stale
    timer: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @classmethod
    def from_record(cls, record: GameRecord, lang: Lang) -> Table:
        """The table as stored: its seats with their flags, the deal, the bookkeeping (the
        game itself is replayed from the log by the caller)."""
        seats = [Seat.from_record(s) for s in record.seats]
        for index, seat in enumerate(seats):
            seat.takeover = _flag(record.takeover, index)
            seat.timeouts = int(record.timeouts[index]) if index < len(record.timeouts) else 0
            seat.escaped = _flag(record.escaped, index)
            seat.live_message_id = record.hand_message_ids.get(index)
        return cls(
            game_id=record.id,
            chat_id=record.chat_id,
            chat_title="",
            variant=VARIANTS[record.variant],
            opener_id=record.opener_id,
            lang=lang,
            seats=seats,
            status=record.status,
            seed=int(record.seed) if record.seed is not None else None,
            leader=record.leader,
            started_at=record.started_at,
            deadline=record.deadline,
            lobby_message_id=record.lobby_message_id,
            previous_game_id=record.previous_game_id,
        )

    @property
    def engine(self) -> GameState:
        """The game, for a table that has been dealt (a lobby has none: see ``dealt``)."""
        if self._engine is None:
            raise RuntimeError(f"table {self.game_id} has no game yet")
        return self._engine

    @engine.setter
    def engine(self, game: GameState) -> None:
        self._engine = game

    @property
    def dealt(self) -> bool:
        """The table has a game (it was dealt; a lobby was not)."""
        return self._engine is not None

    @property
    def result(self) -> Result:
        """How the game ended, for a table whose game is over."""
        result = self.engine.result
        if result is None:
            raise RuntimeError(f"table {self.game_id}: the game is not over")
        return result

    @property
    def channel(self) -> GroupChannel:
        """The paced channel to the group, for a table that has started (see
        ``has_channel``)."""
        if self._channel is None:
            raise RuntimeError(f"table {self.game_id} has no channel yet")
        return self._channel

    @channel.setter
    def channel(self, channel: GroupChannel) -> None:
        self._channel = channel

    @property
    def has_channel(self) -> bool:
        return self._channel is not None

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
    def public_seq(self) -> int:
        """The plays and passes so far: the version every page may see. 刨王's 亮王 answers are
        left out: how many there were would tell 1 against 4 from 2 against 3."""
        return sum(1 for action in self.log if action.kind in PUBLIC_KINDS)

    @property
    def gate_open(self) -> bool:
        return bool(self.ready_pending)

    def shown_view(self, seat: int | None) -> SeatView:
        """The engine's view of ``seat`` (None: the public one) as it may be shown now.

        While 刨王's 亮王 gate is open nothing that follows from the answers shows: the group
        hears of a reveal when the gate closes, and the turn exists (in the engine) as soon as
        the last holder answered, which would tell how many holders there are. So: no turn,
        no other seat's reveal, and no side learned from one (without others' reveals a seat
        with fewer than both 大王 knows no side, and one with both sees no reveal)."""
        view = self.engine.view(seat)
        if not self.gate_open:
            return view
        others_revealed = any(flag for index, flag in enumerate(view.revealed) if index != seat)
        return replace(
            view,
            turn=None,
            revealed=tuple(flag and index == seat for index, flag in enumerate(view.revealed)),
            revealed_jokers=tuple(
                count if index == seat else 0 for index, count in enumerate(view.revealed_jokers)
            ),
            partners=() if others_revealed else view.partners,
            opponents=() if others_revealed else view.opponents,
            reveal_phase=True,
        )

    def seat_of(self, user_id: int) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat.user_id == user_id and not seat.is_computer:
                return index
        return None

    def labels(self) -> list[SeatLabel]:
        return [seat.label() for seat in self.seats]


def _flag(flags: tuple[bool, ...], index: int) -> bool:
    return bool(flags[index]) if index < len(flags) else False
