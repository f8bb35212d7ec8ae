"""The learned models' trees read as code give exactly what walking the trees gives."""

from __future__ import annotations

import pickle

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.game.players.paowang_bomb_model import BOMB_BASE, BOMB_TREES
from bot.game.players.paowang_bombs import BOMB_FEATURES, bomb_gain_expected
from bot.game.players.paowang_move_model import MOVE_BASE, MOVE_TREES
from bot.game.players.paowang_moves import COMMITTED, MOVE_FEATURES
from bot.game.players.trees import TreeModel, compiled, forget, trees_sum

#: a stump and a tree two deep: feature 1 at most 0.5 goes left (2.0), else feature 0 decides
SMALL = (
    ((1, -1, 0, -1, -1), (0.5, -2.0, 3.0, -2.0, -2.0), (1, -1, 3, -1, -1),
     (2, -1, 4, -1, -1), (0.0, 2.0, 0.0, -1.0, 4.0)),
    ((-1,), (-2.0,), (-1,), (-1,), (0.25,)),
)

# inputs near the thresholds the trees use (and on them), where a wrong comparison shows
_values = st.one_of(
    st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.0, 3.0]),
    st.floats(min_value=-50, max_value=50, allow_nan=False),
)


def test_a_small_model_reads_each_branch() -> None:
    score = compiled(1.0, SMALL)
    assert score([0.0, 0.5]) == 1.0 + 2.0 + 0.25  # at the threshold: left
    assert score([3.0, 0.6]) == 1.0 - 1.0 + 0.25
    assert score([3.5, 0.6]) == 1.0 + 4.0 + 0.25
    assert compiled(-0.5, ())([]) == -0.5


@settings(max_examples=200, deadline=None)
@given(st.lists(_values, min_size=len(MOVE_FEATURES), max_size=len(MOVE_FEATURES)))
def test_the_move_model_compiled_equals_the_trees_walked(inputs: list[float]) -> None:
    assert COMMITTED.expected_gain(inputs) == trees_sum(MOVE_BASE, MOVE_TREES, inputs)


@settings(max_examples=200, deadline=None)
@given(st.lists(_values, min_size=len(BOMB_FEATURES), max_size=len(BOMB_FEATURES)))
def test_the_bomb_model_compiled_equals_the_trees_walked(inputs: list[float]) -> None:
    assert bomb_gain_expected(inputs) == trees_sum(BOMB_BASE, BOMB_TREES, inputs)


def test_a_model_goes_to_a_worker_process_and_reads_the_same() -> None:
    """The benchmarks seat models in worker processes: the compiled reading is made again."""
    model = TreeModel(1.0, SMALL)
    again = pickle.loads(pickle.dumps(model))
    assert again == model
    for inputs in ([0.0, 0.5], [3.0, 0.6], [3.5, 0.6]):
        assert again.expected_gain(inputs) == model.expected_gain(inputs)


def test_a_model_remembers_a_score_and_gives_it_again() -> None:
    """The look-ahead asks the same inputs again and again: the second answer is the first,
    without reading the trees again, whether the inputs come as a tuple or a list."""
    model = TreeModel(1.0, SMALL)
    first = model.expected_gain((3.0, 0.6))
    calls = model._score.cache_info()
    assert model.expected_gain([3.0, 0.6]) == first == 1.0 - 1.0 + 0.25
    again = model._score.cache_info()
    assert (again.hits, again.misses) == (calls.hits + 1, calls.misses)
    assert model.expected_gain((3.5, 0.6)) == 1.0 + 4.0 + 0.25  # another input is read afresh


def test_forget_empties_every_models_remembered_scores() -> None:
    """The benchmarks' cold decisions start as a fresh process does, with nothing remembered."""
    model = TreeModel(1.0, SMALL)
    model.expected_gain((0.0, 0.5))
    assert model._score.cache_info().currsize == 1
    forget()
    assert model._score.cache_info().currsize == 0
    assert model.expected_gain((0.0, 0.5)) == 1.0 + 2.0 + 0.25
