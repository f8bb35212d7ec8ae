"""The script that fits the 刨王 AI's move model, and the search player's z-test rule."""

from __future__ import annotations

import dataclasses
import json
import math
import random
import runpy
from pathlib import Path
from typing import Any

import pytest

from bench.search import SearchPlayer
from bench.train_bombs import held_out
from bench.train_moves import (
    DEAL_OFFSET,
    FOCUS,
    POLICIES,
    cards_of,
    collected_by,
    expand,
    fit,
    kind_of,
    picks,
    position_at,
    read_labels,
    record_of_deal,
    redo,
    situation,
    write,
)
from bot.cli.simulate import new_game, next_actor, play_out
from bot.game import paowang
from bot.game.common import IllegalPlay
from bot.game.players import AiPlayer
from bot.game.players.base import legal_options
from bot.game.players.paowang_moves import (
    COMMITTED,
    MOVE_FEATURES,
    MOVES,
    allowed,
    inputs_of,
)
from bot.game.players.sampling import z_score
from bot.game.players.trees import TreeModel


def _first_deal_with_an_unsorted_play(seed: int, first: int) -> int:
    """The first deal from ``first`` on whose game, at the table ``collect --policy model``
    labels at, has a play whose cards are not in sorted order (大王 before 小王: about one deal
    in twenty-five). Which deal that is changes with every kept model, so it is found, not
    written down."""
    for deal in range(first, first + 500):
        game = new_game("paowang", seed * 1_000_003 + DEAL_OFFSET + deal)
        play_out(game, [AiPlayer(seat, paowang_tuning=POLICIES["model"]) for seat in range(5)])
        if any(combo is not None and list(combo.cards) != sorted(combo.cards)
               for _, combo in game.history):
            return deal
    raise AssertionError("no deal with an unsorted play")


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    """A deal of seed 29 labelled with two samples a move at a table of the AI, as
    ``collect`` stores it: one where a play's cards are not in sorted order, so that the
    replay is seen to keep the order played."""
    deal = _first_deal_with_an_unsorted_play(29, first=19)
    return record_of_deal(deal, seed=29, samples=2, policy="model")


def test_a_deal_yields_decisions_with_every_move_labelled(record: dict[str, Any]) -> None:
    rows = expand(record)
    assert len(rows) == len(record["decisions"])
    assert len(rows) > 15  # a deal holds dozens of decisions with a choice
    for row in rows:
        moves = len(row["inputs"])
        assert 1 <= moves <= MOVES - 1  # every sensible move but the heuristic's own choice
        assert len(row["gains"]) == len(row["errors"]) == len(row["allowed"]) == moves
        assert all(len(inputs) == len(MOVE_FEATURES) for inputs in row["inputs"])
        assert all(math.isfinite(gain) for gain in row["gains"])


def test_a_stored_deal_is_small_and_reads_back_the_same(
    record: dict[str, Any], tmp_path: Path
) -> None:
    """A deal is stored as its actions and labels, gzipped for the repository; read back, its
    decisions are what the replay reads at once, tagged with their file and deal."""
    import gzip

    text = json.dumps(record) + "\n"
    assert len(gzip.compress(text.encode())) < 4000  # bytes: a few hundred deals a megabyte
    assert "inputs" not in text  # the trees' inputs are read on the replay, never stored
    path = tmp_path / "labels.jsonl.gz"
    path.write_bytes(gzip.compress(text.encode()))
    rows = read_labels([path])
    assert [row["inputs"] for row in rows] == [row["inputs"] for row in expand(record)]
    assert {row["group"] for row in rows} == {record["deal"]}
    assert all(row["samples"] == 2 and row["seed"] == 29 for row in rows)


def test_a_replay_that_leaves_the_labelled_game_is_refused(record: dict[str, Any]) -> None:
    """The replay checks every labelled position by the seed of its view: a file whose
    actions no longer lead there (another engine, another deal) fails loudly."""
    plays = [action[2] for action in record["actions"] if action[0] == "play"]
    # a play kept in its order: the replayed history is the same, card for card
    assert any(cards != sorted(cards) for cards in plays)
    moved = [dict(decision) for decision in record["decisions"]]
    moved[5]["step"] += 1  # the sixth decision labelled one action later than it was
    with pytest.raises(ValueError, match="left the labelled game"):
        expand(dict(record, decisions=moved))
    # the same actions on another deal: the cards are not in the hands, or not where labelled
    with pytest.raises((ValueError, IllegalPlay)):
        expand(dict(record, deal=record["deal"] + 1))


def _rows(count: int) -> list[dict[str, Any]]:
    """Two moves a decision: the first gains 2 points when feature 3 is above 1, and loses 1
    otherwise; the second always loses 2."""
    rng = random.Random(5)
    rows = []
    for deal in range(count):
        first = [rng.uniform(0, 2) for _ in MOVE_FEATURES]
        second = [rng.uniform(0, 2) for _ in MOVE_FEATURES]
        second[3] = 0.0
        rows.append({
            "deal": deal, "inputs": [first, second], "allowed": [True, True],
            "gains": [2.0 if first[3] > 1 else -1.0, -2.0],
        })
    return rows


