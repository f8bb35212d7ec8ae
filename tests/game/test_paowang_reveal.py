"""刨王's 亮王 answer: the deals it is labelled on agree with what the holder knows, and the AI
answers by the learned trees when it has them, by the rule otherwise."""

from __future__ import annotations

import random

import pytest

from bot.game import paowang
from bot.game.cards import BIG_JOKER
from bot.game.players.paowang_ai import PaowangAI, Tuning
from bot.game.players.paowang_reveal import REVEAL_FEATURES, reveal_features
from bot.game.players.sampling import deal_at_reveal
from bot.game.players.trees import TreeModel


def _bigs(hand: object) -> int:
    return sum(1 for card in hand if card.rank == BIG_JOKER)  # type: ignore[attr-defined]


def _holders(game: paowang.Game) -> list[int]:
    return [seat for seat in range(5) if game.big_jokers[seat]]


def _split_deal() -> paowang.Game:
    """The first deal whose two 大王 are in two hands."""
    seed = 0
    while True:
        game = paowang.Game.deal(seed)
        if len(_holders(game)) == 2:
            return game
        seed += 1


def _constant(gain: float) -> TreeModel:
    return TreeModel(gain, (((-1,), (-2.0,), (-1,), (-1,), (0.0,)),))


def test_a_deal_at_the_reveal_keeps_the_hand_and_what_the_holder_knows() -> None:
    game = _split_deal()
    first, second = _holders(game)
    game.reveal(second, True)  # the other holder showed their 大王 to the table
    view = game.view(first)
    rng = random.Random(3)
    for _ in range(30):
        sample = deal_at_reveal(view, game.leader, rng)
        assert sample is not None
        assert sorted(sample.hands[first]) == sorted(view.hand)
        assert [len(hand) for hand in sample.hands] == [len(hand) for hand in game.hands]
        # the shown 大王 stays with the seat that showed it; so the teams are as they are
        assert _bigs(sample.hands[second]) == 1 and sample.revealed[second]
        assert sample.reveal_pending == (first,)
        assert sample.turn is None


def test_before_anyone_reveals_the_other_大王_may_be_anywhere_else() -> None:
    game = _split_deal()
    first, _ = _holders(game)
    view = game.view(first)
    rng = random.Random(4)
    elsewhere = set()
    for _ in range(60):
        sample = deal_at_reveal(view, game.leader, rng)
        assert sample is not None
        others = [seat for seat in range(5) if seat != first and _bigs(sample.hands[seat])]
        assert len(others) == 1  # one 大王 each: the holder has exactly one partner
        elsewhere.add(others[0])
        assert set(sample.reveal_pending) == {first, others[0]}
    assert len(elsewhere) == 4


def test_the_features_read_the_hand() -> None:
    game = _split_deal()
    seat = _holders(game)[0]
    inputs = reveal_features(game.view(seat), rule=True)
    assert len(inputs) == len(REVEAL_FEATURES)
    assert inputs[REVEAL_FEATURES.index("both 大王")] == 0.0
    assert inputs[REVEAL_FEATURES.index("rule says reveal")] == 1.0
    assert inputs[REVEAL_FEATURES.index("others revealed")] == 0.0


@pytest.mark.parametrize("gain", [-1.0, 1.0])
def test_the_ai_answers_by_the_trees_when_it_has_them(gain: float) -> None:
    game = _split_deal()
    view = game.view(_holders(game)[0])
    ai = PaowangAI(tuning=Tuning(reveal_model=_constant(gain)))
    assert ai.choose_reveal(view) is (gain > 0)


def test_without_trees_or_when_told_the_rule_answers() -> None:
    for seed in range(40):
        game = paowang.Game.deal(seed)
        for seat in game.reveal_pending:
            view = game.view(seat)
            rule = PaowangAI(tuning=Tuning(learned_reveal=False)).choose_reveal(view)
            assert rule == PaowangAI().reveal_rule(view)
            empty = PaowangAI(tuning=Tuning(reveal_model=TreeModel(5.0, ())))
            assert empty.choose_reveal(view) == rule
