"""Ways to fit a move round, tried offline against the committed model before any match:
``python -m bench.try_rounds FILE... --folds 5 [--jobs 2]`` (label files of
``bench.train_moves collect``, collected at a table of the committed model).

Each way keeps the committed trees as the prior that earlier labels made and adds what these
labels say (:data:`WAYS`): trees boosted on top of it (the whole step, half of it, or smaller
trees, less apt to fit the labels' noise), or the committed model averaged with trees fitted
to these labels alone. The deals are split into
``--folds`` folds by their group; each fold is held out in turn from fits to the others, so
every deal is judged once. On a held-out decision the way's pick and the committed model's pick
are both read off the labels (what the pick gains over the heuristic's choice), so the two are
judged on the same decisions: the table prints, per way and margin, the committed model's gain,
the way's, and the way's less the committed's, each a mean a decision with a 95% interval that
counts a deal as one draw (a deal's decisions share its cards and its play-outs). A way worth
matches is one whose difference is clearly above zero (``bench/results/tuning.md``, round 15).
``--shares 0.25,0.5,1`` fits each way to those shares of each fold's training deals too (the
same deals grow with the share) and judges them on the same held-out decisions: a learning
curve, which says whether more labels of the same kind are worth their hours.
``--candidates NAME`` (a set of :mod:`bench.try_features`) reads the decisions with today's
features and those candidates after them, and tries each way twice on the same folds, without
the candidates and with them; a second table prints the paired difference of the two (the
committed trees read only today's features, so they score as before).
``--shuangkou`` tries the same ways on 双扣's label files (``bench.train_shuangkou collect``),
against 双扣's committed trees.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench.train_bombs import blended
from bench.train_moves import Reader, fit, picked_gains, picks, read_labels
from bench.try_features import (
    CANDIDATES,
    READERS,
    ROWS,
    map_with_rows,
    split,
    todays_inputs_only,
)
from bot.game.players.paowang_moves import COMMITTED, inputs_of
from bot.game.players.shuangkou_moves import SK_COMMITTED
from bot.game.players.trees import TreeModel

Rows = Sequence[dict[str, Any]]
#: the kept model the ways start from and are judged against (刨王's, or 双扣's with
#: ``--shuangkou``), set before the folds' pool forks, as the rows are
KEPT: list[TreeModel] = [COMMITTED]
#: the ways, by name: each makes a model from the rows it is fitted to
WAYS: dict[str, Callable[[Rows], TreeModel]] = {
    "on top": lambda rows: fit(rows, start=KEPT[0]),
    "on top, half step": lambda rows: fit(rows, start=KEPT[0], step=0.5),
    "on top, depth 3": lambda rows: fit(rows, depth=3, start=KEPT[0]),
    "blend 0.5": lambda rows: blended(KEPT[0], fit(rows), 0.5),
    # the labels' tails are far heavier than a normal's (kurtosis about 100): a few lost
    # games of many points would steer squared-error leaves
    "on top, huber": lambda rows: fit(rows, start=KEPT[0], loss="huber"),
    "on top, depth 3, huber": lambda rows: fit(rows, depth=3, start=KEPT[0], loss="huber"),
    # a label's standard error says how far to trust it: weighted least squares
    "on top, weighted": lambda rows: fit(rows, start=KEPT[0], weighted=True),
    "on top, huber, weighted": lambda rows: fit(
        rows, start=KEPT[0], loss="huber", weighted=True
    ),
}
MARGINS = (0.0, 0.25, 0.5)
#: one held-out decision: its deal's group, then for each margin the label of the way's pick
#: and of the committed model's pick
Judged = tuple[int, tuple[tuple[float, float], ...]]


def judge(model: TreeModel, held: Rows) -> list[Judged]:
    """Each held-out decision's group, and for each margin the labels of ``model``'s pick and
    of the committed model's."""
    by_margin = [
        list(zip(
            picked_gains(held, picks(model, held, margin)),
            picked_gains(held, picks(KEPT[0], held, margin)),
            strict=True,
        ))
        for margin in MARGINS
    ]
    return [
        (row["group"], tuple(pairs[index] for pairs in by_margin))
        for index, row in enumerate(held)
    ]


