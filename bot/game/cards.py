"""Cards as small immutable values, the decks, and the text grammar for cards.

A :class:`Card` is an ``int`` underneath (``rank * 8 + suit``) so that cards hash, compare and
sort fast and by rank first: the engines spend most of their time bucketing cards by rank.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

SUITS = "♠♥♣♦"
_SUIT_LETTERS = {"S": 0, "H": 1, "C": 2, "D": 3}
_SUIT_INDEX = {s: i for i, s in enumerate(SUITS)} | _SUIT_LETTERS
#: suit index of a card that has none: a joker, or a token typed without a suit ("any 3")
NO_SUIT = 4

SMALL_JOKER = 16
BIG_JOKER = 17
#: ranks from low to high; 11-15 are J Q K A 2
RANK_NAMES = {
    3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "10",
    11: "J", 12: "Q", 13: "K", 14: "A", 15: "2", SMALL_JOKER: "小王", BIG_JOKER: "大王",
}
_RANK_BY_NAME = {name: rank for rank, name in RANK_NAMES.items() if rank < SMALL_JOKER}
_JOKER_BY_NAME = {"小王": SMALL_JOKER, "LJ": SMALL_JOKER, "大王": BIG_JOKER, "BJ": BIG_JOKER}
_TOKEN_SPLIT = re.compile(r"[\s,，、]+")


class Card(int):
    """One playing card: a rank (3..15, 16 小王, 17 大王) and a suit (♠♥♣♦, or none).

    Two cards of the same rank and suit are equal: the two decks' ♥5 are the same value.
    A card with a rank but no suit comes from a token typed without one and stands for
    "any card of that rank"; it never appears in a dealt hand.
    """

    __slots__ = ()

    def __new__(cls, rank: int, suit: str | None = None) -> Card:
        if not 3 <= rank <= BIG_JOKER:
            raise ValueError(f"no such rank: {rank!r}")
        if rank >= SMALL_JOKER:
            if suit is not None:
                raise ValueError("jokers have no suit")
            index = NO_SUIT
        elif suit is None:
            index = NO_SUIT
        else:
            index = _SUIT_INDEX[suit]
        return int.__new__(cls, rank * 8 + index)

    @classmethod
    def parse(cls, token: str) -> Card:
        """One token of the grammar of :func:`parse_cards`."""
        return _parse_token(token)

    def __getnewargs__(self) -> tuple[int, str | None]:  # type: ignore[override]
        return (self.rank, self.suit)

    @property
    def rank(self) -> int:
        return int(self) >> 3

    @property
    def suit(self) -> str | None:
        index = int(self) & 7
        return SUITS[index] if index < NO_SUIT else None

    @property
    def is_joker(self) -> bool:
        return int(self) >> 3 >= SMALL_JOKER

    @property
    def is_any_suit(self) -> bool:
        """True for a card typed without a suit: any card of its rank."""
        return int(self) >> 3 < SMALL_JOKER and int(self) & 7 == NO_SUIT

    def __str__(self) -> str:
        suit = self.suit
        return RANK_NAMES[self.rank] if suit is None else suit + RANK_NAMES[self.rank]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


def _parse_token(token: str) -> Card:
    text = token.strip()
    upper = text.upper()
    if text in _JOKER_BY_NAME:
        return Card(_JOKER_BY_NAME[text])
    if upper in _JOKER_BY_NAME:
        return Card(_JOKER_BY_NAME[upper])
    suit: str | None = None
    rest = upper
    if rest and rest[0] in _SUIT_INDEX and rest[1:] in _RANK_BY_NAME:
        suit = SUITS[_SUIT_INDEX[rest[0]]]
        rest = rest[1:]
    rank = _RANK_BY_NAME.get(rest)
    if rank is None:
        raise ValueError(f"not a card: {token!r}")
    return Card(rank, suit)


def parse_cards(text: str) -> list[Card]:
    """Parse cards written as tokens separated by white space or commas.

    A token is an optional suit (♠♥♣♦ or S H C D) and a rank (3-10 J Q K A 2, any case), or a
    joker: 小王 (LJ) or 大王 (BJ). ``SJ`` is ♠J. A token without a suit stands for any card of
    that rank. A bad token raises :class:`ValueError` naming it.
    """
    return [_parse_token(token) for token in _TOKEN_SPLIT.split(text.strip()) if token]


def format_cards(cards: Iterable[Card]) -> str:
    """Cards as text that :func:`parse_cards` reads back: ``♠3 ♥3 小王``."""
    return " ".join(str(card) for card in cards)


def double_deck() -> list[Card]:
    """Two full decks with jokers: 108 cards (双扣)."""
    one = [Card(rank, suit) for rank in range(3, 16) for suit in SUITS]
    one += [Card(SMALL_JOKER), Card(BIG_JOKER)]
    return one + one


def double_deck_without_threes() -> list[Card]:
    """Two decks with jokers but without the eight 3s: 100 cards (刨王)."""
    return [card for card in double_deck() if card.rank != 3]


def take_from(hand: Sequence[Card], wanted: Sequence[Card]) -> list[Card] | None:
    """The actual cards of ``hand`` that ``wanted`` names, or None if the hand lacks them.

    Exact cards are matched first, then each suit-less card takes a remaining card of its rank.
    """
    split = split_hand(hand, wanted)
    return None if split is None else split[0]


def split_hand(
    hand: Sequence[Card], wanted: Sequence[Card]
) -> tuple[list[Card], list[Card]] | None:
    """(the cards ``wanted`` takes, the rest of ``hand`` in order), or None if the hand lacks
    them: :func:`take_from` with the hand that remains, for the engines' hot path."""
    remaining = list(hand)
    taken: list[Card] = []
    loose: list[Card] = []
    for card in wanted:
        if card & 7 == NO_SUIT and card >> 3 < SMALL_JOKER:  # card.is_any_suit, inlined
            loose.append(card)
            continue
        try:
            remaining.remove(card)
        except ValueError:
            return None
        taken.append(card)
    for card in loose:
        rank = card >> 3
        for i, held in enumerate(remaining):
            if held >> 3 == rank:
                taken.append(remaining.pop(i))
                break
        else:
            return None
    return taken, remaining
