"""The computer player for 绍兴双扣.

It plans the hand as a split into combinations (:mod:`.decompose`), leads the weakest part of
the plan and keeps its control cards, answers opponents with the play that damages the plan
least, lets its partner's winning plays stand, and keeps its bombs until they decide something:
an opponent about to go out, or its own last few plays. Everything it knows comes from the
:class:`SeatView`: its hand, the hand sizes, the table and the public history.
"""

from __future__ import annotations

from bot.game import shuangkou
from bot.game.common import Combo, SeatView
from bot.game.players.base import play_order_key
from bot.game.players.decompose import Part, Plan, counts_of
from bot.game.players.sampling import candidates, pick
from bot.game.players.shuangkou_moves import (
    MARGIN,
    MOVES,
    SK_COMMITTED,
    allowed,
    inputs_of,
    position_of,
    worth_a_look,
)
from bot.game.players.shuangkou_plan import beatable, cards_unseen, part_matches, plan_for
from bot.game.players.trees import TreeModel

#: an opponent with this many cards or fewer may go out soon: stop saving strength
DANGER = 5


class ShuangkouAI:
    """The 双扣 player. Deterministic: its choices follow from the view alone (the seed is
    kept for the factory's one signature). ``moves``: the trees of its learned second look
    (None: the repository's, ``shuangkou_move_model.py``; a model without trees: the heuristic
    alone)."""

    def __init__(self, seed: int = 0, moves: TreeModel | None = None) -> None:
        self.seed = seed
        self.moves = SK_COMMITTED if moves is None else moves

    def choose_reveal(self, view: SeatView) -> bool:
        return False  # 双扣 has no 亮王

    def choose(self, view: SeatView) -> Combo | None:
        choice = self.heuristic_choice(view)
        if not self.moves.trees or not worth_a_look(view, choice):
            return choice
        moves = candidates(view, choice, MOVES)
        if len(moves) < 2:
            return choice
        position = position_of(view, counts_of(view.hand))
        gains = [self.moves.expected_gain(inputs) for inputs in inputs_of(position, moves)]
        return moves[pick(gains, MARGIN)]

    def may_play(self, view: SeatView, move: Combo | None) -> bool:
        """Whether ``move`` is one this player would make here: never over the partner's
        trick without a reason it can state (:func:`.shuangkou_moves.overtake_reason`)."""
        return allowed(position_of(view, counts_of(view.hand)), move)

    def heuristic_choice(self, view: SeatView) -> Combo | None:
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

        weak = [p for p in parts if beatable(p, unseen)]
        strong = [p for p in parts if not beatable(p, unseen)]
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
