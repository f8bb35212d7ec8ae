"""Paired matches of the bot's AI against another player in the same seats: the search
player (:mod:`bench.search`), or the AI's own heuristic without its look-ahead.

Each deal is played twice, so that the luck of the cards cancels out of the comparison:

- 双扣: the tried team in seats 0+2 and the AI team in 1+3, then the other way round. One
  sample per deal: the tried seats' mean score change over both seatings (the AI team's is
  its negative).
- 刨王: two tried seats among three AI seats, then the same deal with the AI in all five.
  One sample per deal: what the two seats scored with the tried player in them, less what
  they scored with the AI in them. The pair of seats turns deal by deal through all ten.

The figure is the mean over deals with its 95% interval (normal approximation); positive
means the tried player did better than the AI in the same seats. Run through
``python -m bench.players``.
"""

from __future__ import annotations

import functools
import itertools
import statistics
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass

from bench.search import SearchPlayer
from bot.cli.simulate import mean_ci95, new_game, play_out
from bot.game.players import AiPlayer, Player
from bot.game.players.paowang_ai import Tuning
from bot.game.players.shuangkou_moves import NO_LOOK
from bot.game.players.trees import TreeModel

PAOWANG_PAIRS: tuple[tuple[int, int], ...] = tuple(itertools.combinations(range(5), 2))


@dataclass(frozen=True, slots=True)
class SearchBudget:
    samples: int = 16
    max_candidates: int = 4
    margin: float = 0.0
    #: leave the AI's choice only for a gain this sure (the paired differences' z)
    z: float = 2.0
    #: play out (and start from) the previous round's AI (#27's second yardstick): in 刨王 the
    #: heuristic with its learned bombs and 亮王, without the move model; in 双扣 the heuristic
    #: without its learned look
    previous_playouts: bool = False

    @property
    def title(self) -> str:
        playouts = ", play-outs by the previous round's AI" if self.previous_playouts else ""
        return (
            f"search player ({self.samples} samples × {self.max_candidates} moves, "
            f"z ≥ {self.z:g}{playouts})"
        )


#: who sits in the tried seats: ``(seat, seed) -> player``; the others get the bot's AI
Factory = Callable[[int, int], Player]


def _search_player(
    budget: SearchBudget, tuning: Tuning | None, shuangkou_moves: TreeModel | None, seat: int,
    seed: int,
) -> Player:
    rollout: Player | None = None
    if budget.previous_playouts:
        rollout = AiPlayer(
            seed, lookahead=False, paowang_tuning=Tuning(learned_moves=False),
            shuangkou_moves=NO_LOOK,
        )
    elif tuning is not None or shuangkou_moves is not None:
        rollout = AiPlayer(
            seed, lookahead=False, paowang_tuning=tuning, shuangkou_moves=shuangkou_moves
        )
    return SearchPlayer(
        seed, samples=budget.samples, max_candidates=budget.max_candidates, margin=budget.margin,
        z=budget.z, rollout=rollout,
    )


def search_factory(
    budget: SearchBudget, tuning: Tuning | None = None,
    shuangkou_moves: TreeModel | None = None,
) -> Factory:
    """Search players with ``budget`` (picklable, for the worker processes); with ``tuning``,
    they start from and play out with the 刨王 AI so tuned (the yardstick at a table of a
    candidate model, whose other seats play by it too); with ``shuangkou_moves``, with the
    双扣 AI of that move model (the yardstick built on a previous round)."""
    return functools.partial(_search_player, budget, tuning, shuangkou_moves)


def heuristic_factory(seat: int, seed: int) -> Player:
    """The bot's AI without its look-ahead: what it was before the look-ahead."""
    return AiPlayer(seat, lookahead=False)


@dataclass(frozen=True, slots=True)
class DealOutcome:
    """One deal played in both seatings: the sample, and what it took."""

    deal: int
    gain: float  # the tried seats' score over the AI's in the same seats, per seat and game
    seat_games: int
    decisions: int  # searched decisions, for a search player
    seconds: float  # in those decisions


