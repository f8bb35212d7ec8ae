"""Playing a position out many ways: deals that agree with what one seat has seen, and games
played to their end from them. Shared by the AI's look-ahead near the end of a game and by
the benchmark's search player (``bench/search.py``).

A sample is a whole game: the hands as dealt (the seat's own hand and every card played are
known; the unseen cards are shuffled among the other seats by their counts), the leader, who
revealed a 大王 (刨王), and the public history. Replaying the history on it reaches the
position of the decision, in a game the seat could not tell from the real one.
"""

from __future__ import annotations

import copy
import math
import random
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from bot.game import paowang, paowang_combos, shuangkou
from bot.game.cards import BIG_JOKER, SMALL_JOKER, Card, double_deck, double_deck_without_threes
from bot.game.common import Combo, IllegalPlay, SeatView
from bot.game.players.base import Player, legal_options, play_order_key

__all__ = [
    "Sample", "act", "believe", "candidates", "clone", "deal_at_reveal", "determinize", "finish",
    "likelihood", "pick", "replay", "same_play", "z_score",
]

#: a game never lasts longer than this many actions (a guard against a bug)
MAX_ACTIONS = 2_000
#: tries to find a sample that agrees with what the seat knows of 刨王's sides
MAX_REJECTIONS = 200

#: how likely a seat's action is, in a sampled deal, when the policy would have acted otherwise
#: there (of another sort: pass, bomb, or another kind of play); 1 when it agrees
SURPRISE = 0.2
#: bombs in either game: the kinds that beat any ordinary play
_BOMB_KINDS = shuangkou.BOMB_KINDS | paowang_combos.BOMB_KINDS

#: hands as dealt, the leader, who revealed a 大王, the history
Sample = tuple[list[list[Card]], int, tuple[bool, ...], tuple[tuple[int, Combo | None], ...]]


def same_play(a: Combo | None, b: Combo | None) -> bool:
    if a is None or b is None:
        return a is b
    return a.kind == b.kind and sorted(a.cards) == sorted(b.cards)


def candidates(view: SeatView, first: Combo | None, limit: int) -> list[Combo | None]:
    """The moves worth comparing: ``first`` (the AI's own choice), passing when allowed,
    then the lowest and the highest play of each kind and length (the ones in between
    rarely differ but in strength wasted), in play order. At most ``limit``."""
    chosen: list[Combo | None] = [first]
    if view.on_table is not None and first is not None:
        chosen.append(None)
    groups: dict[tuple[str, int], list[Combo]] = {}
    for play in sorted(legal_options(view), key=play_order_key):
        groups.setdefault((play.kind, len(play.cards)), []).append(play)
    spread: list[Combo] = []
    for group in groups.values():
        spread.append(group[0])
        if len(group) > 1:
            spread.append(group[-1])
    spread.sort(key=play_order_key)
    for play in spread:
        if len(chosen) >= limit:
            break
        if not any(same_play(play, other) for other in chosen):
            chosen.append(play)
    return chosen


def pick(gains: Sequence[float | None], margin: float) -> int:
    """Which of the moves :func:`candidates` gave to play, by what a learned look expects
    each to gain over the first: 0 for the heuristic's choice, else 1 + the index in ``gains`` of
    the move expected to gain most, at least ``margin`` (the first of equal gains). None
    marks a move that may not be taken."""
    best, best_gain = 0, margin
    for index, gain in enumerate(gains, start=1):
        if gain is not None and (gain > best_gain or (best == 0 and gain >= margin)):
            best, best_gain = index, gain
    return best


def believe(
    view: SeatView, rng: random.Random, policy: Player, draws: int, surprise: float = SURPRISE
) -> tuple[Sample, Any] | None:
    """A sample drawn as :func:`determinize` draws one, but weighed by how likely the others'
    actions so far were in it: ``draws`` agreeing samples, each weighed by
    :func:`likelihood` under ``policy``, and one of them picked by weight (sampling
    importance resampling). Uniform sampling ignores what a pass or a bomb tells of a hand;
    this does not. None if no agreeing sample was found."""
    found = []
    for _ in range(draws):
        one = determinize(view, rng)
        if one is None:
            break
        found.append(one)
    if not found:
        return None
    assert view.seat is not None
    weights = [likelihood(view.variant, sample, view.seat, policy, surprise) for sample, _ in found]
    return rng.choices(found, weights=weights)[0]