def test_the_trees_take_a_move_only_where_it_gains() -> None:
    rows = _rows(1500)
    model = fit(rows)
    chosen = picks(model, rows[:200], margin=0.5)
    for row, pick in zip(rows[:200], chosen, strict=True):
        signal = row["inputs"][0][3]
        if abs(signal - 1) > 0.1:  # the trees' split need not fall exactly on 1
            assert pick == (1 if signal > 1 else 0)
        assert pick != 2
    assert 0.3 < sum(1 for pick in chosen if pick) / 200 < 0.7


def test_a_move_not_allowed_is_never_picked() -> None:
    rows = _rows(600)
    model = fit(rows)
    for row in rows:
        row["allowed"] = [False, True]
    assert set(picks(model, rows, margin=0.0)) <= {0, 2}


def test_the_trees_as_written_predict_what_the_fit_predicts(tmp_path: Path) -> None:
    rows = _rows(600)
    model = fit(rows)
    path = tmp_path / "model.py"
    write(model, ["python -m bench.train_moves fit x.jsonl --write"], 600, path)
    loaded = runpy.run_path(str(path))
    again = TreeModel(loaded["MOVE_BASE"], loaded["MOVE_TREES"])
    assert again == model
    assert "600 decisions" in path.read_text()


def test_the_z_score_of_paired_differences() -> None:
    assert z_score([1.0, 1.0, 1.0]) == math.inf
    assert z_score([0.0, 0.0]) == 0.0
    assert z_score([2.0, 0.0]) == 1.0  # mean 1, standard error 1
    assert z_score([-3.0, 1.0]) < 0


def test_the_search_keeps_the_ais_choice_without_a_sure_gain() -> None:
    """With z = 99 no handful of play-outs is sure enough: the search plays as the AI."""
    game = paowang.Game.deal(4)
    for seat in sorted(game.reveal_pending):
        game.reveal(seat, False)
    view = game.view(game.turn)
    sure = SearchPlayer(1, samples=3, z=99.0)
    assert sure.choose(view) == sure.rollout.choose(view)
    assert sure.decisions == 1


def test_the_second_yardstick_plays_out_with_the_previous_round() -> None:
    """--search-previous-playouts: the search player's play-outs (and the choice it starts
    from) are the AI without its move models (刨王's move model, 双扣's learned look); by
    default they are today's AI."""
    from bench.search_match import SearchBudget, search_factory

    previous = search_factory(SearchBudget(previous_playouts=True))(0, 1)
    today = search_factory(SearchBudget())(0, 1)
    assert isinstance(previous, SearchPlayer) and isinstance(today, SearchPlayer)
    assert previous.rollout._paowang_tuning.learned_moves is False  # type: ignore[attr-defined]
    assert today.rollout._paowang_tuning.learned_moves is True  # type: ignore[attr-defined]
    assert not previous.rollout._shuangkou_moves.trees  # type: ignore[attr-defined]
    assert today.rollout._shuangkou_moves is None  # type: ignore[attr-defined]
    assert "previous round" in SearchBudget(previous_playouts=True).title


def _rows_of(deal: int) -> list[dict[str, int]]:
    return [{"deal": deal, "n": n} for n in range(2)]


def test_a_stopped_labelling_run_continues_in_a_second_file(tmp_path: Path) -> None:
    """write_rows from a first deal: the two files together hold every deal once, and the
    second one's made-with command says where it started."""
    from bench.train_bombs import write_rows

    assert write_rows(_rows_of, 3, 1, tmp_path / "a.jsonl") == 6
    assert write_rows(_rows_of, 5, 1, tmp_path / "b.jsonl", first=3) == 4
    deals = [
        json.loads(line)["deal"]
        for name in ("a.jsonl", "b.jsonl")
        for line in (tmp_path / name).read_text().splitlines()
    ]
    assert deals == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    rows = [{"deal": 3, "seed": 23, "samples": 12, "policy": "model", "rollout": "model"}]
    assert "--deals 4" in collected_by("b.jsonl", rows)
    assert "--first-deal 3 --out b.jsonl" in collected_by("b.jsonl", rows)


def test_a_gzipped_label_file_is_written_and_read_even_when_cut_short(tmp_path: Path) -> None:
    """``--out NAME.gz`` writes gzipped lines flushed deal by deal; a file whose run stopped
    mid-stream still reads back its whole deals."""
    import zlib

    from bench.train_bombs import read_rows, write_rows

    path = tmp_path / "a.jsonl.gz"
    assert write_rows(_rows_of, 4, 1, path) == 8
    assert [row["deal"] for row in read_rows([path])] == [0, 0, 1, 1, 2, 2, 3, 3]
    # a stream cut where a run stopped: its sync-flushed deals, no end-of-stream marker
    stream = zlib.compressobj(wbits=31)
    cut = stream.compress(b'{"deal": 0, "n": 0}\n{"deal": 0, "n": 1}\n')
    cut += stream.flush(zlib.Z_SYNC_FLUSH) + stream.compress(b'{"deal": 1, "n"')
    cut += stream.flush(zlib.Z_SYNC_FLUSH)
    (tmp_path / "cut.jsonl.gz").write_bytes(cut)
    assert [row["n"] for row in read_rows([tmp_path / "cut.jsonl.gz"])] == [0, 1]


