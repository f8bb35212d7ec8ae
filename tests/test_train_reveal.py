"""The script that fits the 刨王 AI's 亮王 answer."""

from __future__ import annotations

import math
import random
import re
import runpy
from pathlib import Path
from typing import Any

import pytest

from bench.train_bombs import policy_gain
from bench.train_reveal import fit, questions_of_deal, report, write
from bench.tune import reveal_tuning
from bot.game import paowang
from bot.game.players.paowang_reveal import COMMITTED_REVEAL, REVEAL_FEATURES
from bot.game.players.trees import TreeModel


def test_every_holder_of_a_deal_gets_a_labelled_answer() -> None:
    for deal in range(3):
        rows = questions_of_deal(deal, seed=41, samples=2)
        game = paowang.Game.deal(41 * 1_000_003 + 800_000 + deal)
        holders = [seat for seat in range(5) if game.big_jokers[seat]]
        assert sorted(row["seat"] for row in rows) == holders
        for row in rows:
            assert len(row["inputs"]) == len(REVEAL_FEATURES)
            assert math.isfinite(row["gain"]) and row["error"] >= 0
            assert row["inputs"][-1] == float(row["rule"])


def _rows(count: int) -> list[dict[str, Any]]:
    """Revealing gains 3 points when feature 2 is above 1, and loses 2 otherwise."""
    rng = random.Random(7)
    rows = []
    for deal in range(count):
        inputs = [rng.uniform(0, 2) for _ in REVEAL_FEATURES]
        rows.append({"deal": deal, "inputs": inputs, "gain": 3.0 if inputs[2] > 1 else -2.0})
    return rows


def test_the_trees_reveal_only_where_it_gains() -> None:
    rows = _rows(1200)
    model = fit(rows)
    for row in rows[:200]:
        signal = row["inputs"][2]
        if abs(signal - 1) > 0.1:
            assert (model.expected_gain(row["inputs"]) > 0) is (signal > 1)


def test_the_trees_as_written_are_what_the_benchmark_seats(tmp_path: Path) -> None:
    model = fit(_rows(600))
    path = tmp_path / "reveal.py"
    write(model, ["python -m bench.train_reveal fit x.jsonl --write"], 600, path)
    loaded = runpy.run_path(str(path))
    assert TreeModel(loaded["REVEAL_BASE"], loaded["REVEAL_TREES"]) == model
    seated = reveal_tuning(str(path)).reveal_model
    assert seated is not None and seated.trees == model.trees
    assert "600 answers" in path.read_text()
    assert reveal_tuning("rule").learned_reveal is False


def test_the_report_weighs_the_bots_trees_on_the_same_held_out_answers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rows = [{**row, "rule": row["inputs"][-1] > 1} for row in _rows(500)]
    train, held = rows[100:], rows[:100]
    report(train, held)
    line = next(
        line for line in capsys.readouterr().out.splitlines() if "the committed trees" in line
    )
    committed = [COMMITTED_REVEAL.expected_gain(row["inputs"]) > 0 for row in held]
    shown = re.search(r"reveals\s+([\d.]+)%\s+gain ([-+][\d.]+)", line)
    assert shown is not None
    assert float(shown[1]) == pytest.approx(100 * sum(committed) / len(held), abs=0.05)
    assert float(shown[2]) == pytest.approx(policy_gain(held, committed), abs=0.0005)
