"""Candidate features for 刨王's move model, tried on kept labels before any labelling:
``python -m bench.try_features FILE...`` (label files of ``bench.train_moves collect``, e.g.
``bench/labels/*.jsonl.gz``).

It reads the same stored deals twice, with today's :data:`MOVE_FEATURES` and with today's plus
the candidates below (appended after them, so that the committed trees, which never read past
today's, would score exactly as before), fits the same trees to each on the same four fifths of
the deals, and prints what taking each model's pick gains on the held-out fifth, by the labels,
at a few margins, with the paired difference of the two and its 95% interval (both models are
judged on the same decisions). ``--folds K`` (2 or more) judges every deal once instead: the
deals are split into K folds, each held out in turn from fits to the others (K fits of each
model, ``--jobs`` at once), so five times the decisions are judged and the interval narrows by
about the square root of 5 whatever K (a little less in truth: the interval treats the folds'
fits as one; ``--folds 5``'s first fold is the fifth held out with one fold). A candidate worth
a round is one whose difference is clearly above zero; paired matches then decide, as for
every round (``bench/results/tuning.md``).
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from bench.train_bombs import held_out
from bench.train_moves import DEPTH, TREES, fit, picked_gains, picks, read_labels
from bot.game.cards import BIG_JOKER, SMALL_JOKER
from bot.game.common import Combo, SeatView
from bot.game.players.base import seats_to_act
from bot.game.players.paowang_moves import (
    MOVE_FEATURES,
    MOVE_NAMES,
    POINTS,
    POSITION_FEATURES,
    Position,
    inputs_of,
)
from bot.game.players.paowang_plan import TWO

#: the first candidates (2026-12-05, dropped): read of the position, the others' bomb and joker
#: power still unseen, the points still out, the seat that acts next, the points in the hand
EXTRA_POSITION = (
    "unseen jokers/4", "unseen 三路 ranks/5", "unseen 四路 ranks/5", "unseen points/100",
    "next is a foe", "next is a partner", "next cards/10", "hand points/10",
)
#: ... and read of a move (and of the heuristic's choice): how many unseen ranks can answer a
#: single or a pair, the points the hand keeps
EXTRA_MOVE = ("higher ranks unseen/5", "points kept/10")
UNSEEN_FEATURES = (
    *EXTRA_POSITION, *(f"move {name}" for name in EXTRA_MOVE),
    *(f"choice {name}" for name in EXTRA_MOVE),
)
#: the second candidates (2026-12-06): the partners' side of the table (their cards, who is
#: out, who passed this trick), then each of the move's inputs less the choice's, so that a
#: tree compares the two in one split instead of two levels of them
SIDE_POSITION = (
    "partner cards/10", "a partner is out", "a foe is out", "seats out", "first out ours",
    "first out theirs", "passes this trick", "a partner passed this trick",
)
DIFFERENCES = tuple(f"move - choice {name}" for name in MOVE_NAMES[1:])
SIDE_FEATURES = (*SIDE_POSITION, *DIFFERENCES)
#: the third candidates (2026-12-07): what the others' passes have shown of their hands. A
#: seat that passed over a single (a pair) of some rank, when the taker was not known to be on
#: its side, holds no higher single (pair) outside its bombs, or chose to keep it: cards only
#: leave a hand, so the lowest rank it passed over bounds it from then on
PASS_POSITION = (
    "non-partners to act shown unable over the table", "partners to act shown unable",
)
PASS_MOVE = ("foes shown unable", "unknown shown unable", "others not shown unable")
PASS_FEATURES = (
    *PASS_POSITION, *(f"move {name}" for name in PASS_MOVE),
    *(f"choice {name}" for name in PASS_MOVE),
)
#: the candidate sets, by the name ``--candidates`` takes
CANDIDATES = {"unseen": UNSEEN_FEATURES, "side": SIDE_FEATURES, "passes": PASS_FEATURES}
MARGINS = (0.0, 0.25, 0.5, 1.0)
#: the kinds whose passes bound a hand, and how many cards of a rank answer them
BOUNDED = {"single": 1, "pair": 2}
#: no bound shown yet (above every rank)
UNBOUNDED = BIG_JOKER + 1


def _hand_points(position: Position) -> int:
    return sum(POINTS[rank] * count for rank, count in enumerate(position.counts))


def position_extra(position: Position) -> tuple[float, ...]:
    view = position.view
    assert view.seat is not None
    unseen = position.unseen
    seats = len(view.hand_sizes)
    following = [(view.seat + step) % seats for step in range(1, seats)]
    after = next((seat for seat in following if view.hand_sizes[seat]), None)
    return (
        (unseen[SMALL_JOKER] + unseen[BIG_JOKER]) / 4,
        sum(1 for rank in range(4, TWO + 1) if unseen[rank] >= 3) / 5,
        sum(1 for rank in range(4, TWO + 1) if unseen[rank] >= 4) / 5,
        sum(POINTS[rank] * count for rank, count in enumerate(unseen)) / 100,
        float(after is not None and after in view.opponents),
        float(after is not None and after in view.partners),
        0.0 if after is None else view.hand_sizes[after] / 10,
        _hand_points(position) / 10,
    )


def move_extra(position: Position, move: Combo | None) -> tuple[float, ...]:
    kept = _hand_points(position)
    if move is None:
        return (0.0, kept / 10)
    kept -= sum(POINTS[card >> 3] for card in move.cards)
    width = BOUNDED.get(move.kind, 0)
    higher = 0 if move.tier or not width else sum(
        1 for rank in range(move.key + 1, BIG_JOKER + 1) if position.unseen[rank] >= width
    )
    return (higher / 5, kept / 10)


def with_unseen(position: Position, moves: Sequence[Combo | None]) -> list[tuple[float, ...]]:
    """Today's inputs of each move but the first, then the first candidates (the position's,
    the move's, the heuristic's choice's)."""
    shared = position_extra(position)
    choice = move_extra(position, moves[0])
    return [
        (*today, *shared, *move_extra(position, move), *choice)
        for today, move in zip(inputs_of(position, moves), moves[1:], strict=True)
    ]