def test_trees_on_top_of_a_model_keep_it_and_add_part_of_the_way() -> None:
    """``fit(start=...)``: the start's trees as they are, TREES_ON_TOP more fitted to what it
    leaves unexplained, and a half step lands halfway between the start and a whole step."""
    from bench.train_moves import TREES_ON_TOP

    rows = _rows(800)
    start = fit(rows, trees=60)
    for row in rows:  # the first move now gains 3 more wherever feature 5 is above 1
        row["gains"][0] += 3.0 if row["inputs"][0][5] > 1 else 0.0
    full, half = fit(rows, start=start), fit(rows, start=start, step=0.5)
    assert half.trees[: len(start.trees)] == start.trees
    assert len(half.trees) == len(start.trees) + TREES_ON_TOP
    for signal in (0.3, 1.7):
        inputs = [1.0] * len(MOVE_FEATURES)
        inputs[3], inputs[5] = 1.7, signal
        between = (start.expected_gain(inputs) + full.expected_gain(inputs)) / 2
        assert half.expected_gain(inputs) == pytest.approx(between, abs=1e-3)
    lifted = [1.0] * len(MOVE_FEATURES)
    lifted[3], lifted[5] = 1.7, 1.7
    assert full.expected_gain(lifted) - start.expected_gain(lifted) > 2.0


def test_a_label_weighs_by_how_sure_its_play_outs_are() -> None:
    """``label_weights``: 1 / (se² + τ²), τ² what the labels vary beyond the start less their
    mean squared standard error (floored), scaled to average 1."""
    from bench.train_moves import LEAST_WORTH_SPREAD, label_weights

    rows = [
        {"inputs": [[0.0], [0.0]], "gains": [3.0, -3.0], "errors": [0.0, 2.0]},
        {"inputs": [[0.0], [0.0]], "gains": [1.0, -1.0], "errors": [1.0, 1.0]},
    ]
    weights = label_weights(rows)
    # the labels' variance 5, their mean squared error 1.5: τ² is 3.5
    raw = [1 / 3.5, 1 / 7.5, 1 / 4.5, 1 / 4.5]
    assert weights == pytest.approx([w / (sum(raw) / 4) for w in raw])
    assert sum(weights) == pytest.approx(4.0)
    # labels no surer than their spread: the floor keeps a sure label's weight finite
    loose = [{"inputs": [[0.0]] * 2, "gains": [1.0, -1.0], "errors": [0.0, 3.0]}]
    ratio = 1 / LEAST_WORTH_SPREAD / (1 / (9 + LEAST_WORTH_SPREAD))
    first, second = label_weights(loose)
    assert first / second == pytest.approx(ratio)


def test_a_weighted_fit_trusts_the_sure_labels_over_the_loose() -> None:
    """Where feature 3 is above 1 the first move's labels are sure (+2) in half the
    decisions and loose and far off (−6) in the other half: weighted, the trees side with the
    sure ones; unweighted, with the mean (−2)."""
    rows = _rows(1500)
    for index, row in enumerate(rows):
        loose = index % 2 == 1 and row["inputs"][0][3] > 1
        if loose:
            row["gains"][0] = -6.0
        row["errors"] = [6.0 if loose else 0.2, 0.2]
    probe = [1.0] * len(MOVE_FEATURES)
    probe[3] = 1.7
    assert fit(rows).expected_gain(probe) < -1.0
    assert fit(rows, weighted=True).expected_gain(probe) > 1.0


#: what a label file collected at a table of the committed model says of itself, and the
#: command line that collects it
AT_THE_TABLE = {"seed": 99, "samples": 12, "policy": "model", "rollout": "heuristic", "belief": 4}
COLLECTED = (
    "python -m bench.train_moves collect --deals 300 --seed 99 --samples 12 --policy model "
    "--rollout heuristic --belief 4 --out s99.jsonl"
)


def _labels_at_the_table(tmp_path: Path, seed: int = 99) -> Path:
    """300 decisions' labels, as if collected at a table of the committed model."""
    labels = tmp_path / f"s{seed}.jsonl"
    rows = [{**row, **AT_THE_TABLE, "seed": seed} for row in _rows(300)]
    labels.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return labels


def test_a_move_model_on_top_says_how_it_was_made(tmp_path: Path) -> None:
    """``fit --on-top --write``: the committed model's commands, the collection (with its
    --belief), the fit on top; the decisions counted with the committed model's."""
    from bench import train_moves
    from bench.train_bombs import committed_commands
    from bench.tune import load_model
    from bot.game.players.paowang_moves import COMMITTED

    labels = _labels_at_the_table(tmp_path)
    out = tmp_path / "model.py"
    before = committed_commands(train_moves.MODEL_FILE)
    assert train_moves.main([
        "fit", str(labels), "--on-top", "--step", "0.5", "--write", "--model-out", str(out),
    ]) == 0
    assert committed_commands(out) == [
        *before, COLLECTED, "python -m bench.train_moves fit s99.jsonl --on-top --step 0.5 --write",
    ]
    assert train_moves.committed_decisions(out) == train_moves.committed_decisions() + 300
    made = load_model(out, "MOVE")
    assert made.trees[: len(COMMITTED.trees)] == COMMITTED.trees
    with pytest.raises(SystemExit):  # a step scales trees added on top
        train_moves.main(["fit", str(labels), "--step", "0.5"])


