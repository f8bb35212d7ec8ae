"""Samples weighed by what the others' actions say of their hands (``sampling.believe``): the
real deal is as likely as can be under the policy that played it, a surprise costs its
factor, and a weighed sample is still a game the seat cannot tell from the real one."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from bot.cli.simulate import next_actor
from bot.game import paowang, shuangkou
from bot.game.common import Combo, SeatView
from bot.game.players import AiPlayer, decide
from bot.game.players.sampling import SURPRISE, Sample, believe, clone, likelihood


def _played_to(variant: str, seed: int, steps: int) -> Any:
    """A game of the AI without its look-ahead, past 刨王's 亮王 and stopped after ``steps``
    plays or passes, or at its last decision."""
    game: Any = shuangkou.Game.deal(seed) if variant == "shuangkou" else paowang.Game.deal(seed)
    player = AiPlayer(0, lookahead=False)
    while variant == "paowang" and game.reveal_phase:
        seat = next_actor(game)
        decide(player, game, seat)
    for _ in range(steps):
        seat = next_actor(game)
        if seat is None:  # 刨王: all four jokers in one hand end the game at the deal
            break
        view = game.view(seat)
        if not view.reveal_pending and sum(view.hand_sizes) <= 12:
            break
        after = clone(game)
        decide(player, after, seat)
        if after.over:
            break
        game = after
    return game


def _real_sample(game: Any, seat: int) -> Sample:
    """The real game as a sample: the hands as dealt, the leader, the reveals, the history."""
    view = game.view(seat)
    dealt = [
        list(game.hands[s])
        + [card for who, combo in game.history if who == s and combo for card in combo.cards]
        for s in range(game.seats)
    ]
    leader = view.history[0][0] if view.history else view.turn
    revealed = tuple(view.revealed) or (False,) * game.seats
    return dealt, leader, revealed, view.history


@settings(max_examples=25, deadline=None)
@given(
    variant=st.sampled_from(["shuangkou", "paowang"]),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 120),
)
def test_the_real_deal_is_certain_under_the_policy_that_played_it(
    variant: str, seed: int, steps: int
) -> None:
    game = _played_to(variant, seed, steps)
    assume(not game.over)  # 刨王: all four jokers in one hand end the game at the deal
    seat = next_actor(game)
    assert seat is not None
    sample = _real_sample(game, seat)
    assert likelihood(variant, sample, seat, AiPlayer(0, lookahead=False)) == 1.0


class _AlwaysPasses:
    """A policy that passes whenever it may and plays nothing else (leads a single)."""

    def choose(self, view: SeatView) -> Combo | None:
        return None if view.on_table is not None else Combo("single", (view.hand[0],), 0)

    def choose_reveal(self, view: SeatView) -> bool:
        return False


def test_every_action_of_another_sort_than_the_policys_costs_one_surprise() -> None:
    game = _played_to("shuangkou", 7, 60)
    seat = next_actor(game)
    assert seat is not None
    sample = _real_sample(game, seat)
    # the policy passes on every play and leads singles: count the others' leads of another
    # kind and their answers, walking the real game again
    replay = shuangkou.Game(sample[0], sample[1])
    surprises = 0
    for who, combo in sample[3]:
        answering = replay.view(who).on_table is not None
        if who != seat and combo is not None and (answering or combo.kind != "single"):
            surprises += 1
        if combo is None:
            replay.pass_turn(who)
        else:
            replay.play(who, combo.cards)
    assert surprises > 3
    assert likelihood("shuangkou", sample, seat, _AlwaysPasses()) == SURPRISE**surprises


@settings(max_examples=15, deadline=None)
@given(
    variant=st.sampled_from(["shuangkou", "paowang"]),
    seed=st.integers(0, 10_000),
    steps=st.integers(5, 120),
    draw=st.integers(0, 1_000),
)
def test_a_weighed_sample_agrees_with_the_view_and_repeats_for_a_seed(
    variant: str, seed: int, steps: int, draw: int
) -> None:
    game = _played_to(variant, seed, steps)
    assume(not game.over)  # 刨王: all four jokers in one hand end the game at the deal
    seat = next_actor(game)
    assert seat is not None
    view = game.view(seat)
    if view.reveal_pending:
        return
    policy = AiPlayer(0, lookahead=False)
    found = believe(view, random.Random(draw), policy, 4)
    again = believe(view, random.Random(draw), policy, 4)
    assert found is not None and again is not None
    assert found[0] == again[0]
    position = found[1]
    assert position.view(seat).hand == view.hand
    assert position.view(seat).hand_sizes == view.hand_sizes
    assert position.view(seat).history == view.history
