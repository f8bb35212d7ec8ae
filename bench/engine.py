"""Speed of the rules engines: ``.venv/bin/python -m bench.engine [--hands N] [--games N]``.

Prints the figures and writes them to ``bench/results/engine.md`` with the machine they were
measured on:

- 双扣 ``legal_plays`` when leading, on random 27-card hands: median, p90, p99 per call;
- answering a play: ``legal_plays`` against the table, and ``Game.play`` of a legal play, at
  every such moment of random games;
- whole 双扣 games with uniformly random legal moves (a random choice among the legal plays,
  plus passing when allowed): turns per second, deal included;
- the peer, in the same run: RLCard's Dou Dizhu game core (``rlcard==1.2.0``, the ``bench``
  extra) with random actions from ``state["actions"]``, no observation encoding: turns per
  second, and our ratio to it;
- the same for 刨王 (20-card hands, 5 seats, random 亮王 answers) when ``bot.game.paowang``
  exists.

The machine may be shared with other work, so the engines take turns within each round of
random games (the same games each round): a rate is the best round's, and a ratio the median
over rounds of the two rates measured side by side. Latencies are per call over many calls.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

from bench import machine, now
from bot.game import shuangkou
from bot.game.cards import Card, double_deck, double_deck_without_threes

RESULTS = Path(__file__).parent / "results" / "engine.md"

#: goals of the engine (design issue): µs for a median leading legal_plays, and our random-game
#: speed as a multiple of RLCard's Dou Dizhu
SHUANGKOU_LEADING_GOAL_US = 100.0
SHUANGKOU_LEADING_AIM_US = 50.0
PAOWANG_LEADING_GOAL_US = 60.0
RATIO_GOAL = 5.0


@dataclass(frozen=True)
class Latency:
    """Per-call times of one operation, in seconds."""

    what: str
    times: list[float]

    def quantile(self, fraction: float) -> float:
        ordered = sorted(self.times)
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]

    def row(self, goal: str = "") -> str:
        median = statistics.median(self.times)
        return (
            f"| {self.what} | {len(self.times)} | {median * 1e6:.1f} | "
            f"{self.quantile(0.9) * 1e6:.1f} | {self.quantile(0.99) * 1e6:.1f} | {goal} |"
        )


@dataclass(frozen=True)
class Rate:
    """Random games: how many turns (plays and passes) in how long, best round kept."""

    what: str
    games: int
    turns: int
    seconds: float

    @property
    def per_second(self) -> float:
        return self.turns / self.seconds

    def row(self, goal: str = "") -> str:
        return (
            f"| {self.what} | {self.games} | {self.turns / self.games:.0f} | "
            f"{self.per_second:,.0f} | {self.games / self.seconds:,.0f} | {goal} |"
        )


def random_hands(deck: list[Card], size: int, count: int, seed: int) -> list[list[Card]]:
    rng = random.Random(seed)
    hands = []
    for _ in range(count):
        rng.shuffle(deck)
        hands.append(sorted(deck[:size]))
    return hands


def time_leading(
    legal_plays: Callable[[list[Card]], object], hands: list[list[Card]], what: str
) -> Latency:
    for hand in hands[:200]:  # warm up
        legal_plays(hand)
    times = []
    clock = time.perf_counter
    for hand in hands:
        start = clock()
        legal_plays(hand)
        times.append(clock() - start)
    return Latency(what, times)


def shuangkou_answers(games: int, seed: int) -> tuple[Latency, Latency]:
    """``legal_plays`` against the table and ``Game.play`` of a legal play, timed at every such
    moment of random games."""
    answers: list[float] = []
    plays: list[float] = []
    clock = time.perf_counter
    for g in range(games):
        rng = random.Random(seed + g)
        game = shuangkou.Game.deal(seed + g)
        while not game.over:
            seat = game.turn
            assert seat is not None
            on = game.on_table
            start = clock()
            options = shuangkou.legal_plays(game.hands[seat], on)
            if on is not None:
                answers.append(clock() - start)
            pick = rng.randrange(len(options) + (on is not None))
            if pick == len(options):
                game.pass_turn(seat)
            else:
                cards = options[pick].cards
                start = clock()
                game.play(seat, cards)
                plays.append(clock() - start)
    return (
        Latency("`legal_plays` answering a play (positions of random games)", answers),
        Latency("`Game.play` of a legal play", plays),
    )


def shuangkou_games(games: int, seed: int) -> int:
    """Random 双扣 games; returns the number of turns."""
    turns = 0
    legal_plays = shuangkou.legal_plays
    for g in range(games):
        rng = random.Random(seed + g)
        game = shuangkou.Game.deal(seed + g)
        while not game.over:
            seat = game.turn
            assert seat is not None
            on = game.on_table
            options = legal_plays(game.hands[seat], on)
            pick = rng.randrange(len(options) + game.can_pass(seat))
            if pick == len(options):
                game.pass_turn(seat)
            else:
                game.play(seat, options[pick].cards)
            turns += 1
    return turns


def paowang_games(paowang: ModuleType, games: int, seed: int) -> int:
    """Random 刨王 games, 亮王 answered at random; returns the number of plays and passes."""
    turns = 0
    legal_plays = paowang.legal_plays
    for g in range(games):
        rng = random.Random(seed + g)
        game = paowang.Game.deal(seed + g)
        while not game.over:
            seat = game.turn
            if seat is None:  # the 亮王 phase: every 大王 holder answers first
                for holder in game.reveal_pending:
                    game.reveal(holder, rng.random() < 0.5)
                continue
            options = legal_plays(game.hands[seat], game.on_table, game.revealed[seat])
            pick = rng.randrange(len(options) + game.can_pass(seat))
            if pick == len(options):
                game.pass_turn(seat)
            else:
                game.play(seat, options[pick].cards)
            turns += 1
    return turns


def rlcard_games(game_class: Any, games: int, seed: int) -> int:
    """RLCard's Dou Dizhu game core with random legal actions; returns the number of turns."""
    turns = 0
    for g in range(games):
        rng = random.Random(seed + g)
        game = game_class()
        game.np_random.seed(seed + g)
        state, _ = game.init_game()
        while not game.is_over():
            state, _ = game.step(rng.choice(state["actions"]))
            turns += 1
    return turns


