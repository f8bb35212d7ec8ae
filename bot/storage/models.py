"""The records the repositories return: frozen dataclasses, plain values with no database inside.

They are domain values, not rows: booleans are ``bool``, JSON columns are decoded, times are epoch
seconds (``float``). Nothing here imports the driver, so the service layer and its tests can build
them freely.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal

GameStatus = Literal["lobby", "playing", "finished", "cancelled"]
GAME_STATUSES: Final[tuple[GameStatus, ...]] = ("lobby", "playing", "finished", "cancelled")
#: the statuses of a game that still needs the bot (a lobby or a table in progress)
OPEN_STATUSES: Final[tuple[GameStatus, ...]] = ("lobby", "playing")


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    """A Telegram user the bot knows.

    ``language`` is what they chose with /lang (None: not chosen); ``telegram_language`` is the
    ``language_code`` Telegram last reported. ``can_message`` says whether their private chat
    with the bot works (they pressed Start and have not blocked the bot).
    """

    user_id: int
    name: str
    username: str | None
    language: str | None
    telegram_language: str | None
    can_message: bool
    created_at: float


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's standing in one game variant; all zeros for a player who never finished one."""

    user_id: int
    game: str
    score: int = 0
    games: int = 0
    wins: int = 0


@dataclass(frozen=True, slots=True)
class RatingChange:
    """One player's part of a finished game, as :meth:`RatingsRepository.apply` takes it."""

    user_id: int
    delta: int
    won: bool


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """Who sits in a seat. ``user_id`` is None for a computer seat."""

    user_id: int | None
    name: str
    is_computer: bool = False
    language: str | None = None


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One lobby or game: its deal (``seed``, or explicit ``hands`` with ``leader``), who sits
    where, and the bot's bookkeeping around it (messages, timers, takeovers).

    The play itself is not here: it is the action log (:class:`ActionRecord`), replayed through
    the engine. Per-seat tuples (``takeover``, ``timeouts``, ``escaped``) have one entry per seat.
    """

    id: int
    chat_id: int
    variant: str
    status: GameStatus
    opener_id: int | None
    seats: tuple[SeatRecord, ...]
    seed: int | str | None
    leader: int | None
    hands: list[list[str]] | None  # the explicit deal, one list of card texts per seat
    created_at: float
    started_at: float | None
    finished_at: float | None
    table_message_id: int | None
    lobby_message_id: int | None
    hand_message_ids: dict[int, int]  # seat -> message id of that seat's hand message
    takeover: tuple[bool, ...]  # per seat: the computer plays for this seat
    timeouts: tuple[int, ...]  # per seat: consecutive turns timed out
    escaped: tuple[bool, ...]  # per seat: the player abandoned the game (逃跑)
    deadline: float | None  # when the current turn times out (epoch seconds)
    previous_game_id: int | None  # the game this one follows ("play again"; who leads next)
    outcome: str | None = None  # set by ResultsRepository.record: 双扣 / 单扣 / 平扣 / win / ...
    note: str | None = None  # a free-form remark recorded with the results
    #: per seat: the score a desertion fixed (it replaces the game's result), or None; empty
    #: while nobody deserted
    fixed_scores: tuple[int | None, ...] = ()
    #: the settings the game was dealt with (a group's /settings over the environment's);
    #: None: the environment's
    options: dict[str, Any] | None = None

    @property
    def is_open(self) -> bool:
        """A lobby or a game in progress: the chat cannot start another one."""
        return self.status in OPEN_STATUSES

    def seat_of(self, user_id: int) -> int | None:
        """The seat a user sits in, or None."""
        for index, seat in enumerate(self.seats):
            if seat.user_id is not None and seat.user_id == user_id:
                return index
        return None


@dataclass(frozen=True, slots=True)
class ActionRecord:
    """One accepted action of a game's log. ``cards`` is card text such as ``"♠3 ♥3"``."""

    seq: int
    seat: int
    kind: str
    cards: str | None
    at: float


@dataclass(frozen=True, slots=True)
class ResultRow:
    """One seat's result. ``delta`` is the rules' score change; ``adjusted_delta`` is what the
    bot applied after its own rules (the one-minute rule, 逃跑); ``score_after`` the player's
    score in the variant once this game counted (None for a computer seat)."""

    seat: int
    user_id: int | None
    delta: int
    adjusted_delta: int
    won: bool
    escaped: bool = False
    score_after: int | None = None
