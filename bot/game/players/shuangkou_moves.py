"""The 双扣 AI's second look at every decision: a learned score for each sensible move.

As in 刨王 (:mod:`.paowang_moves`): the heuristic (:mod:`.shuangkou_ai`) proposes a move, the
moves worth comparing with it (:func:`bot.game.players.sampling.candidates`) are scored by
boosted regression trees fitted to paired play-outs (``shuangkou_move_model.py``, made by
``bench/train_shuangkou.py``), and the AI leaves its heuristic's choice only for a move the
trees expect to gain at least :data:`MARGIN` points. Over the partner's trick it never plays
(the heuristic lets the partner's play stand, and going out is taken before any look): the
learned look is asked only when the trick is an opponent's or the seat leads.

What the trees read is named in :data:`SK_MOVE_FEATURES`: the position, then the move, then the
heuristic's own choice, both read the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.game.common import Combo, SeatView
from bot.game.players.base import Overtake, overtake_allowed, seats_to_act
from bot.game.players.decompose import Part, Plan
from bot.game.players.shuangkou_move_model import SK_MOVE_BASE, SK_MOVE_TREES
from bot.game.players.shuangkou_plan import (
    DECK,
    beatable,
    cards_unseen,
    part_matches,
    plan_for,
)
from bot.game.players.trees import TreeModel, paired_inputs
from bot.game.shuangkou_combos import BOMB_KINDS

#: moves compared with the heuristic's choice (its own choice counted)
MOVES = 8
#: points a move must be expected to gain over the heuristic's choice to be taken
MARGIN = 0.25
#: cards dealt in all (双扣: two full decks)
DEALT = sum(DECK)

SK_POSITION_FEATURES = (
    "leading", "taker foe", "taker cards/10", "cards/10", "partner cards/10",
    "fewest foe cards/10", "most foe cards/10", "plan score/10", "plain parts/5", "bombs held",
    "weak parts/5", "share played", "table size/10", "table is a bomb", "taker beatable",
    "we are out", "they are out",
)
_MOVE_NAMES = (
    "pass", "bomb", "bomb power/100", "size/10", "rank", "single", "pair", "run", "triple",
    "plan change/10", "parts after/5", "weak after/5", "beatable", "cards after/10",
    "in the plan",
)
#: what the trees read, in order: the position, the move, the heuristic's choice
SK_MOVE_FEATURES = (
    *SK_POSITION_FEATURES, *(f"move {name}" for name in _MOVE_NAMES),
    *(f"choice {name}" for name in _MOVE_NAMES),
)


@dataclass(frozen=True, slots=True)
class Position:
    """What every move of one decision shares: the hand's plan and what the seat knows."""

    view: SeatView
    plan: Plan
    counts: tuple[int, ...]
    unseen: tuple[int, ...]

    def weak_parts(self, plan: Plan) -> int:
        return sum(1 for part in plan.parts if not part.bomb and beatable(part, self.unseen))


def position_of(view: SeatView, counts: Sequence[int]) -> Position:
    return Position(view, plan_for(counts), tuple(counts), tuple(cards_unseen(view)))


#: how the plan's reading of strength treats the kinds it does not plan for
_AS_PLANNED = {"plane": "triple_straight"}


def _combo_beatable(combo: Combo, position: Position) -> bool:
    """Whether the unseen cards could beat ``combo`` without a bomb."""
    if combo.kind in BOMB_KINDS or combo.kind == "straight_flush":
        # only a higher straight flush beats one: suits the counts cannot tell, and rare
        return False
    kind = _AS_PLANNED.get(combo.kind, combo.kind)
    part = Part(0.0, kind, combo.key, combo.chain, len(combo.cards), False)
    return beatable(part, position.unseen)


