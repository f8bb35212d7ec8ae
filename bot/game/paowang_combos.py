"""通化刨王's combinations: what a set of cards is, what beats what, and every legal play.

The rules are ``shared/rules/paowang.md``. Suits never matter in 刨王, so a combination is
decided by its rank counts alone and each multiset of ranks reads as at most one combination.

Ordinary combinations (``Combo.tier == 0``) are ``single``, ``pair``, ``straight`` and
``pair_straight``; everything else is one ``ladder`` (bombs) of 27 rows, ``Combo.tier`` being
the row number of the rules' table. ``Combo.key`` is the rank within the kind: the rank of a
single, pair or N路, the top rank of a run; for the rows that are not N路 (幺 and jokers) it is
the same for every combination of the row (A for 幺, the highest joker otherwise), so that
comparing ``(tier, key)`` orders the whole ladder and equal entries never beat each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from bot.game.cards import BIG_JOKER, SMALL_JOKER, Card
from bot.game.common import Combo

__all__ = [
    "BOMB_KINDS",
    "KINDS",
    "LADDER_ROWS",
    "POINTS",
    "beats",
    "card_points",
    "classify",
    "legal_plays",
]

FOUR = 4
ACE = 14
TWO = 15

KINDS = ("single", "pair", "straight", "pair_straight", "ladder")
#: the kinds that are bombs (the whole ladder)
BOMB_KINDS = frozenset({"ladder"})
#: The ladder's rows are numbered 1 (三路, the lowest) to LADDER_ROWS (双大王 已亮 + 双小王), as
#: in the rules' table; ``Combo.tier`` is that number. Their names are the bot's
#: (bot/presentation/names.py).
LADDER_ROWS = 27

# N of a rank (三路..八路) -> row. Index = N; rows of N < 3 do not exist.
_ROAD_TIER = (0, 0, 0, 1, 3, 5, 7, 11, 13)
# 幺: k fours and one A -> row. Index = k (2..8).
_YAO_TIER = (0, 0, 4, 9, 15, 19, 21, 24, 26)
# Joker entries: (big jokers, small jokers, revealed) -> row. A player who revealed plays the
# 已亮 rows with every entry holding a 大王; entries of 小王 alone are the same either way.
_JOKER_TIER: dict[tuple[int, int, bool], int] = {}
for _revealed in (False, True):
    _JOKER_TIER[0, 1, _revealed] = 2
    _JOKER_TIER[0, 2, _revealed] = 8
_JOKER_TIER.update(
    {
        (1, 0, False): 6,
        (1, 1, False): 10,
        (1, 2, False): 14,
        (2, 0, False): 17,
        (2, 1, False): 20,
        (2, 2, False): 22,
        (1, 0, True): 12,
        (1, 1, True): 16,
        (1, 2, True): 18,
        (2, 0, True): 23,
        (2, 1, True): 25,
        (2, 2, True): 27,
    }
)
#: the lowest row that beats a 双顺 (四路)
PAIR_STRAIGHT_BREAKER = 3

#: points per rank: each 5 is 5, each 10 and K is 10 (200 in the 100-card deck)
POINTS = (0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 10, 0, 0, 10, 0, 0, 0, 0)


def card_points(cards: Sequence[Card]) -> int:
    """The points in ``cards``."""
    return sum(POINTS[card >> 3] for card in cards)




# ---- classification -------------------------------------------------------------------


def classify(cards: Sequence[Card], revealed: bool = False) -> Combo | None:
    """What ``cards`` are as a combination of 刨王, or None if they are none.

    ``revealed`` says whether the player playing them has revealed (亮王): it moves the entries
    holding a 大王 to their 已亮 rows. Cards may be typed without a suit: only ranks count.
    """
    n = len(cards)
    if n == 1:
        # Game.play classifies every play and most plays are singles: read them without
        # counting ranks.
        rank = cards[0] >> 3
        if FOUR <= rank <= TWO:
            return Combo("single", (cards[0],), rank)
        if rank == SMALL_JOKER:
            return Combo("ladder", (cards[0],), SMALL_JOKER, 1, _JOKER_TIER[0, 1, bool(revealed)])
        if rank == BIG_JOKER:
            return Combo("ladder", (cards[0],), BIG_JOKER, 1, _JOKER_TIER[1, 0, bool(revealed)])
        return None
    if not n:
        return None
    counts: dict[int, int] = {}
    for card in cards:
        rank = card >> 3
        counts[rank] = counts.get(rank, 0) + 1
    combo_cards = tuple(cards)
    big = counts.get(BIG_JOKER, 0)
    small = counts.get(SMALL_JOKER, 0)
    if big or small:
        if big + small != n:  # jokers only combine with jokers
            return None
        tier = _JOKER_TIER.get((big, small, bool(revealed)))
        if tier is None:
            return None
        return Combo("ladder", combo_cards, BIG_JOKER if big else SMALL_JOKER, 1, tier)
    if len(counts) == 1:
        rank = cards[0] >> 3
        if rank < FOUR:  # no 3s in 刨王's deck
            return None
        if n == 2:
            return Combo("pair", combo_cards, rank)
        if n <= 8:
            return Combo("ladder", combo_cards, rank, 1, _ROAD_TIER[n])
        return None
    if len(counts) == 2 and counts.get(ACE) == 1 and FOUR in counts:
        fours = counts[FOUR]  # 小幺 has two, 老老幺 ×8 eight
        return Combo("ladder", combo_cards, ACE, 1, _YAO_TIER[fours]) if 2 <= fours <= 8 else None
    return _run(combo_cards, counts)


def _run(cards: tuple[Card, ...], counts: dict[int, int]) -> Combo | None:
    """A 顺子 or 连对 of three ranks or more among 4..A, or None."""
    low = min(counts)
    high = max(counts)
    run = len(counts)
    if run < 3 or high > ACE or low < FOUR or high - low + 1 != run:
        return None
    n = len(cards)
    if n == run:
        return Combo("straight", cards, high, run)
    if n == 2 * run and all(count == 2 for count in counts.values()):
        return Combo("pair_straight", cards, high, run)
    return None


def beats(new: Combo, old: Combo) -> bool:
    """Whether ``new`` may be played on ``old``.

    The ladder beats every ordinary combination, but a 双顺 only from 四路 (row 3) up; higher
    rows beat lower ones and within a row of N路 the higher rank wins. Ordinary combinations
    beat their own kind and length by a higher (top) rank, and 骑牌: a 双顺 beats a 单顺 of as
    many ranks with a lower top rank. Equal never beats equal.
    """
    if new.tier:
        if old.tier:
            return new.tier > old.tier or (new.tier == old.tier and new.key > old.key)
        return old.kind != "pair_straight" or new.tier >= PAIR_STRAIGHT_BREAKER
    if old.tier:
        return False
    if new.chain != old.chain or new.key <= old.key:
        return False
    return new.kind == old.kind or (new.kind == "pair_straight" and old.kind == "straight")


# ---- legal plays ------------------------------------------------------------------------

# Speed matters here (computer players and the hand keyboard ask for every position, and the
# random-game benchmark asks at every turn), so the generators work on rank buckets built once,
# take cards by slicing, build each Combo with one positional call, and skip a whole family
# of plays where there can be none (runs without three ranks in a row, N路 above 八路).
# Nothing is remembered between calls. The order of the plays is part of the behaviour (seeded
# random players pick by index): every generator keeps it.

# Ladder rows by the number of cards of one rank: for a row t on the table, the fewest cards
# of a rank that make an N路 on a strictly higher row (9: none can) ...
_ROAD_ABOVE = tuple(next((n for n in range(3, 9) if _ROAD_TIER[n] > t), 9) for t in range(28))
# ... and the N of row t when row t is an N路 (0 otherwise): N cards of a rank above the
# table's rank make an entry on the same row that beats it.
_ROAD_AT = tuple(_ROAD_TIER.index(t) if t in _ROAD_TIER[3:] else 0 for t in range(28))
# Joker entries a hand can make, by (大王 held, 小王 held, revealed), each capped at two:
# (大王 used, 小王 used, row, key) in the order the plays are listed (fewer 大王 first).
_JOKER_PLAYS: dict[tuple[int, int, bool], tuple[tuple[int, int, int, int], ...]] = {
    (bigs, smalls, revealed): tuple(
        (b, s, _JOKER_TIER[b, s, revealed], BIG_JOKER if b else SMALL_JOKER)
        for b in range(bigs + 1)
        for s in range(smalls + 1)
        if b or s
    )
    for bigs in range(3)
    for smalls in range(3)
    for revealed in (False, True)
}


def legal_plays(hand: Sequence[Card], on: Combo | None, revealed: bool = False) -> list[Combo]:
    """Every distinct play from ``hand`` that may be made on ``on`` (None: leading).

    Suits never matter in 刨王, so plays that differ only in suits count once; each play takes
    the lowest cards (by suit) of its ranks. ``revealed``: the player has revealed (亮王).
    """
    # one bucket per rank (0..17) as a literal: a comprehension costs twice as much
    # fmt: off
    by_rank: list[list[Card]] = [[], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [],
                                 [], []]
    # fmt: on
    for card in hand:
        by_rank[card >> 3].append(card)
    out: list[Combo] = []
    if on is None:
        _sets(out, by_rank, 0, 0)
        _runs(out, by_rank, 0, 0, 0)
        _ladder(out, by_rank, revealed, 0, 0)
        return out
    kind = on.kind
    if kind == "ladder":
        _ladder(out, by_rank, revealed, on.tier, on.key)
        return out
    if kind == "single":
        _singles(out, by_rank, on.key)
    elif kind == "pair":
        _sets(out, by_rank, 2, on.key)
    elif kind == "straight":
        _runs(out, by_rank, 0, on.chain, on.key)  # 单顺 and, as 骑牌, 双顺
    elif kind == "pair_straight":
        _runs(out, by_rank, 2, on.chain, on.key)
        _ladder(out, by_rank, revealed, PAIR_STRAIGHT_BREAKER - 1, BIG_JOKER)
        return out
    _ladder(out, by_rank, revealed, 0, 0)
    return out


def _singles(out: list[Combo], by_rank: list[list[Card]], above: int) -> None:
    """Singles of ranks above ``above``: the most frequent answer, so a loop of its own."""
    append = out.append
    for rank in range(max(FOUR, above + 1), TWO + 1):
        cards = by_rank[rank]
        if cards:
            append(Combo("single", (cards[0],), rank))


def _sets(out: list[Combo], by_rank: list[list[Card]], size: int, above: int) -> None:
    """Singles (size 1), pairs (2), or both (0) of ranks above ``above``."""
    append = out.append
    for rank in range(max(FOUR, above + 1), TWO + 1):
        cards = by_rank[rank]
        if not cards:
            continue
        if size != 2:
            append(Combo("single", (cards[0],), rank))
        if size != 1 and len(cards) > 1:
            append(Combo("pair", (cards[0], cards[1]), rank))


# the slots of a rank without two cards in _runs' flat tuple of pairs
_NO_PAIR = (None, None)


def _runs(
    out: list[Combo], by_rank: list[list[Card]], width: int, exact_chain: int, above: int
) -> None:
    """单顺 (width 1), 双顺 (2) or both (0), of ``exact_chain`` ranks (0: any) topping above."""
    present = 0  # bit r-4: the rank has a card; bit r-4 of doubled: it has two
    doubled = 0
    bit = 1
    for rank in range(FOUR, ACE + 1):
        count = len(by_rank[rank])
        if count:
            present |= bit
            if count > 1:
                doubled |= bit
        bit <<= 1
    # Every run holds three consecutive ranks (m & m>>1 & m>>2 has a bit set), which most
    # hands late in a game lack: then the flat tuples below are not even built.
    # One flat tuple per width holds the cards each rank gives a run (None where it has too
    # few), so that every run's cards are a single slice; the None slots are never sliced, as
    # a run covers only ranks whose mask bit is set.
    if width != 2 and present & (present >> 1) & (present >> 2):
        flat = cast(
            "tuple[Card, ...]",
            tuple([cards[0] if cards else None for cards in by_rank[FOUR : ACE + 1]]),
        )
        _emit_runs(out, flat, present, 1, "straight", exact_chain, above)
    if width != 1 and doubled & (doubled >> 1) & (doubled >> 2):
        pairs: list[Card | None] = []
        for cards in by_rank[FOUR : ACE + 1]:
            pairs += cards[:2] if len(cards) > 1 else _NO_PAIR
        flat = cast("tuple[Card, ...]", tuple(pairs))
        _emit_runs(out, flat, doubled, 2, "pair_straight", exact_chain, above)


def _emit_runs(
    out: list[Combo],
    flat: tuple[Card, ...],
    mask: int,
    width: int,
    kind: str,
    exact_chain: int,
    above: int,
) -> None:
    """Append the runs of ``kind`` whose ranks are all set in ``mask`` (bit 0: rank 4)."""
    append = out.append
    if exact_chain:
        chain = exact_chain
        want = (1 << chain) - 1
        # tops run from the lowest top above ``above`` to A
        for start in range(max(0, above - FOUR - chain + 2), ACE - FOUR - chain + 2):
            if (mask >> start) & want == want:
                top = start + chain - 1
                append(Combo(kind, flat[start * width : (top + 1) * width], top + FOUR, chain))
        return
    start = 0
    while mask:
        if not mask & 1:
            # skip to the next present rank
            low = (mask & -mask).bit_length() - 1
            mask >>= low
            start += low
            continue
        # the stretch of consecutive ranks from ``start``: the trailing ones of the mask
        # (adding 1 carries through them to the first clear bit)
        length = ((mask + 1) & -(mask + 1)).bit_length() - 1
        end = start + length
        for first in range(start, end - 2):
            cut = first * width
            for top in range(first + 2, end):
                append(Combo(kind, flat[cut : (top + 1) * width], top + FOUR, top - first + 1))
        mask >>= length
        start = end


def _ladder(
    out: list[Combo], by_rank: list[list[Card]], revealed: bool, tier: int, key: int
) -> None:
    """Every ladder entry of the hand strictly above row ``tier`` with key ``key``."""
    append = out.append
    # N路: N cards of a rank beat the table from ``above`` cards on, or from ``at`` cards on
    # for the ranks above the table's own N路.
    above = _ROAD_ABOVE[tier]
    at = _ROAD_AT[tier] or above
    # From 八路 up no N路 can answer: skip the ranks. (A C-level max over the bucket sizes as
    # a quick exit below that was tried: it costs more than this loop, which mostly skips.)
    if at <= 8:
        for rank in range(FOUR, TWO + 1):
            cards = by_rank[rank]
            count = len(cards)
            if count < at:
                continue
            # (min: hand-made hands may hold more than the deck's eight of a rank)
            for n in range(at if rank > key else above, min(count, 8) + 1):
                append(Combo("ladder", tuple(cards[:n]), rank, 1, _ROAD_TIER[n]))
    fours = by_rank[FOUR]
    if len(fours) > 1 and by_rank[ACE]:
        ace = (by_rank[ACE][0],)
        for n in range(2, min(len(fours), 8) + 1):
            row = _YAO_TIER[n]
            if row > tier or (row == tier and key < ACE):
                append(Combo("ladder", (*fours[:n], *ace), ACE, 1, row))
    smalls = by_rank[SMALL_JOKER]
    bigs = by_rank[BIG_JOKER]
    if smalls or bigs:
        for b, s, row, joker_key in _JOKER_PLAYS[
            min(len(bigs), 2), min(len(smalls), 2), bool(revealed)
        ]:
            if row > tier or (row == tier and joker_key > key):
                append(Combo("ladder", (*bigs[:b], *smalls[:s]), joker_key, 1, row))