def test_a_huber_weighted_fit_on_top_is_the_way_try_rounds_judged_and_says_so(
    tmp_path: Path,
) -> None:
    """``fit --on-top --loss huber --weighted --write`` writes the trees of try_rounds' way
    "on top, huber, weighted" fitted to every label, and the last command carries both
    flags, so the recipe reproduces it; neither flag goes with --blend."""
    from bench import train_moves
    from bench.train_bombs import committed_commands
    from bench.try_rounds import WAYS
    from bench.tune import load_model
    from bot.game.players.paowang_moves import COMMITTED

    rng = random.Random(8)
    labels = tmp_path / "s99.jsonl"
    rows = [
        {**row, **AT_THE_TABLE, "seed": 99, "errors": [rng.uniform(0.2, 3.0) for _ in row["gains"]]}
        for row in _rows(300)
    ]
    labels.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "model.py"
    assert train_moves.main([
        "fit", str(labels), "--on-top", "--loss", "huber", "--weighted", "--write",
        "--model-out", str(out),
    ]) == 0
    assert committed_commands(out)[-1] == (
        "python -m bench.train_moves fit s99.jsonl --on-top --loss huber --weighted --write"
    )
    made = load_model(out, "MOVE")
    way = WAYS["on top, huber, weighted"](train_moves.read_labels([labels]))
    assert made.trees == way.trees
    plain = train_moves.fit(train_moves.read_labels([labels]), start=COMMITTED)
    assert plain.trees != made.trees  # the flags change the fit
    with pytest.raises(SystemExit):
        train_moves.main(["fit", str(labels), "--blend", "0.5", "--loss", "huber"])


def test_a_move_model_fitted_alone_at_the_committed_models_table_says_so(
    tmp_path: Path,
) -> None:
    """A round labelled at a table of the committed model and fitted alone: its commands
    start with the ones that made the table's model, then its collection and its fit."""
    from bench import train_moves
    from bench.train_bombs import committed_commands

    labels = _labels_at_the_table(tmp_path)
    out = tmp_path / "model.py"
    before = committed_commands(train_moves.MODEL_FILE)
    assert train_moves.main(["fit", str(labels), "--write", "--model-out", str(out)]) == 0
    assert committed_commands(out) == [
        *before, COLLECTED, "python -m bench.train_moves fit s99.jsonl --write",
    ]
    assert train_moves.committed_decisions(out) == 300


def test_a_blend_says_the_average_of_its_two_models_wherever_asked() -> None:
    """``blended(kept, fitted, w)``: both models' trees, and at any inputs (1 - w) of what
    ``kept`` says plus w of what ``fitted`` says; a weight at either end is no blend."""
    from bench.train_bombs import blended

    rows = _rows(400)
    kept = fit(rows, trees=40)
    for row in rows:  # the fitted model has learned something the kept one has not
        row["gains"][0] += 3.0 if row["inputs"][0][5] > 1 else 0.0
    fitted = fit(rows, trees=40)
    for weight in (0.25, 0.5):
        blend = blended(kept, fitted, weight)
        assert len(blend.trees) == len(kept.trees) + len(fitted.trees)
        for row in rows[:50]:
            for inputs in row["inputs"]:
                said = kept.expected_gain(inputs), fitted.expected_gain(inputs)
                expected = (1 - weight) * said[0] + weight * said[1]
                assert blend.expected_gain(inputs) == pytest.approx(expected, abs=1e-3)
    for weight in (0.0, 1.0, 1.5):
        with pytest.raises(ValueError, match="between"):
            blended(kept, fitted, weight)


def test_a_blended_move_model_says_how_it_was_made(tmp_path: Path) -> None:
    """``fit --blend 0.5 --write``: the committed model's commands, the collection, the fit
    with its weight; the committed trees kept at half their leaves, the decisions counted with
    the committed model's. A blend is of trees fitted alone, and between the two models."""
    from bench import train_moves
    from bench.train_bombs import committed_commands
    from bench.tune import load_model
    from bot.game.players.paowang_moves import COMMITTED

    labels = _labels_at_the_table(tmp_path)
    out = tmp_path / "model.py"
    before = committed_commands(train_moves.MODEL_FILE)
    assert train_moves.main(
        ["fit", str(labels), "--blend", "0.5", "--write", "--model-out", str(out)]
    ) == 0
    assert committed_commands(out) == [
        *before, COLLECTED, "python -m bench.train_moves fit s99.jsonl --blend 0.5 --write",
    ]
    assert train_moves.committed_decisions(out) == train_moves.committed_decisions() + 300
    made = load_model(out, "MOVE")
    halved = [leaves for *_, leaves in made.trees[: len(COMMITTED.trees)]]
    assert halved == [
        tuple(round(leaf * 0.5, 6) for leaf in leaves) for *_, leaves in COMMITTED.trees
    ]
    for refused in (["--blend", "1"], ["--blend", "0.5", "--on-top"]):
        with pytest.raises(SystemExit):
            train_moves.main(["fit", str(labels), *refused])


