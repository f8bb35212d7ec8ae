"""Matches spread over runs: each deal's outcome is appended to a record as it finishes, so
that a match of 12,000 deals a direction can be played a few thousand deals a session,
stopped at any point, and taken up again by the same command.

One JSON line per deal: the match (what is compared, ``"A among B"``, a model file named by
its content), the variant, the seed, the version of the code that played it, the deal's
number and its gain. A run plays only the deals its match does not have yet; the figure is
over all of them. The version is a digest of the code that plays a deal (the engine and the
AI under ``bot/game``, the simulator, the paired match, ``bench/tune.py``): lines of another
version are counted and left out, never mixed in, since a match is one pair of players on
one set of deals.
"""

from __future__ import annotations

import ast
import hashlib
import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TextIO

from bench.search_match import DealOutcome

ROOT = Path(__file__).resolve().parent.parent
#: what decides a deal's outcome besides the model files a match names: the engine and the AI,
#: the simulator, the paired match, and what ``bench.tune`` makes of a player's name
CODE: tuple[Path, ...] = (
    ROOT / "bot" / "game",
    ROOT / "bot" / "cli" / "simulate.py",
    ROOT / "bench" / "search_match.py",
    ROOT / "bench" / "tune.py",
)


@dataclass(frozen=True, slots=True)
class MatchKey:
    match: str  # what is compared and who plays: "moves: file:1a2b… among committed"
    variant: str
    seed: int
    version: str  # :func:`version_of` the code


@dataclass(frozen=True, slots=True)
class Recorded:
    """What a record holds for one match: the gain of each deal played, and how many lines
    it left out (another version of the same match and seed, or a line cut short when a run
    was stopped while writing it)."""

    gains: dict[int, float]
    other_versions: int
    damaged: int


def player_label(name: str) -> str:
    """A player's name as a record keeps it: a model file by its content, wherever it lies
    (``file:`` and the start of its sha256), any other name (``committed``) as itself."""
    path = Path(name)
    if path.is_file():
        return "file:" + hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    return name


def version_of(code: Iterable[Path] = CODE) -> str:
    """A digest of the Python code under ``code``, read as syntax trees: a comment or a
    line's layout changes nothing, so a long match survives them."""
    digest = hashlib.sha256()
    for root in code:
        files = sorted(root.rglob("*.py")) if root.is_dir() else [root]
        for path in files:
            where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else Path(path.name)
            digest.update(where.as_posix().encode())
            digest.update(ast.dump(ast.parse(path.read_bytes())).encode())
    return digest.hexdigest()[:16]


def read(path: Path, key: MatchKey) -> Recorded:
    """The deals of ``key``'s match in the record at ``path`` (none if there is no record)."""
    gains: dict[int, float] = {}
    other_versions = damaged = 0
    if not path.exists():
        return Recorded(gains, 0, 0)
    # a line cut short may end inside a character: it is then damaged, not the whole record
    with path.open(encoding="utf-8", errors="replace") as lines:
        for line in lines:
            try:
                entry = json.loads(line)
                same_match = (entry["match"], entry["variant"], entry["seed"]) == (
                    key.match, key.variant, key.seed
                )
                deal, gain, version = int(entry["deal"]), float(entry["gain"]), entry["version"]
            except (ValueError, KeyError, TypeError):
                damaged += 1
                continue
            if not same_match:
                continue
            if version != key.version:
                other_versions += 1
                continue
            gains.setdefault(deal, gain)
    return Recorded(gains, other_versions, damaged)


def write(out: TextIO, key: MatchKey, outcome: DealOutcome) -> None:
    """One deal's line, flushed at once: a run stopped later keeps it."""
    entry = {**asdict(key), "deal": outcome.deal, "gain": outcome.gain}
    out.write(json.dumps(entry) + "\n")  # ASCII: a line cut short cuts no character
    out.flush()


def open_to_append(path: Path) -> TextIO:
    """The record, to add lines to: a line cut short by a stopped run is ended first, so that
    the next line is not lost with it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    cut_short = False
    if path.exists() and path.stat().st_size:
        with path.open("rb") as existing:
            existing.seek(-1, 2)
            cut_short = existing.read(1) != b"\n"
    out = path.open("a", encoding="utf-8")
    if cut_short:
        out.write("\n")
    return out
