"""The 刨王 AI's second look at every decision: a learned score for each sensible move.

The heuristic (:mod:`.paowang_ai`) proposes a move. The moves worth comparing with it
(:func:`bot.game.players.sampling.candidates`: passing, the lowest and the highest play of each
kind and length) are then scored by boosted regression trees fitted to paired play-outs: for
each move, what it gains over the heuristic's choice, in points for the seat
(``paowang_move_model.py``, made by ``bench/train_moves.py``, in rounds of expert iteration).
The AI leaves its heuristic's choice only for a move the trees expect to gain at least
:data:`MARGIN`, and over a known partner's trick only for a move with a reason it can state
(:func:`overtake_reason`).

What the trees read is named in :data:`MOVE_FEATURES`: the position (:func:`position_features`),
then the move, then the heuristic's own choice, both as :func:`move_features` reads them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.game import paowang_combos
from bot.game.cards import BIG_JOKER
from bot.game.common import Combo, SeatView
from bot.game.players.base import Overtake, overtake_allowed, seats_to_act
from bot.game.players.decompose import Part, Plan, run_beatable
from bot.game.players.paowang_move_model import MOVE_BASE, MOVE_TREES
from bot.game.players.paowang_plan import ACE, DECK, TWO, part_matches, plan_for
from bot.game.players.sampling import pick
from bot.game.players.trees import TreeModel, paired_inputs

POINTS = paowang_combos.POINTS
SEATS = 5
#: cards dealt in all (刨王: two decks without the 3s)
DEALT = sum(DECK)
#: moves compared with the heuristic's choice (its own choice counted)
MOVES = 8
#: points a move must be expected to gain over the heuristic's choice to be taken
MARGIN = 0.25


POSITION_FEATURES = (
    "leading", "taker partner", "taker foe", "trick points/10", "taker cards/10",
    "cards/10", "plan score/10", "plain parts/5", "bombs held", "share played", "revealed",
    "alone", "our points/100", "their points/100", "danger/10", "foes to act", "unknown to act",
    "partners to act", "partners known", "foes known", "weak parts/5", "taker beatable",
)
#: what each move (and the heuristic's choice) is read as
MOVE_NAMES = (
    "pass", "bomb", "rung/10", "size/10", "rank", "single", "pair", "run", "points/10",
    "plan change/10", "parts after/5", "weak after/5", "beatable", "cards after/10",
    "spends a 大王", "in the plan", "takes points/10",
)
#: what the trees read, in order: the position, the move, the heuristic's choice
MOVE_FEATURES = (
    *POSITION_FEATURES, *(f"move {name}" for name in MOVE_NAMES),
    *(f"choice {name}" for name in MOVE_NAMES),
)


def points_of(cards: Sequence[int]) -> int:
    return sum(POINTS[card >> 3] for card in cards)


def beatable(part: Part, unseen: Sequence[int]) -> bool:
    """Whether the unseen cards could beat ``part`` without a bomb."""
    if part.bomb:
        return False
    if part.kind in ("single", "pair"):
        width = 1 if part.kind == "single" else 2
        return any(unseen[rank] >= width for rank in range(part.key + 1, TWO + 1))
    return run_beatable(part, 1 if part.kind == "straight" else 2, unseen, ACE)


def combo_beatable(combo: Combo, unseen: Sequence[int]) -> bool:
    if combo.tier:
        return False
    return beatable(
        Part(0.0, combo.kind, combo.key, combo.chain, len(combo.cards), False), unseen
    )


@dataclass(frozen=True, slots=True)
class Position:
    """What every move of one decision shares: the hand's plan and what the seat knows."""

    view: SeatView
    plan: Plan
    counts: tuple[int, ...]
    unseen: tuple[int, ...]
    revealed: bool

    def weak_parts(self, plan: Plan) -> int:
        return sum(1 for part in plan.parts if not part.bomb and beatable(part, self.unseen))


def position_features(position: Position) -> tuple[float, ...]:
    view = position.view
    assert view.seat is not None
    taker = view.on_table_seat
    leading = view.on_table is None
    between = seats_to_act(view)
    ours = (view.seat, *view.partners)
    points = view.points or (0,) * SEATS
    shown = view.revealed_jokers[view.seat] if view.revealed_jokers else 0
    others = [
        size for seat, size in enumerate(view.hand_sizes)
        if seat != view.seat and seat not in view.partners and size
    ]
    plan = position.plan
    return (
        float(leading),
        float(taker in view.partners),
        float(taker in view.opponents),
        view.trick_points / 10,
        0.0 if taker is None else view.hand_sizes[taker] / 10,
        len(view.hand) / 10,
        plan.score / 10,
        sum(1 for part in plan.parts if not part.bomb) / 5,
        float(sum(1 for part in plan.parts if part.bomb)),
        1.0 - sum(view.hand_sizes) / DEALT,
        float(position.revealed),
        float(position.counts[BIG_JOKER] == 2 or shown == 2),
        sum(points[seat] for seat in ours) / 100,
        sum(points[seat] for seat in view.opponents) / 100,
        min(others, default=30) / 10,
        float(sum(1 for seat in between if seat in view.opponents)),
        float(sum(1 for seat in between if seat not in view.opponents and seat not in ours)),
        float(sum(1 for seat in between if seat in view.partners)),
        float(len(view.partners)),
        float(len(view.opponents)),
        position.weak_parts(plan) / 5,
        0.0 if view.on_table is None else float(combo_beatable(view.on_table, position.unseen)),
    )


