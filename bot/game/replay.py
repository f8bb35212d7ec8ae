"""A game is its deal plus its actions: rebuild the engine's state from them."""

from __future__ import annotations

from collections.abc import Sequence

from bot.game.cards import parse_cards
from bot.game.common import Action
from bot.game.protocol import GameState
from bot.game.variants import Variant


def replay(
    variant: Variant,
    seed: int | None,
    leader: int | None,
    hands: list[list[str]] | None,
    actions: Sequence[Action],
) -> GameState:
    """The engine game dealt from ``seed`` (or from explicit ``hands``), after ``actions``."""
    if hands is not None:
        game = variant.from_hands([parse_cards(" ".join(h)) for h in hands], leader or 0)
    else:
        game = variant.deal(seed or 0, leader)
    for action in actions:
        game.apply(action)
    return game