def position_features(position: Position) -> tuple[float, ...]:
    view = position.view
    assert view.seat is not None
    taker = view.on_table_seat
    on = view.on_table
    partner = view.partners[0] if view.partners else None
    foes = [view.hand_sizes[seat] for seat in view.opponents if view.hand_sizes[seat]]
    plan = position.plan
    return (
        float(on is None),
        float(taker in view.opponents),
        0.0 if taker is None else view.hand_sizes[taker] / 10,
        len(view.hand) / 10,
        0.0 if partner is None else view.hand_sizes[partner] / 10,
        min(foes, default=0) / 10,
        max(foes, default=0) / 10,
        plan.score / 10,
        sum(1 for part in plan.parts if not part.bomb) / 5,
        float(sum(1 for part in plan.parts if part.bomb)),
        position.weak_parts(plan) / 5,
        1.0 - sum(view.hand_sizes) / DEALT,
        0.0 if on is None else len(on.cards) / 10,
        float(on is not None and on.kind in BOMB_KINDS),
        0.0 if on is None else float(_combo_beatable(on, position)),
        float(partner is not None and view.hand_sizes[partner] == 0),
        float(sum(1 for seat in view.opponents if view.hand_sizes[seat] == 0)),
    )


def move_features(position: Position, move: Combo | None) -> tuple[float, ...]:
    view = position.view
    if move is None:
        return (1.0,) + (0.0,) * (len(_MOVE_NAMES) - 1)
    rest = list(position.counts)
    for card in move.cards:
        rest[card >> 3] -= 1
    after = plan_for(rest)
    bomb = move.kind in BOMB_KINDS
    return (
        0.0,
        float(bomb),
        move.key / 100 if bomb else 0.0,
        len(move.cards) / 10,
        0.0 if bomb else (move.key - 10) / 5,
        float(move.kind == "single"),
        float(move.kind == "pair"),
        float(move.kind in ("straight", "pair_straight", "triple_straight")),
        float(move.kind == "triple"),
        (after.score - position.plan.score) / 10,
        sum(1 for part in after.parts if not part.bomb) / 5,
        position.weak_parts(after) / 5,
        float(_combo_beatable(move, position)),
        (len(view.hand) - len(move.cards)) / 10,
        float(any(part_matches(part, move) for part in position.plan.parts)),
    )


def inputs_of(position: Position, moves: Sequence[Combo | None]) -> list[tuple[float, ...]]:
    """The trees' inputs for each move but the first (the heuristic's choice)."""
    return paired_inputs(position, moves, position_features, move_features)


def worth_a_look(view: SeatView, choice: Combo | None) -> bool:
    """Whether the learned look is asked: not over the partner's trick, not when the
    heuristic's choice goes out."""
    if view.on_table is not None and view.on_table_seat in view.partners:
        return False
    return not (choice is not None and len(choice.cards) == len(view.hand))


def overtake_reason(position: Position, move: Combo) -> Overtake | None:
    """Why playing ``move`` over the partner's trick helps the side, or None: the reasons
    of 刨王's AI (:func:`bot.game.players.paowang_moves.overtake_reason`)."""
    view = position.view
    if len(move.cards) == len(view.hand):
        return Overtake.GOES_OUT
    on = view.on_table
    assert on is not None
    unbeatable = not _combo_beatable(move, position)
    threatened = any(seat not in view.partners for seat in seats_to_act(view))
    if threatened and unbeatable and _combo_beatable(on, position):
        return Overtake.GUARDS
    rest = list(position.counts)
    for card in move.cards:
        rest[card >> 3] -= 1
    if unbeatable and position.weak_parts(plan_for(rest)) == 0:
        return Overtake.RUNS_OUT
    return None


def allowed(position: Position, move: Combo | None) -> bool:
    """A move the AI may make: anything but playing over the partner's trick without a
    reason (:func:`overtake_reason`)."""
    return overtake_allowed(
        position.view, move, lambda combo: overtake_reason(position, combo)
    )


#: the model in the repository (``shuangkou_move_model.py``)
SK_COMMITTED = TreeModel(SK_MOVE_BASE, SK_MOVE_TREES)
#: no look: the heuristic alone
NO_LOOK = TreeModel(0.0, ())
