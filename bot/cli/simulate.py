"""Play many games between computer players and report how each kind of player fared.

``python -m bot simulate --game shuangkou --games 200 --players ai,random,ai,random`` plays
the games with the seats rotated (game ``g`` puts ``players[(seat + g) % n]`` in ``seat``), so
that every kind sits everywhere and a seat's advantage (the first lead, 刨王's ♥5) washes out.
:func:`run_simulation` returns the figures as a :class:`SimulationReport` for tests and the bench.
"""

from __future__ import annotations

import math
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from bot.game.common import Outcome
from bot.game.players import KINDS, Player, decide, make_player
from bot.game.protocol import GameState
from bot.game.variants import VARIANTS

SEATS = {"shuangkou": 4, "paowang": 5}
DEFAULT_PLAYERS = {"shuangkou": "ai,random,ai,random", "paowang": "ai,random,ai,random,random"}
#: no game of either variant comes near this many actions; past it a player is stuck in a loop
MAX_ACTIONS = 5000


@dataclass(frozen=True, slots=True)
class KindReport:
    """How one kind of player did. A "seat game" is one seat in one game."""

    kind: str
    games: int  # games with at least one seat of this kind
    seat_games: int
    wins: int  # seat games on the winning side
    draws: int  # seat games ending in 双扣's 平扣
    mean_delta: float  # mean score change per seat game
    ci95: float  # half-width of the 95% confidence interval of mean_delta
    decisions: int
    decision_median_ms: float
    decision_p99_ms: float

    @property
    def win_rate(self) -> float:
        return self.wins / self.seat_games if self.seat_games else 0.0


@dataclass(frozen=True, slots=True)
class SimulationReport:
    game: str
    games: int
    players: tuple[str, ...]
    seed: int
    seconds: float
    kinds: dict[str, KindReport] = field(default_factory=dict)
    outcomes: dict[str, int] = field(default_factory=dict)

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("inf")