def test_two_label_files_of_one_table_fitted_together_say_so(tmp_path: Path) -> None:
    """``fit A B --one-table``: both files labelled at the committed model's table (more labels
    for one round), so its commands come once, before both collections, with no fit between."""
    from bench import train_moves
    from bench.train_bombs import committed_commands

    first, second = _labels_at_the_table(tmp_path, 98), _labels_at_the_table(tmp_path)
    before = committed_commands(train_moves.MODEL_FILE)
    for flags, expected in (
        (["--one-table"], [
            *before, COLLECTED.replace("99", "98"), COLLECTED,
            "python -m bench.train_moves fit s98.jsonl s99.jsonl --one-table --write",
        ]),
        ([], [  # without it, the second file played by the fit of the first
            *before, COLLECTED.replace("99", "98"),
            "python -m bench.train_moves fit s98.jsonl --write", COLLECTED,
            "python -m bench.train_moves fit s98.jsonl s99.jsonl --write",
        ]),
    ):
        out = tmp_path / "model.py"
        assert train_moves.main(
            ["fit", str(first), str(second), *flags, "--write", "--model-out", str(out)]
        ) == 0
        assert committed_commands(out) == expected
        assert train_moves.committed_decisions(out) == 600


def test_a_round_at_the_fit_of_two_files_of_one_table_says_so(tmp_path: Path) -> None:
    """``fit A B C --tables 2,1``: A and B labelled at the committed model's table, C at the
    fit of those two (a round of fictitious play), so the fit of A and B comes between;
    tables that do not add up to the files labelled at a table are refused before any fit."""
    from bench import train_moves
    from bench.train_bombs import committed_commands

    files = [_labels_at_the_table(tmp_path, seed) for seed in (97, 98, 99)]
    before = committed_commands(train_moves.MODEL_FILE)
    out = tmp_path / "model.py"
    assert train_moves.main([
        "fit", *map(str, files), "--tables", "2,1", "--write", "--model-out", str(out),
    ]) == 0
    assert committed_commands(out) == [
        *before, COLLECTED.replace("99", "97"), COLLECTED.replace("99", "98"),
        "python -m bench.train_moves fit s97.jsonl s98.jsonl --tables 2 --write", COLLECTED,
        "python -m bench.train_moves fit s97.jsonl s98.jsonl s99.jsonl --tables 2,1 --write",
    ]
    assert train_moves.committed_decisions(out) == 900
    out.unlink()
    for refused in (["--tables", "2,2"], ["--tables", "2,0"], ["--tables", "x"],
                    ["--tables", "3", "--blend", "0.5"]):
        with pytest.raises(SystemExit):
            train_moves.main(["fit", *map(str, files), *refused, "--write",
                              "--model-out", str(out)])
        assert not out.exists()


def test_larger_trees_are_fitted_and_said_in_the_last_fit_only(tmp_path: Path) -> None:
    """``fit ... --trees N --depth D``: the model has N trees of depth at most D, and its
    docstring gives both flags to the last fit alone (the tables before it were fitted with
    the defaults); trees on top are always the same number, so --trees is refused with
    --on-top."""
    from bench import train_moves
    from bench.train_bombs import committed_commands

    files = [_labels_at_the_table(tmp_path, seed) for seed in (97, 98, 99)]
    out = tmp_path / "model.py"
    assert train_moves.main([
        "fit", *map(str, files), "--tables", "2,1", "--trees", "7", "--depth", "2",
        "--write", "--model-out", str(out),
    ]) == 0
    commands = committed_commands(out)
    assert commands[-1] == (
        "python -m bench.train_moves fit s97.jsonl s98.jsonl s99.jsonl --tables 2,1 "
        "--trees 7 --depth 2 --write"
    )
    assert sum("--trees 7" in command for command in commands) == 1
    namespace: dict[str, Any] = {}
    exec(out.read_text(), namespace)
    trees = namespace["MOVE_TREES"]
    assert len(trees) == 7
    assert all(len(tree[0]) <= 7 for tree in trees)  # depth 2: at most 7 nodes
    out.unlink()
    with pytest.raises(SystemExit):
        train_moves.main(["fit", str(files[0]), "--on-top", "--trees", "7", "--write",
                          "--model-out", str(out)])
    assert not out.exists()


def test_a_first_table_after_files_of_the_heuristic_is_their_fit() -> None:
    """Files labelled at a table of the model after files of the heuristic's table were
    played by the fit of those (as round 1's table is the fit of its labels), so that fit,
    not the repository's commands, opens their table: with ``--one-table`` or ``--tables``."""
    from bench.train_bombs import made_with

    paths = [Path("h.jsonl"), Path("a.jsonl"), Path("b.jsonl"), Path("c.jsonl")]
    rows = [{"file": number} for number in range(4)]

    def collected_by(name: str, _rows: Any) -> str:
        return f"collect --policy {'heuristic' if name == 'h.jsonl' else 'model'} {name}"

    fit = "python -m bench.train_moves fit"
    for flags, last in ((dict(one_table=True), " --one-table"), (dict(tables=[3]), " --tables 3")):
        assert made_with(
            "bench.train_moves", paths, rows, collected_by, table=["REPOSITORY"], **flags
        ) == [
            "collect --policy heuristic h.jsonl", f"{fit} h.jsonl --write",
            "collect --policy model a.jsonl", "collect --policy model b.jsonl",
            "collect --policy model c.jsonl",
            f"{fit} h.jsonl a.jsonl b.jsonl c.jsonl{last} --write",
        ]
    assert made_with(
        "bench.train_moves", paths, rows, collected_by, table=["REPOSITORY"], tables=[1, 2]
    ) == [
        "collect --policy heuristic h.jsonl", f"{fit} h.jsonl --write",
        "collect --policy model a.jsonl", f"{fit} h.jsonl a.jsonl --write",
        "collect --policy model b.jsonl", "collect --policy model c.jsonl",
        f"{fit} h.jsonl a.jsonl b.jsonl c.jsonl --tables 1,2 --write",
    ]


