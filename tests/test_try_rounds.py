"""The offline trial of ways to fit a move round against the committed model."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from bench.train_moves import picked_gains, picks, read_labels
from bench.try_features import split
from bench.try_rounds import MARGINS, WAYS, kept_share, per_decision, table, try_ways
from bot.game.players.paowang_moves import COMMITTED, MOVE_FEATURES


def _rows(tmp_path: Path) -> list[dict[str, Any]]:
    """Labelled decisions in the first rounds' format (inputs stored), deals of unequal size,
    the labels made to follow one input so that a fit has something to find."""
    rng = random.Random(7)
    lines = []
    for deal in range(10):
        for _ in range(3 + deal):
            inputs = [[rng.random() for _ in MOVE_FEATURES] for _ in range(3)]
            lines.append({
                "deal": deal, "allowed": [True, True, False], "inputs": inputs,
                "gains": [2 * move[0] - 1 + rng.gauss(0, 0.1) for move in inputs],
                "errors": [rng.uniform(0.05, 0.3) for _ in inputs],
            })
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return read_labels([path])


def test_every_deal_is_judged_once_against_the_kept_models_picks(tmp_path: Path) -> None:
    rows = _rows(tmp_path)
    found = try_ways(rows, ("on top, half step",), folds=3)
    judged = found["on top, half step"]
    order = [row for fold in range(3) for row in split(rows, 3, fold)[1]]
    assert [group for group, _ in judged] == [row["group"] for row in order]
    assert sorted(group for group, _ in judged) == sorted(row["group"] for row in rows)
    for index, margin in enumerate(MARGINS):
        kept = picked_gains(order, picks(COMMITTED, order, margin))
        assert [pairs[index][1] for _, pairs in judged] == kept
    # the labels follow the first input: trees fitted to them pick better than the kept model,
    # which never saw them
    better = [pairs[0][0] - pairs[0][1] for _, pairs in judged]
    assert sum(better) > 0
    lines = table(found)
    assert len(lines) == 2 + len(MARGINS)
    assert all(line.startswith("| on top, half step |") for line in lines[2:])


def test_two_jobs_give_what_one_gives_and_one_fold_is_refused(tmp_path: Path) -> None:
    rows = _rows(tmp_path)
    ways = tuple(WAYS)
    assert try_ways(rows, ways, folds=2, jobs=2) == try_ways(rows, ways, folds=2)
    with pytest.raises(ValueError):
        try_ways(rows, ways, folds=1)


def test_the_interval_counts_a_deal_as_one_draw() -> None:
    # two deals: one of three decisions all +1, one of one decision −1; mean +0.5 a decision;
    # the deals' residual totals are 3 × 0.5 and −1.5, so the spread is (2.25 + 2.25) × 2 / 1
    mean, half = per_decision([1, 1, 1, 2], [1.0, 1.0, 1.0, -1.0])
    assert mean == pytest.approx(0.5)
    assert half == pytest.approx(1.96 * 9.0**0.5 / 4)
    # spread inside a deal does not count: the same totals, unequal decisions
    assert per_decision([1, 1, 1, 2], [3.0, 0.0, 0.0, -1.0]) == pytest.approx((mean, half))
    assert per_decision([5, 5], [1.0, 2.0]) == (1.5, 0.0)


def test_a_learning_curve_fits_growing_shares_of_the_same_deals(tmp_path: Path) -> None:
    rows = _rows(tmp_path)
    groups = {row["group"] for row in rows}
    half = {row["group"] for row in kept_share(rows, 0.5)}
    assert half < groups  # some deals, not all, and drawn by the deal alone
    assert {row["group"] for row in kept_share(rows, 0.25)} <= half
    assert kept_share(rows, 1.0) == rows
    found = try_ways(rows, ("on top",), folds=2, shares=(0.5, 1.0))
    assert list(found) == ["on top, share 0.5 of the deals", "on top"]
    assert found["on top"] == try_ways(rows, ("on top",), folds=2)["on top"]
    # both are judged on the same held-out decisions
    halved = found["on top, share 0.5 of the deals"]
    assert [g for g, _ in found["on top"]] == [g for g, _ in halved]
    with pytest.raises(ValueError):
        try_ways(rows, ("on top",), folds=2, shares=(0.0,))


def test_each_share_is_fitted_to_its_part_of_the_folds_training_deals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = _rows(tmp_path)
    fitted: list[set[int]] = []

    def recording(train: Any) -> Any:
        fitted.append({row["group"] for row in train})
        return COMMITTED

    monkeypatch.setitem(WAYS, "recording", recording)
    try_ways(rows, ("recording",), folds=2, shares=(0.5, 1.0))
    # tasks run way by way, share by share, fold by fold: half of fold 0, of fold 1, then all
    for fold in range(2):
        train = {row["group"] for row in split(rows, 2, fold)[0]}
        half, whole = fitted[fold], fitted[2 + fold]
        assert whole == train
        assert half < whole


def test_candidates_try_each_way_without_and_with_them_on_the_same_folds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--candidates fits each way twice: to today's features alone (the way's own name) and
    to them and the candidates; the second table pairs the two on the same held-out
    decisions."""
    from bench.try_rounds import candidates_name, candidates_table, main, with_candidates

    rows = _rows(tmp_path)
    extra = 3
    for row in rows:  # the candidates after today's features
        row["inputs"] = [[*inputs, gain, *[0.0] * (extra - 1)]
                         for inputs, gain in zip(row["inputs"], row["gains"], strict=True)]
    seen: list[set[int]] = []

    def recording(train: Any) -> Any:
        seen.append({len(inputs) for row in train for inputs in row["inputs"]})
        return WAYS["on top"](train)

    with_them = candidates_name("r", "test")
    doubled = with_candidates({"r": recording}, ["r"], "test")
    assert list(doubled) == ["r", with_them]
    doubled["r"](rows)
    doubled[with_them](rows)
    assert seen == [{len(MOVE_FEATURES)}, {len(MOVE_FEATURES) + extra}]
    for name, way in doubled.items():
        monkeypatch.setitem(WAYS, name, way)
    found = try_ways(rows, tuple(doubled), folds=2)
    lines = candidates_table(found, "test")
    assert len(lines) == 2 + len(MARGINS)
    without, judged = found["r"], found[with_them]
    assert [g for g, _ in without] == [g for g, _ in judged]
    for index, margin in enumerate(MARGINS):
        mean, half = per_decision(
            [g for g, _ in judged],
            [a[index][0] - b[index][0] for (_, a), (_, b) in zip(judged, without, strict=True)],
        )
        assert lines[2 + index] == f"| r | {margin:.2f} | {mean:+.4f} ±{half:.4f} |"
    # shares would name rows the paired table cannot find: refused
    with pytest.raises(SystemExit):
        main(["x.jsonl", "--candidates", "passes", "--shares", "0.5,1"])


