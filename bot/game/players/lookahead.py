"""The AI's look-ahead near the end of a game: a small determinized search within its budget.

With few cards left, a game played out is short: the AI can afford to try its few sensible
moves in a handful of deals that agree with what it has seen, each played to the end by
itself without the look-ahead in every seat, and take the move that scored best for its seat.
Earlier in the game it decides without (a play-out would cost tens of milliseconds there).

Over the partner's trick only the moves the player could give a reason for are tried (the
``allowed`` its AI passes in): a better score in a few play-outs is not such a reason.

Deterministic: the deals are drawn from a generator seeded by the view, so the same view
gives the same decision, and nothing the seat cannot see can change it.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable, Sequence
from typing import Final

from bot.game.common import Combo, SeatView
from bot.game.players.base import Player
from bot.game.players.sampling import act, candidates, clone, determinize, finish, z_score

#: look ahead once the hands hold this many cards or fewer, all seats together. In 刨王 a
#: sample's sides are a guess for every seat that has not revealed, yet with today's AI in
#: the play-outs the look gains there too (bench/results/tuning.md)
CARDS_LEFT: Final = {"shuangkou": 20, "paowang": 25}
#: deals tried: 刨王's five hands make a play-out dearer, and its learned move model (600
#: trees) is scored at every decision of one; eight deals from 25 cards played out without
#: that model (below) are even with four played out with it (seeds 76 and 77, both ways) at
#: less cost, which keeps its slowest cold decisions under the 50 ms budget (30 cards went over
#: it on a slower day; bench/results/tuning.md)
SAMPLES: Final = {"shuangkou": 6, "paowang": 8}
#: 刨王's play-outs by the AI with its learned bombs and 亮王 but not its learned moves: about
#: half a play-out's cost, so twice the deals for less time than four played out in full
LEARNED_MOVES_IN_PLAYOUTS: Final = False
#: moves compared in each
MOVES: Final = 5


def view_seed(view: SeatView) -> int:
    """A seed from what the seat sees (its hand and the public history), nothing else."""
    plays = ";".join(
        f"{seat}:{'' if combo is None else ','.join(map(str, map(int, combo.cards)))}"
        for seat, combo in view.history
    )
    text = f"{view.variant}|{view.seat}|{','.join(map(str, map(int, view.hand)))}|{plays}"
    return zlib.crc32(text.encode())


def worth_looking(view: SeatView) -> bool:
    return (
        view.seat is not None
        and not view.reveal_pending
        and sum(view.hand_sizes) <= CARDS_LEFT.get(view.variant, 0)
    )


def look_ahead(
    view: SeatView, first: Combo | None, heuristic: Player,
    allowed: Callable[[Combo | None], bool] = lambda move: True, samples: int | None = None,
    sure: float = 0.0, moves: int = MOVES,
) -> Combo | None:
    """The best of the sensible moves by a small search; ``first`` (the heuristic's own
    choice) unless another move scored better; with ``sure`` above 0, by at least that many
    standard errors of its paired differences, deal by deal (the search yardstick's rule; it
    lost near the end in the bot, bench/results/tuning.md, so the bot leaves it at 0). Only moves
    ``allowed`` are tried: a play-out's score is no reason to overtake a partner the player
    could state. ``samples``: deals tried, if not the variant's :data:`SAMPLES`; ``moves``:
    the sensible moves compared, at most."""
    tried = [m for m in candidates(view, first, moves) if m is first or allowed(m)]
    if len(tried) == 1:
        return first
    assert view.seat is not None
    rng = random.Random(view_seed(view))
    scores: list[list[float]] = []  # a deal's score of each move, for the seat
    for _ in range(SAMPLES[view.variant] if samples is None else samples):
        found = determinize(view, rng)
        if found is None:
            return first
        _, position = found
        row = []
        for move in tried:
            game = clone(position)
            act(game, view.seat, move)
            row.append(float(finish(game, heuristic)[view.seat]))
        scores.append(row)
    if not scores:
        return first
    return tried[best_of(scores, sure)]


def best_of(scores: Sequence[Sequence[float]], sure: float) -> int:
    """Of the moves scored deal by deal (``scores``: a row a deal, the AI's choice first),
    the one with the largest mean gain over the first (the first when none gains), the
    earliest on a tie; a gain counts only if its z is ``sure`` or more."""
    best, best_gain = 0, 0.0
    for index in range(1, len(scores[0])):
        differences = [row[index] - row[0] for row in scores]
        gain = sum(differences) / len(differences)
        if gain > best_gain and (sure <= 0 or z_score(differences) >= sure):
            best, best_gain = index, gain
    return best
