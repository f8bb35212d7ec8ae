"""The computer player for 通化刨王.

Same skeleton as the 双扣 player (a memoised plan of the hand, weak leads, cheap answers, bombs
kept for when they matter), plus what 刨王 adds: points decide the game, so it fights for
tricks holding 5/10/K, keeps its own point cards out of tricks the other side may take, and
lets a known partner's winning play stand. Teams are secret: it only trusts ``view.partners``
and ``view.opponents`` (what the engine says the seat may know); a seat it cannot place yet is
treated as a likely opponent. Whether to bomb a trick that no ordinary answer takes is
decided by a small model of boosted regression trees, fitted to what the search player's
play-outs say bombing gains (``paowang_bomb_model.py``, made by ``bench/train_bombs.py``); the
hand-written rules it replaced are one of its inputs, and still decide with
``Tuning(learned_bombs=False)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.game import paowang, paowang_combos
from bot.game.cards import BIG_JOKER, SMALL_JOKER
from bot.game.common import Combo, SeatView
from bot.game.players.base import play_order_key, revealed_self
from bot.game.players.decompose import Part, Plan, counts_of, unseen_counts
from bot.game.players.paowang_bombs import BombQuestion, bomb_gain_expected
from bot.game.players.paowang_moves import (
    COMMITTED,
    MARGIN,
    MOVES,
    allowed,
    beatable,
    best_move,
    points_of,
    position_of,
)
from bot.game.players.paowang_plan import ACE, DECK, part_matches, plan_for
from bot.game.players.paowang_reveal import COMMITTED_REVEAL, reveal_features
from bot.game.players.paowang_reveal import MARGIN as REVEAL_MARGIN
from bot.game.players.sampling import candidates
from bot.game.players.trees import TreeModel

POINTS = paowang_combos.POINTS
#: an opponent with this many cards or fewer may go out soon (扛旗, 双飞)
DANGER = 4
#: a trick holding this many points is worth a bomb, when a known opponent takes it (paired
#: matches: 5 gained +0.25 to +0.29 a seat and game over 15; bench/tune.py)
POINTS_WORTH_A_BOMB = 5
#: 亮王 from these plan scores up (see PaowangAI.choose_reveal): with one 大王 about the better
#: 44% of hands reveal, with both about 91%
REVEAL_WITH_PARTNER = -20.0
REVEAL_ALONE = -30.0


@dataclass(frozen=True, slots=True)
class Tuning:
    """The judgement calls of the 刨王 player, in one place: the benchmark tries others
    against these in paired matches (``bench/tune.py``)."""

    #: answer an opponent when the answer costs the plan less than this
    follow_cost: float = -3.0
    #: answer whatever it costs when the trick holds this many points
    follow_points: int = 20
    #: a bomb for a trick holding this many points, taken by a known opponent / anyone else
    bomb_points_foe: int = POINTS_WORTH_A_BOMB
    bomb_points_unknown: int = 35
    #: 亮王 thresholds
    reveal_with_partner: float = REVEAL_WITH_PARTNER
    reveal_alone: float = REVEAL_ALONE
    #: an answer the others can still beat risks its points (× this); a sure one wins them
    risk_weight: float = 0.4
    win_weight: float = 0.3
    #: leading: how much a part's own points hold it back
    lead_points_weight: float = 0.6
    #: take a known opponent's trick with a 三路, the ladder's lowest rung, whatever its
    #: points, when that is the bomb it would spend, to lead next. Off: paired matches
    #: disagree (+0.09 to +0.12 a seat and game on seeds 5, 6 and 8, -0.13 on the
    #: benchmark's seed 0; bench/results/tuning.md)
    sanlu_for_the_lead: bool = False
    #: decide bomb-or-pass by the model fitted to the search player's play-outs
    #: (``paowang_bombs``, ``bench/train_bombs.py``), not by the rules above. Paired
    #: matches: the rules lose -0.068 and -0.229 a seat and game against it (seeds 8 and 9),
    #: and it gains +0.224 among players of the rules (bench/results/tuning.md)
    learned_bombs: bool = True
    #: the trees that answer the bomb question: None for the committed model
    #: (``paowang_bomb_model.py``); the benchmark seats another round's here to compare them
    bomb_model: TreeModel | None = None
    #: score every sensible move by the model fitted to paired play-outs
    #: (``paowang_moves``, ``bench/train_moves.py``) and leave the heuristic's choice for a
    #: move it expects to gain
    learned_moves: bool = True
    #: the trees that score the moves: None for the committed model
    #: (``paowang_move_model.py``); the benchmark seats another round's here to compare them
    move_model: TreeModel | None = None
    #: points a move must be expected to gain over the heuristic's choice to be taken
    move_margin: float = MARGIN
    #: answer 亮王 by the model fitted to paired play-outs of both answers
    #: (``paowang_reveal``, ``bench/train_reveal.py``) when the repository has one
    learned_reveal: bool = True
    #: the trees that answer 亮王: None for the committed model (``paowang_reveal_model.py``)
    reveal_model: TreeModel | None = None


#: cards dealt in all
DEALT = sum(DECK)


def cards_unseen(view: SeatView) -> list[int]:
    """Rank counts of the cards in the other hands, as far as this seat can tell."""
    return unseen_counts(view.hand, view.history, DECK)


def _part_points(part: Part) -> int:
    """The points a part of a plan would put on the table."""
    if part.kind in ("straight", "pair_straight"):
        width = part.size // part.chain
        return width * sum(POINTS[rank] for rank in range(part.key - part.chain + 1, part.key + 1))
    if part.kind == "ladder" and part.key in (ACE, SMALL_JOKER, BIG_JOKER):
        return 0  # 幺 (4s and an A) and jokers hold no points
    return POINTS[part.key] * part.size


def bomb_features(
    view: SeatView, plan: Plan, counts: Sequence[int], unseen: Sequence[int], bomb: Combo,
    bomb_gain: float, revealed: bool,
) -> tuple[float, ...]:
    """The bomb question as numbers, for the learned model: ``paowang_bombs.BOMB_FEATURES``
    but the last, the rules' answer (``model_inputs``)."""
    taker = view.on_table_seat
    assert taker is not None and view.seat is not None
    at_stake = view.trick_points / 10
    foe = float(taker in view.opponents)
    taker_near = float(view.hand_sizes[taker] <= DANGER)
    rest = list(counts)
    for card in bomb.cards:
        rest[card >> 3] -= 1
    weak_after = sum(
        1 for part in plan_for(rest, revealed).parts if not part.bomb and beatable(part, unseen)
    )
    played = 1.0 - sum(view.hand_sizes) / DEALT
    ours = (view.seat, *view.partners)
    points = view.points or (0,) * len(view.hand_sizes)
    shown = view.revealed_jokers[view.seat] if view.revealed_jokers else 0
    alone = float(counts[BIG_JOKER] == 2 or shown == 2)
    return (
        1.0, at_stake, foe, foe * at_stake, taker_near, foe * taker_near,
        bomb.tier / 10, bomb_gain / 10, float(sum(1 for p in plan.parts if p.bomb)),
        sum(1 for p in plan.parts if not p.bomb) / 5,
        float(sum(1 for p in plan.parts if not p.bomb) <= 1),
        len(view.hand) / 10, played, float(revealed), alone,
        sum(points[s] for s in ours) / 100, sum(points[s] for s in view.opponents) / 100,
        float(any(card >> 3 == BIG_JOKER for card in bomb.cards)), weak_after / 5,
        float(view.trick_points == 0), float(bool(view.revealed) and view.revealed[taker]),
        bomb.tier / 10 * played, at_stake * played,
    )