def test_a_refit_of_files_the_repository_was_fitted_to_does_not_repeat_its_history(
    tmp_path: Path,
) -> None:
    """Refitting the repository's own files with one more: its history already holds their
    collections and the fit the new file played by (with its own shape), so the recipe is that
    history, then the new file and the fit (the move model's docstring listed its first rounds
    three times before). A new file that joins a carried file's table keeps only the history
    before that table's first file. A docstring's history is read with each command once."""
    from bench.train_bombs import committed_commands, made_with

    fit = "python -m bench.train_moves fit"
    history = [
        "collect --policy heuristic h.jsonl", f"{fit} h.jsonl --write",
        "collect --policy model a.jsonl", f"{fit} a.jsonl --trees 9 --write",
    ]

    def collected_by(name: str, _rows: Any) -> str:
        return f"collect --policy model {name}"

    def recipe(names: str, **flags: Any) -> list[str]:
        paths = [Path(f"{name}.jsonl") for name in names]
        rows = [{"file": number} for number in range(len(paths))]
        return made_with("bench.train_moves", paths, rows, collected_by,
                         table=history, **flags)

    assert recipe("ab") == [*history, "collect --policy model b.jsonl",
                            f"{fit} a.jsonl b.jsonl --write"]
    assert recipe("a", shape=" --trees 7") == [*history, f"{fit} a.jsonl --trees 7 --write"]
    assert recipe("ab", tables=[2]) == [
        *history[:2], "collect --policy model a.jsonl", "collect --policy model b.jsonl",
        f"{fit} a.jsonl b.jsonl --tables 2 --write",
    ]
    assert recipe("c") == [*history, "collect --policy model c.jsonl", f"{fit} c.jsonl --write"]
    repeated = tmp_path / "model.py"
    lines = "".join(f"    python -m {command}\n" for command in ["a", "b", "a", "b", "c"])
    repeated.write_text(f'"""Made with::\n\n{lines}"""\n')
    assert committed_commands(repeated) == ["python -m a", "python -m b", "python -m c"]


def test_candidate_features_are_read_after_todays_on_the_kept_labels(
    record: dict[str, Any], tmp_path: Path
) -> None:
    """bench.try_features reads the stored deals with today's features and each candidate
    set after them: the committed trees score both the same, and the comparison runs on a
    file."""
    import gzip

    from bench.try_features import CANDIDATES, MARGINS, READERS, compare
    from bot.game.players.paowang_moves import COMMITTED

    today = expand(record)
    for name, reader in READERS.items():
        extended = expand(record, reader)
        for plain, more in zip(today, extended, strict=True):
            for inputs, longer in zip(plain["inputs"], more["inputs"], strict=True):
                assert len(longer) == len(MOVE_FEATURES) + len(CANDIDATES[name])
                assert tuple(longer[: len(MOVE_FEATURES)]) == tuple(inputs)
                assert COMMITTED.expected_gain(longer) == COMMITTED.expected_gain(inputs)
    path = tmp_path / "labels.jsonl.gz"
    path.write_bytes(gzip.compress((json.dumps(record) + "\n").encode()))
    # the file five times: a deal's group is its file's number × 100,003 plus the deal, and
    # the groups divisible by 5 are held out; 100,003 is 3 modulo 5, so whatever the deal,
    # exactly one of the five copies is held out and four are fitted
    for candidates in ("side", "none"):
        rows = compare([path] * 5, candidates, base=(5, 2), variant=(5, 3))
        assert [row["margin"] for row in rows] == list(MARGINS)
        assert all(row["fitted"] == 4 * row["held"] == 4 * len(today) for row in rows)


def test_the_side_candidates_read_each_move_less_the_choice(record: dict[str, Any]) -> None:
    """The second candidate set ends with the move's inputs less the heuristic's choice's
    (the pass flag left out), the position's side of the table before them."""
    from bench.try_features import DIFFERENCES, SIDE_POSITION, with_side
    from bot.game.players.paowang_moves import MOVE_NAMES, POSITION_FEATURES

    start, width = len(POSITION_FEATURES), len(MOVE_NAMES)
    checked = 0
    for row in expand(record, with_side):
        for inputs in row["inputs"]:
            move = inputs[start:start + width]
            choice = inputs[start + width:start + 2 * width]
            differences = inputs[len(MOVE_FEATURES) + len(SIDE_POSITION):]
            assert len(differences) == len(DIFFERENCES) == width - 1
            assert differences == tuple(a - b for a, b in zip(move[1:], choice[1:], strict=True))
            checked += 1
    assert checked


