"""The page checks a selection by its signature against the legal plays the view carries: the
check must agree with the engine's own for every selection, not only the listed
representatives (the engines list one pair of 7s, and a player may pick any two 7s)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.game import paowang, shuangkou
from bot.game.cards import Card
from bot.game.common import Combo
from bot.web.tableview import signature, suits_matter


def accepted(variant: str, cards: Sequence[Card], on: Combo | None, revealed: bool) -> bool:
    """What the engine's ``play`` accepts, from its own functions."""
    if variant == "shuangkou":
        readings = shuangkou.classify_all(cards)
        return bool(readings) and (on is None or any(shuangkou.beats(r, on) for r in readings))
    combo = paowang.classify(cards, revealed)
    return combo is not None and (on is None or paowang.beats(combo, on))


def plays_of(variant: str, hand: Sequence[Card], on: Combo | None, revealed: bool) -> list[Combo]:
    if variant == "shuangkou":
        return shuangkou.legal_plays(hand, on)
    return paowang.legal_plays(hand, on, revealed)


def same_ranks_other_suits(
    rng: random.Random, hand: list[Card], cards: Sequence[Card]
) -> list[Card]:
    """The same ranks picked with other copies from the hand where it has them."""
    pool = list(hand)
    for card in cards:
        pool.remove(card)
    chosen: list[Card] = []
    for card in cards:
        others = [c for c in pool if c.rank == card.rank and c != card]
        if others and rng.random() < 0.6:
            swap = rng.choice(others)
            pool.remove(swap)
            pool.append(card)
            chosen.append(swap)
        else:
            chosen.append(card)
    return chosen


@settings(max_examples=150, deadline=None)
@given(
    variant=st.sampled_from(["shuangkou", "paowang"]),
    seed=st.integers(0, 2**32),
    revealed=st.booleans(),
)
def test_a_selection_is_legal_exactly_when_its_signature_is_listed(
    variant: str, seed: int, revealed: bool
) -> None:
    rng = random.Random(seed)
    game = shuangkou.Game.deal(seed) if variant == "shuangkou" else paowang.Game.deal(seed)
    hand = list(game.hands[0])
    leads = plays_of(variant, list(game.hands[1]), None, False)
    on = rng.choice(leads) if rng.random() < 0.6 else None
    with_suits = suits_matter(variant)
    legal = plays_of(variant, hand, on, revealed)
    listed = {signature([int(c) for c in combo.cards], with_suits=with_suits) for combo in legal}
    candidates: list[list[Card]] = []
    for combo in rng.sample(legal, min(len(legal), 25)):
        candidates.append(same_ranks_other_suits(rng, hand, combo.cards))
    for _ in range(25):
        size = rng.choice([1, 2, 2, 3, 3, 4, 5, 5, 6, 8])
        candidates.append(rng.sample(hand, min(size, len(hand))))
    for cards in candidates:
        sig = signature([int(c) for c in cards], with_suits=with_suits)
        assert (sig in listed) == accepted(variant, cards, on, revealed), (cards, on)
