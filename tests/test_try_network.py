"""The offline trial of a network over the cards against the committed trees."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bench.try_network import (
    CARD_FEATURES,
    NETWORK_WAYS,
    RANKS,
    main,
    network_for,
    with_cards,
)
from bench.try_rounds import MARGINS, WAYS
from bot.cli.simulate import new_game, next_actor
from bot.game.players.base import legal_options, revealed_self
from bot.game.players.decompose import counts_of
from bot.game.players.paowang_ai import cards_unseen
from bot.game.players.paowang_moves import COMMITTED, MOVE_FEATURES, inputs_of, position_of


def test_the_reader_adds_the_cards_after_todays_inputs() -> None:
    game = new_game("paowang", 5)
    seat = next_actor(game)
    assert seat is not None
    view = game.view(seat)
    position = position_of(view, counts_of(view.hand), cards_unseen(view), revealed_self(view))
    options = legal_options(view)
    moves = [None, *options[:3]] if view.on_table is not None else options[:4]
    rows = with_cards(position, moves)
    assert len(rows) == len(moves) - 1
    assert rows == [row for row in rows if len(row) == len(MOVE_FEATURES) + len(CARD_FEATURES)]
    # today's inputs first, unchanged, so that the committed trees read them as before
    assert [row[:len(MOVE_FEATURES)] for row in rows] == inputs_of(position, moves)
    ranks = len(RANKS)
    start = len(MOVE_FEATURES)
    for row, move in zip(rows, moves[1:], strict=True):
        hand, unseen = row[start:start + ranks], row[start + ranks:start + 2 * ranks]
        played = row[start + 2 * ranks:start + 3 * ranks]
        assert sum(hand) == len(view.hand)
        assert sum(unseen) == sum(size for other, size in enumerate(view.hand_sizes)
                                  if other != seat)
        assert sum(played) == (0 if move is None else len(move.cards))
        assert all(mine <= held for mine, held in zip(played, hand, strict=True))


def _rows(count: int, noise: float) -> list[dict[str, object]]:
    rng = np.random.default_rng(3)
    width = len(MOVE_FEATURES) + len(CARD_FEATURES)
    rows = []
    for deal in range(count):
        inputs = rng.random((3, width)).tolist()
        gains = [2 * move[-1] - 1 + rng.normal(0, noise) for move in inputs]
        rows.append({"group": deal, "inputs": inputs, "gains": gains})
    return rows


def test_the_network_learns_what_the_labels_follow() -> None:
    rows = _rows(1500, 0.05)
    alone = network_for(rows, prior=False, step=1.0)
    # a fresh input whose last card feature is high gains, and a low one loses (1.8 apart by
    # the labels' rule; the fit, amid 158 inputs of noise, finds most of it)
    probe = [0.5] * (len(MOVE_FEATURES) + len(CARD_FEATURES))
    high, low = [*probe[:-1], 0.95], [*probe[:-1], 0.05]
    assert alone.expected_gain(high) > 0.3
    assert alone.expected_gain(low) < -0.3
    assert alone.expected_gain(high) - alone.expected_gain(low) > 1.2
    # on top of the committed trees, half a step: the trees' score plus half the network's
    half = network_for(rows, prior=True, step=0.5)
    network_part = half.expected_gain(high) - COMMITTED.expected_gain(high)
    assert network_part == pytest.approx(
        0.5 * float(half.raw(np.asarray([high]))[0]), abs=1e-9
    )


def test_the_command_judges_every_network_way_against_the_kept_trees(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # labels in the first rounds' format (inputs stored), as wide as the card reader's rows
    lines = [{**row, "deal": row["group"], "allowed": [True, True, True]}
             for row in _rows(30, 0.1)]
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert main([str(path), "--folds", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "30 decisions of 30 deals, each held out once in 2 folds"
    rows = [line for line in out if line.startswith("| network")]
    assert len(rows) == len(NETWORK_WAYS) * len(MARGINS)
    assert {line.split(" | ")[0][2:] for line in rows} == set(NETWORK_WAYS)
    # try_rounds' own ways are as they were
    assert set(NETWORK_WAYS).isdisjoint(WAYS)