def test_folds_judge_every_deal_once_in_fold_order_and_jobs_change_nothing(
    tmp_path: Path,
) -> None:
    """With --folds K each deal is held out once (its fold is its group modulo K) and fitted
    in the others; the held-out labels are pooled fold after fold, and two jobs give what one
    gives. Rows of the first rounds' format (inputs stored) with a different count of
    decisions per deal, so that folds differ."""
    from bench import try_features
    from bench.try_features import SIDE_FEATURES, fold_gains, held_out_gains, split

    rng = random.Random(5)
    width = len(MOVE_FEATURES) + len(SIDE_FEATURES)
    lines = [
        {
            "deal": deal, "allowed": [True] * 4,
            "inputs": [[rng.random() for _ in range(width)] for _ in range(4)],
            "gains": [rng.gauss(0, 1) for _ in range(4)],
        }
        for deal in range(6) for _ in range(4 * (deal + 1))
    ]
    path = tmp_path / "old.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    rows = read_labels([path])
    for fold in range(3):
        train, held = split(rows, 3, fold)
        assert {row["deal"] for row in held} == {fold, fold + 3}
        assert len(train) + len(held) == len(rows)
    assert split(rows, 5, 0) == held_out(rows)  # --folds 5's first fold is the fifth
    shape = (5, 3)
    both = held_out_gains(rows, base=shape, variant=shape, folds=3)
    try_features.ROWS[:] = rows
    try:
        for extras in (False, True):
            folds = [fold_gains((fold, 3, extras, *shape)) for fold in range(3)]
            for margin, (gains, _) in both[extras][1].items():
                assert gains == [gain for _, fold in folds for gain in fold[margin][0]]
            assert both[extras][0] == folds[0][0] == len(split(rows, 3, 0)[0])
    finally:
        try_features.ROWS.clear()
    assert len(both[True][1][0.0][0]) == len(rows)
    assert held_out_gains(rows, base=shape, variant=shape, folds=3, jobs=2) == both
    with pytest.raises(ValueError):
        held_out_gains(rows, folds=0)


def test_the_labels_room_is_read_by_kind_of_decision(
    record: dict[str, Any], tmp_path: Path
) -> None:
    """bench.label_room counts every labelled decision once under its kind, and the room is
    the best allowed label at least two standard errors above the choice."""
    import gzip

    from bench.label_room import by_kind, sure_room, table

    path = tmp_path / "labels.jsonl.gz"
    path.write_bytes(gzip.compress((json.dumps(record) + "\n").encode()))
    found = by_kind([path])
    assert sum(kind.decisions for kind in found.values()) == len(record["decisions"])
    for (where, choice), kind in found.items():
        assert where in ("lead", "follow partner", "follow foe")
        assert choice in ("pass", "play", "bomb")
        assert where != "lead" or choice != "pass"  # a leader must play
        assert 0 <= kind.changed <= kind.decisions and 0 <= kind.sure <= kind.decisions
    assert len(table(found)) == 2 + len(found)
    row = {"gains": [3.0, 5.0, 1.0, 9.0], "errors": [1.0, 3.0, 0.4, 1.0],
           "allowed": [True, True, True, False]}
    assert sure_room(row) == 3.0  # 5 is under 2 errors, 9 is not allowed
    assert sure_room({**row, "gains": [-1.0, 0.0, 0.5, 9.0]}) == 0.0


def test_a_focused_run_labels_only_the_kinds_with_room_and_the_models_shortlist(
    record: dict[str, Any],
) -> None:
    """``collect --focus --keep 3`` on the same deal: the same game (the table plays as it
    did), labelled only at answers to a foe's trick with a play or a bomb and at leads, each
    with the heuristic's choice and at most two more moves, the ones of the full run's that the
    committed trees expect most of; the made-with command says so."""
    focused = record_of_deal(
        record["deal"], seed=29, samples=2, policy="model", focus=True, keep=3
    )
    assert focused["actions"] == record["actions"]
    full = {decision["step"]: decision for decision in record["decisions"]}
    assert 0 < len(focused["decisions"]) < len(record["decisions"]) * 0.8
    game = new_game("paowang", 29 * 1_000_003 + DEAL_OFFSET + record["deal"])
    done = 0
    for decision in focused["decisions"]:
        while done < decision["step"]:
            redo(game, record["actions"][done])
            done += 1
        view = game.view(next_actor(game))
        options = {tuple(cards_of(combo) or ()): combo for combo in legal_options(view)}
        every = [None if cards is None else options[tuple(cards)]
                 for cards in full[decision["step"]]["moves"]]
        assert decision["moves"][0] == full[decision["step"]]["moves"][0]
        assert (situation(view), kind_of(every[0])) in FOCUS
        assert 2 <= len(decision["moves"]) <= 3
        position = position_at(view)
        expected = {
            str(cards): COMMITTED.expected_gain(inputs)
            for cards, move, inputs in zip(
                full[decision["step"]]["moves"][1:], every[1:], inputs_of(position, every),
                strict=True,
            )
            if allowed(position, move)
        }
        kept = [expected[str(cards)] for cards in decision["moves"][1:]]
        left = [gain for cards, gain in expected.items()
                if cards not in map(str, decision["moves"][1:])]
        assert min(kept) >= max(left, default=-math.inf)
    rows = expand(focused)
    assert len(rows) == len(focused["decisions"])
    assert "--rollout heuristic --focus --keep 3 --first-deal" in collected_by("f.jsonl.gz", rows)


