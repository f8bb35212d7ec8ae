"""A reader of the cards themselves, tried offline against the committed trees before any
labelling: ``python -m bench.try_network FILE... --folds 5 [--jobs 2]`` (label files of
``bench.train_moves collect``, collected at a table of the committed model).

The trees read counts and flags (:data:`bot.game.players.paowang_moves.MOVE_FEATURES`). This
reads, after them, the cards as DouZero reads a position: for each rank, how many the hand
holds, how many are unseen, how many the move plays, how many the heuristic's choice plays and
how many lie on the table; then each other seat's cards and side as the seat knows it
(:data:`CARD_FEATURES`). A small network (:class:`Network`: one hidden layer, fitted with Adam
in numpy, stopped early on a tenth of the fitted deals) scores a move against the choice from
all of it, in two ways (:data:`NETWORK_WAYS`): on top of the committed trees (fitted to what
they leave unexplained, added at half or the whole of its size), or alone.

Each way is judged as ``bench.try_rounds`` judges a way of fitting trees: on the same held-out
decisions as the committed model, its pick and the committed model's pick read off the labels,
with intervals that count a deal as one draw. A reader worth labelling or matches for is one
whose difference is clearly above zero (``bench/results/tuning.md``, round 16).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bench import try_rounds
from bot.game.cards import BIG_JOKER
from bot.game.common import Combo, SeatView
from bot.game.players.decompose import counts_of
from bot.game.players.paowang_moves import COMMITTED, Position, inputs_of

#: the ranks a 刨王 deck holds (no 3s): 4 to 2, then the two jokers
RANKS = tuple(range(4, BIG_JOKER + 1))
#: what each rank is read as, and what each other seat (by its distance to the right)
CARD_GROUPS = ("hand", "unseen", "move", "choice", "table")
SEAT_NAMES = ("cards/10", "partner", "foe", "out")
CARD_FEATURES = (
    *(f"{group} {rank}" for group in CARD_GROUPS for rank in RANKS),
    *(f"seat +{step} {name}" for step in range(1, 5) for name in SEAT_NAMES),
)
Rows = Sequence[dict[str, Any]]


def _by_rank(counts: Sequence[int]) -> list[float]:
    return [float(counts[rank]) for rank in RANKS]


def _played(move: Combo | None) -> list[float]:
    return _by_rank(counts_of(() if move is None else move.cards))


def _seats(view: SeatView) -> list[float]:
    """Each other seat, to the right in turn: its cards, its side as known, whether it is out."""
    assert view.seat is not None
    seats = len(view.hand_sizes)
    read: list[float] = []
    for step in range(1, seats):
        seat = (view.seat + step) % seats
        size = view.hand_sizes[seat]
        read += [
            size / 10, float(seat in view.partners), float(seat in view.opponents),
            float(size == 0),
        ]
    return read


def with_cards(position: Position, moves: Sequence[Combo | None]) -> list[tuple[float, ...]]:
    """Today's inputs of each move but the first, then the cards (:data:`CARD_FEATURES`)."""
    view = position.view
    hand, unseen = _by_rank(position.counts), _by_rank(position.unseen)
    table = _played(view.on_table)
    seats = _seats(view)
    choice = _played(moves[0])
    return [
        (*today, *hand, *unseen, *_played(move), *choice, *table, *seats)
        for today, move in zip(inputs_of(position, moves), moves[1:], strict=True)
    ]


def _forward(
    x: np.ndarray, hidden: np.ndarray, hidden_bias: np.ndarray, out: np.ndarray, out_bias: float
) -> np.ndarray:
    """The network's scores of standardized inputs ``x``."""
    result: np.ndarray = np.maximum(x @ hidden + hidden_bias, 0) @ out + out_bias
    return result


@dataclass(frozen=True)
class Network:
    """One hidden layer of rectified units, its inputs standardized; with ``prior``, the
    committed trees' score plus ``step`` times the network's."""

    mean: np.ndarray
    scale: np.ndarray
    hidden: np.ndarray
    hidden_bias: np.ndarray
    out: np.ndarray
    out_bias: float
    step: float = 1.0
    prior: bool = False

    def raw(self, inputs: np.ndarray) -> np.ndarray:
        return _forward(
            (inputs - self.mean) / self.scale, self.hidden, self.hidden_bias, self.out,
            self.out_bias,
        )

    def expected_gain(self, inputs: Sequence[float]) -> float:
        score = self.step * float(self.raw(np.asarray(inputs, dtype=float)[None, :])[0])
        return score + (COMMITTED.expected_gain(inputs) if self.prior else 0.0)