def likelihood(
    variant: str, sample: Sample, seat: int, policy: Player, surprise: float = SURPRISE
) -> float:
    """How likely the other seats' actions of the sample's history are, had ``policy`` acted
    for them with the sample's hands: a factor ``surprise`` for every action (and 刨王's
    亮王 answer) of another sort than the policy's own there, 1 for the others. ``seat``'s
    own actions tell nothing of the hidden hands."""
    weight = 1.0

    def weigh(game: Any, actor: int, action: Combo | bool | None) -> None:
        nonlocal weight
        if actor == seat:
            return
        view = game.view(actor)
        if isinstance(action, bool):
            agrees = policy.choose_reveal(view) == action
        else:
            agrees = _sort(policy.choose(view)) == _sort(action)
        if not agrees:
            weight *= surprise

    replay(variant, sample, weigh)
    return weight


def _sort(play: Combo | None) -> str:
    """What an action says of a hand: a pass, a bomb, or a play of its kind."""
    if play is None:
        return "pass"
    return "bomb" if play.kind in _BOMB_KINDS else play.kind


def determinize(view: SeatView, rng: random.Random) -> tuple[Sample, Any] | None:
    """A sample that agrees with the view, and its game replayed to the view's position;
    None if no agreeing sample was found."""
    assert view.seat is not None
    seats = len(view.hand_sizes)
    played: list[list[Card]] = [[] for _ in range(seats)]
    for seat, combo in view.history:
        if combo is not None:
            played[seat].extend(combo.cards)
    deck = double_deck() if view.variant == "shuangkou" else double_deck_without_threes()
    unseen = Counter(deck)
    unseen.subtract(view.hand)
    for cards in played:
        unseen.subtract(cards)
    pool = sorted(unseen.elements())
    leader = view.history[0][0] if view.history else view.turn
    assert leader is not None
    revealed = tuple(view.revealed) or (False,) * seats
    for _ in range(MAX_REJECTIONS):
        hidden = _deal_hidden(view, pool, played, rng)
        if hidden is None:
            continue
        hands = [
            list(view.hand) + played[seat] if seat == view.seat else hidden[seat] + played[seat]
            for seat in range(seats)
        ]
        if view.variant == "paowang" and not _agrees_with_sides(view, hands):
            continue
        sample: Sample = (hands, leader, revealed, view.history)
        try:
            game = replay(view.variant, sample)
        except IllegalPlay:  # 刨王: with other sides the game was decided before this move
            continue
        if game.over or game.turn != view.seat:
            continue
        return sample, game
    return None


def deal_at_reveal(view: SeatView, leader: int, rng: random.Random) -> paowang.Game | None:
    """刨王 at the 亮王 moment, before any play: a deal that agrees with the seat's hand and
    with what it knows of the sides and of the reveals already made, those reveals made, the
    others (the seat's own included) still to answer; None if no agreeing deal was found."""
    assert view.seat is not None and not view.history
    seats = len(view.hand_sizes)
    unseen = Counter(double_deck_without_threes())
    unseen.subtract(view.hand)
    pool = sorted(unseen.elements())
    nothing_played: list[list[Card]] = [[] for _ in range(seats)]
    for _ in range(MAX_REJECTIONS):
        hidden = _deal_hidden(view, pool, nothing_played, rng)
        if hidden is None:
            continue
        hands = [list(view.hand) if seat == view.seat else hidden[seat] for seat in range(seats)]
        if not _agrees_with_sides(view, hands):
            continue
        game = paowang.Game(hands, leader)
        for seat, shown in enumerate(view.revealed_jokers):
            if shown:
                game.reveal(seat, True)
        return game
    return None


