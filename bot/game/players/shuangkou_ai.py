"""The computer player for 绍兴双扣.

It plans the hand as a split into combinations (:mod:`.decompose`), leads the weakest part of
the plan and keeps its control cards, answers opponents with the play that damages the plan
least, lets its partner's winning plays stand, and keeps its bombs until they decide something:
an opponent about to go out, or its own last few plays. Everything it knows comes from the
:class:`SeatView`: its hand, the hand sizes, the table and the public history.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.game import shuangkou
from bot.game.cards import BIG_JOKER, SMALL_JOKER
from bot.game.common import Combo, SeatView
from bot.game.players.base import play_order_key
from bot.game.players.decompose import (
    Decomposer,
    Part,
    Plan,
    counts_of,
    run_beatable,
    unseen_counts,
)

ACE, TWO = 14, 15
#: what one more play to make costs: a plan that needs fewer plays is worth this much more
TURN = 7.0
#: an opponent with this many cards or fewer may go out soon: stop saving strength
DANGER = 5


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


def _beatable(part: Part, unseen: Sequence[int]) -> bool:
    """Whether the unseen cards could beat ``part`` with the same kind (bombs aside)."""
    if part.bomb:
        return False
    width = {"single": 1, "pair": 2, "triple": 3}.get(part.kind)
    if width is not None:
        last = BIG_JOKER if width < 3 else TWO
        return any(unseen[rank] >= width for rank in range(part.key + 1, last + 1))
    width = {"straight": 1, "pair_straight": 2, "triple_straight": 3}.get(part.kind, 3)
    return run_beatable(part, width, unseen, ACE)


class ShuangkouAI:
    """The 双扣 player. Deterministic: its choices follow from the view alone (the seed is
    kept for the factory's one signature)."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def choose_reveal(self, view: SeatView) -> bool:
        return False  # 双扣 has no 亮王

    def choose(self, view: SeatView) -> Combo | None:
        hand = view.hand
        options = shuangkou.legal_plays(hand, view.on_table)
        if not options:
            return None
        for combo in options:
            if len(combo.cards) == len(hand):
                return combo  # out at once: nothing is worth more
        counts = counts_of(hand)
        plan = plan_for(counts)
        if view.on_table is None:
            return self._lead(view, plan, options)
        return self._follow(view, plan, counts, options)

    # -- situation -------------------------------------------------------------------------

    @staticmethod
    def _danger(view: SeatView) -> int:
        """The fewest cards an opponent still in the game holds (99: nobody)."""
        sizes = [view.hand_sizes[s] for s in view.opponents if view.hand_sizes[s]]
        return min(sizes, default=99)

    # -- leading ---------------------------------------------------------------------------

    def _lead(self, view: SeatView, plan: Plan, options: list[Combo]) -> Combo:
        unseen = cards_unseen(view)
        parts = [p for p in plan.parts if not p.bomb]
        bombs = [p for p in plan.parts if p.bomb]
        danger = self._danger(view)
        partner = view.partners[0] if view.partners else None
        partner_left = view.hand_sizes[partner] if partner is not None else 0

        weak = [p for p in parts if _beatable(p, unseen)]
        strong = [p for p in parts if not _beatable(p, unseen)]
        choice: Part | None = None
        if len(weak) <= 1 and (strong or bombs):
            # the rest of the hand takes its tricks: cash the sure plays, keep the weak one last
            choice = min(strong, key=lambda p: p.value) if strong else None
            if choice is None and weak and len(bombs) >= 1 and danger > 2:
                choice = weak[0]  # one weak play and bombs behind it: the bombs win it back
            if choice is None:
                choice = min(bombs, key=lambda p: p.value)
        elif danger <= 2:
            # an opponent may go out on a small play: lead what they cannot answer
            safe = [p for p in weak if p.size > danger] or strong
            if safe:
                choice = min(safe, key=lambda p: p.value)
            elif weak:
                choice = max(weak, key=lambda p: p.value)
        elif 0 < partner_left <= 2 and danger > partner_left:
            # give the partner a cheap play to go out on
            fits = [p for p in parts if p.size == partner_left]
            if fits:
                choice = min(fits, key=lambda p: p.key)
        if choice is None:
            if parts:
                # the weakest part; at equal weakness the one that sheds more cards
                choice = min(parts, key=lambda p: (p.value - 0.3 * p.size))
            else:
                choice = min(bombs, key=lambda p: p.value)
        for combo in options:
            if part_matches(choice, combo):
                return combo
        return min(options, key=play_order_key)  # unreachable for a consistent plan

    # -- following -------------------------------------------------------------------------

    def _follow(
        self, view: SeatView, plan: Plan, counts: list[int], options: list[Combo]
    ) -> Combo | None:
        on = view.on_table
        assert on is not None
        taker = view.on_table_seat
        if taker in view.partners:
            return None  # the partner holds the trick: let it stand
        danger = self._danger(view)
        taker_left = view.hand_sizes[taker] if taker is not None else 99

        best: Combo | None = None
        best_gain = float("-inf")
        bomb_best: Combo | None = None
        bomb_gain = float("-inf")
        for combo in options:
            rest = list(counts)
            for card in combo.cards:
                rest[card >> 3] -= 1
            after = plan_for(rest)
            gain = after.score - plan.score
            if combo.kind in shuangkou.BOMB_KINDS:
                # finishing soon after the bomb is what makes it worth it
                gain += 2.0 * max(0, 3 - len(after.parts))
                if gain > bomb_gain:
                    bomb_best, bomb_gain = combo, gain
            elif gain > best_gain:
                best, best_gain = combo, gain

        urgent = taker_left <= DANGER or danger <= 2
        if best is not None and (best_gain >= -3.0 or urgent):
            return best
        if bomb_best is None:
            return None
        spare_bombs = sum(1 for p in plan.parts if p.bomb)
        ordinary_left = sum(1 for p in plan.parts if not p.bomb)
        if (
            urgent
            or ordinary_left <= 2
            or (on.kind in shuangkou.BOMB_KINDS and ordinary_left <= 3)
            or (len(on.cards) >= 6 and spare_bombs >= 2)
        ):
            return bomb_best
        return None
