"""Property tests of the 刨王 game: random games from random deals.

Every game ends; the 200 points are always somewhere (collected, in hands, or in the open
trick); results are consistent with the rules' table and sum to zero; refused actions change
nothing; and the group's view never depends on who holds the 大王 before anyone shows one.
"""

from __future__ import annotations

import copy
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.game import IllegalPlay, paowang, paowang_combos
from bot.game.cards import BIG_JOKER, Card, double_deck_without_threes, take_from
from bot.game.common import Combo

GAMES = settings(max_examples=40, deadline=None)
SEEDS = st.integers(0, 2**32)
MAX_ACTIONS = 1000  # a game of 100 cards takes a few hundred actions at most


def snapshot(game: paowang.Game) -> dict[str, object]:
    return copy.deepcopy(dict(vars(game)))


def answer_reveals(game: paowang.Game, rng: random.Random) -> None:
    for seat in game.reveal_pending:
        game.reveal(seat, rng.random() < 0.3)


def points_everywhere(game: paowang.Game) -> int:
    in_hands = sum(paowang_combos.card_points(hand) for hand in game.hands)
    return sum(game.points) + in_hands + game.trick_points


def check_refusals(game: paowang.Game, rng: random.Random) -> None:
    """Try actions the rules refuse; each must raise and leave the game exactly as it was."""
    seat = game.turn
    assert seat is not None
    other = rng.choice([s for s in range(5) if s != seat])
    attempts = [
        lambda: game.play(other, game.hands[other][:1] or [Card(4)]),  # not its turn
        lambda: game.play(seat, [Card(3)]),  # no such card
        lambda: game.reveal(rng.choice(game.other_side), True),  # holds no 大王
        lambda: game.reveal(seat, False) if seat in game.wang_side else game.pass_turn(9),
    ]
    if game.on_table is None:
        attempts.append(lambda: game.pass_turn(seat))
    else:
        # the cheapest play of the same kind as the table, or a single, rarely beats it
        low = game.hands[seat][:1]
        combo = paowang.classify(low, game.revealed[seat])
        if combo is not None and not paowang.beats(combo, game.on_table):
            attempts.append(lambda: game.play(seat, low))
    for attempt in attempts:
        before = snapshot(game)
        try:
            attempt()
        except IllegalPlay:
            pass
        else:
            raise AssertionError("a refused action went through")
        assert snapshot(game) == before


def play_random_game(seed: int) -> paowang.Game:
    rng = random.Random(seed)
    game = paowang.Game.deal(seed)
    if game.over:
        return game
    answer_reveals(game, rng)
    assert points_everywhere(game) == 200
    for actions in range(MAX_ACTIONS):
        if game.over:
            break
        seat = game.turn
        assert seat is not None and game.hands[seat], "the seat to act holds cards"
        plays: list[Combo | None] = list(game.legal_plays())
        assert plays or game.on_table is not None, "a leader always has a play"
        if game.can_pass(seat):
            plays.append(None)
        if actions % 17 == 0:
            check_refusals(game, rng)
        choice = rng.choice(plays)
        if choice is None:
            game.pass_turn(seat)
        else:
            assert paowang.classify(choice.cards, game.revealed[seat]) is not None
            if game.on_table is not None:
                assert paowang.beats(choice, game.on_table)
            game.play(seat, choice.cards)
        assert points_everywhere(game) == 200
    else:
        raise AssertionError("the game did not end")
    return game


def check_result(game: paowang.Game) -> None:
    result = game.result
    assert result is not None
    assert sum(result.deltas) == 0
    if result.instant:
        assert result.outcome == "win" and len(result.winners) == 1
        return
    wang_won = result.winners == game.wang_side
    assert wang_won or result.winners == game.other_side
    losers = game.other_side if wang_won else game.wang_side
    winner_base, loser_base = {
        (2, True): (3, -2), (2, False): (2, -3), (1, True): (8, -2), (1, False): (2, -8),
    }[len(game.wang_side), wang_won]
    for seat in range(5):
        base = winner_base if seat in result.winners else loser_base
        assert result.deltas[seat] == base * result.multiplier
    winners_points = sum(game.points[s] for s in result.winners)
    losers_points = sum(game.points[s] for s in losers)
    assert result.side_points == (winners_points, losers_points)
    snow = {"win": 1, "小雪": 2, "大雪": 4}[result.outcome]
    assert result.multiplier == snow * (2 if result.revealed else 1)
    assert result.revealed == any(game.revealed)
    if result.outcome == "win":
        assert losers_points >= 25
    else:
        assert losers_points == 0 if result.outcome == "大雪" else 0 < losers_points < 25
        assert all(not game.hands[s] for s in result.winners)
    # the side met a winning condition: 140, 扛旗 + 90, or 双飞
    first = result.finish_order[0] if result.finish_order else None
    assert (
        winners_points >= 140
        or (first in result.winners and winners_points >= 90)
        or all(not game.hands[s] for s in result.winners)
    )
    assert result.finish_order == tuple(game.finish_order)


@GAMES
@given(SEEDS)
def test_random_games_end_with_consistent_results(seed: int) -> None:
    game = play_random_game(seed)
    check_result(game)
    assert game.turn is None and game.legal_plays() == []


@settings(max_examples=60, deadline=None)
@given(SEEDS)
def test_the_deal_is_reproducible(seed: int) -> None:
    first, second = paowang.Game.deal(seed), paowang.Game.deal(seed)
    assert first.hands == second.hands and first.leader == second.leader
    assert first.wang_side == second.wang_side
    assert first.view(None) == second.view(None)
    assert sorted(c for hand in first.hands for c in hand) == sorted(double_deck_without_threes())


def _move_big_jokers(game: paowang.Game, rng: random.Random) -> paowang.Game | None:
    """The same deal with the 大王 swapped into other hands for non-jokers (None: no move)."""
    hands = [list(hand) for hand in game.hands]
    for holder in game.wang_side:
        for _ in range(game.big_jokers[holder]):
            target = rng.randrange(5)
            swappable = [c for c in hands[target] if not c.is_joker]
            if target == holder or not swappable:
                continue
            card = rng.choice(swappable)
            hands[holder].remove(Card(BIG_JOKER))
            hands[holder].append(card)
            hands[target].remove(card)
            hands[target].append(Card(BIG_JOKER))
    moved = paowang.Game(hands, game.leader)
    if moved.over or moved.wang_side == game.wang_side:
        return None
    return moved


@settings(max_examples=60, deadline=None)
@given(SEEDS)
def test_the_public_view_does_not_depend_on_who_holds_the_big_jokers(seed: int) -> None:
    rng = random.Random(seed)
    game = paowang.Game.deal(seed)
    if game.over:
        return
    other = _move_big_jokers(game, rng)
    if other is None:
        return
    assert game.view(None) == other.view(None)
    for one in (game, other):
        for seat in one.reveal_pending:
            one.reveal(seat, False)  # declining is private: the group learns nothing
    assert game.view(None) == other.view(None)
    # play on while both games can make the same moves without showing a 大王
    for _ in range(60):
        if game.over or other.over:
            break
        seat = game.turn
        assert seat is not None
        common = [
            play
            for play in game.legal_plays()
            if all(card >> 3 != BIG_JOKER for card in play.cards)
            and take_from(other.hands[seat], play.cards) is not None
        ]
        if common:
            play = rng.choice(common)
            game.play(seat, play.cards)
            other.play(seat, play.cards)
        elif game.can_pass(seat):
            game.pass_turn(seat)
            other.pass_turn(seat)
        else:
            break
        if game.over or other.over:
            break  # the results name the teams
        assert game.view(None) == other.view(None)