def mean_ci95(samples: Sequence[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95% confidence interval (normal approximation)."""
    if not samples:
        return 0.0, 0.0
    mean = statistics.fmean(samples)
    if len(samples) < 2:
        return mean, float("inf")
    return mean, 1.96 * statistics.stdev(samples) / math.sqrt(len(samples))


def _percentile(sorted_values: Sequence[float], fraction: float) -> float:
    if not sorted_values:
        return 0.0
    index = min(len(sorted_values) - 1, math.ceil(fraction * len(sorted_values)) - 1)
    return sorted_values[max(0, index)]


def new_game(variant: str, seed: int) -> GameState:
    if variant not in VARIANTS:
        raise ValueError(f"unknown game: {variant!r}")
    return VARIANTS[variant].deal(seed, None)


def next_actor(game: GameState) -> int | None:
    """The seat that acts next: of those that must act now (刨王's 亮王 answers, or the seat
    whose turn it is), the lowest; None once the game is over."""
    acting = game.to_act
    return min(acting) if acting else None


class _Timed:
    """Wraps a player to time its decisions (plays and 亮王 alike)."""

    def __init__(self, player: Player, times: list[float]) -> None:
        self._player = player
        self._times = times

    def choose(self, view: Any) -> Any:
        start = time.perf_counter()
        choice = self._player.choose(view)
        self._times.append(time.perf_counter() - start)
        return choice

    def choose_reveal(self, view: Any) -> bool:
        start = time.perf_counter()
        choice = self._player.choose_reveal(view)
        self._times.append(time.perf_counter() - start)
        return choice


def play_out(game: Any, players: Sequence[Player]) -> Any:
    """Play ``game`` to its end with one player per seat; returns the result."""
    for _ in range(MAX_ACTIONS):
        if game.over:
            return game.result
        seat = next_actor(game)
        if seat is None:
            raise RuntimeError("nobody is to act in a game that is not over")
        decide(players[seat], game, seat)
    raise RuntimeError(f"no end after {MAX_ACTIONS} actions")


def _seat_kinds(game: str, players: Sequence[str] | str | None) -> tuple[str, ...]:
    """The player kinds of a simulation's seats, checked (ValueError on a bad one)."""
    if game not in SEATS:
        raise ValueError(f"unknown game: {game!r}")
    if players is None:
        players = DEFAULT_PLAYERS[game]
    kinds = tuple(players.split(",")) if isinstance(players, str) else tuple(players)
    kinds = tuple(kind.strip() for kind in kinds)
    seats = SEATS[game]
    if len(kinds) != seats:
        raise ValueError(f"{game} needs {seats} players, got {len(kinds)}: {','.join(kinds)}")
    for kind in kinds:
        if kind not in KINDS:
            raise ValueError(f"unknown player kind: {kind!r} (choose from {', '.join(KINDS)})")
    return kinds


def run_simulation(
    game: str, *, games: int, players: Sequence[str] | str | None = None, seed: int = 0
) -> SimulationReport:
    """Play ``games`` games of ``game`` with rotated seats; per-kind results."""
    kinds = _seat_kinds(game, players)
    seats = SEATS[game]
    per_game: dict[str, list[float]] = {kind: [] for kind in kinds}
    seat_games = dict.fromkeys(kinds, 0)
    wins = dict.fromkeys(kinds, 0)
    draws = dict.fromkeys(kinds, 0)
    times: dict[str, list[float]] = {kind: [] for kind in kinds}
    outcomes: dict[str, int] = {}
    start = time.perf_counter()
    for g in range(games):
        seating = [kinds[(seat + g) % seats] for seat in range(seats)]
        table: list[Player] = [
            _Timed(make_player(kind, seed=seed * 7919 + g * 31 + seat), times[kind])
            for seat, kind in enumerate(seating)
        ]
        result = play_out(new_game(game, seed * 1_000_003 + g), table)
        outcomes[result.outcome] = outcomes.get(result.outcome, 0) + 1
        deltas_by_kind: dict[str, list[int]] = {}
        for seat, kind in enumerate(seating):
            seat_games[kind] += 1
            wins[kind] += seat in result.winners
            draws[kind] += result.outcome == Outcome.PINGKOU
            deltas_by_kind.setdefault(kind, []).append(result.deltas[seat])
        for kind, deltas in deltas_by_kind.items():
            per_game[kind].append(statistics.fmean(deltas))
    seconds = time.perf_counter() - start

    reports: dict[str, KindReport] = {}
    for kind in dict.fromkeys(kinds):
        mean, ci = mean_ci95(per_game[kind])
        ordered = sorted(times[kind])
        reports[kind] = KindReport(
            kind=kind, games=len(per_game[kind]), seat_games=seat_games[kind], wins=wins[kind],
            draws=draws[kind], mean_delta=mean, ci95=ci, decisions=len(ordered),
            decision_median_ms=1000 * _percentile(ordered, 0.5),
            decision_p99_ms=1000 * _percentile(ordered, 0.99),
        )
    return SimulationReport(game, games, kinds, seed, seconds, reports, outcomes)


def format_report(report: SimulationReport) -> str:
    lines = [
        f"{report.game}: {report.games} games, players {','.join(report.players)} "
        f"(seats rotated), seed {report.seed}",
        f"{report.seconds:.1f} s, {report.games_per_second:.1f} games/s; outcomes: "
        + ", ".join(f"{name} {count}" for name, count in sorted(report.outcomes.items())),
        f"{'kind':<8}{'seat games':>11}{'wins':>7}{'win %':>7}{'draws':>7}"
        f"{'mean Δ/game':>13}{'95% CI':>16}{'ms/decision (median, p99)':>28}",
    ]
    for kind in report.kinds.values():
        low, high = kind.mean_delta - kind.ci95, kind.mean_delta + kind.ci95
        lines.append(
            f"{kind.kind:<8}{kind.seat_games:>11}{kind.wins:>7}{100 * kind.win_rate:>6.1f}%"
            f"{kind.draws:>7}{kind.mean_delta:>+13.3f}{f'[{low:+.2f}, {high:+.2f}]':>16}"
            f"{f'{kind.decision_median_ms:.2f}, {kind.decision_p99_ms:.2f}':>28}"
        )
    return "\n".join(lines)


def simulate(
    game: str, *, games: int = 100, players: str | None = None, seed: int = 0,
    out: TextIO | None = None,
) -> int:
    """The ``simulate`` command: run, print the report, return the exit code."""
    out = out or sys.stdout
    try:
        report = run_simulation(game, games=games, players=players, seed=seed)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(format_report(report), file=out)
    return 0
