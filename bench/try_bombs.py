"""Ways to fit a bomb round, tried offline against the committed bomb model before any match:
``python -m bench.try_bombs FILE... --folds 5 [--loss huber] [--step 0.5]`` (label files of
``bench.train_bombs collect``, collected at a table of the committed model).

The questions are split into ``--folds`` folds by deal; each fold is held out in turn from
fits to the others, so every question is judged once. A way is trees boosted on top of the
committed model (``--step`` of what they add), with the squared error and, if ``--loss``
names another, with that loss too. On a held-out question a model bombs when it expects a gain
above zero, and what it gains over never bombing is read off the label; each way's gain is
paired with the committed model's on the same questions, a mean a question with a 95% interval
that counts a deal as one draw (a deal's questions share its cards and its play-outs).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.train_bombs import LOSSES, fit, load
from bench.try_features import split
from bench.try_rounds import paired_cells
from bot.game.players.paowang_bombs import COMMITTED_BOMBS
from bot.game.players.trees import TreeModel

Rows = Sequence[dict[str, Any]]


def gains(model: TreeModel, held: Rows) -> list[float]:
    """What ``model``'s answer gains over never bombing on each held-out question."""
    return [row["gain"] if model.expected_gain(row["inputs"]) > 0 else 0.0 for row in held]


def try_losses(
    rows: Rows, losses: Sequence[str], folds: int = 5, step: float = 0.5,
    start: TreeModel = COMMITTED_BOMBS,
) -> tuple[list[int], dict[str, list[float]]]:
    """Every held-out question's deal group, fold after fold, and what each answer gains on
    it: ``committed`` (``start``) and ``start`` with trees on top by each loss."""
    if folds < 2:
        raise ValueError(f"folds must be 2 or more, not {folds}")
    groups: list[int] = []
    found: dict[str, list[float]] = {"committed": [], **{loss: [] for loss in losses}}
    for fold in range(folds):
        train, held = split(rows, folds, fold)
        groups += [row["group"] for row in held]
        found["committed"] += gains(start, held)
        for loss in losses:
            found[loss] += gains(fit(train, start, step, loss), held)
    return groups, found


def table(groups: Sequence[int], found: dict[str, list[float]]) -> list[str]:
    """The comparison as a Markdown table, a line per loss."""
    kept = found["committed"]
    lines = [
        "| trees on top, loss | the committed model | the way | the way less the committed |",
        "| --- | --- | --- | --- |",
    ]
    for loss, mine in found.items():
        if loss == "committed":
            continue
        lines.append(f"| {loss} | {paired_cells(groups, kept, mine)} |")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.try_bombs", description=__doc__)
    parser.add_argument("files", type=Path, nargs="+")
    parser.add_argument("--folds", type=int, default=5, help="2 or more (5)")
    parser.add_argument(
        "--step", type=float, default=0.5,
        help="the part of the new trees kept on top (0.5: the committed model's own shape)",
    )
    parser.add_argument(
        "--loss", choices=LOSSES, default="squared_error",
        help="tried beside squared error (the default tries squared error alone)",
    )
    args = parser.parse_args(argv)
    if args.folds < 2:
        parser.error(f"--folds must be 2 or more, not {args.folds}")
    rows = load(args.files)
    losses = list(dict.fromkeys(["squared_error", args.loss]))
    groups, found = try_losses(rows, losses, args.folds, args.step)
    print(f"{len(rows)} questions of {len(set(groups))} deals, each held out once in "
          f"{args.folds} folds; trees on top at a step of {args.step:g}")
    print("\n".join(table(groups, found)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
