"""How the 刨王 player values a hand: its best split into parts (sets, runs, the ladder's
bombs, 幺 and jokers) with a value for each, and which play a part is."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from itertools import product

from bot.game.cards import BIG_JOKER, SMALL_JOKER
from bot.game.common import Combo
from bot.game.players.decompose import Decomposer, Part, Plan

__all__ = ["ACE", "DECK", "FOUR", "TURN", "TWO", "forget", "part_matches", "plan_for"]

FOUR, ACE, TWO = 4, 14, 15
#: cards per rank in the deck (two decks without the 3s)
DECK = tuple([0] * 4 + [8] * 12 + [2, 2])
TURN = 7.0
#: the ladder rows of N of a rank, and of k fours with an A (幺), as in the rules' table
ROAD_TIER = (0, 0, 0, 1, 3, 5, 7, 11, 13)
YAO_TIER = (0, 0, 4, 9, 15, 19, 21, 24, 26)


def _rank_value(key: int) -> float:
    # 4 is -10.5, J is 0, A is +4.5, 2 is +6
    return 1.5 * (key - 11)


def _ladder_value(tier: int, key: int) -> float:
    # No turn cost: a bomb usually wins its trick and the lead back. 三路 of 4s is -1.8,
    # a lone 大王 (row 6) +5.5, 双大王 (row 17) +18.7.
    return 1.2 * tier + 0.1 * (key - FOUR) - 3.0


def _set_parts(rank: int, count: int) -> tuple[Part, ...]:
    if count == 1:
        return (Part(_rank_value(rank) - TURN, "single", rank, 1, 1, False),)
    if count == 2:
        return (Part(_rank_value(rank) + 0.5 - TURN, "pair", rank, 1, 2, False),)
    tier = ROAD_TIER[min(count, 8)]
    return (Part(_ladder_value(tier, rank), "ladder", rank, tier, count, True),)


def _chain_value(kind: str, top: int, length: int) -> float:
    if kind == "straight":
        return _rank_value(top) + 0.5 * (length - 3) - TURN
    return _rank_value(top) + 2.0 + 0.5 * (length - 3) - TURN


_DECOMPOSER = Decomposer(
    FOUR, ACE, (("straight", 1, 3, 11), ("pair_straight", 2, 3, 11)), _set_parts, _chain_value
)

# For ladder parts, Part.chain carries the row (tier): parts are matched to plays by it.


@cache
def _joker_parts(big: int, small: int, revealed: bool) -> tuple[Part, ...]:
    """The best grouping of the jokers into ladder entries: all together, one by one, or between.

    At most four jokers: every way of labelling them into groups is tried, once per hand shape.
    """
    jokers = [BIG_JOKER] * big + [SMALL_JOKER] * small
    best: tuple[float, tuple[Part, ...]] | None = None
    for labels in product(range(len(jokers)), repeat=len(jokers)):
        groups: dict[int, list[int]] = {}
        for joker, label in zip(jokers, labels, strict=True):
            groups.setdefault(label, []).append(joker)
        parts = []
        for group in groups.values():
            b = group.count(BIG_JOKER)
            key = BIG_JOKER if b else SMALL_JOKER
            tier = _joker_tier(b, len(group) - b, revealed)
            parts.append(Part(_ladder_value(tier, key), "ladder", key, tier, len(group), True))
        value = sum(part.value for part in parts)
        if best is None or value > best[0]:
            best = (value, tuple(parts))
    return best[1] if best is not None else ()


def _joker_tier(big: int, small: int, revealed: bool) -> int:
    if not big:
        return 2 if small == 1 else 8
    table = {(1, 0): (6, 12), (1, 1): (10, 16), (1, 2): (14, 18),
             (2, 0): (17, 23), (2, 1): (20, 25), (2, 2): (22, 27)}
    return table[big, small][int(revealed)]


#: whole-hand plans remembered, the least recently asked forgotten first (measured: about 800
#: bytes a plan over 20,000 random hands, so 40 MB at most)
PLANS_REMEMBERED = 50_000


def plan_for(counts: Sequence[int], revealed: bool = False) -> Plan:
    """The best split of a 刨王 hand given as rank counts."""
    return remembered_plan(tuple(counts), revealed)


def forget() -> None:
    """Forget every remembered plan, as after a start (for a benchmark of cold decisions)."""
    remembered_plan.cache_clear()
    _DECOMPOSER.clear()
    _joker_parts.cache_clear()


# The AI asks again and again for the same hands (every answer it weighs is the hand less
# that answer, at every trick): three asks in four repeat one already answered.
@lru_cache(maxsize=PLANS_REMEMBERED)
def remembered_plan(counts: tuple[int, ...], revealed: bool) -> Plan:
    fours, aces = counts[FOUR], counts[ACE]
    options = [0]
    if aces and fours >= 2:
        options += range(2, fours + 1)  # a 幺: some of the 4s with one A
    best: Plan | None = None
    for k in options:
        runs = list(counts[FOUR : ACE + 1])
        parts: list[Part] = []
        if k:
            runs[0] -= k
            runs[-1] -= 1
            tier = YAO_TIER[min(k, 8)]
            parts.append(Part(_ladder_value(tier, ACE), "ladder", ACE, tier, k + 1, True))
        plan = _DECOMPOSER.best(tuple(runs))
        score = plan.score + sum(part.value for part in parts)
        if best is None or score > best.score:
            best = Plan(score, (*parts, *plan.parts))
    assert best is not None  # options always holds 0: no 幺
    parts = list(best.parts)
    if counts[TWO]:
        parts += _set_parts(TWO, counts[TWO])
    if counts[BIG_JOKER] or counts[SMALL_JOKER]:
        parts += _joker_parts(counts[BIG_JOKER], counts[SMALL_JOKER], revealed)
    return Plan(sum(part.value for part in parts), tuple(parts))


def part_matches(part: Part, combo: Combo) -> bool:
    if len(combo.cards) != part.size or combo.kind != part.kind:
        return False
    if part.kind == "ladder":
        return combo.tier == part.chain and combo.key == part.key
    return combo.key == part.key