@dataclass(frozen=True, slots=True)
class MatchReport:
    variant: str
    title: str
    deals: int
    seat_games: int
    mean: float
    ci95: float
    seconds: float
    ms_per_decision: float | None
    seed: int

    @property
    def low(self) -> float:
        return self.mean - self.ci95

    @property
    def high(self) -> float:
        return self.mean + self.ci95


def ai_factory(seat: int, seed: int) -> Player:
    """The bot's AI as it is: who sits in the other seats unless a match says otherwise."""
    return AiPlayer(seat)


def _play(
    variant: str, deal_seed: int, tried: Sequence[int], factory: Factory, seed: int,
    baseline: Factory = ai_factory,
) -> tuple[tuple[int, ...], int, float]:
    """One game: the score change per seat, the tried players' decisions and seconds."""
    game = new_game(variant, deal_seed)
    players: list[Player] = [
        factory(seat, seed * 1_000_003 + deal_seed * 10 + seat) if seat in tried
        else baseline(seat, seed)
        for seat in range(game.seats)
    ]
    result = play_out(game, players)
    searchers = [player for player in players if isinstance(player, SearchPlayer)]
    decisions = sum(player.decisions for player in searchers)
    seconds = sum(player.seconds for player in searchers)
    return tuple(result.deltas), decisions, seconds


def play_deal(
    variant: str, deal: int, factory: Factory, seed: int, baseline: Factory = ai_factory
) -> DealOutcome:
    deal_seed = seed * 1_000_003 + 700_000 + deal
    if variant == "shuangkou":
        first, d1, s1 = _play(variant, deal_seed, (0, 2), factory, seed, baseline)
        second, d2, s2 = _play(variant, deal_seed, (1, 3), factory, seed, baseline)
        gain = statistics.fmean([first[0], first[2], second[1], second[3]])
        return DealOutcome(deal, gain, 4, d1 + d2, s1 + s2)
    pair = PAOWANG_PAIRS[deal % len(PAOWANG_PAIRS)]
    tried, decisions, seconds = _play(variant, deal_seed, pair, factory, seed, baseline)
    alone, _, _ = _play(variant, deal_seed, (), factory, seed, baseline)
    gain = statistics.fmean(tried[seat] - alone[seat] for seat in pair)
    return DealOutcome(deal, gain, 2, decisions, seconds)


def run_match(
    variant: str,
    deals: int,
    factory: Factory,
    *,
    title: str,
    seed: int = 0,
    jobs: int = 1,
    progress: Callable[[DealOutcome], None] | None = None,
    baseline: Factory = ai_factory,
    only: Sequence[int] | None = None,
) -> MatchReport:
    """The match on deals ``0 .. deals - 1``, or on the deals ``only`` (a match resumed, or
    spread over several runs: a deal's cards and seats depend on its number and the seed
    alone, so the parts are one match)."""
    start = time.perf_counter()
    numbers = range(deals) if only is None else only
    outcomes: list[DealOutcome] = []
    if jobs <= 1:
        for deal in numbers:
            outcomes.append(play_deal(variant, deal, factory, seed, baseline))
            if progress:
                progress(outcomes[-1])
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [
                pool.submit(play_deal, variant, deal, factory, seed, baseline)
                for deal in numbers
            ]
            # as each ends, not in order: a run stopped early has told of every deal it played
            for future in as_completed(futures):
                outcomes.append(future.result())
                if progress:
                    progress(outcomes[-1])
    mean, ci = mean_ci95([outcome.gain for outcome in outcomes])
    decisions = sum(outcome.decisions for outcome in outcomes)
    seconds = sum(outcome.seconds for outcome in outcomes)
    return MatchReport(
        variant=variant,
        title=title,
        deals=len(outcomes),
        seat_games=sum(outcome.seat_games for outcome in outcomes),
        mean=mean,
        ci95=ci,
        seconds=time.perf_counter() - start,
        ms_per_decision=1000 * seconds / decisions if decisions else None,
        seed=seed,
    )
