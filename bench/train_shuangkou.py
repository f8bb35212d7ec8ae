"""Fits the 双扣 AI's move model, as ``bench.train_moves`` fits 刨王's: ``python -m
bench.train_shuangkou collect --deals N --seed S --jobs J --out FILE``, then ``python -m
bench.train_shuangkou fit FILE... [--write]`` (needs scikit-learn, in the test extra).

``collect`` plays 双扣 deals at a table of the bot's AI (``--policy heuristic``: without the
learned look; ``model``: with the one in the repository). At every decision the learned look
is asked about (:func:`bot.game.players.shuangkou_moves.worth_a_look`: not over the partner's
trick, not when the heuristic goes out) with more than one sensible move, it samples deals that
agree with what the seat has seen and plays every move out on the same samples with the
heuristic in every seat afterwards (``--rollout model``: the AI with its look). A move's label
is what it scored over the heuristic's choice, in points for the seat (双扣's ±4 / ±2 / 0 a
game), averaged over the samples, with its standard error. ``--answers-from CARDS`` labels only
answers to an opponent while the seat holds at least that many cards (the early answers, where
round 4's trees gain least and the labels see as much room as anywhere, ``tuning.md``).
``fit`` boosts regression trees on the labels (the settings of ``bench.train_moves``), holds a
fifth of the deals out and prints the held-out gain at a few margins; ``--write`` writes
``bot/game/players/shuangkou_move_model.py``. ``fit --on-top`` keeps the committed trees and
boosts ``bench.train_moves.TREES_ON_TOP`` more on what they leave unexplained (a later round,
labelled at a table of the committed model, when the earlier rounds' labels are not at
hand); with it, ``--step``, ``--depth``, ``--loss huber`` and ``--weighted`` fit the trees
on top as ``bench.try_rounds --shuangkou``'s ways do. Whether a round is kept is decided by
paired matches (``python -m bench.tune --shuangkou``), written down in
``bench/results/tuning.md``.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.search import SearchPlayer
from bench.train_bombs import (
    LOSSES,
    committed_commands,
    held_out,
    made_with,
    model_source,
    read_rows,
    write_rows,
)
from bench.train_moves import (
    DEAL_OFFSET,
    DEPTH,
    committed_decisions,
    fit,
    report,
    shape_flags,
)
from bot.cli.simulate import decide, new_game, next_actor
from bot.game.common import SeatView
from bot.game.players import AiPlayer
from bot.game.players.decompose import counts_of
from bot.game.players.sampling import candidates
from bot.game.players.shuangkou_ai import ShuangkouAI
from bot.game.players.shuangkou_moves import (
    MOVES,
    NO_LOOK,
    SK_COMMITTED,
    inputs_of,
    position_of,
    worth_a_look,
)
from bot.game.players.trees import TreeModel

MODEL_FILE = Path(__file__).resolve().parent.parent / "bot/game/players/shuangkou_move_model.py"
#: the table's players and the play-outs': without the learned look, or the repository's
POLICIES: dict[str, TreeModel | None] = {"heuristic": NO_LOOK, "model": None}
#: the heuristic's choice, the reference every label is measured from
REFERENCE = ShuangkouAI(moves=NO_LOOK)


def labelled_here(view: SeatView, answers_from: int | None) -> bool:
    """Whether ``collect`` labels this decision (among those the learned look is asked about):
    every one, or with ``answers_from`` only answers while the seat holds that many cards."""
    return answers_from is None or (view.on_table is not None and len(view.hand) >= answers_from)


def decisions_of_deal(
    deal: int, seed: int, samples: int, policy: str = "heuristic", rollout: str = "heuristic",
    answers_from: int | None = None,
) -> list[dict[str, Any]]:
    """Every decision with a choice in one 双扣 deal (``answers_from``: only the answers of
    :func:`labelled_here`), its moves labelled by paired play-outs."""
    game = new_game("shuangkou", seed * 1_000_003 + DEAL_OFFSET + deal)
    players = [
        AiPlayer(seat, shuangkou_moves=POLICIES[policy]) for seat in range(game.seats)
    ]
    search = SearchPlayer(
        deal, samples=samples,
        rollout=AiPlayer(deal, lookahead=False, shuangkou_moves=POLICIES[rollout]),
    )
    found: list[dict[str, Any]] = []
    while not game.over:
        seat = next_actor(game)
        assert seat is not None
        view = game.view(seat)
        choice = REFERENCE.heuristic_choice(view)
        moves = candidates(view, choice, MOVES)
        if len(moves) > 1 and worth_a_look(view, choice) and labelled_here(view, answers_from):
            scores = search.scores(view, moves)
            if scores is not None:
                gains, errors = [], []
                for index in range(1, len(moves)):
                    differences = [row[index] - row[0] for row in scores]
                    gains.append(statistics.fmean(differences))
                    errors.append(statistics.stdev(differences) / len(differences) ** 0.5)
                found.append({
                    "deal": deal, "seed": seed, "samples": samples, "policy": policy,
                    "rollout": rollout,
                    "inputs": inputs_of(position_of(view, counts_of(view.hand)), moves),
                    "allowed": [True] * (len(moves) - 1), "gains": gains, "errors": errors,
                    **({"answers_from": answers_from} if answers_from is not None else {}),
                })
        decide(players[seat], game, seat)
    return found


def collected_by(name: str, rows: Sequence[dict[str, Any]]) -> str:
    deals = max(row["deal"] for row in rows) + 1
    first = min(row["deal"] for row in rows)
    return (
        f"python -m bench.train_shuangkou collect --deals {deals} --seed {rows[0]['seed']} "
        f"--samples {rows[0]['samples']} --policy {rows[0]['policy']} "
        f"--rollout {rows[0]['rollout']}"
        + (f" --answers-from {rows[0]['answers_from']}" if "answers_from" in rows[0] else "")
        + (f" --first-deal {first}" if first else "") + f" --out {name}"
    )


def write(
    model: TreeModel, commands: Sequence[str], decisions: int, path: Path = MODEL_FILE
) -> None:
    summary = [
        "The 双扣 AI's move model: what a move gains over the heuristic's choice, in points,",
        "is SK_MOVE_BASE plus one leaf of every tree, found from the move's inputs",
        "(SK_MOVE_FEATURES in shuangkou_moves). Fitted by ``bench/train_shuangkou.py`` to paired",
        f"play-outs of {decisions} decisions; made with::",
    ]
    path.write_text(model_source(summary, commands, "SK_MOVE", model))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.train_shuangkou", description=__doc__)
    steps = parser.add_subparsers(dest="step", required=True)
    gather = steps.add_parser("collect")
    gather.add_argument("--deals", type=int, default=100)
    gather.add_argument("--seed", type=int, default=51)
    gather.add_argument("--samples", type=int, default=8)
    gather.add_argument("--policy", choices=sorted(POLICIES), default="heuristic")
    gather.add_argument("--rollout", choices=sorted(POLICIES), default="heuristic")
    gather.add_argument("--jobs", type=int, default=1)
    gather.add_argument("--out", type=Path, required=True)
    gather.add_argument("--first-deal", type=int, default=0)
    gather.add_argument(
        "--answers-from", type=int, default=None, metavar="CARDS",
        help="label only answers to an opponent while the seat holds at least CARDS cards",
    )
    fitting = steps.add_parser("fit")
    fitting.add_argument("files", type=Path, nargs="+")
    fitting.add_argument("--write", action="store_true")
    fitting.add_argument("--model-out", type=Path, default=MODEL_FILE)
    fitting.add_argument(
        "--on-top", action="store_true",
        help="keep the committed trees and boost more on top of them, fitted to what they "
        "leave unexplained of these labels (a round labelled at a table of today's model)",
    )
    fitting.add_argument(
        "--step", type=float, default=1.0, dest="fit_step",
        help="with --on-top: scale what the new trees add (1: all of it)",
    )
    fitting.add_argument("--depth", type=int, default=DEPTH, help="the trees' depth")
    fitting.add_argument(
        "--loss", choices=LOSSES, default="squared_error",
        help="the trees' loss (huber: the labels' far tails steer the leaves less)",
    )
    fitting.add_argument(
        "--weighted", action="store_true",
        help="each label counted by how sure it is (weighted least squares)",
    )
    args = parser.parse_args(argv)
    if args.step == "collect":
        work = functools.partial(
            decisions_of_deal, seed=args.seed, samples=args.samples, policy=args.policy,
            rollout=args.rollout, answers_from=args.answers_from,
        )
        count = write_rows(work, args.deals, args.jobs, args.out, args.first_deal)
        print(f"{count} decisions from {args.deals} deals in {args.out}")
        return 0
    if args.fit_step != 1.0 and not args.on_top:
        parser.error("--step scales trees added on top: give --on-top")
    shape = shape_flags(args.depth, args.loss, args.weighted)
    rows = read_rows(args.files)
    start = SK_COMMITTED if args.on_top else None
    report(
        *held_out(rows), start, args.fit_step, depth=args.depth, loss=args.loss,
        weighted=args.weighted,
    )
    if args.write:
        commands = made_with(
            "bench.train_shuangkou", args.files, rows, collected_by,
            table=committed_commands(MODEL_FILE),
            on_top=args.fit_step if args.on_top else None, shape=shape,
        )
        decisions = len(rows) + (committed_decisions(MODEL_FILE) if args.on_top else 0)
        model = fit(
            rows, depth=args.depth, start=start, step=args.fit_step, loss=args.loss,
            weighted=args.weighted,
        )
        write(model, commands, decisions, args.model_out)
        print(f"model of {len(model.trees)} trees written to {args.model_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
