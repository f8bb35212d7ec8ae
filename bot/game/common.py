"""What both engines share: combinations, errors, events, results and seat views."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal, NamedTuple

from bot.game.cards import Card, format_cards, parse_cards


class Combo:
    """A valid combination (牌型): its kind, its cards and what it is compared by.

    ``key`` is the comparison key within the kind (the rank, or the top rank of a run; for
    双扣's bombs a power that orders all bombs). ``chain`` is the number of ranks in a run
    (1 for sets). ``tier`` is 刨王's ladder row (1..27), 0 for ordinary combinations.
    """

    __slots__ = ("cards", "chain", "key", "kind", "tier")

    def __init__(
        self, kind: str, cards: tuple[Card, ...], key: int, chain: int = 1, tier: int = 0
    ) -> None:
        self.kind = kind
        self.cards = cards
        self.key = key
        self.chain = chain
        self.tier = tier

    @property
    def size(self) -> int:
        return len(self.cards)

    def signature(self) -> tuple[str, int, int, int, tuple[int, ...]]:
        """What makes two plays the same play, suits aside (except where suits matter)."""
        ranks = tuple(sorted(card >> 3 for card in self.cards))
        return (self.kind, self.key, self.chain, self.tier, ranks)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Combo):
            return NotImplemented
        return self.kind == other.kind and sorted(self.cards) == sorted(other.cards) and (
            self.key == other.key and self.tier == other.tier
        )

    def __hash__(self) -> int:
        return hash((self.kind, self.key, tuple(sorted(self.cards))))

    def __str__(self) -> str:
        return format_cards(sorted(self.cards))

    def __repr__(self) -> str:
        tier = f", tier={self.tier}" if self.tier else ""
        return f"<Combo {self.kind} {format_cards(sorted(self.cards))!r}{tier}>"


class Reason(StrEnum):
    """Why an action was refused; stable strings a front end can translate."""

    GAME_OVER = "game_over"
    NOT_YOUR_TURN = "not_your_turn"
    NOT_IN_HAND = "not_in_hand"
    NOT_A_COMBINATION = "not_a_combination"
    DOES_NOT_BEAT = "does_not_beat"
    CANNOT_PASS = "cannot_pass"
    REVEAL_PENDING = "reveal_pending"
    NOT_REVEALING = "not_revealing"
    NO_BIG_JOKER = "no_big_joker"
    NO_SUCH_SEAT = "no_such_seat"


class IllegalPlay(ValueError):
    """An action the rules refuse. The game is left exactly as it was."""

    def __init__(self, reason: Reason, detail: str = "") -> None:
        self.reason = reason
        self.detail = detail
        super().__init__(f"{reason.value}: {detail}" if detail else reason.value)


# ---- actions: what a seat does, as the log keeps it ------------------------------------

ActionKind = Literal["play", "pass", "reveal", "decline"]
ACTION_KINDS: tuple[ActionKind, ...] = ("play", "pass", "reveal", "decline")


class Action(NamedTuple):
    """One action of a seat, as the game's log keeps it: ``play`` with the exact cards,
    ``pass``, or 刨王's 亮王 answer ``reveal`` / ``decline``. Cards are :class:`Card` values
    from the edge to the engine and back; the log's text (``"♠3 ♥3"``) is made and read only
    where the log is stored (:attr:`log_text`, :meth:`from_log`)."""

    kind: ActionKind
    seat: int
    cards: tuple[Card, ...] = ()

    @classmethod
    def play(cls, seat: int, cards: Iterable[Card]) -> Action:
        return cls("play", seat, tuple(cards))

    @classmethod
    def from_log(cls, kind: str, seat: int, cards: str | None) -> Action:
        """An action as the log stores it: its kind, its seat and its cards as text."""
        return cls(action_kind(kind), seat, tuple(parse_cards(cards)) if cards else ())

    @property
    def log_text(self) -> str | None:
        """The cards as the log stores them (None for an action without cards)."""
        return format_cards(self.cards) if self.cards else None

    @classmethod
    def pass_(cls, seat: int) -> Action:
        return cls("pass", seat)

    @classmethod
    def answer(cls, seat: int, reveal: bool) -> Action:
        return cls("reveal" if reveal else "decline", seat)


def action_kind(kind: str) -> ActionKind:
    """``kind`` checked as an action kind (from storage: a plain string)."""
    for known in ACTION_KINDS:
        if kind == known:
            return known
    raise ValueError(f"unknown action kind: {kind!r}")


# ---- events: what an action did, for a front end to render -----------------------------


@dataclass(frozen=True, slots=True)
class Played:
    seat: int
    combo: Combo
    cards_left: int


@dataclass(frozen=True, slots=True)
class Passed:
    seat: int


@dataclass(frozen=True, slots=True)
class TrickTaken:
    """A trick ended: ``seat`` made its last play; ``next_leader`` leads the next one."""

    seat: int
    next_leader: int | None
    points: int = 0


@dataclass(frozen=True, slots=True)
class PlayerOut:
    seat: int
    place: int  # 1 for 上游, 2 for 二游, ...


@dataclass(frozen=True, slots=True)
class PointsTaken:
    """刨王: the taker of a trick collects its point cards."""

    seat: int
    points: int
    total: int


@dataclass(frozen=True, slots=True)
class Revealed:
    """刨王's 亮王: ``seat`` showed ``jokers`` 大王 to the table."""

    seat: int
    jokers: int


@dataclass(frozen=True, slots=True)
class RevealDeclined:
    """刨王: ``seat`` chose not to reveal. Private to that seat: never show it to the group."""

    seat: int


@dataclass(frozen=True, slots=True)
class GameOver:
    result: Result


Event = (
    Played | Passed | TrickTaken | PlayerOut | PointsTaken | Revealed | RevealDeclined | GameOver
)


class Outcome(StrEnum):
    """How a game ended, as the rules name it (and as ``games.outcome`` stores it)."""

    SHUANGKOU = "双扣"  # the winners went out first and second
    DANKOU = "单扣"  # first and third
    PINGKOU = "平扣"  # first and fourth: a draw
    WIN = "win"  # 刨王: a side won (losers with 25 points or more, or no sides at all)
    XIAOXUE = "小雪"  # 刨王: the losers under 25 points when the winners were all out, ×2
    DAXUE = "大雪"  # 刨王: the losers with no points at all, ×4


class WinHow(StrEnum):
    """刨王: how the winning side won; NONE for 双扣 and for a game with no sides."""

    NONE = ""
    POINTS = "points"  # 满140
    FLAG = "flag"  # 扛旗 + 90
    SWEEP = "sweep"  # 双飞: the whole side out
    FOUR_JOKERS = "four_jokers"  # 四王 in one hand


@dataclass(frozen=True, slots=True)
class Result:
    """How a game ended. ``deltas`` are the rules' score changes per seat (they sum to 0)."""

    outcome: Outcome
    finish_order: tuple[int, ...]  # seats in the order they went out
    deltas: tuple[int, ...]
    winners: tuple[int, ...]  # seats of the winning side (empty for 平扣)
    multiplier: int = 1
    revealed: bool = False  # 刨王: a 大王 was revealed (score ×2)
    side_points: tuple[int, int] | None = None  # 刨王: (winners' points, losers' points)
    instant: bool = False  # 刨王: all four jokers in one hand
    how: WinHow = WinHow.NONE


@dataclass(frozen=True, slots=True)
class SeatView:
    """What one seat may know (``seat`` is None for the public view shown to the group).

    Rendering and computer players read only this, never the engine's internals.
    """

    variant: str
    seat: int | None
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    turn: int | None
    on_table: Combo | None
    on_table_seat: int | None
    trick: tuple[tuple[int, Combo | None], ...]  # this trick so far: (seat, play or None for 不出)
    history: tuple[tuple[int, Combo | None], ...]  # every play and pass of the game, in order
    finish_order: tuple[int, ...]
    partners: tuple[int, ...]  # seats this seat knows to be on its side (itself excluded)
    over: bool
    opponents: tuple[int, ...] = ()  # seats this seat knows to be on the other side
    points: tuple[int, ...] = ()  # 刨王: points collected per seat
    revealed: tuple[bool, ...] = ()  # 刨王: which seats revealed a 大王
    revealed_jokers: tuple[int, ...] = ()  # 刨王: how many 大王 each revealed seat showed
    reveal_pending: bool = False  # 刨王: this seat still has to answer 亮王
    reveal_phase: bool = False  # 刨王: the 亮王 phase is open (somebody still to answer)
    trick_points: int = 0  # 刨王: points in the open trick
    last_trick: tuple[tuple[int, Combo | None], ...] = ()  # the trick taken last, if any
