"""通化刨王's scores: the settlement rows, and what a desertion (逃跑) fixes.

The rules are ``shared/rules/paowang.md`` (Settlement). Pure: no I/O, no clock; the bot says
how long a game has lasted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from bot.game.common import IllegalPlay, Reason

if TYPE_CHECKING:
    from bot.game.paowang import Game

__all__ = [
    "ESCAPE_GAMES",
    "ESCAPE_MIN_SECONDS",
    "ESCAPE_MIN_TURNS",
    "SETTLEMENT",
    "desertion_scores",
    "escape_penalty",
    "settlement_row",
    "turns_taken",
]

SEATS = 5

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