@pytest.mark.parametrize("keep", ["1", str(MOVES + 1)])
def test_collect_refuses_a_shortlist_without_a_move_to_compare(
    keep: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bench.train_moves import main

    with pytest.raises(SystemExit):
        main(["collect", "--deals", "1", "--keep", keep, "--out", str(tmp_path / "x.jsonl")])
    assert "--keep counts the moves labelled" in capsys.readouterr().err
    assert not (tmp_path / "x.jsonl").exists()


def test_a_pass_bounds_the_passer_unless_the_taker_is_known_to_be_on_its_side() -> None:
    """The third candidate set reads the history: the lowest single (pair) each seat passed
    over, passes over a taker known to be on the passer's side (ours or theirs) and over bombs
    left out. (The history is made up, not dealt: only whose pass follows which play counts.)"""
    from types import SimpleNamespace

    from bench.try_features import UNBOUNDED, pass_move, pass_position, shown_bounds
    from bot.game.common import Combo, SeatView

    def single(rank: int) -> Combo:
        return Combo("single", (rank << 3,), rank)

    pair = Combo("pair", (7 << 3, 7 << 3 | 1), 7)
    bomb = Combo("ladder", tuple(9 << 3 | copy for copy in range(4)), 9, tier=5)
    history = (
        (1, single(10)), (2, None), (3, None), (4, single(12)), (0, None), (1, None),
        (2, None), (3, None),  # seat 4 takes the trick and leads again
        (4, bomb), (0, None), (1, None), (2, None), (3, None),  # a pass over a bomb shows nothing
        (2, pair), (3, None), (4, None), (0, None), (1, None),  # 0 and 2 are on one side
        (1, single(5)), (2, None), (3, None),  # 1 and 3 are on the other
    )
    view = SeatView(
        variant="paowang", seat=0, hand=(), hand_sizes=(5, 6, 7, 8, 9), turn=0,
        on_table=single(11), on_table_seat=4, trick=(), history=history, finish_order=(),
        partners=(2,), over=False, opponents=(1, 3),
    )
    bounds = shown_bounds(view)
    # 3's pass over 1's 10 shows nothing (both are foes of seat 0), its pass over 4's 12 does
    assert bounds["single"] == [12, 12, 5, 12, UNBOUNDED]
    assert bounds["pair"] == [UNBOUNDED, 7, UNBOUNDED, 7, 7]
    position: Any = SimpleNamespace(view=view)
    # over seat 4's single 11, seats 1, 2 and 3 act: only 2, a partner, has passed lower (a 5)
    assert pass_position(position, bounds) == (0.0, 1.0)
    higher: Any = SimpleNamespace(view=dataclasses.replace(view, on_table=single(13)))
    assert pass_position(higher, bounds) == (2.0, 1.0)  # over a 13, 1 and 3 have shown too
    # (known foes, seats of unknown side shown unable; the others holding cards not shown)
    assert pass_move(position, bounds, single(11)) == (0.0, 0.0, 3.0)
    assert pass_move(position, bounds, single(12)) == (2.0, 0.0, 1.0)
    assert pass_move(position, bounds, Combo("pair", pair.cards, 8)) == (2.0, 1.0, 0.0)
    assert pass_move(position, bounds, None) == (0.0, 0.0, 0.0)
    assert pass_move(position, bounds, bomb) == (0.0, 0.0, 0.0)
    leads = dataclasses.replace(view, on_table=None, on_table_seat=None)
    leading: Any = SimpleNamespace(view=leads)
    assert pass_position(leading, bounds) == (0.0, 0.0)


def test_a_run_of_early_leads_labels_only_leads_with_many_cards_left(
    record: dict[str, Any],
) -> None:
    """``collect --leads-above 50`` on the same deal: the same game, labelled only where the
    seat leads while more than 50 cards are left in the five hands, with every candidate the
    full run labelled there; the made-with command says so."""
    early = record_of_deal(record["deal"], seed=29, samples=2, policy="model", leads_above=50)
    assert early["actions"] == record["actions"]
    assert early["leads_above"] == 50
    full = {decision["step"]: decision for decision in record["decisions"]}
    game = new_game("paowang", 29 * 1_000_003 + DEAL_OFFSET + record["deal"])
    leads = []
    for step, action in enumerate(record["actions"]):
        view = game.view(action[1])
        if step in full and situation(view) == "lead" and sum(view.hand_sizes) > 50:
            leads.append(step)
        redo(game, action)
    assert leads, "the deal has early leads to label"
    assert [decision["step"] for decision in early["decisions"]] == leads
    for decision in early["decisions"]:
        assert decision["moves"] == full[decision["step"]]["moves"]
    rows = expand(early)
    assert len(rows) == len(leads)
    assert "--leads-above 50 --first-deal" in collected_by("e.jsonl.gz", rows)
