"""A search player: the yardstick the bot's computer players are measured against (bench only).

Perfect-information Monte-Carlo (determinized) search. At each play it samples deals that
agree with everything its seat has seen (its own hand, every card played, each seat's card
count, in 刨王 the revealed 大王 and the sides the seat knows: ``bot.game.players.sampling``),
and in each sample plays every candidate out to the end with the bot's heuristic AI in every
seat. It picks the candidate with the best mean score for its seat. Every candidate is tried
on the same samples (common random numbers), so the comparison between candidates is sharper
than the samples are many. With ``belief`` above 1 it draws that many agreeing deals for each
sample and keeps one by how likely the others' actions so far were in it
(``sampling.believe``): a pass or a bomb says something of a hand.

It is slow by design (tens to hundreds of milliseconds a move): it is never in the bot. Its
budget is counted in samples, not in seconds, so a run is reproducible on any machine and
under any load. 亮王 is left to the bot's AI: the search decides plays and passes only.
"""

from __future__ import annotations

import random
import statistics
import time

from bot.game.common import Combo, SeatView
from bot.game.players import AiPlayer
from bot.game.players.base import Player
from bot.game.players.sampling import (
    act,
    believe,
    candidates,
    clone,
    determinize,
    finish,
    z_score,
)


class SearchPlayer:
    """Determinized Monte-Carlo search over the bot's AI; deterministic for a seed."""

    def __init__(
        self,
        seed: int = 0,
        *,
        samples: int = 8,
        max_candidates: int = 10,
        margin: float = 0.0,
        z: float = 0.0,
        rollout: Player | None = None,
        belief: int = 1,
    ) -> None:
        self.rng = random.Random(seed)
        self.samples = samples
        self.max_candidates = max_candidates
        self.margin = margin  # mean points a move must gain over the AI's choice to be taken
        # and how sure that gain must be: the paired differences' mean over its standard
        # error (2: about 97.5% one-sided); 0 takes the best mean whatever the noise
        self.z = z
        # the heuristic alone plays the samples out (the AI's own look-ahead would nest)
        self.rollout = rollout if rollout is not None else AiPlayer(seed, lookahead=False)
        # agreeing deals drawn for each sample, the one kept picked by how likely the
        # others' actions were in it under the rollout's policy (1: uniform, as drawn)
        self.belief = belief
        self.decisions = 0  # searched decisions (a forced move is not searched)
        self.rollouts = 0
        self.seconds = 0.0  # spent in searched decisions

    def choose_reveal(self, view: SeatView) -> bool:
        return self.rollout.choose_reveal(view)

    def choose(self, view: SeatView) -> Combo | None:
        moves = candidates(view, self.rollout.choose(view), self.max_candidates)
        if len(moves) == 1:
            return moves[0]
        self.decisions += 1
        started = time.perf_counter()
        try:
            return self._search(view, moves)
        finally:
            self.seconds += time.perf_counter() - started

    def _search(self, view: SeatView, moves: list[Combo | None]) -> Combo | None:
        scores = self.scores(view, moves)
        if scores is None:  # nothing agrees with the view: play as the AI does
            return moves[0]
        best, best_mean = 0, float(self.margin)
        for index in range(1, len(moves)):
            differences = [sample[index] - sample[0] for sample in scores]
            mean = statistics.fmean(differences)
            # a handful of play-outs is noisy: leave the AI's choice only for a clear gain
            if mean < best_mean or z_score(differences) < self.z:
                continue
            if mean > best_mean or best == 0:
                best, best_mean = index, mean
        return moves[best]

    def scores(self, view: SeatView, moves: list[Combo | None]) -> list[list[float]] | None:
        """Each sample's score of each move for the seat (the same samples for every move);
        None if no sample agrees with the view."""
        assert view.seat is not None
        rows = []
        for _ in range(self.samples):
            found = (
                determinize(view, self.rng) if self.belief <= 1
                else believe(view, self.rng, self.rollout, self.belief)
            )
            if found is None:
                return None
            _, position = found
            row = []
            for move in moves:
                game = clone(position)
                act(game, view.seat, move)
                row.append(float(finish(game, self.rollout)[view.seat]))
                self.rollouts += 1
            rows.append(row)
        return rows
