"""How the 双扣 player values a hand: its best split into parts (sets, runs, bombs), each worth
what it can win less the turn it costs, and which parts the unseen cards could beat. Shared by
the heuristic (:mod:`.shuangkou_ai`) and its learned second look (:mod:`.shuangkou_moves`).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.game.cards import BIG_JOKER, SMALL_JOKER
from bot.game.common import Combo, SeatView
from bot.game.players.decompose import Decomposer, Part, Plan, run_beatable, unseen_counts

ACE, TWO = 14, 15
#: what one more play to make costs: a plan that needs fewer plays is worth this much more
TURN = 7.0


def _rank_value(key: int) -> float:
    # 3 is -12, J is 0, A is +4.5, 2 is +6, 大王 is +9: how likely the play is to hold a trick
    return 1.5 * (key - 11)


def _bomb_value(size: int, rank: int) -> float:
    return 8.0 + 2.0 * (size - 4) + 0.25 * (rank - 3)


def _set_parts(rank: int, count: int) -> tuple[Part, ...]:
    if count == 1:
        return (Part(_rank_value(rank) - TURN, "single", rank, 1, 1, False),)
    if count == 2:
        return (Part(_rank_value(rank) + 0.5 - TURN, "pair", rank, 1, 2, False),)
    if count == 3:
        return (Part(_rank_value(rank) + 1.5 - TURN, "triple", rank, 1, 3, False),)
    return (Part(_bomb_value(count, rank), "bomb", count * 20 + rank, 1, count, True),)


def _chain_value(kind: str, top: int, length: int) -> float:
    base = _rank_value(top) - TURN
    if kind == "straight":
        return base + 1.0 + 0.5 * (length - 5)
    if kind == "pair_straight":
        return base + 2.0 + 0.5 * (length - 3)
    if kind == "triple_straight":
        return base + 3.0 + (length - 3)
    return 22.0  # triple_bomb: a bomb above every plain bomb


_DECOMPOSER = Decomposer(
    3, ACE,
    (("straight", 1, 5, 12), ("pair_straight", 2, 3, 12), ("triple_straight", 3, 3, 12),
     ("triple_bomb", 4, 3, 3)),
    _set_parts, _chain_value,
)


def forget() -> None:
    """Forget every remembered plan, as after a start (for a benchmark of cold decisions)."""
    _DECOMPOSER.clear()


def plan_for(counts: Sequence[int]) -> Plan:
    """The best split of a hand given as rank counts (indexed by rank)."""
    runs = _DECOMPOSER.best(tuple(counts[3 : ACE + 1]))
    parts = list(runs.parts)
    if counts[TWO]:
        parts += _set_parts(TWO, counts[TWO])
    small, big = counts[SMALL_JOKER], counts[BIG_JOKER]
    if small == 2 and big == 2:
        parts.append(Part(30.0, "joker_bomb", 300, 1, 4, True))
    else:
        for rank, count in ((SMALL_JOKER, small), (BIG_JOKER, big)):
            if count == 2:
                parts.append(Part(_rank_value(rank) + 0.5 - TURN, "pair", rank, 1, 2, False))
            elif count == 1:
                parts.append(Part(_rank_value(rank) - TURN, "single", rank, 1, 1, False))
    return Plan(sum(part.value for part in parts), tuple(parts))


def part_matches(part: Part, combo: Combo) -> bool:
    if len(combo.cards) != part.size:
        return False
    if part.kind == "straight":
        return combo.kind in ("straight", "straight_flush") and combo.key == part.key
    if part.kind == "triple_bomb":
        return combo.kind == "triple_bomb" and combo.key == 200 + part.key
    return combo.kind == part.kind and combo.key == part.key


#: cards per rank in the deck
DECK = tuple([0] * 3 + [8] * 13 + [2, 2])


def cards_unseen(view: SeatView) -> list[int]:
    """Rank counts of the cards in the other hands, as far as this seat can tell."""
    return unseen_counts(view.hand, view.history, DECK)


def beatable(part: Part, unseen: Sequence[int]) -> bool:
    """Whether the unseen cards could beat ``part`` with the same kind (bombs aside)."""
    if part.bomb:
        return False
    width = {"single": 1, "pair": 2, "triple": 3}.get(part.kind)
    if width is not None:
        last = BIG_JOKER if width < 3 else TWO
        return any(unseen[rank] >= width for rank in range(part.key + 1, last + 1))
    width = {"straight": 1, "pair_straight": 2, "triple_straight": 3}.get(part.kind, 3)
    return run_beatable(part, width, unseen, ACE)
