"""绍兴双扣's combinations: what cards are (classify) and what beats what. Every legal play of a
hand is :mod:`shuangkou_plays`.

The rules are ``shared/rules/shuangkou.md``. Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.game.cards import BIG_JOKER, SMALL_JOKER, Card
from bot.game.common import Combo

__all__ = [
    "ACE",
    "BOMB_KINDS",
    "JOKER_BOMB_POWER",
    "KINDS",
    "TRIPLE_BOMB_BASE",
    "TWO",
    "beats",
    "bomb_power",
    "classify",
    "classify_all",
]

ACE = 14
TWO = 15

KINDS = (
    "single", "pair", "pair_straight", "triple", "triple_straight", "plane", "straight",
    "straight_flush", "bomb", "triple_bomb", "joker_bomb",
)
BOMB_KINDS = frozenset({"bomb", "triple_bomb", "joker_bomb"})


# Bombs share one ordering key ("power"): 天王炸 > 三连炸 > 8 > 7 > 6 > 5 > 4 cards, then rank.
def bomb_power(size: int, rank: int) -> int:
    return size * 20 + rank


TRIPLE_BOMB_BASE = 200
JOKER_BOMB_POWER = 300


# ---- classification -------------------------------------------------------------------


def classify_all(cards: Sequence[Card]) -> list[Combo]:
    """Every reading of ``cards`` as a combination, strongest first (empty: none).

    Under these rules a selection has at most one useful reading: a flush run reads as 同花顺
    only, which beats everything its plain 顺子 reading could; and a 连三张带连对's triples are
    determined by its rank counts (3×triples + 2×pairs cannot be split two ways, since the
    difference of two splits would need 3x = 2y with x, y in {-1, 0, 1}). The list form lets
    ``Game.play`` pick the reading legal against the table, should a rule ever add another.
    """
    n = len(cards)
    if n == 0:
        return []
    combo_cards = tuple(cards)
    counts: dict[int, int] = {}
    for card in cards:
        rank = card >> 3
        counts[rank] = counts.get(rank, 0) + 1
    ranks = sorted(counts)
    low, high = ranks[0], ranks[-1]
    if n == 1:
        return [Combo("single", combo_cards, low)]
    if len(ranks) == 1:
        return _one_rank(combo_cards, low)
    if n == 4 and counts.get(SMALL_JOKER) == 2 and counts.get(BIG_JOKER) == 2:
        return [Combo("joker_bomb", combo_cards, JOKER_BOMB_POWER)]
    if high > ACE:
        return []
    if high - low + 1 == len(ranks):  # consecutive ranks
        even = _even_run(combo_cards, counts, ranks)
        if even is not None:
            return [even]
    return _plane_readings(combo_cards, counts, n)


def _one_rank(cards: tuple[Card, ...], rank: int) -> list[Combo]:
    """The reading of two or more cards of one rank: a pair, a triple or a bomb."""
    n = len(cards)
    if n == 2:
        return [Combo("pair", cards, rank)]
    if rank >= SMALL_JOKER:
        return []
    if n == 3:
        return [Combo("triple", cards, rank)]
    if 4 <= n <= 8:
        return [Combo("bomb", cards, bomb_power(n, rank))]
    return []


def _even_run(cards: tuple[Card, ...], counts: dict[int, int], ranks: list[int]) -> Combo | None:
    """The reading of consecutive ranks 3..A held the same number of times each, if any."""
    same = counts[ranks[0]]
    if any(counts[rank] != same for rank in ranks):
        return None
    run, high = len(ranks), ranks[-1]
    if same == 1 and run >= 5:
        suits = {card & 7 for card in cards}
        if len(suits) == 1 and next(iter(suits)) < 4:
            return Combo("straight_flush", cards, high, run)
        return Combo("straight", cards, high, run)
    if same == 2 and run >= 3:
        return Combo("pair_straight", cards, high, run)
    if same == 3 and run >= 3:
        return Combo("triple_straight", cards, high, run)
    if same == 4 and run == 3:
        return Combo("triple_bomb", cards, TRIPLE_BOMB_BASE + high, 3)
    return None


def _plane_readings(cards: tuple[Card, ...], counts: dict[int, int], n: int) -> list[Combo]:
    if n % 5 or n < 15:
        return []
    chain = n // 5
    readings = []
    for top in range(ACE, 1 + chain, -1):  # the lowest triples start at 3
        triples = range(top - chain + 1, top + 1)
        if any(counts.get(rank, 0) < 3 for rank in triples):
            continue
        rest = dict(counts)
        for rank in triples:
            rest[rank] -= 3
        pair_ranks = sorted(rank for rank, count in rest.items() if count)
        if (
            len(pair_ranks) == chain
            and all(rest[rank] == 2 for rank in pair_ranks)
            and pair_ranks[-1] - pair_ranks[0] == chain - 1
        ):
            readings.append(Combo("plane", cards, top, chain))
    return readings


def classify(cards: Sequence[Card]) -> Combo | None:
    """The strongest reading of ``cards`` as a combination, or None if it is none."""
    readings = classify_all(cards)
    return readings[0] if readings else None


def beats(new: Combo, old: Combo) -> bool:
    """Whether ``new`` may be played on ``old``. Equal never beats equal."""
    if new.kind in BOMB_KINDS:
        return old.kind not in BOMB_KINDS or new.key > old.key
    if old.kind in BOMB_KINDS:
        return False
    if len(new.cards) != len(old.cards):
        return False
    if new.kind == old.kind:
        return new.key > old.key
    return new.kind == "straight_flush" and old.kind == "straight"