def kept_share(rows: Rows, share: float) -> list[dict[str, Any]]:
    """The decisions of about ``share`` of the deals, drawn by each deal's group alone, so
    that a smaller share's deals are among a larger one's (a learning curve)."""
    if share >= 1.0:
        return list(rows)
    return [row for row in rows if random.Random(row["group"]).random() < share]


def fold_judged(task: tuple[str, int, int, float]) -> list[Judged]:
    """Way ``way`` fitted to ``share`` of the deals outside fold ``fold`` of ``folds``, and
    judged on that fold."""
    way, fold, folds, share = task
    train, held = split(ROWS, folds, fold)
    fitted = kept_share(train, share)
    if not fitted:
        raise ValueError(f"{way}: share {share:g} of fold {fold}'s training deals is no deal")
    return judge(WAYS[way](fitted), held)


def per_decision(groups: Sequence[int], values: Sequence[float]) -> tuple[float, float]:
    """The mean of ``values`` a decision and its 95% half-interval, each group (a deal) one
    draw: the ratio estimator's standard error over the deals' totals."""
    count = len(values)
    mean = sum(values) / count
    residuals: dict[int, float] = {}
    for group, value in zip(groups, values, strict=True):
        residuals[group] = residuals.get(group, 0.0) + value - mean
    deals = len(residuals)
    if deals < 2:
        return mean, 0.0
    spread = sum(residual * residual for residual in residuals.values()) * deals / (deals - 1)
    return mean, 1.96 * spread**0.5 / count


def try_ways(
    rows: Rows, ways: Sequence[str] = tuple(WAYS), folds: int = 5, jobs: int = 1,
    shares: Sequence[float] = (1.0,), kept: TreeModel = COMMITTED,
) -> dict[str, list[Judged]]:
    """Every held-out decision of every fold, by way (and share of the deals fitted, named
    after the way when it is not all of them), fold after fold; each way starts from ``kept``
    and is judged against its picks."""
    KEPT[:] = [kept]
    try:
        return _try_ways(rows, ways, folds, jobs, shares)
    finally:
        KEPT[:] = [COMMITTED]


def _try_ways(
    rows: Rows, ways: Sequence[str], folds: int, jobs: int, shares: Sequence[float]
) -> dict[str, list[Judged]]:
    if folds < 2:
        raise ValueError(f"folds must be 2 or more, not {folds}")
    if not all(0.0 < share <= 1.0 for share in shares):
        raise ValueError(f"shares lie in (0, 1], not {list(shares)}")
    tried = [(way, share) for way in ways for share in shares]
    tasks = [(way, fold, folds, share) for way, share in tried for fold in range(folds)]
    results = map_with_rows(rows, fold_judged, tasks, jobs)
    return {
        way if share >= 1.0 else f"{way}, share {share:g} of the deals":
            [judged for fold in results[index * folds:(index + 1) * folds] for judged in fold]
        for index, (way, share) in enumerate(tried)
    }


def table(found: dict[str, list[Judged]]) -> list[str]:
    """The comparison as a Markdown table, a line per way and margin."""
    lines = [
        "| way | margin | round kept | the way | the way less the kept |",
        "| --- | --- | --- | --- | --- |",
    ]
    for way, judged in found.items():
        groups = [group for group, _ in judged]
        for index, margin in enumerate(MARGINS):
            mine = [pairs[index][0] for _, pairs in judged]
            kept = [pairs[index][1] for _, pairs in judged]
            lines.append(f"| {way} | {margin:.2f} | {paired_cells(groups, kept, mine)} |")
    return lines


def paired_cells(groups: Sequence[int], kept: Sequence[float], mine: Sequence[float]) -> str:
    """Three Markdown cells: the kept model's mean, the way's, and the way's less the kept's
    (paired), each with its 95% half-interval a deal one draw (:func:`per_decision`)."""
    cells = [
        per_decision(groups, values)
        for values in (kept, mine, [a - b for a, b in zip(mine, kept, strict=True)])
    ]
    return " | ".join(f"{mean:+.4f} ±{half:.4f}" for mean, half in cells)