def _deal_hidden(
    view: SeatView, pool: list[Card], played: list[list[Card]], rng: random.Random
) -> list[list[Card]] | None:
    """The unseen cards dealt to the other seats by their counts; in 刨王 a seat that
    revealed gets the 大王 it showed (less those it played)."""
    seats = len(view.hand_sizes)
    hidden: list[list[Card]] = [[] for _ in range(seats)]
    rest = list(pool)
    if view.variant == "paowang" and view.revealed_jokers:
        for seat in range(seats):
            shown = view.revealed_jokers[seat]
            if seat == view.seat or not shown:
                continue
            already = sum(1 for card in played[seat] if card.rank == BIG_JOKER)
            for _ in range(shown - already):
                big = next((card for card in rest if card.rank == BIG_JOKER), None)
                if big is None:
                    return None
                rest.remove(big)
                hidden[seat].append(big)
    rng.shuffle(rest)
    for seat in range(seats):
        if seat == view.seat:
            continue
        need = view.hand_sizes[seat] - len(hidden[seat])
        if need < 0:
            return None
        hidden[seat].extend(rest[:need])
        del rest[:need]
    return hidden if not rest else None


def _agrees_with_sides(view: SeatView, hands: Sequence[Sequence[Card]]) -> bool:
    """刨王: the sample's sides (who holds a 大王) agree with what the seat knows, and each
    seat that revealed holds as many 大王 as it showed."""
    bigs = [sum(1 for card in hand if card.rank == BIG_JOKER) for hand in hands]
    assert view.seat is not None
    mine = bigs[view.seat] > 0
    if any((bigs[p] > 0) != mine for p in view.partners):
        return False
    if any((bigs[o] > 0) == mine for o in view.opponents):
        return False
    for seat, shown in enumerate(view.revealed_jokers):
        if shown and bigs[seat] != shown:
            return False
    # all four jokers in one hand end the game at the deal: that deal is not this game
    smalls = [sum(1 for card in hand if card.rank == SMALL_JOKER) for hand in hands]
    return not any(b == 2 and s == 2 for b, s in zip(bigs, smalls, strict=True))


def replay(
    variant: str, sample: Sample,
    observe: Callable[[Any, int, Combo | bool | None], None] | None = None,
) -> Any:
    """The sampled game, at the moment of the decision. ``observe(game, seat, action)`` sees
    each action (a 亮王 answer, a play, None for a pass) just before it is taken."""
    hands, leader, revealed, history = sample
    game: Any
    if variant == "shuangkou":
        game = shuangkou.Game(hands, leader)
    else:
        game = paowang.Game(hands, leader)
        for seat in game.reveal_pending:
            if observe is not None:
                observe(game, seat, revealed[seat])
            game.reveal(seat, revealed[seat])
    for seat, combo in history:
        if observe is not None:
            observe(game, seat, combo)
        act(game, seat, combo)
    return game


def clone(game: Any) -> Any:
    """A copy of a game to play on: the engines' mutable state is lists (of lists, for the
    hands); everything else in them is immutable."""
    new = copy.copy(game)
    for name, value in vars(game).items():
        if isinstance(value, list):
            setattr(new, name, [v.copy() if isinstance(v, list) else v for v in value])
    return new


def act(game: Any, seat: int, combo: Combo | None) -> None:
    if combo is None:
        game.pass_turn(seat)
    else:
        game.play(seat, combo.cards)


def finish(game: Any, player: Player) -> tuple[int, ...]:
    """Play the game out with ``player`` in every seat; the score change of each seat."""
    for _ in range(MAX_ACTIONS):
        if game.over:
            return tuple(game.result.deltas)
        seat = min(game.to_act)
        view = game.view(seat)
        if view.reveal_pending:
            game.reveal(seat, player.choose_reveal(view))
        else:
            act(game, seat, player.choose(view))
    raise RuntimeError(f"no end after {MAX_ACTIONS} actions")


def z_score(differences: Sequence[float]) -> float:
    """The mean of paired differences over its standard error (inf when they all agree and
    gain; 0 when they are all zero)."""
    mean = statistics.fmean(differences)
    spread = statistics.stdev(differences) if len(differences) > 1 else 0.0
    if spread == 0.0:
        return math.inf if mean > 0 else 0.0
    return mean / (spread / math.sqrt(len(differences)))
