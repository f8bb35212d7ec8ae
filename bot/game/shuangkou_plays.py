"""绍兴双扣's legal plays: every distinct play a hand may make on the table, and the cards a
typed play names (:func:`take_play`). Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.game.cards import BIG_JOKER, NO_SUIT, SMALL_JOKER, SUITS, Card, take_from
from bot.game.common import Combo
from bot.game.shuangkou_combos import (
    ACE,
    BOMB_KINDS,
    JOKER_BOMB_POWER,
    TRIPLE_BOMB_BASE,
    TWO,
    bomb_power,
)

__all__ = ["legal_plays", "take_play"]

# ---- legal plays ------------------------------------------------------------------------
#
# legal_plays is on every turn's path (the bot's prompt, the computer players, simulations),
# so it is written for speed: the hand is bucketed by rank once, each kind is generated from
# maximal runs of ranks, and a card tuple is made once per play by slicing, never by
# searching. Each generator takes ``above`` (the key to beat, 0 when free) and ``chain``
# (the run length to match, 0 when any).

#: for each suit index, the canonical cards of ranks 3..A (index 0 is the 3): a 同花顺's
#: cards are then a slice. Cards are values, so these equal the hand's own cards.
_SUITED: tuple[tuple[Card, ...], ...] = tuple(
    tuple(Card(rank, suit) for rank in range(3, ACE + 1)) for suit in SUITS
)
_ANY_SUIT_BIT = 1 << NO_SUIT


def legal_plays(hand: Sequence[Card], on: Combo | None) -> list[Combo]:
    """Every distinct play from ``hand`` that may be made on ``on`` (None: leading).

    Plays that differ only in suits count once; a 同花顺 is a play of its own (one per run of
    ranks), and a 顺子 the hand can make only of one suit is listed as the 同花顺 alone.
    The order is by kind (singles, pairs, triples, runs, straights, bombs), low to high.
    """
    by_rank: list[list[Card]] = [[], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [],
                                 [], []]
    for card in hand:
        by_rank[card >> 3].append(card)
    counts = list(map(len, by_rank))
    out: list[Combo]
    if on is None:
        out = _sets("single", by_rank, -1) + _sets("pair", by_rank, -1)
        out += _sets("triple", by_rank, -1)
        _runs(out, by_rank, counts, 2, "pair_straight", 0, 0)
        _runs(out, by_rank, counts, 3, "triple_straight", 0, 0)
        if len(hand) >= 15:
            _planes(out, by_rank, counts, len(hand) // 5, 0, 0)
        _straights(out, by_rank, counts, 0, 0, True, True)
        _bombs(out, by_rank, counts, 0)
        return out
    kind = on.kind
    if kind in BOMB_KINDS:
        out = []
        _bombs(out, by_rank, counts, on.key)
        return out
    out = _sets(kind, by_rank, on.key) if kind in _SET_SIZE else []
    if kind == "pair_straight":
        _runs(out, by_rank, counts, 2, kind, on.chain, on.key)
    elif kind == "triple_straight":
        _runs(out, by_rank, counts, 3, kind, on.chain, on.key)
    elif kind == "plane":
        _planes(out, by_rank, counts, on.chain, on.chain, on.key)
    elif kind == "straight":
        _straights(out, by_rank, counts, on.chain, on.key, True, False)
    elif kind == "straight_flush":
        _straights(out, by_rank, counts, on.chain, on.key, False, True)
    _bombs(out, by_rank, counts, 0)
    return out


_SET_SIZE = {"single": 1, "pair": 2, "triple": 3}


def _sets(kind: str, by_rank: list[list[Card]], above: int) -> list[Combo]:
    """The singles, pairs or triples (``kind``) of ranks above ``above``, low to high; a triple
    is of 3..2 only (two jokers of a colour make a pair at most). One comprehension per size:
    this is the hot path of every turn."""
    size = _SET_SIZE[kind]
    if size == 1:
        return [Combo(kind, (c[0],), r) for r, c in enumerate(by_rank) if c and r > above]
    if size == 2:
        return [
            Combo(kind, (c[0], c[1]), r)
            for r, c in enumerate(by_rank)
            if len(c) > 1 and r > above
        ]
    return [
        Combo(kind, (c[0], c[1], c[2]), r)
        for r, c in enumerate(by_rank[: TWO + 1])
        if len(c) > 2 and r > above
    ]


def _run_starts(counts: list[int], width: int, shortest: int) -> list[tuple[int, int]]:
    """The maximal runs (first rank, length) of ranks 3..A holding ``width`` cards or more,
    at least ``shortest`` long."""
    runs = []
    start = 0
    for rank in range(3, ACE + 2):  # rank 15 (the 2) holds no run: it closes the last one
        if rank <= ACE and counts[rank] >= width:
            if not start:
                start = rank
        elif start:
            if rank - start >= shortest:
                runs.append((start, rank - start))
            start = 0
    return runs


def _runs(
    out: list[Combo],
    by_rank: list[list[Card]],
    counts: list[int],
    width: int,
    kind: str,
    chain: int,
    above: int,
) -> None:
    """连对 (``width`` 2) and 连三张 (3): every stretch of 3+ ranks (or exactly ``chain``)."""
    for start, length in _run_starts(counts, width, chain or 3):
        # the run's cards, ``width`` per rank: a stretch of it is then a slice
        flat: list[Card] = []
        for rank in range(start, start + length):
            flat += by_rank[rank][:width]
        for low in range(length - (chain or 3) + 1):
            first_top = start + low + (chain or 3) - 1
            last_top = first_top if chain else start + length - 1
            for top in range(max(first_top, above + 1), last_top + 1):
                end = (top - start + 1) * width
                out.append(Combo(kind, tuple(flat[low * width : end]), top, top - start - low + 1))


def _planes(
    out: list[Combo],
    by_rank: list[list[Card]],
    counts: list[int],
    longest: int,
    chain: int,
    above: int,
) -> None:
    """连三张带连对: N consecutive triples (the key) with N consecutive pairs anywhere in 3..A.

    A rank may give both its triple and a pair when it holds five cards.
    """
    for start, length in _run_starts(counts, 3, chain or 3):
        for size in (chain,) if chain else range(3, min(length, longest) + 1):
            for low in range(start, start + length - size + 1):
                top = low + size - 1
                if top <= above:
                    continue
                # ranks that can give a pair beside these triples
                pairs = [
                    count >= (5 if low <= rank <= top else 2) for rank, count in enumerate(counts)
                ]
                run = 0
                for pair_top in range(3, ACE + 1):
                    run = run + 1 if pairs[pair_top] else 0
                    if run < size:
                        continue
                    cards: list[Card] = []
                    for rank in range(low, top + 1):
                        cards += by_rank[rank][:3]
                    for rank in range(pair_top - size + 1, pair_top + 1):
                        cards += by_rank[rank][3:5] if low <= rank <= top else by_rank[rank][:2]
                    out.append(Combo("plane", tuple(cards), top, size))


def _straights(
    out: list[Combo],
    by_rank: list[list[Card]],
    counts: list[int],
    chain: int,
    above: int,
    plain: bool,
    flush: bool,
) -> None:
    """顺子 (``plain``) and 同花顺 (``flush``).

    On a plain 顺子 every 同花顺 of its length beats, whatever its top; when leading or on a
    同花顺, a 同花顺 must top ``above``. A 顺子 needs two suits among its ranks' cards; a
    stretch whose ranks share a suit makes a 同花顺 (one per stretch: suits aside, two
    同花顺 of the same ranks are the same play).
    """
    flush_above = above if not plain else 0
    flush = flush or (plain and above > 0)
    for start, length in _run_starts(counts, 1, chain or 5):
        # per rank of the run (index 0 is ``start``): a bit per suit held, and one card
        masks = []
        for cards in by_rank[start : start + length]:
            mask = 0
            for card in cards:
                mask |= 1 << (card & 7)
            masks.append(mask)
        firsts = [cards[0] for cards in by_rank[start : start + length]]
        first_suits = [1 << (card & 7) for card in firsts]
        shortest = chain or 5
        for low in range(length - shortest + 1):
            both = 15  # suits every rank so far holds (a suit-less card never counts)
            either = 0  # suits any rank so far holds
            picked = 0  # suits of the first cards
            for high in range(low, low + shortest - 1):  # too few ranks to play yet
                both &= masks[high]
                either |= masks[high]
                picked |= first_suits[high]
            for high in range(low + shortest - 1, low + chain if chain else length):
                both &= masks[high]
                either |= masks[high]
                picked |= first_suits[high]
                top = start + high
                if plain and top > above and (either & (either - 1) or either & _ANY_SUIT_BIT):
                    cards = firsts[low : high + 1]
                    if not picked & (picked - 1):  # the first cards are all of one suit
                        _break_flush(cards, by_rank, start + low, cards[0] & 7)
                    out.append(Combo("straight", tuple(cards), top, high - low + 1))
                if flush and both and top > flush_above:
                    suited = _SUITED[(both & -both).bit_length() - 1][start + low - 3 : top - 2]
                    out.append(Combo("straight_flush", suited, top, high - low + 1))


def _break_flush(cards: list[Card], by_rank: list[list[Card]], low: int, suit: int) -> None:
    """Swap one card of ``cards`` (one per rank from ``low``) for one of another suit."""
    for i, held in enumerate(by_rank[low : low + len(cards)]):
        for card in held:
            if card & 7 != suit:
                cards[i] = card
                return


def _bombs(out: list[Combo], by_rank: list[list[Card]], counts: list[int], above: int) -> None:
    """炸弹 of every size, 三连炸 and 天王炸 with a power above ``above``."""
    # this runs on every answer, and most hands hold no bomb: find the ranks of four first
    fours = (
        [rank for rank, count in enumerate(counts) if count > 3]  # jokers never reach 4
        if max(counts) > 3
        else []
    )
    for rank in fours:
        cards = by_rank[rank]
        for size in range(4, counts[rank] + 1):
            if bomb_power(size, rank) > above:
                out.append(Combo("bomb", tuple(cards[:size]), bomb_power(size, rank)))
    if len(fours) > 2:
        for top in fours:
            if (
                top <= ACE
                and counts[top - 1] > 3
                and counts[top - 2] > 3
                and TRIPLE_BOMB_BASE + top > above
            ):
                cards = by_rank[top - 2][:4] + by_rank[top - 1][:4] + by_rank[top][:4]
                out.append(Combo("triple_bomb", tuple(cards), TRIPLE_BOMB_BASE + top, 3))
    if counts[SMALL_JOKER] == 2 and counts[BIG_JOKER] == 2 and above < JOKER_BOMB_POWER:
        out.append(
            Combo("joker_bomb", tuple(by_rank[SMALL_JOKER] + by_rank[BIG_JOKER]), JOKER_BOMB_POWER)
        )


def take_play(hand: Sequence[Card], wanted: Sequence[Card]) -> list[Card] | None:
    """The cards of ``hand`` that ``wanted`` names (see :func:`take_from`), or None.

    A card typed without a suit never makes a 同花顺 by itself: when the cards taken are all
    of one suit, a suit-less token takes a card of another suit if the hand has one. Only
    when the hand holds nothing else for those ranks are the cards a 同花顺 (as legal_plays
    lists them).
    """
    actual = take_from(hand, wanted)
    if actual is None or len(actual) < 5:
        return actual
    suit = actual[0] & 7
    if suit == NO_SUIT or any(card & 7 != suit for card in actual):
        return actual
    loose = {card.rank for card in wanted if card.is_any_suit}
    if not loose:
        return actual
    remaining = list(hand)
    for card in actual:
        remaining.remove(card)
    for card in remaining:
        if card.rank in loose and card & 7 != suit:
            actual[actual.index(Card(card.rank, SUITS[suit]))] = card
            break
    return actual
