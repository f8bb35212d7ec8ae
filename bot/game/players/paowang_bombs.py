"""The 刨王 AI's learned bomb model, as the AI reads it: the question, its inputs by name, and
the sum of the boosted trees in ``paowang_bomb_model.py`` (fitted by ``bench/train_bombs.py``).
What the numbers are is computed in :func:`bot.game.players.paowang_ai.bomb_features`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.game.common import Combo
from bot.game.players.paowang_bomb_model import BOMB_BASE, BOMB_TREES
from bot.game.players.trees import TreeModel


@dataclass(frozen=True, slots=True)
class BombQuestion:
    """A trick of a seat not known to be a partner, no ordinary answer worth playing, and a
    bomb in hand: bomb it, or pass."""

    bomb: Combo  # the bomb it would spend (the one that costs the plan least)
    rule: bool  # what the hand-written rules say
    features: tuple[float, ...]  # the position, as :func:`bomb_features` reads it

    @property
    def inputs(self) -> tuple[float, ...]:
        """What the learned model reads: the features and the rules' answer."""
        return model_inputs(self.features, self.rule)


def model_inputs(features: Sequence[float], rule: bool) -> tuple[float, ...]:
    return (*features, float(rule))


#: what the learned bomb model reads, in the order of :func:`bomb_features`
BOMB_FEATURES = (
    "bias", "points/10", "known foe", "foe x points/10", "taker near out", "foe near out",
    "rung/10", "plan change/10", "bombs held", "plain parts/5", "one plain part left",
    "hand/10", "share played", "revealed", "alone", "our points/100", "their points/100",
    "spends a 大王", "weak parts after/5", "no points", "taker revealed", "rung x played/10",
    "points x played/10", "rules say bomb",
)


#: the model in the repository (``paowang_bomb_model.py``)
COMMITTED_BOMBS = TreeModel(BOMB_BASE, BOMB_TREES)


def bomb_gain_expected(inputs: Sequence[float], model: TreeModel | None = None) -> float:
    """What bombing is expected to gain over passing, in points for the seat: the small
    regression trees (gradient boosting, ``bench/train_bombs.py``) of ``model`` summed, the
    committed model's unless another is given."""
    return (model or COMMITTED_BOMBS).expected_gain(inputs)
