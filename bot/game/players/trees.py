"""Boosted regression trees, read fast: a model's trees turned into one Python function.

A model is a ``base`` plus one leaf of every tree (the layout is described in
``paowang_bomb_model``). Walking the stored tuples node by node costs about a third of a
millisecond for 300 trees of depth 5 (the move model until round 11, which has 600 of depth
6), which is most of what a decision with the model costs and most of what a play-out costs
when the search labels with the model. The same trees written as nested ``if`` statements and
compiled once (at import) give the same sums, bit for bit (the leaves are added in the same
order), in a fraction of the time.

A model also remembers its last scores. The look-ahead near the end plays the same position
out on several agreeing deals, and a seat whose own cards and trick are the same reads the same
inputs in each: in 双扣 two calls in five repeat an input scored earlier in the same decision
(4,964 of 11,606 over ten cold games of seed 0). The trees are a pure function of the inputs,
so a remembered score is the score.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, TypeVar
from weakref import WeakSet

from bot.game.players.paowang_bomb_model import Tree

if TYPE_CHECKING:  # the cache's type is named only for the checker
    from functools import _lru_cache_wrapper

Scorer = Callable[[Sequence[float]], float]
Features = tuple[float, ...]
P = TypeVar("P")
M = TypeVar("M")

#: scores a model remembers, the latest kept: more than one decision asks (397 distinct inputs at
#: most in those ten games), and an entry (about 50 inputs) is under 2 kB: 2 MB a model at most
SCORES_REMEMBERED = 1024


def trees_sum(base: float, trees: Sequence[Tree], inputs: Sequence[float]) -> float:
    """``base`` plus the leaf that ``inputs`` reach in each tree: the reference reading."""
    total = base
    for feature, threshold, left, right, value in trees:
        node = 0
        while feature[node] >= 0:
            node = left[node] if inputs[feature[node]] <= threshold[node] else right[node]
        total += value[node]
    return total


def compiled(base: float, trees: Sequence[Tree]) -> Scorer:
    """A function that reads ``inputs`` as :func:`trees_sum` does, written out as code."""
    used = sorted({index for tree in trees for index in tree[0] if index >= 0})
    # the inputs the trees read, bound to local names once: a local is read faster than an item
    lines = ["def score(x):", f"    t = {base!r}"]
    lines += [f"    x{index} = x[{index}]" for index in used]
    for tree in trees:
        _write_node(tree, 0, 1, lines)
    lines.append("    return t")
    namespace: dict[str, object] = {}
    # the source is made here from numbers only: nothing outside the model reaches it
    exec(compile("\n".join(lines), "<trees>", "exec"), namespace)
    scorer = namespace["score"]
    assert callable(scorer)
    return scorer


def _write_node(tree: Tree, node: int, depth: int, lines: list[str]) -> None:
    feature, threshold, left, right, value = tree
    indent = "    " * depth
    if feature[node] < 0:
        lines.append(f"{indent}t += {value[node]!r}")
        return
    lines.append(f"{indent}if x{int(feature[node])} <= {float(threshold[node])!r}:")
    _write_node(tree, left[node], depth + 1, lines)
    lines.append(f"{indent}else:")
    _write_node(tree, right[node], depth + 1, lines)


@dataclass(frozen=True, slots=True, weakref_slot=True)
class TreeModel:
    """A learned model: what a choice is expected to gain (points for the seat) is ``base``
    plus one leaf of every tree, read by the trees compiled once into code, and the latest
    scores remembered."""

    base: float
    trees: tuple[Tree, ...]
    _score: _lru_cache_wrapper[float] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        remembered = lru_cache(maxsize=SCORES_REMEMBERED)(compiled(self.base, self.trees))
        object.__setattr__(self, "_score", remembered)
        _MODELS.add(self)

    def expected_gain(self, inputs: Sequence[float]) -> float:
        # a tuple is its own key (no copy); a list is made one
        return self._score(tuple(inputs))

    def __reduce__(self) -> tuple[type[TreeModel], tuple[float, tuple[Tree, ...]]]:
        # the compiled function cannot be pickled: a worker process compiles the trees again
        return (TreeModel, (self.base, self.trees))


#: every model made, so that :func:`forget` reaches them all (weakly: a dropped model goes)
_MODELS: WeakSet[TreeModel] = WeakSet()


def forget() -> None:
    """Empty every model's remembered scores, as a process that just started has none (the
    benchmarks' cold decisions, with the plans' caches)."""
    for model in list(_MODELS):
        model._score.cache_clear()


def paired_inputs(
    position: P, moves: Sequence[M], position_features: Callable[[P], Features],
    move_features: Callable[[P, M], Features],
) -> list[Features]:
    """The move models' inputs for each move but the first (the heuristic's choice): the
    position, the move, then the choice read the same way, so that the trees score a move
    against the choice it would replace (both games' layout)."""
    shared = position_features(position)
    choice = move_features(position, moves[0])
    return [(*shared, *move_features(position, move), *choice) for move in moves[1:]]
