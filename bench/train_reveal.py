"""Fits the 刨王 AI's 亮王 answer to paired play-outs: ``python -m bench.train_reveal collect
--deals N --seed S --jobs J --out FILE``, then ``python -m bench.train_reveal fit FILE...
[--write]`` (needs scikit-learn, in the test extra).

``collect`` deals 刨王 hands and, for every 大王 holder in turn (the others answering as the
bot's AI does), samples deals that agree with the holder's hand and what it knows
(:func:`bot.game.players.sampling.deal_at_reveal`) and plays each sample out twice, revealing
and not, with the bot's AI (its move model included) in every seat afterwards. The label is
what revealing scored over not revealing, in points for the holder, averaged over the samples,
with its standard error; the inputs are the hand as
:data:`bot.game.players.paowang_reveal.REVEAL_FEATURES` reads it, the hand-written rule's answer
among them. ``fit`` boosts small regression trees on the labels, holds a fifth of the deals
out and prints on them what answering by the rule, by the trees and always or never revealing
gains over never revealing; ``--write`` writes the trees to
``bot/game/players/paowang_reveal_model.py``. Whether the trees are kept is decided by paired
matches (``python -m bench.tune --reveal``), written down in ``bench/results/tuning.md``.
"""

from __future__ import annotations

import argparse
import functools
import random
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.train_bombs import (
    fit_trees,
    held_out,
    made_with,
    model_source,
    policy_gain,
    read_rows,
    write_rows,
)
from bench.train_moves import DEAL_OFFSET, POLICIES
from bot.cli.simulate import decide, new_game, next_actor
from bot.game.players import AiPlayer
from bot.game.players.paowang_ai import PaowangAI
from bot.game.players.paowang_reveal import COMMITTED_REVEAL, reveal_features
from bot.game.players.sampling import clone, deal_at_reveal, finish
from bot.game.players.trees import TreeModel

MODEL_FILE = Path(__file__).resolve().parent.parent / "bot/game/players/paowang_reveal_model.py"
#: the boosting's settings: a question a deal, few and noisy labels: small trees, few
TREES = 100
DEPTH = 3
MIN_LEAF = 40


def questions_of_deal(
    deal: int, seed: int, samples: int, policy: str = "model"
) -> list[dict[str, Any]]:
    """Every 亮王 answer of one deal, labelled by paired play-outs of both answers."""
    game = new_game("paowang", seed * 1_000_003 + DEAL_OFFSET + deal)
    tuning = POLICIES[policy]
    players = [AiPlayer(seat, paowang_tuning=tuning) for seat in range(game.seats)]
    rollout = AiPlayer(deal, lookahead=False, paowang_tuning=tuning)
    rule = PaowangAI(tuning=tuning)
    found: list[dict[str, Any]] = []
    while game.reveal_phase:
        seat = next_actor(game)
        assert seat is not None
        view = game.view(seat)
        rng = random.Random(deal * 101 + seat)
        differences = []
        for _ in range(samples):
            sample = deal_at_reveal(view, game.leader, rng)
            if sample is None:
                break
            scores = []
            for yes in (True, False):
                played = clone(sample)
                played.reveal(seat, yes)
                scores.append(finish(played, rollout)[seat])
            differences.append(float(scores[0] - scores[1]))
        if len(differences) == samples:
            says = rule.reveal_rule(view)
            found.append({
                "deal": deal, "seed": seed, "samples": samples, "policy": policy,
                "seat": seat, "inputs": reveal_features(view, says), "rule": says,
                "gain": statistics.fmean(differences),
                "error": statistics.stdev(differences) / len(differences) ** 0.5,
            })
        decide(players[seat], game, seat)
    return found


def collect(deals: int, seed: int, samples: int, policy: str, jobs: int, out: Path) -> int:
    work = functools.partial(questions_of_deal, seed=seed, samples=samples, policy=policy)
    return write_rows(work, deals, jobs, out)


def collected_by(name: str, rows: Sequence[dict[str, Any]]) -> str:
    deals = max(row["deal"] for row in rows) + 1
    return (
        f"python -m bench.train_reveal collect --deals {deals} --seed {rows[0]['seed']} "
        f"--samples {rows[0]['samples']} --policy {rows[0]['policy']} --out {name}"
    )


def fit(rows: Sequence[dict[str, Any]]) -> TreeModel:
    return fit_trees(
        [row["inputs"] for row in rows], [row["gain"] for row in rows], trees=TREES,
        depth=DEPTH, min_leaf=MIN_LEAF,
    )


def report(train: Sequence[dict[str, Any]], held: Sequence[dict[str, Any]]) -> None:
    fitted = fit(train)
    print(f"{len(train)} answers to fit, {len(held)} held out")
    for name, reveals in (
        ("never reveal", [False] * len(held)), ("always reveal", [True] * len(held)),
        ("the rule", [bool(row["rule"]) for row in held]),
        ("the trees", [fitted.expected_gain(row["inputs"]) > 0 for row in held]),
        # the bot's trees of the day, the bar a new fit must clear to be worth a match (they
        # look better than they are on labels they were fitted to, held out here or not)
        ("the committed trees", [COMMITTED_REVEAL.expected_gain(row["inputs"]) > 0
                                 for row in held]),
        ("hindsight (the labels)", [row["gain"] > 0 for row in held]),
    ):
        print(f"  {name:24} reveals {sum(reveals) / len(held):5.1%}  "
              f"gain {policy_gain(held, reveals):+.3f} points an answer")


def write(model: TreeModel, commands: Sequence[str], answers: int, path: Path = MODEL_FILE) -> None:
    summary = [
        "The 刨王 AI's 亮王 model: what revealing gains over not revealing, in points, is",
        "REVEAL_BASE plus one leaf of every tree, found from the hand's inputs (REVEAL_FEATURES in",
        "paowang_reveal). Fitted by ``bench/train_reveal.py`` to paired play-outs of",
        f"{answers} answers; made with::",
    ]
    path.write_text(model_source(summary, commands, "REVEAL", model))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.train_reveal", description=__doc__)
    steps = parser.add_subparsers(dest="step", required=True)
    gather = steps.add_parser("collect")
    gather.add_argument("--deals", type=int, default=500)
    gather.add_argument("--seed", type=int, default=41)
    gather.add_argument("--samples", type=int, default=16)
    gather.add_argument("--policy", choices=sorted(POLICIES), default="model")
    gather.add_argument("--jobs", type=int, default=1)
    gather.add_argument("--out", type=Path, required=True)
    fitting = steps.add_parser("fit")
    fitting.add_argument("files", type=Path, nargs="+")
    fitting.add_argument("--write", action="store_true")
    fitting.add_argument(
        "--model-out", type=Path, default=MODEL_FILE,
        help="where --write writes the model (default: the bot's, "
        "bot/game/players/paowang_reveal_model.py)",
    )
    args = parser.parse_args(argv)
    if args.step == "collect":
        count = collect(args.deals, args.seed, args.samples, args.policy, args.jobs, args.out)
        print(f"{count} answers from {args.deals} deals in {args.out}")
        return 0
    rows = read_rows(args.files)
    report(*held_out(rows))
    if args.write:
        # "--policy model" names the table's move model, not a 亮王 model fitted here
        commands = made_with(
            "bench.train_reveal", args.files, rows, collected_by, refits=False
        )
        write(fit(rows), commands, len(rows), args.model_out)
        print(f"model of {TREES} trees written to {args.model_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
