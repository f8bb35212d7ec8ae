"""The 刨王 deal: 100 cards (two decks without the 3s), 20 to each of the 5 seats.

Pure: the shuffle is ``random.Random(seed)``, so a seed and the log replay a game exactly.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from bot.game.cards import BIG_JOKER, SMALL_JOKER, Card, double_deck_without_threes

__all__ = ["HEART_FIVE", "checked_hands", "count_jokers", "deal_hands"]

SEATS = 5
HEART_FIVE = Card(5, "♥")

# The deck in its unshuffled order, built once (cards are immutable): building it is a third
# of a deal's cost otherwise.
_DECK: tuple[Card, ...] = tuple(double_deck_without_threes())


def deal_hands(seed: int | str) -> tuple[list[list[Card]], int]:
    """(the five hands, the seat dealt the first ♥5) for ``seed``.

    Dealing starts with the seat after the dealer (seat 0): card ``i`` of the shuffled deck
    goes to seat ``(1 + i) % 5``.
    """
    deck = list(_DECK)
    random.Random(seed).shuffle(deck)
    # card i to seat (1 + i) % 5: seat s takes every fifth card from index (s - 1) % 5
    hands = [deck[(seat - 1) % SEATS :: SEATS] for seat in range(SEATS)]
    return hands, (1 + deck.index(HEART_FIVE)) % SEATS


def count_jokers(hand: Sequence[Card]) -> tuple[int, int]:
    """(大王, 小王) in a sorted hand. Jokers sort last, so only they are visited."""
    bigs = smalls = 0
    for card in reversed(hand):
        rank = card >> 3
        if rank == BIG_JOKER:
            bigs += 1
        elif rank == SMALL_JOKER:
            smalls += 1
        else:
            break
    return bigs, smalls


def checked_hands(
    hands: Sequence[Iterable[Card]], leader: int
) -> tuple[list[list[Card]], list[int], list[int]]:
    """(the hands sorted, each one's 大王, each one's 小王), or ValueError for hands that no
    deal of 刨王's deck gives (hand-made positions may hold fewer cards)."""
    if len(hands) != SEATS:
        raise ValueError(f"刨王 needs {SEATS} hands, got {len(hands)}")
    if not 0 <= leader < SEATS:
        raise ValueError(f"no such seat: {leader}")
    sorted_hands = [sorted(hand) for hand in hands]
    jokers = [count_jokers(hand) for hand in sorted_hands]
    bigs = [big for big, _ in jokers]
    smalls = [small for _, small in jokers]
    if sum(bigs) > 2 or sum(smalls) > 2:
        raise ValueError("there are two 大王 and two 小王 in 刨王's deck")
    if not sorted_hands[leader]:
        raise ValueError("the leader must hold cards")
    return sorted_hands, bigs, smalls