#: the network's shape and fit: units, epochs at most, batch, learning rate, weight decay,
#: epochs without a better validation loss before stopping
UNITS = 32
EPOCHS = 60
BATCH = 256
RATE = 1e-3
DECAY = 1e-3
PATIENCE = 6


def fit_network(
    inputs: np.ndarray, labels: np.ndarray, groups: np.ndarray, seed: int = 0
) -> tuple[np.ndarray, ...]:
    """Weights fitted by Adam to the squared error, the deals split nine to one to stop early:
    (mean, scale, hidden, hidden bias, out, out bias)."""
    rng = np.random.default_rng(seed)
    deals = sorted(set(groups.tolist()))
    random.Random(seed).shuffle(deals)
    check = set(deals[:max(1, len(deals) // 10)])
    held = np.array([group in check for group in groups.tolist()])
    train_x, train_y = inputs[~held], labels[~held]
    mean = train_x.mean(axis=0)
    scale = train_x.std(axis=0) + 1e-6
    x = (train_x - mean) / scale
    check_x, check_y = (inputs[held] - mean) / scale, labels[held]
    width = x.shape[1]
    weights = [
        rng.normal(0, (2 / width) ** 0.5, (width, UNITS)), np.zeros(UNITS),
        rng.normal(0, (1 / UNITS) ** 0.5, UNITS), np.zeros(1),
    ]
    moments = [np.zeros_like(w) for w in weights]
    squares = [np.zeros_like(w) for w in weights]
    best, best_loss, waited, steps = [w.copy() for w in weights], np.inf, 0, 0
    for _ in range(EPOCHS):
        order = rng.permutation(len(x))
        for start in range(0, len(x), BATCH):
            batch = order[start:start + BATCH]
            xb, yb = x[batch], train_y[batch]
            hidden = xb @ weights[0] + weights[1]
            active = np.maximum(hidden, 0)
            error = active @ weights[2] + weights[3][0] - yb
            back = 2 * error / len(batch)
            grad_hidden = np.outer(back, weights[2]) * (hidden > 0)
            grads = [
                xb.T @ grad_hidden + DECAY * weights[0], grad_hidden.sum(axis=0),
                active.T @ back + DECAY * weights[2], np.array([back.sum()]),
            ]
            steps += 1
            for index, grad in enumerate(grads):
                moments[index] = 0.9 * moments[index] + 0.1 * grad
                squares[index] = 0.999 * squares[index] + 0.001 * grad * grad
                corrected = moments[index] / (1 - 0.9**steps)
                spread = np.sqrt(squares[index] / (1 - 0.999**steps)) + 1e-8
                weights[index] = weights[index] - RATE * corrected / spread
        predicted = _forward(check_x, weights[0], weights[1], weights[2], weights[3][0])
        loss = float(np.mean((predicted - check_y) ** 2))
        if loss < best_loss:
            best, best_loss, waited = [w.copy() for w in weights], loss, 0
        else:
            waited += 1
            if waited >= PATIENCE:
                break
    return mean, scale, best[0], best[1], best[2], best[3]


def network_for(rows: Rows, prior: bool, step: float) -> Network:
    """A network fitted to ``rows``' labels (less the committed trees' scores with
    ``prior``)."""
    inputs = np.array([move for row in rows for move in row["inputs"]], dtype=float)
    labels = np.array([gain for row in rows for gain in row["gains"]], dtype=float)
    groups = np.array([row["group"] for row in rows for _ in row["gains"]])
    if prior:
        labels = labels - np.array([COMMITTED.expected_gain(move) for move in inputs.tolist()])
    mean, scale, hidden, hidden_bias, out, out_bias = fit_network(inputs, labels, groups)
    return Network(mean, scale, hidden, hidden_bias, out, float(out_bias[0]), step, prior)


#: the ways, by name, as ``bench.try_rounds.WAYS`` holds them
NETWORK_WAYS = {
    "network on top, half step": lambda rows: network_for(rows, prior=True, step=0.5),
    "network on top": lambda rows: network_for(rows, prior=True, step=1.0),
    "network alone": lambda rows: network_for(rows, prior=False, step=1.0),
}


def main(argv: Sequence[str] | None = None) -> int:
    return try_rounds.main(
        argv, prog="python -m bench.try_network", description=__doc__, ways=NETWORK_WAYS,
        reader=with_cards,
    )


if __name__ == "__main__":
    sys.exit(main())
