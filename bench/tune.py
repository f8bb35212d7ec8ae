"""Tries other judgement calls of the 刨王 player against its own, in paired matches:
``python -m bench.tune [--deals N] [--jobs J]``.

Each variant changes one field of :class:`bot.game.players.paowang_ai.Tuning`; two seats play
with it among three with the defaults, and the same deal is played again with the defaults
in all five (:mod:`bench.search_match`). A variant whose interval lies above zero is better
than the defaults against the defaults; it is a candidate, to be checked against the search
player too before it becomes the default.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import math
import runpy
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench import match_record
from bench.search_match import SearchBudget, run_match, search_factory
from bot.cli.simulate import mean_ci95
from bot.game.common import Combo, SeatView
from bot.game.players import AiPlayer, Player
from bot.game.players.lookahead import MOVES, look_ahead
from bot.game.players.paowang_ai import Tuning
from bot.game.players.shuangkou_moves import NO_LOOK
from bot.game.players.trees import TreeModel

#: the defaults before this benchmark changed them (bombs by the rules, with thresholds 15 / 25
#: points; 亮王 with both 大王 only from a plan score of -10)
PREVIOUS = Tuning(
    bomb_points_foe=15, bomb_points_unknown=25, reveal_alone=-10.0, learned_bombs=False,
    learned_moves=False, learned_reveal=False,
)
#: today's defaults without the move model: the heuristic with its learned bombs and 亮王
HEURISTIC_MOVES = Tuning(learned_moves=False)
#: today's defaults but bombs decided by the hand-written rules, not the learned model
RULES_BOMBS = Tuning(learned_bombs=False)
#: today's defaults but 亮王 by the hand-written rule, not the learned model
RULE_REVEAL = Tuning(learned_reveal=False)

VARIANTS: tuple[dict[str, Any], ...] = (
    {"follow_cost": -2.0},
    {"follow_cost": -4.5},
    {"follow_points": 15},
    {"follow_points": 30},
    {"bomb_points_foe": 10},
    {"bomb_points_foe": 20},
    {"bomb_points_unknown": 20},
    {"bomb_points_unknown": 35},
    {"reveal_with_partner": -25.0},
    {"reveal_with_partner": -15.0},
    {"reveal_alone": -10.0},
    {"reveal_alone": -20.0},
    {"reveal_alone": -40.0},
    {"risk_weight": 0.2},
    {"risk_weight": 0.7},
    {"win_weight": 0.15},
    {"win_weight": 0.5},
    {"lead_points_weight": 0.3},
    {"lead_points_weight": 1.0},
    {"sanlu_for_the_lead": True, "learned_bombs": False},
    {"learned_bombs": False},
    {"learned_moves": False},
    {"move_margin": 0.0},
    {"move_margin": 0.25},
    {"move_margin": 1.0},
)


def _tuned(tuning: Tuning, seat: int, seed: int) -> Player:
    return AiPlayer(seat, paowang_tuning=tuning)



def tuned_factory(tuning: Tuning) -> Any:
    """AI players with ``tuning`` (picklable, for the worker processes)."""
    return functools.partial(_tuned, tuning)


def load_model(path: Path, name: str = "MOVE") -> TreeModel:
    """A model file as ``fit --write`` writes it: ``MOVE`` (``bench.train_moves``), ``BOMB``
    (``bench.train_bombs``), ``REVEAL`` (``bench.train_reveal``) or ``SK_MOVE``
    (``bench.train_shuangkou``)."""
    found = runpy.run_path(str(path))
    return TreeModel(found[f"{name}_BASE"], found[f"{name}_TREES"])


def move_tuning(name: str) -> Tuning:
    """``heuristic`` (no move model), ``committed`` (the repository's), or a model file."""
    if name == "heuristic":
        return Tuning(learned_moves=False)
    if name == "committed":
        return Tuning()
    return Tuning(move_model=load_model(Path(name)))


def bomb_tuning(name: str) -> Tuning:
    """``rules`` (the bomb question answered by the hand-written rules), ``committed`` (the
    repository's model), or a model file written by ``bench.train_bombs``."""
    if name == "rules":
        return Tuning(learned_bombs=False)
    if name == "committed":
        return Tuning()
    return Tuning(bomb_model=load_model(Path(name), "BOMB"))


def reveal_tuning(name: str) -> Tuning:
    """``rule`` (亮王 by the hand-written rule), ``committed`` (the repository's model), or a
    model file written by ``bench.train_reveal``."""
    if name == "rule":
        return Tuning(learned_reveal=False)
    if name == "committed":
        return Tuning()
    return Tuning(reveal_model=load_model(Path(name), "REVEAL"))


def _shuangkou_player(moves: TreeModel | None, seat: int, seed: int) -> Player:
    return AiPlayer(seat, shuangkou_moves=moves)


def shuangkou_moves(name: str) -> TreeModel | None:
    """A 双扣 move model by name: ``heuristic`` (no learned look), ``committed`` (None: the
    repository's), or a model file written by ``bench.train_shuangkou``."""
    if name == "heuristic":
        return NO_LOOK
    if name == "committed":
        return None
    return load_model(Path(name), "SK_MOVE")


def shuangkou_factory(name: str) -> Any:
    """双扣 AI players of the move model :func:`shuangkou_moves` names."""
    return functools.partial(_shuangkou_player, shuangkou_moves(name))


class LookaheadPlayer(AiPlayer):
    """The AI with 刨王's look-ahead at another budget: ``cards`` left or fewer (0: never),
    ``samples`` deals (what ``lookahead.CARDS_LEFT`` and ``SAMPLES`` set for the bot), the
    deals played out by the AI without its look-ahead, or with ``fast`` play-outs also
    without its learned moves (the previous round's AI: about half the cost a play-out);
    a move other than the AI's taken only ``sure`` standard errors ahead (0: any gain, the
    bot's); ``moves`` compared at most (``lookahead.MOVES``)."""

    def __init__(
        self, seat: int, cards: int, samples: int, fast: bool = False, sure: float = 0.0,
        moves: int = MOVES,
    ) -> None:
        super().__init__(seat, lookahead=False)
        self.cards, self.samples, self.sure, self.moves = cards, samples, sure, moves
        tuning = Tuning(learned_moves=False) if fast else None
        self._playouts = AiPlayer(seat, lookahead=False, paowang_tuning=tuning)

    def choose(self, view: SeatView) -> Combo | None:
        choice = super().choose(view)
        if view.variant != "paowang" or sum(view.hand_sizes) > self.cards:
            return choice
        player = self._for(view.variant)
        return look_ahead(
            view, choice, self._playouts, lambda move: player.may_play(view, move), self.samples,
            self.sure, self.moves,
        )


def _lookahead_player(
    cards: int, samples: int, fast: bool, sure: float, moves: int, seat: int, seed: int
) -> Player:
    return LookaheadPlayer(seat, cards, samples, fast, sure, moves)


def lookahead_factory(name: str) -> Any:
    """刨王 AI players with the look-ahead ``off`` or at ``CARDS/SAMPLES`` (e.g. ``25/4``),
    ``CARDS/SAMPLES/fast`` for play-outs without the learned moves, then optionally ``/mM`` to
    compare ``M`` moves at most (``lookahead.MOVES``) and ``/zZ`` (e.g. ``25/8/fast/m8/z1.5``)
    to leave the AI's choice only for a gain ``Z`` standard errors sure."""
    if name == "off":
        return functools.partial(_lookahead_player, 0, 0, False, 0.0, MOVES)
    cards, samples, *how = name.split("/")
    options: dict[str, float] = {}
    for letter in ("z", "m"):  # from the end: /mM before /zZ
        if how and how[-1].startswith(letter):
            try:
                options[letter] = float(how.pop()[1:])
            except ValueError:
                options[letter] = math.nan
            if not 0 <= options[letter] < math.inf:
                raise ValueError(f"not a look-ahead budget: {name!r}")
    moves = options.get("m", MOVES)
    if how not in ([], ["fast"]) or moves != int(moves) or moves < 1:
        raise ValueError(f"not a look-ahead budget: {name!r}")
    return functools.partial(
        _lookahead_player, int(cards), int(samples), how == ["fast"], options.get("z", 0.0),
        int(moves),
    )


def cold_times(budget: str, games: int, seed: int) -> None:
    """刨王's decision times at a look-ahead budget, every plan cache emptied before each
    decision (``bench.players``' cold decisions, whose limit is 50 ms at the p99)."""
    from bench.players import cold_decisions  # bench.players imports this module

    factory = lookahead_factory(budget)
    times = cold_decisions("paowang", games, seed, lambda seat: factory(seat, seed))
    print(
        f"{budget}: {len(times)} cold decisions in {games} games, median "
        f"{1000 * times[len(times) // 2]:.2f} ms, p99 {1000 * times[int(0.99 * len(times))]:.2f} "
        f"ms, max {1000 * times[-1]:.2f} ms",
        flush=True,
    )


def compare_models(
    tried: str, against: str, deals: int, seed: int, jobs: int,
    factory_of: Callable[[str], Any] = lambda name: tuned_factory(move_tuning(name)),
    variant: str = "paowang", record: Path | None = None, kind: str = "moves",
    one_way: bool = False,
) -> None:
    """A round of expert iteration against the one before, both ways: the tried model in two
    seats among three of the other, and the other among the tried (``one_way``: the first
    only, to screen). In 双扣 one way says it all: a partnership of each, on the same deals
    from both sides.

    With ``record``, each deal's outcome is kept there (:mod:`bench.match_record`, under
    ``kind``, what is compared) and a run plays only the deals of ``0 .. deals - 1`` the
    record does not have yet: a long match is spread over runs by raising ``deals``, and a
    stopped run is taken up where it stopped."""
    both = variant != "shuangkou" and not one_way
    ways = [(tried, against), (against, tried)] if both else [(tried, against)]
    version = match_record.version_of() if record is not None else ""
    for one, other in ways:
        title = f"{one} among {other}"
        if record is None:
            report = run_match(
                variant, deals, factory_of(one), title=one, seed=seed, jobs=jobs,
                baseline=factory_of(other),
            )
            print(
                f"{title}: {report.mean:+.3f} [{report.low:+.3f}, {report.high:+.3f}] "
                f"({report.deals} deals, seed {seed}, {report.seconds:.0f} s)",
                flush=True,
            )
            continue
        players = f"{match_record.player_label(one)} among {match_record.player_label(other)}"
        key = match_record.MatchKey(f"{kind}: {players}", variant, seed, version)
        before = match_record.read(record, key)
        missing = [deal for deal in range(deals) if deal not in before.gains]
        with match_record.open_to_append(record) as out:
            report = run_match(
                variant, deals, factory_of(one), title=one, seed=seed, jobs=jobs,
                baseline=factory_of(other), only=missing,
                progress=functools.partial(match_record.write, out, key),
            )
        played = match_record.read(record, key)
        gains = [played.gains[deal] for deal in range(deals) if deal in played.gains]
        mean, ci95 = mean_ci95(gains)
        left_out = "".join(
            f"; {count} {what} left out"
            for count, what in (
                (played.other_versions, "lines of other code"), (played.damaged, "damaged lines")
            )
            if count
        )
        print(
            f"{title}: {mean:+.3f} [{mean - ci95:+.3f}, {mean + ci95:+.3f}] ({len(gains)} deals, "
            f"{report.deals} of them this run in {report.seconds:.0f} s, seed {seed}, code "
            f"{version}{left_out})",
            flush=True,
        )


def yardstick_tuning(bombs: str, moves: str = "committed") -> Tuning:
    """Today's AI with the bomb answer ``bombs`` (:func:`bomb_tuning`) and the move model
    ``moves`` (:func:`move_tuning`)."""
    by_moves = move_tuning(moves)
    return dataclasses.replace(
        bomb_tuning(bombs),
        learned_moves=by_moves.learned_moves, move_model=by_moves.move_model,
    )


def yardstick(bombs: str, deals: int, seed: int, jobs: int, moves: str = "committed") -> float:
    """The search player (two seats) against a table of the AI with the bomb answer
    ``bombs`` and the move model ``moves`` (three seats, and all five on the same deal
    again), the search's play-outs by that AI too; the search's lead."""
    tuning = yardstick_tuning(bombs, moves)
    budget = SearchBudget()
    report = run_match(
        "paowang", deals, search_factory(budget, tuning), title=budget.title, seed=seed,
        jobs=jobs, baseline=tuned_factory(tuning),
    )
    print(
        f"{budget.title} among bombs {bombs}, moves {moves}: {report.mean:+.3f} "
        f"[{report.low:+.3f}, {report.high:+.3f}] ({report.deals} deals, seed {seed}, "
        f"{report.seconds:.0f} s)",
        flush=True,
    )
    return report.mean


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.tune", description=__doc__)
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--only", default="", help="only the variants changing this field (e.g. reveal_alone)"
    )
    parser.add_argument(
        "--moves", nargs=2, metavar=("TRIED", "AGAINST"),
        help="compare two move models instead, both ways: heuristic, committed or a file "
        "written by bench.train_moves",
    )
    parser.add_argument(
        "--bombs", nargs=2, metavar=("TRIED", "AGAINST"),
        help="compare two answers to the bomb question, both ways: rules, committed or a "
        "file written by bench.train_bombs",
    )
    parser.add_argument(
        "--reveal", nargs=2, metavar=("TRIED", "AGAINST"),
        help="compare two 亮王 answers, both ways: rule, committed or a file written by "
        "bench.train_reveal",
    )
    parser.add_argument(
        "--shuangkou", nargs=2, metavar=("TRIED", "AGAINST"),
        help="compare two 双扣 move models (a partnership of each, both seatings): heuristic, "
        "committed or a file written by bench.train_shuangkou",
    )
    parser.add_argument(
        "--lookahead", nargs=2, metavar=("TRIED", "AGAINST"),
        help="compare two budgets of 刨王's look-ahead near the end, both ways: off, or "
        "CARDS/SAMPLES, or CARDS/SAMPLES/fast (play-outs without the learned moves; the "
        "bot's: 25/8/fast)",
    )
    parser.add_argument(
        "--yardstick", metavar="BOMBS",
        help="the search yardstick (bench.players' 刨王 search player) at a table whose AI "
        "answers the bomb question by BOMBS (rules, committed or a file written by "
        "bench.train_bombs), the search's play-outs too: does the search's lead shrink?",
    )
    parser.add_argument(
        "--yardstick-moves", metavar="MOVES", default="committed",
        help="with --yardstick: the table's move model (heuristic, committed or a file "
        "written by bench.train_moves)",
    )
    parser.add_argument(
        "--record", type=Path, metavar="FILE",
        help="with --moves, --bombs, --reveal, --lookahead or --shuangkou: keep each deal's "
        "outcome in FILE (JSON lines) and play only the deals it lacks, so that a long match "
        "is spread over runs (raise --deals) and a stopped run is taken up again",
    )
    parser.add_argument(
        "--one-way", action="store_true",
        help="with a comparison of 刨王: only the tried among the other (a screening)",
    )
    parser.add_argument(
        "--cold", metavar="BUDGET",
        help="刨王's cold decision times at a look-ahead budget (as --lookahead names it) over "
        "--deals games, instead of a match",
    )
    args = parser.parse_args(argv)
    if args.cold:
        cold_times(args.cold, args.deals, args.seed)
        return 0
    if args.yardstick:
        yardstick(
            args.yardstick, deals=args.deals, seed=args.seed, jobs=args.jobs,
            moves=args.yardstick_moves,
        )
        return 0
    comparisons: dict[str, tuple[Callable[[str], Any], str]] = {
        "moves": (lambda name: tuned_factory(move_tuning(name)), "paowang"),
        "bombs": (lambda name: tuned_factory(bomb_tuning(name)), "paowang"),
        "reveal": (lambda name: tuned_factory(reveal_tuning(name)), "paowang"),
        "lookahead": (lookahead_factory, "paowang"),
        "shuangkou": (shuangkou_factory, "shuangkou"),
    }
    for kind, (factory_of, variant) in comparisons.items():
        if getattr(args, kind):
            compare_models(
                *getattr(args, kind), deals=args.deals, seed=args.seed, jobs=args.jobs,
                factory_of=factory_of, variant=variant, record=args.record, kind=kind,
                one_way=args.one_way,
            )
            return 0
    for change in VARIANTS:
        if args.only and args.only not in change:
            continue
        tuning = dataclasses.replace(Tuning(), **change)
        factory = tuned_factory(tuning)
        report = run_match(
            "paowang", args.deals, factory, title=str(change), seed=args.seed, jobs=args.jobs
        )
        print(
            f"{change}: {report.mean:+.3f} [{report.low:+.3f}, {report.high:+.3f}] "
            f"({report.deals} deals, {report.seconds:.0f} s)",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
