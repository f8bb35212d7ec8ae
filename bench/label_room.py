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
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.train_moves import kind_of, picked_gains, picks, read_labels, situation
from bot.game.common import Combo
from bot.game.players.paowang_moves import COMMITTED, MARGIN, Position, inputs_of


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
    chosen = picks(COMMITTED, rows, MARGIN)
    found: dict[tuple[str, str], Kind] = {}
    # strict: the first rounds' files (inputs stored, nothing replayed) would leave no kinds
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
    args = parser.parse_args(argv)
    found = by_kind(args.files)
    print(f"{sum(kind.decisions for kind in found.values())} decisions, the committed model "
          f"at margin {MARGIN}")
    print("\n".join(table(found)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