class PaowangAI:
    """The 刨王 player. Deterministic."""

    def __init__(self, seed: int = 0, tuning: Tuning | None = None) -> None:
        self.seed = seed
        self.tuning = tuning or Tuning()

    # -- 亮王 --------------------------------------------------------------------------------

    def choose_reveal(self, view: SeatView) -> bool:
        """亮王: the learned answer (``paowang_reveal``) when the repository has one, else the
        hand-written rule (:meth:`reveal_rule`), which the learned answer also reads."""
        rule = self.reveal_rule(view)
        tuning = self.tuning
        if not tuning.learned_reveal:
            return rule
        model = tuning.reveal_model or COMMITTED_REVEAL
        if not model.trees:
            return rule
        return model.expected_gain(reveal_features(view, rule)) > REVEAL_MARGIN

    def reveal_rule(self, view: SeatView) -> bool:
        """The hand-written rule: reveal with a hand strong enough to expect the win (the
        score doubles either way).

        Revealing also lifts the 大王 up the ladder (row 6 to 12, 双大王 17 to 23) but tells the
        table whom to play against. With one 大王 the threshold is a plan score that about the
        better 44% of such hands reach (measured in simulation). With both, nearly every hand
        reveals (all but the weakest tenth): 双大王 revealed beats all but the top rows of the
        ladder, and in paired matches revealing from -30 gained +0.11 to +0.22 a seat and game
        over the earlier, stricter -10 (``bench/tune.py``).
        """
        counts = counts_of(view.hand)
        score = plan_for(counts, revealed=True).score
        alone = counts[BIG_JOKER] == 2
        tuning = self.tuning
        return score >= (tuning.reveal_alone if alone else tuning.reveal_with_partner)

    # -- plays -------------------------------------------------------------------------------

    def choose(self, view: SeatView) -> Combo | None:
        choice = self.heuristic_choice(view)
        if not self.tuning.learned_moves or view.reveal_pending:
            return choice
        moves = candidates(view, choice, MOVES)
        if len(moves) < 2 or (choice is not None and len(choice.cards) == len(view.hand)):
            return choice
        counts = counts_of(view.hand)
        position = position_of(view, counts, cards_unseen(view), revealed_self(view))
        model = self.tuning.move_model or COMMITTED
        return best_move(position, moves, model, self.tuning.move_margin)

    def may_play(self, view: SeatView, move: Combo | None) -> bool:
        """Whether ``move`` is one this player would make here: never over a known partner's
        trick without a reason it can state (:func:`.paowang_moves.overtake_reason`)."""
        position = position_of(
            view, counts_of(view.hand), cards_unseen(view), revealed_self(view)
        )
        return allowed(position, move)

    def heuristic_choice(self, view: SeatView) -> Combo | None:
        """The hand-written player's move (with its learned bombs): what the learned look
        at every move (:mod:`.paowang_moves`) starts from."""
        answer = self._answer(view)
        if isinstance(answer, BombQuestion):
            return answer.bomb if self._bombs(answer) else None
        return answer

    def bomb_question(self, view: SeatView) -> BombQuestion | None:
        """The bomb-or-pass question this seat faces now, if it faces one (for
        ``bench/train_bombs.py``, which labels such questions to fit the model)."""
        if view.on_table is None or view.reveal_pending:
            return None
        answer = self._answer(view)
        return answer if isinstance(answer, BombQuestion) else None

    def _answer(self, view: SeatView) -> Combo | BombQuestion | None:
        hand = view.hand
        revealed = revealed_self(view)
        options = paowang.legal_plays(hand, view.on_table, revealed=revealed)
        if not options:
            return None
        for combo in options:
            if len(combo.cards) == len(hand):
                return combo
        counts = counts_of(hand)
        plan = plan_for(counts, revealed)
        if view.on_table is None:
            return self._lead(view, plan, options)
        return self._follow(view, plan, counts, options, revealed)

    def _bombs(self, question: BombQuestion) -> bool:
        if self.tuning.learned_bombs:
            return bomb_gain_expected(question.inputs, self.tuning.bomb_model) > 0.0
        return question.rule

    @staticmethod
    def _danger(view: SeatView) -> int:
        """The fewest cards held by a seat that is not a known partner (99: none)."""
        sizes = [
            size for s, size in enumerate(view.hand_sizes)
            if s != view.seat and s not in view.partners and size
        ]
        return min(sizes, default=99)

    def _lead(self, view: SeatView, plan: Plan, options: list[Combo]) -> Combo:
        unseen = cards_unseen(view)
        parts = [p for p in plan.parts if not p.bomb]
        bombs = [p for p in plan.parts if p.bomb]
        danger = self._danger(view)
        hand_points = {part: _part_points(part) for part in parts}
        weak = [p for p in parts if beatable(p, unseen)]
        strong = [p for p in parts if not beatable(p, unseen)]
        choice: Part | None = None
        if len(weak) <= 1 and (strong or bombs):
            # the rest wins its tricks: cash the sure plays first, the weak one goes last
            if strong:
                choice = max(strong, key=lambda p: (hand_points[p], -p.value))
            elif weak and danger > 2:
                choice = weak[0]
            else:
                choice = min(bombs, key=lambda p: p.value)
        elif danger <= 2:
            safe = [p for p in weak if p.size > danger] or strong
            if safe:
                choice = min(safe, key=lambda p: p.value)
        if choice is None and parts:
            # weakest first, points kept back: a led 10 is a 10 the next seat may collect
            weight = self.tuning.lead_points_weight
            choice = min(parts, key=lambda p: p.value - 0.3 * p.size + weight * hand_points[p])
        if choice is None:
            choice = min(bombs, key=lambda p: p.value)
        for combo in options:
            if part_matches(choice, combo):
                return combo
        return min(options, key=play_order_key)  # unreachable for a consistent plan

    def _follow(
        self, view: SeatView, plan: Plan, counts: list[int], options: list[Combo],
        revealed: bool,
    ) -> Combo | BombQuestion | None:
        """An ordinary answer, a pass, or the question whether to bomb (:meth:`_bombs`)."""
        on = view.on_table
        assert on is not None
        taker = view.on_table_seat
        if taker in view.partners:
            return None  # a known partner holds the trick (and its points): let it stand
        known_foe = taker in view.opponents
        danger = self._danger(view)
        taker_left = view.hand_sizes[taker] if taker is not None else 99
        at_stake = view.trick_points
        tuning = self.tuning
        unseen = cards_unseen(view)
        (best, best_gain), (bomb_best, bomb_gain) = _rank_follows(
            options, plan, counts, revealed, at_stake, unseen, tuning
        )
        urgent = taker_left <= DANGER or danger <= 2
        if best is not None and (
            best_gain >= tuning.follow_cost or urgent or at_stake >= tuning.follow_points
        ):
            return best
        if bomb_best is None:
            return None
        if known_foe and bomb_best.tier == 1 and tuning.sanlu_for_the_lead:
            return bomb_best
        spare_bombs = sum(1 for p in plan.parts if p.bomb)
        ordinary_left = sum(1 for p in plan.parts if not p.bomb)
        worth = at_stake >= (tuning.bomb_points_foe if known_foe else tuning.bomb_points_unknown)
        rule = (
            worth
            or (urgent and (known_foe or at_stake >= 10))
            or ordinary_left <= 1
            or (spare_bombs >= 4 and at_stake >= 10)
        )
        features = bomb_features(view, plan, counts, unseen, bomb_best, bomb_gain, revealed)
        return BombQuestion(bomb_best, rule, features)


