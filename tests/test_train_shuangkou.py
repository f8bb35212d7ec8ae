"""The script that fits the 双扣 AI's move model."""

from __future__ import annotations

import json
import math
import random
import runpy
from pathlib import Path

import pytest

from bench import train_shuangkou
from bench.label_room import shuangkou_kind
from bench.train_bombs import committed_commands, read_rows
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


def test_a_run_of_early_answers_labels_only_answers_while_the_seat_holds_many_cards() -> None:
    """``collect --answers-from 20`` on the same deal: the same game, labelled only where the
    seat, holding at least 20 cards, answers an opponent (label_room's kind of those), the same
    moves the full run labels there; the made-with command says so."""
    full = decisions_of_deal(0, seed=51, samples=2)
    early = decisions_of_deal(0, seed=51, samples=2, answers_from=20)
    expected = [
        row["inputs"] for row in full if shuangkou_kind(row)[0] == "follow, 20 cards or more"
    ]
    assert 0 < len(expected) < len(full)
    assert [row["inputs"] for row in early] == expected
    assert all(row["answers_from"] == 20 for row in early)
    assert train_shuangkou.collected_by("sk57.jsonl", early) == (
        "python -m bench.train_shuangkou collect --deals 1 --seed 51 --samples 2 "
        "--policy heuristic --rollout heuristic --answers-from 20 --out sk57.jsonl"
    )


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


def test_the_labels_room_reads_a_shuangkou_decisions_kind_off_its_inputs(tmp_path: Path) -> None:
    """``bench.label_room --shuangkou`` counts every labelled 双扣 decision once, under the
    kind its stored inputs say: leading or answering, the seat's cards in three bands, and the
    heuristic's choice (a leader never passes)."""
    import gzip

    from bench.label_room import by_shuangkou_kind, shuangkou_kind, table

    def inputs(**named: float) -> list[float]:
        values = [0.0] * len(SK_MOVE_FEATURES)
        for name, value in named.items():
            values[SK_MOVE_FEATURES.index(name.replace("_", " ").replace("cards", "cards/10"))] = (
                value
            )
        return values

    assert shuangkou_kind({"inputs": [inputs(leading=1.0, cards=0.9, choice_bomb=1.0)]}) == (
        "lead, under 10 cards", "bomb"
    )
    assert shuangkou_kind({"inputs": [inputs(cards=2.0, choice_pass=1.0)]}) == (
        "follow, 20 cards or more", "pass"
    )
    assert shuangkou_kind({"inputs": [inputs(cards=1.4)]}) == ("follow, 10 to 19 cards", "play")
    rows = decisions_of_deal(0, seed=51, samples=2)
    path = tmp_path / "labels.jsonl.gz"
    path.write_bytes(gzip.compress("".join(json.dumps(row) + "\n" for row in rows).encode()))
    found = by_shuangkou_kind([path])
    assert sum(kind.decisions for kind in found.values()) == len(rows)
    for (where, choice), kind in found.items():
        assert not (where.startswith("lead") and choice == "pass")
        assert 0 <= kind.changed <= kind.decisions and 0 <= kind.sure <= kind.decisions
    assert any(where.startswith("lead") for where, _ in found)
    assert any(where.startswith("follow") for where, _ in found)
    assert len(table(found)) == 2 + len(found)


def test_a_huber_weighted_round_on_top_is_the_way_try_rounds_judged_and_says_so(
    tmp_path: Path,
) -> None:
    """``fit --on-top --loss huber --weighted``: the trees ``bench.try_rounds --shuangkou``
    tried that way, fitted to every label; the last command carries both flags; a step
    without --on-top is refused."""
    from bench import try_rounds
    from bench.tune import load_model
    from bot.game.players.shuangkou_moves import SK_COMMITTED

    labels = _labels(tmp_path / "sk97.jsonl", "model")
    out = tmp_path / "sk.py"
    assert train_shuangkou.main([
        "fit", str(labels), "--on-top", "--loss", "huber", "--weighted", "--write",
        "--model-out", str(out),
    ]) == 0
    made = load_model(out, "SK_MOVE")
    try_rounds.KEPT[:] = [SK_COMMITTED]  # as try_ways sets it for --shuangkou
    try:
        expected = try_rounds.WAYS["on top, huber, weighted"](read_rows([labels]))
    finally:
        try_rounds.KEPT[:] = [try_rounds.COMMITTED]
    assert made.trees == expected.trees
    assert committed_commands(out)[-1] == (
        "python -m bench.train_shuangkou fit sk97.jsonl --on-top --loss huber --weighted --write"
    )
    with pytest.raises(SystemExit):
        train_shuangkou.main(["fit", str(labels), "--step", "0.5"])