def test_shuangkou_labels_are_tried_on_top_of_and_against_shuangkous_trees(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--shuangkou: the same ways on 双扣's labels (inputs stored, 双扣's width), each way
    boosted on 双扣's committed trees and judged against their picks; 刨王's kept model is
    back afterwards."""
    from bench.try_rounds import KEPT, main
    from bot.game.players.shuangkou_moves import SK_COMMITTED, SK_MOVE_FEATURES

    rng = random.Random(11)
    lines = []
    for deal in range(8):
        for _ in range(2 + deal):
            inputs = [[rng.random() for _ in SK_MOVE_FEATURES] for _ in range(2)]
            lines.append({
                "deal": deal, "seed": 55, "samples": 8, "policy": "model", "rollout": "model",
                "allowed": [True, True], "inputs": inputs,
                "gains": [move[0] - 0.5 + rng.gauss(0, 0.1) for move in inputs],
                "errors": [rng.uniform(0.05, 0.3) for _ in inputs],
            })
    path = tmp_path / "sk.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    rows = read_labels([path])
    found = try_ways(rows, ("on top",), folds=2, kept=SK_COMMITTED)
    order = [row for fold in range(2) for row in split(rows, 2, fold)[1]]
    for index, margin in enumerate(MARGINS):
        kept = picked_gains(order, picks(SK_COMMITTED, order, margin))
        assert [pairs[index][1] for _, pairs in found["on top"]] == kept
    assert KEPT == [COMMITTED]
    assert main([str(path), "--shuangkou", "--folds", "2", "--way", "on top, huber"]) == 0
    printed = capsys.readouterr().out
    assert f"{len(rows)} decisions of 8 deals" in printed
    assert "| on top, huber | 0.25 |" in printed
    assert KEPT == [COMMITTED]
    with pytest.raises(SystemExit):
        main([str(path), "--shuangkou", "--candidates", "side"])
