"""通化刨王's scores: the settlement rows, and what a desertion (逃跑) fixes.

The rules are ``shared/rules/paowang.md`` (Game end, Settlement). Pure: no I/O, no clock; the
bot says how long a game has lasted. The engine asks here when a game is decided and how it is
scored; the moves themselves stay in :mod:`bot.game.paowang`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from bot.game.common import IllegalPlay, Outcome, Reason, Result, WinHow

if TYPE_CHECKING:
    from bot.game.paowang import Game

__all__ = [
    "ESCAPE_GAMES",
    "ESCAPE_MIN_SECONDS",
    "ESCAPE_MIN_TURNS",
    "FLAG_WIN_POINTS",
    "SETTLEMENT",
    "SNOW_LIMIT",
    "WIN_POINTS",
    "desertion_scores",
    "end_outcome",
    "escape_penalty",
    "instant_result",
    "settled_result",
    "settlement_row",
    "turns_taken",
    "winning_side",
]

SEATS = 5

#: a side wins outright with this many points
WIN_POINTS = 140
#: ... or with this many when the first player out (扛旗) is on it
FLAG_WIN_POINTS = 90
#: losers with this many points end the game at once, ×1; under it they are snowed on
SNOW_LIMIT = 25

#: Settlement rows: (王 side size, 王 side won) -> (each winner, each loser), before multipliers.
SETTLEMENT: dict[tuple[int, bool], tuple[int, int]] = {
    (2, True): (3, -2),  # 有王一方胜: +3 each, the other three -2 each
    (2, False): (2, -3),  # 无王一方胜: +2 each, the two 王 holders -3 each
    (1, True): (8, -2),  # 王 in one hand wins: +8, the other four -2 each
    (1, False): (2, -8),  # 王 in one hand loses: the other four +2 each, -8
}
#: 逃跑 is scored as this many lost games (按输4局扣分)
ESCAPE_GAMES = 4
#: after a desertion the other side scores a win only if the game had lasted this long...
ESCAPE_MIN_SECONDS = 30.0
#: ... and every seat had had this many turns (plays and passes)
ESCAPE_MIN_TURNS = 4


def settlement_row(wang_size: int, wang_won: bool) -> tuple[int, int]:
    """(each winner's, each loser's) base score for a 王 side of ``wang_size`` (1 or 2)."""
    return SETTLEMENT[min(wang_size, 2), wang_won]


def turns_taken(game: Game) -> tuple[int, ...]:
    """How many turns each seat has had so far: its plays and passes (亮王 answers aside)."""
    counts = [0] * SEATS
    for seat, _ in game.history:
        counts[seat] += 1
    return tuple(counts)


def escape_penalty(game: Game, seat: int) -> int:
    """What abandoning ``game`` (逃跑) costs the player of ``seat``: a negative number.

    A loss ×4 ("按输4局扣分") on the seat's side's losing row, with no snow and no ×2 for a
    reveal: -12 for a 王 side of two, -8 for the other side in 2 against 3, -32 for the 王 in
    one hand, -8 for the other side in 1 against 4. It depends on the teams alone (the deal),
    so it may be asked at any moment of the game. Raises ``ValueError`` when there are no
    sides (no 大王 in play: hand-made positions only).
    """
    if not 0 <= seat < SEATS:
        raise IllegalPlay(Reason.NO_SUCH_SEAT, str(seat))
    if not game.wang_side:
        raise ValueError("no 大王 in play: no sides to score")
    # the seat's side loses: the 王 side loses when the seat holds a 大王, and wins otherwise
    _, loser_base = settlement_row(len(game.wang_side), seat not in game.wang_side)
    return loser_base * ESCAPE_GAMES


def desertion_scores(
    game: Game, seat: int, fixed: Sequence[int | None], *, seconds: float
) -> tuple[int | None, ...]:
    """The scores fixed by ``seat`` abandoning ``game`` after ``seconds`` of play (逃跑).

    ``fixed`` holds, per seat, a score fixed by an earlier desertion or None. The first
    desertion ends the game's scoring (000, 特别说明 2-3): the deserter gets
    :func:`escape_penalty`, its partners 0, and each player of the other side its side's
    winning row ×1 if the game had lasted :data:`ESCAPE_MIN_SECONDS` and every seat had had
    :data:`ESCAPE_MIN_TURNS` turns, 0 otherwise. Every seat's score is then fixed, and the
    game's own result changes none. A later deserter gets its own penalty; nobody else's
    score changes again. The sum need not be zero.
    """
    penalty = escape_penalty(game, seat)
    if any(score is not None for score in fixed):  # the game stopped counting already
        scores = list(fixed)
        scores[seat] = penalty
        return tuple(scores)
    counts = seconds >= ESCAPE_MIN_SECONDS and min(turns_taken(game)) >= ESCAPE_MIN_TURNS
    partners = game.side_of(seat)
    # the other side wins: the 王 side when the deserter is not on it
    winner_base, _ = settlement_row(len(game.wang_side), seat not in game.wang_side)
    return tuple(
        penalty if s == seat else 0 if s in partners or not counts else winner_base
        for s in range(SEATS)
    )


def winning_side(
    side_points: tuple[int, int], flag_side: int | None, sides_out: tuple[bool, bool]
) -> tuple[int, WinHow] | None:
    """The side (0: 王, 1: other) that meets a winning condition now and how, if any.

    ``flag_side`` is the side of the first player out (扛旗), ``sides_out`` whether each side
    has all its players out. At most one side can meet a condition at a time.
    """
    for side in (0, 1):
        if side_points[side] >= WIN_POINTS:
            return side, WinHow.POINTS
    if flag_side is not None and side_points[flag_side] >= FLAG_WIN_POINTS:
        return flag_side, WinHow.FLAG
    for side in (0, 1):
        if sides_out[side]:
            return side, WinHow.SWEEP  # 双飞
    return None


def end_outcome(losers_points: int, winners_out: bool) -> tuple[Outcome, int] | None:
    """(outcome, factor) once a side has won, or None while the winners play on (雪 in the
    making): losers with 25 points end it at ×1; otherwise it ends when the winners are all
    out, 大雪 ×4 if the losers have nothing, else 小雪 ×2."""
    if losers_points >= SNOW_LIMIT:
        return Outcome.WIN, 1
    if winners_out:
        return (Outcome.DAXUE, 4) if losers_points == 0 else (Outcome.XIAOXUE, 2)
    return None


def settled_result(
    *,
    wang_size: int,
    wang_won: bool,
    winners: tuple[int, ...],
    outcome: Outcome,
    factor: int,
    revealed: bool,
    finish_order: tuple[int, ...],
    side_points: tuple[int, int],
    how: WinHow,
) -> Result:
    """The result of a decided game: the settlement row × the snow factor × 2 for a reveal.

    ``side_points`` are (winners', losers')."""
    winner_base, loser_base = settlement_row(wang_size, wang_won)
    multiplier = factor * (2 if revealed else 1)
    deltas = tuple(
        (winner_base if s in winners else loser_base) * multiplier for s in range(SEATS)
    )
    return Result(
        outcome,
        finish_order,
        deltas,
        winners,
        multiplier=multiplier,
        revealed=revealed,
        side_points=side_points,
        how=how,
    )


def instant_result(holder: int) -> Result:
    """All four jokers in one hand: that player wins at once, 1 against 4, ×1."""
    winner_base, loser_base = settlement_row(1, True)
    deltas = tuple(winner_base if s == holder else loser_base for s in range(SEATS))
    return Result(
        Outcome.WIN,
        (),
        deltas,
        (holder,),
        multiplier=1,
        side_points=(0, 0),
        instant=True,
        how=WinHow.FOUR_JOKERS,
    )


def decide(
    game: Game, won: tuple[int, WinHow] | None
) -> tuple[tuple[int, WinHow] | None, Result | None]:
    """At a moment the rules look at (a player out, a trick taken): the side that has won
    and how (``won`` if one had already, else one meeting a condition now, else None), and
    the game's result once it is decided (None while 雪 is in the making: the winners play
    on until they are all out, unless the losers reach 25)."""
    sides = (game.wang_side, game.other_side)
    side_points = game.side_points()
    if won is None:
        first = game.first_out
        won = winning_side(
            side_points,
            None if first is None else (0 if first in game.wang_side else 1),
            (not any(game.hands[s] for s in sides[0]), not any(game.hands[s] for s in sides[1])),
        )
        if won is None:
            return None, None
    side, how = won
    decided = end_outcome(side_points[1 - side], not any(game.hands[s] for s in sides[side]))
    if decided is None:
        return won, None
    outcome, factor = decided
    return won, settled_result(
        wang_size=len(game.wang_side),
        wang_won=side == 0,
        winners=sides[side],
        outcome=outcome,
        factor=factor,
        revealed=game.any_revealed,
        finish_order=tuple(game.finish_order),
        side_points=(side_points[side], side_points[1 - side]),
        how=how,
    )
