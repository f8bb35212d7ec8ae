"""The script that fits the 双扣 AI's move model."""

from __future__ import annotations

import json
import math
import random
import runpy
from pathlib import Path

from bench import train_shuangkou
from bench.train_bombs import committed_commands
from bench.train_moves import fit
from bench.train_shuangkou import decisions_of_deal, write
from bench.tune import shuangkou_factory
from bot.game.players.shuangkou_moves import MOVES, SK_MOVE_FEATURES
from bot.game.players.trees import TreeModel


def test_a_deal_yields_decisions_with_every_move_labelled() -> None:
    rows = decisions_of_deal(0, seed=51, samples=2)
    assert len(rows) > 10
    taker_foe = SK_MOVE_FEATURES.index("taker foe")
    leading = SK_MOVE_FEATURES.index("leading")
    for row in rows:
        moves = len(row["inputs"])
        assert 1 <= moves <= MOVES - 1
        assert len(row["gains"]) == len(row["errors"]) == moves
        for inputs in row["inputs"]:
            assert len(inputs) == len(SK_MOVE_FEATURES)
            # asked only when leading or answering an opponent, never over the partner
            assert inputs[leading] == 1.0 or inputs[taker_foe] == 1.0
        assert all(math.isfinite(gain) for gain in row["gains"])


def test_the_trees_as_written_are_what_the_benchmark_seats(tmp_path: Path) -> None:
    rng = random.Random(3)
    rows = [
        {"deal": deal, "inputs": [[rng.uniform(0, 2) for _ in SK_MOVE_FEATURES]],
         "allowed": [True], "gains": [rng.choice((-1.0, 1.0))]}
        for deal in range(300)
    ]
    model = fit(rows, trees=20)
    path = tmp_path / "sk.py"
    write(model, ["python -m bench.train_shuangkou fit x.jsonl --write"], 300, path)
    loaded = runpy.run_path(str(path))
    assert TreeModel(loaded["SK_MOVE_BASE"], loaded["SK_MOVE_TREES"]) == model
    seated = shuangkou_factory(str(path))(0, 0)
    assert seated._players["shuangkou"].moves.trees == model.trees
    assert "300 decisions" in path.read_text()


def test_a_round_on_top_keeps_the_committed_trees_and_says_how_it_was_made(
    tmp_path: Path,
) -> None:
    """``fit --on-top --write``: round 1's trees first, 150 more fitted to the new labels; the
    docstring carries round 1's commands, then the collection and the fit on top, and counts
    both rounds' decisions."""
    from bench.train_moves import TREES_ON_TOP, committed_decisions
    from bench.tune import load_model
    from bot.game.players.shuangkou_moves import SK_COMMITTED

    labels = _labels(tmp_path / "sk99.jsonl", "model")
    out = tmp_path / "sk.py"
    assert train_shuangkou.main(
        ["fit", str(labels), "--on-top", "--write", "--model-out", str(out)]
    ) == 0
    made = load_model(out, "SK_MOVE")
    assert made.trees[: len(SK_COMMITTED.trees)] == SK_COMMITTED.trees
    assert len(made.trees) == len(SK_COMMITTED.trees) + TREES_ON_TOP
    assert committed_commands(out) == [
        *committed_commands(train_shuangkou.MODEL_FILE),
        "python -m bench.train_shuangkou collect --deals 300 --seed 99 --samples 8 "
        "--policy model --rollout model --out sk99.jsonl",
        "python -m bench.train_shuangkou fit sk99.jsonl --on-top --write",
    ]
    assert committed_decisions(out) == committed_decisions(train_shuangkou.MODEL_FILE) + 300


def test_a_refit_of_labels_at_a_table_of_the_heuristic_names_only_itself(
    tmp_path: Path,
) -> None:
    """Round 1's own command (labels at a table of the heuristic, no model before them):
    the collection and the fit, each once."""
    labels = _labels(tmp_path / "sk98.jsonl", "heuristic")
    out = tmp_path / "sk.py"
    assert train_shuangkou.main(["fit", str(labels), "--write", "--model-out", str(out)]) == 0
    assert committed_commands(out) == [
        "python -m bench.train_shuangkou collect --deals 300 --seed 98 --samples 8 "
        "--policy heuristic --rollout heuristic --out sk98.jsonl",
        "python -m bench.train_shuangkou fit sk98.jsonl --write",
    ]


def _labels(path: Path, policy: str) -> Path:
    """300 decisions' labels of seed 98 or 99 (by the name), collected at ``policy``'s table."""
    rng = random.Random(5)
    seed = int(path.stem[2:])
    path.write_text("".join(
        json.dumps({
            "deal": deal, "seed": seed, "samples": 8, "policy": policy, "rollout": policy,
            "inputs": [[rng.uniform(0, 2) for _ in SK_MOVE_FEATURES]], "allowed": [True],
            "gains": [rng.choice((-1.0, 1.0))], "errors": [0.5],
        }) + "\n"
        for deal in range(300)
    ))
    return path