def side_position(position: Position) -> tuple[float, ...]:
    view = position.view
    assert view.seat is not None
    ours = (view.seat, *view.partners)
    holding = [view.hand_sizes[seat] for seat in view.partners if view.hand_sizes[seat]]
    first = view.finish_order[0] if view.finish_order else None
    since_taker = [seat for seat, play in view.trick if play is None]
    return (
        min(holding, default=30) / 10,
        float(any(not view.hand_sizes[seat] for seat in view.partners)),
        float(any(not view.hand_sizes[seat] for seat in view.opponents)),
        float(len(view.finish_order)),
        float(first is not None and first in ours),
        float(first is not None and first in view.opponents),
        float(len(since_taker)),
        float(any(seat in view.partners for seat in since_taker)),
    )


def with_side(position: Position, moves: Sequence[Combo | None]) -> list[tuple[float, ...]]:
    """Today's inputs of each move but the first, then the second candidates: the position's
    side of the table, and the move's inputs less the choice's (the pass flag left out: its
    difference is the move's own flag less the choice's, which the trees read already)."""
    shared = side_position(position)
    width = len(MOVE_NAMES)
    start = len(POSITION_FEATURES)
    rows = []
    for today in inputs_of(position, moves):
        move = today[start + 1:start + width]
        choice = today[start + width + 1:start + 2 * width]
        rows.append((*today, *shared, *(a - b for a, b in zip(move, choice, strict=True))))
    return rows


def shown_bounds(view: SeatView) -> dict[str, list[int]]:
    """For each bounded kind, for each seat: the lowest rank of that kind the seat passed over,
    as this seat reads the history (a pass over a taker this seat knows to be on the passer's
    side shows nothing: partners pass to let a trick stand). A trick always opens with a play,
    so each pass is over the last play before it. (A single's bound would bound pairs too, every
    card being a single; round 20 read the two kinds apart, as here.)"""
    assert view.seat is not None
    ours = {view.seat, *view.partners}
    theirs = set(view.opponents)
    bounds = {kind: [UNBOUNDED] * len(view.hand_sizes) for kind in BOUNDED}
    top: tuple[int, Combo] | None = None
    for seat, play in view.history:
        if play is not None:
            top = seat, play
            continue
        if top is None or top[1].tier or top[1].kind not in BOUNDED:
            continue
        taker, combo = top
        if {seat, taker} <= ours or {seat, taker} <= theirs:
            continue
        row = bounds[combo.kind]
        row[seat] = min(row[seat], combo.key)
    return bounds


def _shown_unable(bounds: dict[str, list[int]], seat: int, combo: Combo) -> bool:
    return combo.tier == 0 and combo.kind in BOUNDED and bounds[combo.kind][seat] <= combo.key


