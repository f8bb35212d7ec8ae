"""The script that fits the 刨王 AI's bomb model: its labels, its fit, the file it writes."""

from __future__ import annotations

import math
import random
import runpy
from pathlib import Path
from typing import Any

from bench.train_bombs import fit, policy_gain, questions_of_deal, write
from bot.game.players.paowang_bombs import BOMB_FEATURES
from bot.game.players.trees import TreeModel


def test_a_deal_yields_labelled_questions() -> None:
    rows = questions_of_deal(0, seed=11, samples=2)
    assert rows  # an all-AI deal always has tricks that a bomb could take
    for row in rows:
        assert len(row["features"]) == len(BOMB_FEATURES) - 1  # all but the rules' answer
        assert math.isfinite(row["gain"]) and isinstance(row["rule"], bool)
        assert (row["deal"], row["seed"], row["samples"]) == (0, 11, 2)


def _step_rows(count: int) -> list[dict[str, Any]]:
    """Bombing gains 3 points where the trick holds 20 or more, and loses 1 elsewhere."""
    rng = random.Random(3)
    rows = []
    for deal in range(count):
        inputs = [1.0] + [rng.uniform(0, 4) for _ in BOMB_FEATURES[1:]]
        gain = 3.0 if inputs[1] >= 2.0 else -1.0
        rows.append({"deal": deal, "inputs": inputs, "gain": gain})
    return rows


def test_the_fitted_trees_learn_where_a_bomb_pays() -> None:
    model = fit(_step_rows(2000))
    assert model.expected_gain([1.0, 3.5] + [1.0] * (len(BOMB_FEATURES) - 2)) > 2.0
    assert model.expected_gain([1.0, 0.5] + [1.0] * (len(BOMB_FEATURES) - 2)) < -0.5


def test_the_trees_as_written_predict_what_the_fit_predicts(tmp_path: Path) -> None:
    rows = _step_rows(600)
    model = fit(rows)
    path = tmp_path / "model.py"
    write(model, ["python -m bench.train_bombs fit x.jsonl --write"], 600, path)
    loaded = runpy.run_path(str(path))
    again = TreeModel(loaded["BOMB_BASE"], loaded["BOMB_TREES"])
    assert again == model
    assert "600 questions" in path.read_text()
    for row in rows[:50]:
        assert again.expected_gain(row["inputs"]) == model.expected_gain(row["inputs"])


def test_a_policy_gains_the_labels_of_the_questions_it_bombs() -> None:
    rows = [{"gain": 2.0}, {"gain": -1.0}, {"gain": 3.0}, {"gain": 0.5}]
    assert policy_gain(rows, [True, False, False, True]) == (2.0 + 0.5) / 4
    assert policy_gain(rows, [False] * 4) == 0.0
