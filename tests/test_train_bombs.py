"""The script that fits the 刨王 AI's bomb model: its labels, its fit, the file it writes."""

from __future__ import annotations

import json
import math
import random
import runpy
from pathlib import Path
from typing import Any

import pytest

from bench import train_bombs
from bench.train_bombs import (
    collected_by,
    committed_commands,
    committed_questions,
    fit,
    policy_gain,
    questions_of_deal,
    write,
)
from bench.tune import bomb_tuning, load_model
from bot.cli.simulate import next_actor
from bot.game import paowang
from bot.game.players import AiPlayer, decide
from bot.game.players.paowang_ai import PaowangAI, Tuning
from bot.game.players.paowang_bombs import BOMB_FEATURES, COMMITTED_BOMBS
from bot.game.players.trees import TreeModel


def test_a_deal_yields_labelled_questions() -> None:
    rows = questions_of_deal(0, seed=11, samples=2)
    assert rows  # an all-AI deal always has tricks that a bomb could take
    for row in rows:
        assert len(row["features"]) == len(BOMB_FEATURES) - 1  # all but the rules' answer
        assert math.isfinite(row["gain"]) and isinstance(row["rule"], bool)
        assert (row["deal"], row["seed"], row["samples"]) == (0, 11, 2)


def test_weighed_labels_say_how_they_were_drawn() -> None:
    rows = questions_of_deal(0, seed=11, samples=2, policy="model", belief=3)
    assert rows and all(row["belief"] == 3 for row in rows)
    assert "--policy model --belief 3 --out f.jsonl" in collected_by("f.jsonl", rows)
    uniform = questions_of_deal(0, seed=11, samples=2, policy="model")
    assert "--belief" not in collected_by("f.jsonl", uniform)
    continued = [{**row, "deal": 7} for row in rows]  # a run continued with --first-deal 7
    assert "--deals 8 " in collected_by("g.jsonl", continued)
    assert "--belief 3 --first-deal 7 --out g.jsonl" in collected_by("g.jsonl", continued)
    # the same questions (the table plays the same), labelled from other samples
    assert [row["features"] for row in rows] == [row["features"] for row in uniform]
    assert [row["gain"] for row in rows] != [row["gain"] for row in uniform]


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


def test_trees_boosted_on_top_keep_the_start_and_learn_what_it_misses() -> None:
    rows = _step_rows(2000)
    start = fit(rows)  # knows the step at 20 points, not the one added below
    for row in rows:
        row["gain"] += 4.0 if row["inputs"][2] >= 3.0 else 0.0
    on_top = fit(rows, start)
    assert on_top.trees[: len(start.trees)] == start.trees
    assert len(on_top.trees) > len(start.trees)
    low = [1.0, 0.5, 0.5] + [1.0] * (len(BOMB_FEATURES) - 3)
    high = [1.0, 0.5, 3.5] + [1.0] * (len(BOMB_FEATURES) - 3)
    assert start.expected_gain(high) < 0.0  # the start would pass ...
    assert on_top.expected_gain(high) > 1.5  # ... where bombing now pays
    assert on_top.expected_gain(low) < -0.5


def test_a_part_step_on_top_lands_that_part_of_the_way() -> None:
    rows = _step_rows(1000)
    start = fit(rows)
    for row in rows:
        row["gain"] += 4.0 if row["inputs"][2] >= 3.0 else 0.0
    full, half = fit(rows, start), fit(rows, start, step=0.5)
    assert half.trees[: len(start.trees)] == start.trees
    for inputs in ([1.0, 0.5, 3.5] + [1.0] * (len(BOMB_FEATURES) - 3),
                   [1.0, 3.5, 0.5] + [1.0] * (len(BOMB_FEATURES) - 3)):
        between = (start.expected_gain(inputs) + full.expected_gain(inputs)) / 2
        assert half.expected_gain(inputs) == pytest.approx(between, abs=1e-3)


def test_a_step_needs_trees_to_scale() -> None:
    with pytest.raises(SystemExit):
        train_bombs.main(["fit", "x.jsonl", "--step", "0.5"])


def test_a_model_on_top_says_how_it_was_made_and_on_how_many_questions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``fit --on-top --write`` chains the committed model's commands, then its own."""
    labels = tmp_path / "s99.jsonl"
    rows = [  # deal 0 is held out, deal 1 fitted
        *questions_of_deal(0, seed=99, samples=2, policy="model"),
        *questions_of_deal(1, seed=99, samples=2, policy="model"),
    ]
    labels.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "model.py"
    before = committed_commands()
    arguments = [
        "fit", str(labels), "--on-top", "--step", "0.5", "--write", "--model-out", str(out),
    ]
    assert train_bombs.main(arguments) == 0
    assert committed_commands(out) == [
        *before,
        "python -m bench.train_bombs collect --deals 2 --seed 99 --samples 2 --policy model "
        "--out s99.jsonl",
        "python -m bench.train_bombs fit s99.jsonl --on-top --step 0.5 --write",
    ]
    assert committed_questions(out) == committed_questions() + len(rows)
    made = load_model(out, "BOMB")
    assert made.trees[: len(COMMITTED_BOMBS.trees)] == COMMITTED_BOMBS.trees
    # a loss other than the default is part of the fit's command
    assert train_bombs.main([*arguments, "--loss", "huber"]) == 0
    assert committed_commands(out)[-1] == (
        "python -m bench.train_bombs fit s99.jsonl --on-top --step 0.5 --loss huber --write"
    )