def _rank_follows(
    options: list[Combo],
    plan: Plan,
    counts: list[int],
    revealed: bool,
    at_stake: int,
    unseen: list[int],
    tuning: Tuning,
) -> tuple[tuple[Combo | None, float], tuple[Combo | None, float]]:
    """((the best ordinary follow, its gain), (the best ladder entry, its gain)): the gain is
    what the play does to the hand's plan, and to the points it risks or wins."""
    best: Combo | None = None
    best_gain = float("-inf")
    bomb_best: Combo | None = None
    bomb_gain = float("-inf")
    for combo in options:
        rest = list(counts)
        for card in combo.cards:
            rest[card >> 3] -= 1
        after = plan_for(rest, revealed)
        gain = after.score - plan.score
        points = points_of(combo.cards)
        if combo.tier:
            gain += 2.0 * max(0, 3 - len(after.parts))
            if gain > bomb_gain:
                bomb_best, bomb_gain = combo, gain
            continue
        # a play that the others can still beat risks its own points and the trick's
        part = Part(0.0, combo.kind, combo.key, combo.chain, len(combo.cards), False)
        if beatable(part, unseen):
            gain -= tuning.risk_weight * points
        else:
            gain += tuning.win_weight * (at_stake + points)
        if gain > best_gain:
            best, best_gain = combo, gain
    return (best, best_gain), (bomb_best, bomb_gain)
