"""The AI's look-ahead: samples that agree with what a seat has seen, games played out on
copies, and decisions that stay legal, deterministic and blind to the hidden cards."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.cli.simulate import next_actor
from bot.game import paowang, shuangkou
from bot.game.common import SeatView
from bot.game.players import AiPlayer, decide, legal_options
from bot.game.players.decompose import counts_of
from bot.game.players.lookahead import CARDS_LEFT, best_of, look_ahead, worth_looking
from bot.game.players.sampling import candidates, clone, determinize, finish, same_play
from bot.game.players.shuangkou_ai import ShuangkouAI
from bot.game.players.shuangkou_moves import overtake_reason, position_of


def _position(variant: str, seed: int, steps: int) -> Any:
    """A game of computer players stopped after ``steps`` actions (or at a decision near its
    end, if it ends sooner)."""
    game: Any = shuangkou.Game.deal(seed) if variant == "shuangkou" else paowang.Game.deal(seed)
    players = [AiPlayer(seat, lookahead=False) for seat in range(game.seats)]
    previous = clone(game)
    for _ in range(steps):
        if game.over:
            return previous
        previous = clone(game)
        seat = next_actor(game)
        assert seat is not None
        decide(players[seat], game, seat)
    return game if not game.over else previous


def _public(view: SeatView) -> tuple[Any, ...]:
    return (
        view.hand,
        view.hand_sizes,
        view.turn,
        view.on_table,
        view.history,
        view.finish_order,
        view.partners,
        view.opponents,
        view.points,
        view.revealed,
    )


@settings(max_examples=40, deadline=None)
@given(
    variant=st.sampled_from(["shuangkou", "paowang"]),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 150),
    draw=st.integers(0, 1_000),
)
def test_a_sample_is_a_game_the_seat_cannot_tell_from_the_real_one(
    variant: str, seed: int, steps: int, draw: int
) -> None:
    game = _position(variant, seed, steps)
    if game.over or game.reveal_phase:
        return
    seat = game.turn
    view = game.view(seat)
    found = determinize(view, random.Random(draw))
    assert found is not None
    (hands, _, _, _), position = found
    # the same view: own hand, every count, the history, the table, the known sides
    assert _public(position.view(seat)) == _public(view)
    # every card is somewhere, once: the sample deals exactly the real game's cards
    assert sorted(card for hand in hands for card in hand) == sorted(
        card
        for hand in ([*game.hands[s], *_played(game, s)] for s in range(game.seats))
        for card in hand
    )


def _played(game: Any, seat: int) -> list[Any]:
    return [card for who, combo in game.history if who == seat and combo for card in combo.cards]


def test_playing_on_a_copy_leaves_the_game_as_it_was() -> None:
    game = _position("shuangkou", 3, 40)
    before = (game.view(None), [list(hand) for hand in game.hands], list(game.history))
    copy = clone(game)
    finish(copy, AiPlayer(0, lookahead=False))
    assert copy.over and not game.over
    assert (game.view(None), game.hands, game.history) == before


def test_the_candidates_start_with_the_heuristics_choice_and_are_legal() -> None:
    game = _position("shuangkou", 9, 30)
    view = game.view(game.turn)
    first = AiPlayer(0, lookahead=False).choose(view)
    moves = candidates(view, first, 6)
    assert same_play(moves[0], first)
    assert 1 <= len(moves) <= 6
    legal = legal_options(view)
    for move in moves:
        assert move is None or any(same_play(move, play) for play in legal)
        assert move is not None or view.on_table is not None


def _endgame(seed: int, variant: str = "shuangkou") -> Any:
    """A game of computer players stopped at the first decision the look-ahead takes."""
    game: Any = shuangkou.Game.deal(seed) if variant == "shuangkou" else paowang.Game.deal(seed)
    players = [AiPlayer(seat, lookahead=False) for seat in range(game.seats)]
    while not game.over:
        seat = next_actor(game)
        assert seat is not None
        if worth_looking(game.view(seat)) and len(legal_options(game.view(seat))) > 1:
            return game
        decide(players[seat], game, seat)
    return None


def _first_endgames(variant: str, count: int) -> list[tuple[int, Any]]:
    """The first ``count`` deals that offer the look-ahead a choice near the end (some end
    with more cards than that left: a team out first ends a 双扣 game)."""
    games = ((seed, _endgame(seed, variant)) for seed in range(100))
    reached = list(itertools.islice(((s, g) for s, g in games if g is not None), count))
    assert len(reached) == count, f"too few {variant} deals reach the look-ahead"
    return reached


def _endgames(count: int) -> list[tuple[str, int, Any]]:
    """:func:`_first_endgames` of each game."""
    return [
        (variant, seed, game)
        for variant in ("shuangkou", "paowang")
        for seed, game in _first_endgames(variant, count)
    ]


@pytest.mark.parametrize(("variant", "seed", "game"), _endgames(6))
def test_near_the_end_the_look_ahead_decides_legally_and_the_same_whatever_is_hidden(
    variant: str, seed: int, game: Any
) -> None:
    assert sum(len(hand) for hand in game.hands) <= CARDS_LEFT[variant]
    seat = game.turn
    view = game.view(seat)
    choice = AiPlayer(seat).choose(view)
    legal = legal_options(view)
    assert choice is None or any(same_play(choice, play) for play in legal)
    # the same view on a game whose hidden cards were dealt otherwise: the same decision
    twin = determinize(view, random.Random(seed + 1))
    assert twin is not None
    _, other = twin
    assert other.view(seat) == view
    assert same_play(AiPlayer(seat).choose(other.view(seat)), choice)
    # and again: deterministic
    assert same_play(AiPlayer(seat + 7).choose(view), choice)


def test_early_in_the_game_the_heuristic_decides_alone() -> None:
    game = shuangkou.Game.deal(1)
    view = game.view(game.turn)
    assert not worth_looking(view)
    assert same_play(AiPlayer(0).choose(view), AiPlayer(0, lookahead=False).choose(view))


def test_the_look_ahead_answers_with_one_of_its_candidates() -> None:
    # the first deal that reaches the look-ahead, not a fixed one: whether a deal ends with
    # a team out before the last cards depends on the model of the day
    [(_, game)] = _first_endgames("shuangkou", 1)
    view = game.view(game.turn)
    heuristic = AiPlayer(0, lookahead=False)
    first = heuristic.choose(view)
    chosen = look_ahead(view, first, heuristic)
    assert any(same_play(chosen, move) for move in candidates(view, first, 5))


def test_刨王_looks_ahead_only_near_the_end() -> None:
    early = _position("paowang", 4, 30)
    assert not worth_looking(early.view(early.turn))  # some 70 cards in hand
    [(_, late)] = _first_endgames("paowang", 1)
    assert sum(len(hand) for hand in late.hands) <= CARDS_LEFT["paowang"]


def test_the_look_ahead_never_overtakes_the_partner_without_a_reason() -> None:
    """A play-out that scores an overtaking play higher is no reason a partner could be told
    (deal 20, 73 actions in: a bomb of 10s and an A, which went over the partner's K with the
    partner holding its last card). Only moves with a stated reason are tried."""
    over_partner = unreasoned_free = 0
    for seed in range(60):
        game = shuangkou.Game.deal(seed)
        players = [AiPlayer(seat) for seat in range(4)]
        plain = AiPlayer(lookahead=False)
        while not game.over:
            seat = next_actor(game)
            assert seat is not None
            view = game.view(seat)
            if view.on_table_seat in view.partners and worth_looking(view):
                over_partner += 1
                position = position_of(view, counts_of(view.hand))
                first = ShuangkouAI(seat).choose(view)
                free = look_ahead(view, first, plain)
                if free is not None and overtake_reason(position, free) is None:
                    unreasoned_free += 1
                choice = players[seat].choose(view)
                assert choice is None or overtake_reason(position, choice) is not None
            decide(players[seat], game, seat)
    assert over_partner >= 40
    assert unreasoned_free >= 1, "no position where the limit matters: widen the sweep"


def test_the_look_takes_a_move_for_its_mean_gain_and_with_a_z_rule_only_for_a_sure_one() -> None:
    """Rows are deals, columns moves (the AI's own choice first). At ``sure`` 0 the best mean
    wins, the earliest on a tie, and only if strictly better than the first: the look as it
    was. With a z rule, a gain that one lucky deal makes is not enough."""
    lucky = [[0.0, 0.0, 1.0], [0.0, 0.0, 1.0], [0.0, 0.0, 1.0], [0.0, 12.0, 1.0]]
    assert best_of(lucky, 0.0) == 1  # +3 a deal on average, all of it from one deal
    assert best_of(lucky, 2.0) == 2  # +1 on every deal: sure (z infinite)
    assert best_of(lucky, 1.5) == 2  # the lucky move's z is 1.0 only: 3 / (6 / 2)
    assert best_of(lucky, 1.0) == 1
    assert best_of([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]], 0.0) == 0  # none better: the AI's
    assert best_of([[0.0, 2.0, 2.0], [0.0, 1.0, 1.0]], 0.0) == 1  # a tie: the earliest
    worse_then_better = [[4.0, 0.0], [0.0, 6.0], [0.0, 6.0]]
    assert best_of(worse_then_better, 0.0) == 1 and best_of(worse_then_better, 2.0) == 0


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 5).flatmap(
        lambda moves: st.lists(
            st.lists(st.integers(-12, 12), min_size=moves, max_size=moves),
            min_size=1, max_size=8,
        )
    )
)
def test_without_a_z_rule_the_look_decides_as_it_always_did(scores: list[list[int]]) -> None:
    """The look before its z rule: the best total, the AI's choice (first) or the earliest move
    on a tie."""
    totals = [sum(row[index] for row in scores) for index in range(len(scores[0]))]
    before = max(range(len(totals)), key=lambda index: (totals[index], -index))
    rows = [[float(points) for points in row] for row in scores]
    assert best_of(rows, 0.0) == before


def test_the_look_asks_a_sure_gain_only_when_told() -> None:
    """A position where the plain look leaves the AI's choice: asked for a gain too sure for
    any noisy one, the look keeps the AI's choice."""
    found = _a_position_the_look_changes()
    assert found is not None, "no position where the look leaves the AI's choice"
    view, player, first, plain = found
    assert same_play(look_ahead(view, first, player, sure=0.0), plain)
    # the play-outs' gain here is not alike on every deal, so it is not sure enough
    assert same_play(look_ahead(view, first, player, sure=1e9), first)
    assert look_ahead(view, first, player, samples=0) is first


def _a_position_the_look_changes() -> Any:
    """The first decision of AI games near the end where the plain look leaves the AI's own
    choice: its view, the player, the AI's choice and the look's."""
    for seed in range(6):
        game = paowang.Game.deal(seed)
        players = [AiPlayer(seat, lookahead=False) for seat in range(5)]
        while not game.over:
            seat = next_actor(game)
            assert seat is not None
            view = game.view(seat)
            if worth_looking(view):
                first = players[seat].choose(view)
                plain = look_ahead(view, first, players[seat])
                if not same_play(plain, first):
                    return view, players[seat], first, plain
            decide(players[seat], game, seat)
    return None