def pass_position(position: Position, bounds: dict[str, list[int]]) -> tuple[float, ...]:
    """Over the table's play: how many of the seats still to act that are not known partners,
    and how many that are, have shown they cannot beat it (0, 0 when leading)."""
    view = position.view
    table = view.on_table
    if table is None:
        return (0.0, 0.0)
    unable = [seat for seat in seats_to_act(view) if _shown_unable(bounds, seat, table)]
    return (
        float(sum(1 for seat in unable if seat not in view.partners)),
        float(sum(1 for seat in unable if seat in view.partners)),
    )


def pass_move(
    position: Position, bounds: dict[str, list[int]], move: Combo | None
) -> tuple[float, ...]:
    """Over ``move``, if a single or a pair, among the others still holding cards that are not
    known partners: how many known foes have shown they cannot beat it, how many seats of
    unknown side have, and how many of them all have not (0, 0, 0 for any other move)."""
    view = position.view
    if move is None or move.tier or move.kind not in BOUNDED:
        return (0.0, 0.0, 0.0)
    others = [
        seat for seat, size in enumerate(view.hand_sizes)
        if size and seat != view.seat and seat not in view.partners
    ]
    unable = [seat for seat in others if _shown_unable(bounds, seat, move)]
    return (
        float(sum(1 for seat in unable if seat in view.opponents)),
        float(sum(1 for seat in unable if seat not in view.opponents)),
        float(len(others) - len(unable)),
    )


def with_passes(position: Position, moves: Sequence[Combo | None]) -> list[tuple[float, ...]]:
    """Today's inputs of each move but the first, then the third candidates: what the passes
    show over the table, and over the move and the heuristic's choice."""
    bounds = shown_bounds(position.view)
    shared = pass_position(position, bounds)
    choice = pass_move(position, bounds, moves[0])
    return [
        (*today, *shared, *pass_move(position, bounds, move), *choice)
        for today, move in zip(inputs_of(position, moves), moves[1:], strict=True)
    ]


#: how each candidate set reads a decision
READERS = {"unseen": with_unseen, "side": with_side, "passes": with_passes}


Task = TypeVar("Task")
Result = TypeVar("Result")
#: a fit's trees and their depth
Shape = tuple[int, int]
#: the labelled decisions, read once before the folds' fits fork (so no fit pickles them)
ROWS: list[dict[str, Any]] = []
#: a fold's fit: (decisions fitted, for each margin the label of the pick on each held-out
#: decision and how many picks are not the heuristic's choice)
FoldGains = tuple[int, dict[float, tuple[list[float], int]]]