def with_candidates(
    ways: dict[str, Callable[[Rows], Any]], names: Sequence[str], candidates: str
) -> dict[str, Callable[[Rows], Any]]:
    """Each way of ``names`` twice: fitted to today's features alone (its own name), and to
    them and the candidates after them (named so by :func:`candidates_name`)."""
    doubled: dict[str, Callable[[Rows], Any]] = {}
    for name in names:
        doubled[name] = _without_candidates(ways[name])
        doubled[candidates_name(name, candidates)] = ways[name]
    return doubled


def _without_candidates(way: Callable[[Rows], Any]) -> Callable[[Rows], Any]:
    return lambda rows: way(todays_inputs_only(rows))


def candidates_name(way: str, candidates: str) -> str:
    return f"{way}, with {candidates}"


def candidates_table(found: dict[str, list[Judged]], candidates: str) -> list[str]:
    """For each way tried both ways: the way with the candidates less without, paired on the
    same held-out decisions, a line per margin."""
    lines = [
        f"| way | margin | with {candidates} less without |",
        "| --- | --- | --- |",
    ]
    for way, without in found.items():
        judged = found.get(candidates_name(way, candidates))
        if judged is None:
            continue
        groups = [group for group, _ in without]
        for index, margin in enumerate(MARGINS):
            difference = [
                mine[index][0] - theirs[index][0]
                for (_, mine), (_, theirs) in zip(judged, without, strict=True)
            ]
            mean, half = per_decision(groups, difference)
            lines.append(f"| {way} | {margin:.2f} | {mean:+.4f} ±{half:.4f} |")
    return lines


def _shares(text: str) -> tuple[float, ...]:
    try:
        shares = tuple(float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of shares (0.5,1)") from None
    if not all(0.0 < share <= 1.0 for share in shares):
        raise argparse.ArgumentTypeError(f"shares lie in (0, 1], not {text}")
    return tuple(sorted(set(shares)))  # a share named twice would fold into one row


def main(
    argv: Sequence[str] | None = None, *, prog: str = "python -m bench.try_rounds",
    description: str | None = __doc__, ways: dict[str, Callable[[Rows], Any]] | None = None,
    reader: Reader = inputs_of,
) -> int:
    """The command line; another trial (``bench.try_network``) passes its own ``ways`` and the
    ``reader`` its ways read the decisions with."""
    tried = WAYS if ways is None else ways
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("files", type=Path, nargs="+")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--way", choices=tuple(tried), action="append", dest="ways",
                        help="try only this way (again for more; default: every way)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument(
        "--shares", type=_shares, default=(1.0,),
        help="fit each way to these shares of the training deals too, e.g. 0.25,0.5,1 "
        "(a learning curve: would more labels of this kind help?)",
    )
    if ways is None:
        parser.add_argument(
            "--candidates", choices=tuple(CANDIDATES),
            help="try each way without and with this set of bench.try_features' inputs",
        )
        parser.add_argument(
            "--shuangkou", action="store_true",
            help="双扣's label files (bench.train_shuangkou), against 双扣's committed trees",
        )
    args = parser.parse_args(argv)
    candidates = getattr(args, "candidates", None)
    shuangkou = getattr(args, "shuangkou", False)
    if candidates is not None and args.shares != (1.0,):
        parser.error("--candidates pairs whole fits: give no --shares with it")
    if candidates is not None and shuangkou:
        parser.error("--candidates are 刨王's inputs: give no --shuangkou with them")
    if candidates is not None:
        tried = with_candidates(tried, args.ways or tuple(tried), candidates)
        args.ways = list(tried)
        reader = READERS[candidates]
    rows = read_labels(args.files, reader)
    # the folds' pool forks after this, so every worker finds the ways by name
    kept = dict(WAYS)
    WAYS.update(tried)
    try:
        found = try_ways(
            rows, args.ways or tuple(tried), args.folds, args.jobs, args.shares,
            SK_COMMITTED if shuangkou else COMMITTED,
        )
    finally:
        WAYS.clear()
        WAYS.update(kept)
    deals = len({row["group"] for row in rows})
    print(f"{len(rows)} decisions of {deals} deals, each held out once in {args.folds} folds")
    print("\n".join(table(found)))
    if candidates is not None:
        print()
        print("\n".join(candidates_table(found, candidates)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