def move_features(position: Position, move: Combo | None) -> tuple[float, ...]:
    view = position.view
    if move is None:
        return (1.0,) + (0.0,) * (len(MOVE_NAMES) - 1)
    rest = list(position.counts)
    for card in move.cards:
        rest[card >> 3] -= 1
    after = plan_for(rest, position.revealed)
    points = points_of(move.cards)
    size = len(move.cards)
    return (
        0.0,
        float(move.tier > 0),
        move.tier / 10,
        size / 10,
        (move.key - 11) / 5,
        float(move.kind == "single"),
        float(move.kind == "pair"),
        float(move.kind in ("straight", "pair_straight")),
        points / 10,
        (after.score - position.plan.score) / 10,
        sum(1 for part in after.parts if not part.bomb) / 5,
        position.weak_parts(after) / 5,
        float(combo_beatable(move, position.unseen)),
        (len(view.hand) - size) / 10,
        float(any(card >> 3 == BIG_JOKER for card in move.cards)),
        float(any(part_matches(part, move) for part in position.plan.parts)),
        (view.trick_points + points) / 10 if view.on_table is not None else points / 10,
    )


def overtake_reason(position: Position, move: Combo) -> Overtake | None:
    """Why playing ``move`` over a known partner's trick helps the side, or None."""
    view = position.view
    if len(move.cards) == len(view.hand):
        return Overtake.GOES_OUT
    on = view.on_table
    assert on is not None
    threatened = any(seat not in view.partners for seat in seats_to_act(view))
    if (
        threatened
        and combo_beatable(on, position.unseen)
        and not combo_beatable(move, position.unseen)
    ):
        return Overtake.GUARDS
    rest = list(position.counts)
    for card in move.cards:
        rest[card >> 3] -= 1
    after = plan_for(rest, position.revealed)
    if position.weak_parts(after) == 0 and not combo_beatable(move, position.unseen):
        return Overtake.RUNS_OUT
    if lead_goes_elsewhere(view):
        return Overtake.KEEPS_LEAD
    return None


def lead_goes_elsewhere(view: SeatView) -> bool:
    """Whether the trick is a known partner's who is out, and, were it to stand, the next seat
    still holding cards after it, which leads then, is neither this seat nor a known partner."""
    taker = view.on_table_seat
    if taker is None or taker not in view.partners or view.hand_sizes[taker]:
        return False
    seats = len(view.hand_sizes)
    # this seat holds cards (it acts), so the search ends at it at the latest
    leader = next(
        seat for step in range(1, seats) if view.hand_sizes[seat := (taker + step) % seats]
    )
    return leader != view.seat and leader not in view.partners


#: the model in the repository (``paowang_move_model.py``)
COMMITTED = TreeModel(MOVE_BASE, MOVE_TREES)


def inputs_of(position: Position, moves: Sequence[Combo | None]) -> list[tuple[float, ...]]:
    """The trees' inputs for each move but the first (the heuristic's choice)."""
    return paired_inputs(position, moves, position_features, move_features)


def position_of(
    view: SeatView, counts: Sequence[int], unseen: Sequence[int], revealed: bool
) -> Position:
    return Position(view, plan_for(counts, revealed), tuple(counts), tuple(unseen), revealed)


def allowed(position: Position, move: Combo | None) -> bool:
    """A move the learned look may take: anything but playing over a known partner's trick
    without a reason."""
    return overtake_allowed(
        position.view, move, lambda combo: overtake_reason(position, combo)
    )


def best_move(
    position: Position, moves: Sequence[Combo | None], model: TreeModel = COMMITTED,
    margin: float = MARGIN,
) -> Combo | None:
    """The heuristic's choice (``moves[0]``), or another move the trees expect to gain at
    least ``margin`` points over it."""
    if len(moves) < 2 or not model.trees:
        return moves[0]
    gains = [
        model.expected_gain(inputs) if allowed(position, move) else None
        for move, inputs in zip(moves[1:], inputs_of(position, moves), strict=True)
    ]
    return moves[pick(gains, margin)]
