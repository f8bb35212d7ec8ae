"""Strength and speed of the computer players: ``.venv/bin/python -m bench.players [--games N]``.

Plays the four matches of the issue with the seats rotated, prints the figures and writes them
to ``bench/results/players.md`` with the machine they were measured on:

- 双扣: the AI team (seats 0+2) against a random team, and against a greedy team: wins;
- 刨王: two AI players at a table with three random players, and with three greedy players:
  the AI's mean score change per game, with its 95% confidence interval;
- the time of one AI decision (plays and 亮王 alike), median and 99th percentile, over every
  decision of those games, starting from a cold cache.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bench.search_match import (
    Factory,
    MatchReport,
    SearchBudget,
    heuristic_factory,
    run_match,
    search_factory,
)
from bench.tune import (
    HEURISTIC_MOVES,
    PREVIOUS,
    RULE_REVEAL,
    RULES_BOMBS,
    move_tuning,
    shuangkou_factory,
    shuangkou_moves,
    tuned_factory,
)
from bot.cli.simulate import SimulationReport, format_report, new_game, next_actor, run_simulation
from bot.game.players import AiPlayer, Player, decide, paowang_plan, shuangkou_plan, trees

RESULTS = Path(__file__).parent / "results" / "players.md"

MATCHES = (
    ("shuangkou", "ai,random,ai,random", "AI team vs random team", ("win", 0.95)),
    ("shuangkou", "ai,greedy,ai,greedy", "AI team vs greedy team", ("win", 0.90)),
    ("paowang", "ai,random,ai,random,random", "2 AI with 3 random", ("delta", 0.0)),
    ("paowang", "ai,greedy,ai,greedy,greedy", "2 AI with 3 greedy", ("delta", 0.0)),
)
#: a decision must take at most this long (ms): median, 99th percentile
MEDIAN_LIMIT_MS = 5.0
P99_LIMIT_MS = 50.0


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> str:
    return (
        f"{cpu_model()}, {os.cpu_count()} cores, Python {platform.python_version()} "
        f"({platform.python_implementation()}), {platform.system()} {platform.release()}"
    )


def cold_decisions(
    variant: str, games: int, seed: int, player_of: Callable[[int], Player] = AiPlayer
) -> list[float]:
    """Seconds per AI decision with the plan caches and the models' remembered scores emptied
    before each one: the worst case for a process that just started (the simulations above
    keep their caches warm); ``player_of(seat)`` sits in every seat (the bot's AI unless
    told)."""
    times: list[float] = []
    for g in range(games):
        game = new_game(variant, seed * 1_000_003 + 500_000 + g)
        players = [player_of(seat) for seat in range(game.seats)]
        while not game.over:
            seat = next_actor(game)
            assert seat is not None
            shuangkou_plan.forget()
            paowang_plan.forget()
            trees.forget()
            view = game.view(seat)
            start = time.perf_counter()
            if view.reveal_pending:
                answer = players[seat].choose_reveal(view)
            else:
                players[seat].choose(view)
            times.append(time.perf_counter() - start)
            if view.reveal_pending:
                game.reveal(seat, answer)
            else:
                decide(players[seat], game, seat)
    return sorted(times)


def _ms(sorted_times: list[float], fraction: float) -> float:
    return 1000 * sorted_times[min(len(sorted_times) - 1, int(fraction * len(sorted_times)))]


def verdict(report: SimulationReport, target: tuple[str, float]) -> tuple[str, bool]:
    ai = report.kinds["ai"]
    what, threshold = target
    if what == "win":
        return f"wins {100 * ai.win_rate:.1f}% (target ≥ {100 * threshold:.0f}%)", (
            ai.win_rate >= threshold
        )
    low = ai.mean_delta - ai.ci95
    text = (
        f"mean Δ {ai.mean_delta:+.2f} per game, 95% CI [{low:+.2f}, {ai.mean_delta + ai.ci95:+.2f}]"
        " (target: clearly positive)"
    )
    return text, low > threshold


def run(games: int, seed: int, command: str = "") -> tuple[str, bool]:
    """Play the matches; the markdown of the results and whether every target was met.
    ``command``: the arguments the run was started with, for the record."""
    command = command or f"--games {games} --seed {seed}"
    rows: list[str] = []
    details: list[str] = []
    medians: list[float] = []
    p99s: list[float] = []
    all_met = True
    total_seconds = 0.0
    for game, players, title, target in MATCHES:
        report = run_simulation(game, games=games, players=players, seed=seed)
        text = format_report(report)
        print(text + "\n", flush=True)
        details.append(f"### {game}: {title}\n\n```\n{text}\n```")
        ai = report.kinds["ai"]
        summary, met = verdict(report, target)
        all_met &= met
        total_seconds += report.seconds
        medians.append(ai.decision_median_ms)
        p99s.append(ai.decision_p99_ms)
        rows.append(
            f"| {game} | {title} | {games} | {summary} | {'✅' if met else '❌'} "
            f"| {ai.decision_median_ms:.2f} / {ai.decision_p99_ms:.2f} "
            f"| {report.games_per_second:.0f} |"
        )
    cold_games = max(10, games // 20)
    cold_rows = []
    for variant in ("shuangkou", "paowang"):
        cold = cold_decisions(variant, cold_games, seed)
        medians.append(_ms(cold, 0.5))
        p99s.append(_ms(cold, 0.99))
        cold_rows.append(
            f"| {variant} | {len(cold)} | {_ms(cold, 0.5):.2f} | {_ms(cold, 0.99):.2f} "
            f"| {1000 * cold[-1]:.2f} |"
        )
        print(f"{variant} cold decisions: {cold_rows[-1]}", flush=True)
    speed_met = max(medians) <= MEDIAN_LIMIT_MS and max(p99s) <= P99_LIMIT_MS
    all_met &= speed_met
    today = datetime.date.today().isoformat()
    lines = [
        "# Computer players: strength and speed",
        "",
        f"Measured {today} with `.venv/bin/python -m bench.players {command}` "
        f"(seed {seed}) on {machine()}, one process. Seats are rotated game by game, so "
        'every kind sits everywhere. A 双扣 "win" is a 双扣 or 单扣 for the AI\'s team '
        "(平扣 counts as not won). Δ is the rules' score change per seat and game, before the "
        "bot's own adjustments; its 95% interval is taken over games (the AI seats of one game "
        "averaged first).",
        "",
        "| game | match | games | result | target met | AI ms per decision (median / p99) "
        "| games/s |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        *rows,
        "",
        f"Cold decisions: AI players in {cold_games} games of each variant, every plan cache "
        "emptied before each decision (the worst case, as for a process that just started; "
        "the matches above keep their caches warm, as a running bot does). Times in ms.",
        "",
        "| game | decisions | median | p99 | max |",
        "| --- | --- | --- | --- | --- |",
        *cold_rows,
        "",
        f"Decision time: worst median {max(medians):.2f} ms (limit {MEDIAN_LIMIT_MS:g}), worst "
        f"p99 {max(p99s):.2f} ms (limit {P99_LIMIT_MS:g}): {'✅' if speed_met else '❌'}. "
        f"All four matches took {total_seconds:.0f} s.",
        "",
        "## Details",
        "",
        *("\n\n".join(details).splitlines()),
        "",
    ]
    return "\n".join(lines), all_met


def search_seats(
    variant: str, budget: SearchBudget, previous_moves: Path | None = None,
    previous_shuangkou_moves: Path | None = None,
) -> tuple[Factory, str]:
    """The search player of ``budget`` for ``variant``'s paired match, and its row's title;
    with ``previous_moves`` (``previous_shuangkou_moves``), 刨王's (双扣's) search starts from
    and plays out with the AI whose move model is that file instead of today's (the issue's
    second yardstick, built on the previous kept round). The file names that game's previous
    AI, so it wins over ``previous_playouts`` there, which still builds the other game's search
    on its heuristic."""
    model = previous_moves if variant == "paowang" else previous_shuangkou_moves
    if model is None:
        return search_factory(budget), budget.title
    on_model = dataclasses.replace(budget, previous_playouts=False)
    title = f"{on_model.title[:-1]}, play-outs by the AI with move model {model.name})"
    if variant == "paowang":
        return search_factory(on_model, move_tuning(str(model))), title
    return search_factory(on_model, shuangkou_moves=shuangkou_moves(str(model))), title


def paired_section(
    deals: int,
    search_deals: tuple[int, int],
    budget: SearchBudget,
    seed: int,
    jobs: int,
    previous_moves: Path | None = None,
    previous_shuangkou_moves: Path | None = None,
) -> list[str]:
    """The paired matches (:mod:`bench.search_match`), as markdown lines. With
    ``previous_moves`` (``previous_shuangkou_moves``), 刨王's (双扣's) search player starts from
    and plays out with the AI whose move model is that file (the previous kept round's); the
    other seats play today's AI."""
    reports: list[MatchReport] = []

    def show(report: MatchReport) -> None:
        reports.append(report)
        print(
            f"{report.variant}: {report.title}: {report.mean:+.3f} "
            f"[{report.low:+.3f}, {report.high:+.3f}], {report.deals} deals, "
            f"{report.seat_games} seat-games, {report.seconds:.0f} s",
            flush=True,
        )

    # what the work on #15 and #27 changed: the look-ahead near the end (双扣's first, then
    # 刨王's), 双扣's learned look, 刨王's bomb thresholds, the learned bombs, moves and 亮王
    show(
        run_match(
            "shuangkou",
            deals,
            heuristic_factory,
            title="the AI without its look-ahead near the end",
            seed=seed,
            jobs=jobs,
        )
    )
    show(
        run_match(
            "paowang",
            deals,
            heuristic_factory,
            title="the previous default: the AI without its look-ahead near the end",
            seed=seed,
            jobs=jobs,
        )
    )
    show(
        run_match(
            "shuangkou",
            deals,
            shuangkou_factory("heuristic"),
            title="the previous default: the AI without its learned look (the heuristic and "
            "its look-ahead)",
            seed=seed,
            jobs=jobs,
        )
    )
    show(
        run_match(
            "paowang",
            deals,
            tuned_factory(PREVIOUS),
            title="the AI as it was before #15 (no learned model; bombs for 15 / 25 points, "
            "亮王 alone from -10)",
            seed=seed,
            jobs=jobs,
        )
    )
    show(
        run_match(
            "paowang",
            deals,
            tuned_factory(RULE_REVEAL),
            title="the AI with 亮王 by the rule, not the learned model",
            seed=seed,
            jobs=jobs,
        )
    )
    show(
        run_match(
            "paowang",
            deals,
            tuned_factory(HEURISTIC_MOVES),
            title="the AI without its learned moves (the heuristic, its learned bombs and 亮王)",
            seed=seed,
            jobs=jobs,
        )
    )
    show(
        run_match(
            "paowang",
            deals,
            tuned_factory(RULES_BOMBS),
            title="the AI with its bombs decided by the rules, not the learned model",
            seed=seed,
            jobs=jobs,
        )
    )
    for variant, count in zip(("shuangkou", "paowang"), search_deals, strict=True):
        if count:
            factory, title = search_seats(
                variant, budget, previous_moves, previous_shuangkou_moves
            )
            show(
                run_match(
                    variant,
                    count,
                    factory,
                    title=title,
                    seed=seed,
                    jobs=jobs,
                )
            )
    rows = [
        f"| {r.variant} | {r.title} | {r.deals} | {r.seat_games} | {r.mean:+.3f} "
        f"| [{r.low:+.3f}, {r.high:+.3f}] "
        f"| {'' if r.ms_per_decision is None else f'{r.ms_per_decision:.0f}'} "
        f"| {r.seconds:.0f} |"
        for r in reports
    ]
    return [
        "## Paired matches",
        "",
        "The same deals played twice (`bench/search_match.py`): 双扣 with the tried team in "
        "seats 0+2 against the bot's AI, then in 1+3; 刨王 with two tried seats among three AI "
        "seats, then the same deal with the AI in all five. Δ is the tried seats' score over "
        "the AI's in the same seats, per seat and game (positive: the tried player did "
        "better); its 95% interval is over deals.",
        "",
        "| game | tried player | deals | seat-games | Δ | 95% interval | search ms per move | s |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
        *rows,
        "",
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.players", description=__doc__)
    parser.add_argument("--games", type=int, default=2000, help="games per match (2000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS, help=f"default {RESULTS}")
    parser.add_argument(
        "--paired-deals",
        type=int,
        default=1000,
        help="deals of the paired look-ahead matches (1000)",
    )
    parser.add_argument(
        "--search-deals",
        type=int,
        default=0,
        help="双扣 deals of the paired matches against the search player, and twice as many "
        "刨王 deals, for the same seat-games (default 0: skipped; slow, minutes per 10 deals)",
    )
    parser.add_argument(
        "--search-deals-paowang", type=int, default=None,
        help="刨王 deals against the search player, if not twice --search-deals",
    )
    parser.add_argument("--search-samples", type=int, default=SearchBudget().samples)
    parser.add_argument("--search-moves", type=int, default=SearchBudget().max_candidates)
    parser.add_argument("--search-margin", type=float, default=SearchBudget().margin)
    parser.add_argument("--search-z", type=float, default=SearchBudget().z)
    parser.add_argument(
        "--search-previous-playouts",
        action="store_true",
        help="the search player starts from and plays out with the previous round's AI "
        "(刨王 without the move model, 双扣 without its learned look), not today's",
    )
    parser.add_argument(
        "--search-previous-moves",
        type=Path,
        metavar="MODEL",
        help="刨王's search player starts from and plays out with the AI whose move model is "
        "this file (written by bench.train_moves fit --write: the previous kept round's, e.g. "
        "git show 80f5776~1:bot/game/players/paowang_move_model.py for round 1), not today's; "
        "with --search-previous-playouts, that flag then applies to 双扣 only",
    )
    parser.add_argument(
        "--search-previous-shuangkou-moves",
        type=Path,
        metavar="MODEL",
        help="双扣's search player starts from and plays out with the AI whose move model is "
        "this file (written by bench.train_shuangkou fit --write: the previous kept round's, "
        "e.g. git show ea7104c~1:bot/game/players/shuangkou_move_model.py for round 1), not "
        "today's; with --search-previous-playouts, that flag then applies to 刨王 only",
    )
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (1)")
    args = parser.parse_args(argv)
    markdown, met = run(args.games, args.seed, " ".join(sys.argv[1:] if argv is None else argv))
    budget = SearchBudget(
        args.search_samples,
        args.search_moves,
        args.search_margin,
        args.search_z,
        args.search_previous_playouts,
    )
    markdown += "\n" + "\n".join(
        paired_section(
            args.paired_deals,
            (
                args.search_deals,
                2 * args.search_deals if args.search_deals_paowang is None
                else args.search_deals_paowang,
            ),
            budget, args.seed, args.jobs, args.search_previous_moves,
            args.search_previous_shuangkou_moves,
        )
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(markdown, encoding="utf-8")
    print(f"written to {args.out}; every target met: {met}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
