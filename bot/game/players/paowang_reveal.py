"""The 刨王 AI's 亮王 answer, learned: what revealing gains over keeping the 大王 hidden.

Revealing doubles the score whichever side wins and lifts the 大王 up the ladder, but tells the
table whom to play against. The hand-written rule (``PaowangAI.reveal_rule``) reveals from a
plan score. The learned answer reads the hand as :data:`REVEAL_FEATURES` names it (the rule's
own answer among them) and sums boosted regression trees (``paowang_reveal_model.py``, fitted by
``bench/train_reveal.py`` to paired play-outs of both answers on the same deals); it reveals
when they expect revealing to gain more than :data:`MARGIN` points for the seat.
"""

from __future__ import annotations

from bot.game import paowang_combos
from bot.game.cards import BIG_JOKER, SMALL_JOKER
from bot.game.common import SeatView
from bot.game.players.decompose import counts_of, unseen_counts
from bot.game.players.paowang_moves import beatable
from bot.game.players.paowang_plan import ACE, DECK, TWO, plan_for
from bot.game.players.paowang_reveal_model import REVEAL_BASE, REVEAL_TREES
from bot.game.players.trees import TreeModel

#: points revealing must be expected to gain
MARGIN = 0.0

REVEAL_FEATURES = (
    "both 大王", "小王", "plan revealed/10", "plan hidden/10", "plain parts/5", "weak parts/5",
    "bombs", "twos", "aces", "points/10", "others revealed", "rule says reveal",
)

#: the model in the repository (a model without trees leaves the answer to the rule)
COMMITTED_REVEAL = TreeModel(REVEAL_BASE, REVEAL_TREES)


def reveal_features(view: SeatView, rule: bool) -> tuple[float, ...]:
    """The hand at the 亮王 moment as the trees read it (``rule``: the hand-written answer)."""
    counts = counts_of(view.hand)
    plan = plan_for(counts, revealed=True)  # the plan as it would be, the 大王 revealed
    unseen = unseen_counts(view.hand, (), DECK)
    plain = [part for part in plan.parts if not part.bomb]
    points = sum(paowang_combos.POINTS[card >> 3] for card in view.hand)
    others = sum(1 for seat, yes in enumerate(view.revealed) if yes and seat != view.seat)
    return (
        float(counts[BIG_JOKER] == 2), float(counts[SMALL_JOKER]), plan.score / 10,
        plan_for(counts, revealed=False).score / 10, len(plain) / 5,
        sum(1 for part in plain if beatable(part, unseen)) / 5,
        float(sum(1 for part in plan.parts if part.bomb)), float(counts[TWO]),
        float(counts[ACE]), points / 10, float(others), float(rule),
    )