def test_the_benchmark_seats_a_bomb_model_from_a_file(tmp_path: Path) -> None:
    always = TreeModel(5.0, ())
    path = tmp_path / "always.py"
    write(always, ["python -m bench.train_bombs fit x.jsonl --write"], 1, path)
    assert bomb_tuning(str(path)).bomb_model == always
    assert bomb_tuning("committed") == Tuning()
    assert not bomb_tuning("rules").learned_bombs
    seen = 0
    for seed in range(4):
        game = paowang.Game.deal(seed)
        asker = PaowangAI()
        bomber = PaowangAI(tuning=Tuning(bomb_model=always))
        passer = PaowangAI(tuning=Tuning(bomb_model=TreeModel(-5.0, ())))
        while not game.over and seen < 5:
            seat = next_actor(game)
            assert seat is not None
            view = game.view(seat)
            question = None if view.reveal_pending else asker.bomb_question(view)
            if question is not None:
                seen += 1
                assert bomber.heuristic_choice(view) == question.bomb
                assert passer.heuristic_choice(view) is None
            decide(AiPlayer(seat, lookahead=False), game, seat)
    assert seen == 5


@pytest.mark.parametrize("loss", ["squared_error", "huber"])
def test_the_trees_read_out_predict_what_scikit_learn_predicts(loss: str) -> None:
    """The leaves are read from scikit-learn's trees as they stand after the fit; a loss other
    than squared error sets them by its own line search, which the read-out must carry."""
    import numpy as np
    from sklearn.ensemble import GradientBoostingRegressor

    rng = random.Random(4)
    inputs = [[rng.random() for _ in range(4)] for _ in range(800)]
    # a step in the first input, and a few labels far out in the tail, as lost games are
    labels = [
        (2.0 if x[0] > 0.5 else -1.0) + (rng.choice((-30.0, 30.0)) if rng.random() < 0.02
                                         else rng.gauss(0, 1))
        for x in inputs
    ]
    model = train_bombs.fit_trees(inputs, labels, trees=25, depth=3, min_leaf=10, loss=loss)
    fitted = GradientBoostingRegressor(
        n_estimators=25, max_depth=3, learning_rate=train_bombs.LEARNING_RATE,
        min_samples_leaf=10, subsample=0.8, random_state=0, loss=loss,
    ).fit(np.array(inputs), np.array(labels))
    for x, expected in zip(inputs[:40], fitted.predict(np.array(inputs[:40])), strict=True):
        assert model.expected_gain(x) == pytest.approx(expected, abs=1e-4)


def test_bomb_ways_are_judged_on_folds_against_the_committed_trees() -> None:
    """bench.try_bombs: every question is held out once, each loss's way is paired with the
    committed model on the same questions, and a gain is the label where the model bombs."""
    from bench.try_bombs import gains, table, try_losses
    from bench.try_features import split
    from bot.game.players.paowang_bombs import BOMB_FEATURES
    from bot.game.players.trees import TreeModel

    rng = random.Random(3)
    rows = [
        {"group": deal, "inputs": [rng.random() for _ in BOMB_FEATURES],
         "gain": rng.gauss(0, 2)}
        for deal in range(12) for _ in range(6)
    ]
    always, never = TreeModel(1.0, ()), TreeModel(-1.0, ())
    assert gains(always, rows) == [row["gain"] for row in rows]
    assert gains(never, rows) == [0.0] * len(rows)
    groups, found = try_losses(rows, ["squared_error", "huber"], folds=3, start=always)
    assert sorted(groups) == sorted(row["group"] for row in rows)
    assert found["committed"] == [  # the start bombs everywhere: each label, fold by fold
        row["gain"] for fold in range(3) for row in rows if row["group"] % 3 == fold
    ]
    assert set(found) == {"committed", "squared_error", "huber"}
    assert all(len(values) == len(rows) for values in found.values())
    # each fold's fit sees only the other folds: fold 0's held-out questions come first
    train, held = split(rows, 3, 0)
    fitted = fit(train, always, 0.5, "huber")
    assert found["huber"][: len(held)] == gains(fitted, held)
    lines = table(groups, found)
    assert [line.split(" |")[0] for line in lines[2:]] == ["| squared_error", "| huber"]