def interleaved(
    runs: dict[str, Callable[[int, int], int]], games: int, seed: int, rounds: int
) -> dict[str, list[Rate]]:
    """Each round plays the same ``games`` games with every engine in turn, so that whatever
    else the machine is doing weighs on all of them alike; returns each engine's rounds."""
    rates: dict[str, list[Rate]] = {what: [] for what in runs}
    for _ in range(rounds):
        for what, play in runs.items():
            start = time.perf_counter()
            turns = play(games, seed)
            rates[what].append(Rate(what, games, turns, time.perf_counter() - start))
    return rates


def _verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


def _rates(ours: list[Rate], peer: list[Rate] | None, note: str) -> list[str]:
    """The best round of each, and the median over rounds of our rate over the peer's."""
    best = max(ours, key=lambda rate: rate.per_second)
    if peer is None:
        return [best.row(), "", note]
    ratio = statistics.median(
        mine.per_second / theirs.per_second for mine, theirs in zip(ours, peer, strict=True)
    )
    return [
        best.row(f"≥ {RATIO_GOAL:.0f}× RLCard: {ratio:.1f}×, " + _verdict(ratio >= RATIO_GOAL)),
        max(peer, key=lambda rate: rate.per_second).row(),
    ]


SHUANGKOU_GAMES = "双扣, uniformly random legal moves"
PAOWANG_GAMES = "刨王, uniformly random legal moves"
PEER_GAMES = "RLCard 1.2.0 Dou Dizhu (game core, random actions)"


