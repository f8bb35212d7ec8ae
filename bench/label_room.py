"""Where the labels of a table see room, by kind of decision, and how much of it the committed
move model takes: ``python -m bench.label_room FILE...`` (label files of ``bench.train_moves
collect``).

A decision's kind is the seat's situation (leading, following a partner's trick, following a
foe's) and the heuristic's choice there (a pass, an ordinary play, a bomb). For each kind the
table prints its share of the decisions, how often the committed model (at margin 0.25, as the
bot plays) leaves the heuristic's choice and what that gains a decision by the labels, and the
room the search would take: how often some allowed move's label is two of its standard errors
above the choice (the yardstick's z ≥ 2 rule) and the best such label, a decision. The room is
biased up (the best of several moves read off the same samples) but says where it lies.

``--shuangkou`` reads label files of ``bench.train_shuangkou collect`` the same way, against
the committed 双扣 trees; there a decision's kind is read off its stored inputs (leading or
answering, the heuristic's choice) and the seat's cards left, since 双扣's labels see their room
late in a deal (``tuning.md``, 2026-12-07).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.train_bombs import read_rows
from bench.train_moves import kind_of, picked_gains, picks, read_labels, situation
from bot.game.common import Combo
from bot.game.players.paowang_moves import COMMITTED, MARGIN, Position, inputs_of
from bot.game.players.shuangkou_moves import MARGIN as SK_MARGIN
from bot.game.players.shuangkou_moves import SK_COMMITTED, SK_MOVE_FEATURES
from bot.game.players.trees import TreeModel

Rows = Sequence[dict[str, Any]]
#: where 双扣's stored inputs say what the kind of a decision is
_SK_AT = {name: SK_MOVE_FEATURES.index(name) for name in (
    "leading", "cards/10", "choice pass", "choice bomb",
)}


@dataclass
class Kind:
    decisions: int = 0
    changed: int = 0
    gain: float = 0.0
    sure: int = 0
    room: float = 0.0


def sure_room(row: dict[str, Any], z: float = 2.0) -> float:
    """The best label among the allowed moves at least ``z`` standard errors above the
    heuristic's choice; 0 when none is."""
    labelled = zip(row["gains"], row["errors"], row["allowed"], strict=True)
    return max(
        (gain for gain, error, ok in labelled if ok and error > 0 and gain >= z * error),
        default=0.0,
    )


def by_kind(paths: Sequence[Path]) -> dict[tuple[str, str], Kind]:
    """The decisions of ``paths`` (stored deals, each replayed once) counted by kind."""
    kinds: list[tuple[str, str]] = []

    def read(position: Position, moves: Sequence[Combo | None]) -> list[tuple[float, ...]]:
        kinds.append((situation(position.view), kind_of(moves[0])))
        return inputs_of(position, moves)

    rows = read_labels(paths, read)
    # strict: the first rounds' files (inputs stored, nothing replayed) would leave no kinds
    return counted(rows, kinds, COMMITTED, MARGIN)


def shuangkou_kind(row: dict[str, Any]) -> tuple[str, str]:
    """A 双扣 decision's kind from its stored inputs: leading or answering, with the seat's
    cards left in three bands; the heuristic's choice."""
    inputs = row["inputs"][0]
    cards = round(inputs[_SK_AT["cards/10"]] * 10)
    band = "20 cards or more" if cards >= 20 else "10 to 19 cards" if cards >= 10 else (
        "under 10 cards"
    )
    where = "lead" if inputs[_SK_AT["leading"]] > 0.5 else "follow"
    choice = "pass" if inputs[_SK_AT["choice pass"]] > 0.5 else (
        "bomb" if inputs[_SK_AT["choice bomb"]] > 0.5 else "play"
    )
    return f"{where}, {band}", choice


def by_shuangkou_kind(paths: Sequence[Path]) -> dict[tuple[str, str], Kind]:
    """The decisions of 双扣 label files counted by kind, against the committed 双扣 trees."""
    rows = read_rows(paths)
    return counted(rows, [shuangkou_kind(row) for row in rows], SK_COMMITTED, SK_MARGIN)


def counted(
    rows: Rows, kinds: Sequence[tuple[str, str]], model: TreeModel, margin: float
) -> dict[tuple[str, str], Kind]:
    chosen = picks(model, rows, margin)
    found: dict[tuple[str, str], Kind] = {}
    for row, key, pick, gain in zip(rows, kinds, chosen, picked_gains(rows, chosen), strict=True):
        kind = found.setdefault(key, Kind())
        kind.decisions += 1
        kind.changed += bool(pick)
        kind.gain += gain
        room = sure_room(row)
        kind.sure += room > 0
        kind.room += room
    return found


def table(found: dict[tuple[str, str], Kind]) -> list[str]:
    total = sum(kind.decisions for kind in found.values())
    lines = [
        "| situation | the heuristic's choice | share | the model changes | its gain a decision "
        "| a move z ≥ 2 better | its label a decision |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for (where, choice), kind in sorted(found.items(), key=lambda item: -item[1].decisions):
        count = kind.decisions
        lines.append(
            f"| {where} | {choice} | {count / total:.1%} | {kind.changed / count:.1%} "
            f"| {kind.gain / count:+.3f} | {kind.sure / count:.1%} | {kind.room / count:+.3f} |"
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.label_room", description=__doc__)
    parser.add_argument("files", type=Path, nargs="+")
    parser.add_argument(
        "--shuangkou", action="store_true",
        help="the files are 双扣's (bench.train_shuangkou collect), read against its trees",
    )
    args = parser.parse_args(argv)
    found = by_shuangkou_kind(args.files) if args.shuangkou else by_kind(args.files)
    margin = SK_MARGIN if args.shuangkou else MARGIN
    print(f"{sum(kind.decisions for kind in found.values())} decisions, the committed model "
          f"at margin {margin}")
    print("\n".join(table(found)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
