"""Two baseline players to measure the real one against: uniformly random, and greedy."""

from __future__ import annotations

import random

from bot.game.common import Combo, SeatView
from bot.game.players.base import legal_options, lowest


class RandomPlayer:
    """A uniformly random legal action: each distinct play, and the pass when it is allowed."""

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: SeatView) -> Combo | None:
        options: list[Combo | None] = list(legal_options(view))
        if view.on_table is not None:
            options.append(None)
        return self._rng.choice(options)

    def choose_reveal(self, view: SeatView) -> bool:
        return self._rng.random() < 0.5


class GreedyPlayer:
    """The lowest legal play, every time: never passes while it has a play, never reveals."""

    def __init__(self, seed: int = 0) -> None:
        del seed  # deterministic by nature; the argument keeps one factory signature

    def choose(self, view: SeatView) -> Combo | None:
        options = legal_options(view)
        return lowest(options) if options else None

    def choose_reveal(self, view: SeatView) -> bool:
        return False