def run(hands: int, games: int, rounds: int, seed: int, peer: bool = True) -> str:
    """Measure everything; returns the report as Markdown."""
    lines = [
        "# Engine benchmark",
        "",
        "`.venv/bin/python -m bench.engine` (RLCard: `pip install -e '.[bench]'`). "
        "Figures from one run, all in one process.",
        "",
        f"- Machine: {machine()}",
        f"- Date: {now()}",
        f"- Sizes: {hands} random hands per latency; random games: {rounds} rounds of the same "
        f"{games} games (seeds {seed}..{seed + games - 1}) per engine, the engines taking turns "
        "within each round",
        "",
    ]
    latency_head = [
        "| operation | calls | median µs | p90 µs | p99 µs | goal |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    rate_head = [
        "| random games (best round) | games | turns/game | turns/s | games/s | goal |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]

    runs: dict[str, Callable[[int, int], int]] = {SHUANGKOU_GAMES: shuangkou_games}
    paowang: ModuleType | None = None
    with contextlib.suppress(ImportError):  # 刨王's engine may not be there yet
        paowang = importlib.import_module("bot.game.paowang")
    if paowang is not None:
        runs[PAOWANG_GAMES] = partial(paowang_games, paowang)
    peer_note = ""
    if peer:
        try:  # imported before any clock starts: numpy's import is not RLCard's speed
            from rlcard.games.doudizhu.game import (  # type: ignore[import-untyped]
                DoudizhuGame,  # benchmark-only dependency
            )
        except ImportError:
            peer_note = "RLCard is not installed (`pip install -e '.[bench]'`): no peer figure."
        else:
            runs[PEER_GAMES] = partial(rlcard_games, DoudizhuGame)
    rates = interleaved(runs, games, seed, rounds)
    peer_rates = rates.get(PEER_GAMES)

    # -- 双扣
    leading = time_leading(
        lambda hand: shuangkou.legal_plays(hand, None),
        random_hands(double_deck(), shuangkou.HAND_SIZE, hands, seed),
        "`legal_plays` leading, random 27-card hand",
    )
    answering, playing = shuangkou_answers(max(1, hands // 50), seed)
    median_us = statistics.median(leading.times) * 1e6
    lines += ["## 双扣", "", *latency_head]
    lines.append(leading.row(
        f"median ≤ {SHUANGKOU_LEADING_GOAL_US:.0f} µs (aim ≤ {SHUANGKOU_LEADING_AIM_US:.0f}): "
        + _verdict(median_us <= SHUANGKOU_LEADING_GOAL_US)
    ))
    lines += [answering.row(), playing.row(), "", *rate_head]
    lines += _rates(rates[SHUANGKOU_GAMES], peer_rates, peer_note)

    # -- 刨王, once its engine exists
    lines += ["", "## 刨王", ""]
    if paowang is None:
        lines.append("Pending: `bot.game.paowang` is not there yet.")
    else:
        pw_legal_plays = paowang.legal_plays
        pw_leading = time_leading(
            lambda hand: pw_legal_plays(hand, None, False),
            random_hands(double_deck_without_threes(), 20, hands, seed),
            "`legal_plays` leading, random 20-card hand",
        )
        pw_median_us = statistics.median(pw_leading.times) * 1e6
        lines += [*latency_head, pw_leading.row(
            f"median ≤ {PAOWANG_LEADING_GOAL_US:.0f} µs: "
            + _verdict(pw_median_us <= PAOWANG_LEADING_GOAL_US)
        ), "", *rate_head]
        lines += _rates(rates[PAOWANG_GAMES], peer_rates, peer_note)
    lines += [
        "",
        "A turn is one play or pass (亮王 answers are not counted). Random games include the "
        "deal; RLCard's include `init_game`, and each of its steps computes the next player's "
        "legal actions, as ours do with `legal_plays`. The ratio is the median over rounds of "
        "the two engines' rates in the same round. The machine is shared with other work: "
        "rates vary by a third from one moment to the next, ratios much less.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.engine", description=__doc__)
    parser.add_argument("--hands", type=int, default=3000, help="hands per latency (≥ 2000)")
    parser.add_argument("--games", type=int, default=200, help="random games per round")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of random games")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--no-peer", action="store_true", help="skip RLCard")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the report")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args: Any = parser.parse_args(argv)
    report = run(args.hands, args.games, args.rounds, args.seed, peer=not args.no_peer)
    print(report, end="")
    if not args.no_write:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(report, encoding="utf-8")
        print(f"\nwritten to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