def split(
    rows: Sequence[dict[str, Any]], folds: int, fold: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(to fit, held out) of fold ``fold``: with one fold, the fifth ``held_out`` holds out;
    with ``folds`` of 2 or more, the deals whose group is ``fold`` modulo ``folds``, so that
    every deal is held out in one fold."""
    if folds == 1:
        return held_out(rows)
    return (
        [row for row in rows if row["group"] % folds != fold],
        [row for row in rows if row["group"] % folds == fold],
    )


def todays_inputs_only(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows as read with today's features alone: the candidates come after them."""
    width = len(MOVE_FEATURES)
    return [{**row, "inputs": [inputs[:width] for inputs in row["inputs"]]} for row in rows]


def fold_gains(task: tuple[int, int, bool, int, int]) -> FoldGains:
    """Fold ``fold`` of ``folds`` fitted with ``trees`` trees of depth ``depth``, to the rows as
    read or (``extras`` off) to today's features alone, and judged on its held-out deals."""
    fold, folds, extras, trees, depth = task
    train, held = split(ROWS, folds, fold)
    if not extras:
        train, held = todays_inputs_only(train), todays_inputs_only(held)
    model = fit(train, trees=trees, depth=depth)
    found: dict[float, tuple[list[float], int]] = {}
    for margin in MARGINS:
        chosen = picks(model, held, margin)
        found[margin] = picked_gains(held, chosen), sum(1 for pick in chosen if pick)
    return len(train), found


def map_with_rows(
    rows: Sequence[dict[str, Any]], work: Callable[[Task], Result], tasks: Sequence[Task],
    jobs: int = 1,
) -> list[Result]:
    """``work`` over ``tasks``, ``jobs`` at a time, with ``rows`` in :data:`ROWS` for them
    (set before the pool forks, so that no task pickles them)."""
    ROWS[:] = rows
    try:
        if jobs > 1:
            with multiprocessing.get_context("fork").Pool(min(jobs, len(tasks))) as pool:
                return pool.map(work, tasks)
        return [work(task) for task in tasks]
    finally:
        ROWS.clear()


def held_out_gains(
    rows: Sequence[dict[str, Any]], *, base: Shape = (TREES, DEPTH),
    variant: Shape = (TREES, DEPTH), folds: int = 1, jobs: int = 1,
) -> dict[bool, tuple[int, dict[float, tuple[list[float], float]]]]:
    """For today's model (False: today's features, ``base`` trees and depth, by default the
    committed model's) and the variant (True: the rows as read, ``variant``): (decisions fitted
    in the first fold, for each margin the label of the pick on each held-out decision, fold
    after fold, and the share of them where the pick is not the heuristic's choice). ``rows``
    are read with the candidates, if any. The 2 × ``folds`` fits run ``jobs`` at a time."""
    if folds < 1:
        raise ValueError(f"folds must be 1 or more, not {folds}")
    tasks = [
        (fold, folds, extras, *(variant if extras else base))
        for extras in (False, True) for fold in range(folds)
    ]
    results = map_with_rows(rows, fold_gains, tasks, jobs)
    both = {}
    for extras, fits in ((False, results[:folds]), (True, results[folds:])):
        found: dict[float, tuple[list[float], float]] = {}
        for margin in MARGINS:
            gains = [gain for _, fold in fits for gain in fold[margin][0]]
            changed = sum(fold[margin][1] for _, fold in fits)
            found[margin] = gains, changed / len(gains)
        both[extras] = fits[0][0], found
    return both


def _interval(values: Sequence[float]) -> str:
    half = 1.96 * statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else 0.0
    return f"{statistics.fmean(values):+.4f} ±{half:.4f}"


def compare(
    paths: Sequence[Path], candidates: str = "side", base: Shape = (TREES, DEPTH),
    variant: Shape = (TREES, DEPTH), folds: int = 1, jobs: int = 1,
) -> list[dict[str, Any]]:
    """For each margin: the held-out gain of today's model (``base`` trees and depth), of the
    variant (the candidate set ``candidates``, or "none" for today's features, with ``variant``
    trees and depth), the paired difference, and how often each changes the heuristic's
    choice."""
    reader = inputs_of if candidates == "none" else READERS[candidates]
    both = held_out_gains(
        read_labels(paths, reader), base=base, variant=variant, folds=folds, jobs=jobs
    )
    (fitted, today), (_, extra) = both[False], both[True]
    result = []
    for margin in MARGINS:
        (base, base_changed), (more, more_changed) = today[margin], extra[margin]
        difference = [b - a for a, b in zip(base, more, strict=True)]
        result.append({
            "margin": margin, "fitted": fitted, "held": len(difference),
            "today": _interval(base), "extras": _interval(more),
            "difference": _interval(difference),
            "changed today": base_changed, "changed extras": more_changed,
        })
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.try_features", description=__doc__)
    parser.add_argument("files", type=Path, nargs="+")
    parser.add_argument(
        "--folds", type=int, default=1, help="1: a fifth of the deals held out; K: every deal"
    )
    parser.add_argument(
        "--candidates", choices=(*CANDIDATES, "none"), default="side",
        help="the features added to today's (none: today's alone, to try --trees or --depth)",
    )
    parser.add_argument("--trees", type=int, default=TREES, help="the variant's trees")
    parser.add_argument("--depth", type=int, default=DEPTH, help="the variant's tree depth")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    rows = compare(
        args.files, candidates=args.candidates, variant=(args.trees, args.depth),
        folds=args.folds, jobs=args.jobs,
    )
    first = " (in the first fold)" if args.folds > 1 else ""
    added = ", ".join(CANDIDATES.get(args.candidates, ())) or "none"
    print(f"{rows[0]['fitted']} decisions fitted{first}, {rows[0]['held']} held out; "
          f"variant: {args.trees} trees of depth {args.depth}, features added: {added}")
    print("| margin | today's model | the variant | difference | changed (today / variant) |")
    print("| --- | --- | --- | --- | --- |")
    for row in rows:
        print(f"| {row['margin']:.2f} | {row['today']} | {row['extras']} | {row['difference']} "
              f"| {row['changed today']:.1%} / {row['changed extras']:.1%} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
