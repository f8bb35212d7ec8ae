"""bench.tune's look-ahead budgets: ``25/4`` is the bot's own AI, ``off`` the AI without it."""

from __future__ import annotations

from bench.tune import lookahead_factory
from bot.cli.simulate import next_actor
from bot.game import paowang
from bot.game.players import AiPlayer, decide
from bot.game.players.lookahead import CARDS_LEFT, SAMPLES, worth_looking
from bot.game.players.sampling import same_play


def test_the_bots_budget_decides_as_the_bot_and_off_as_the_ai_without_it() -> None:
    bots_budget = lookahead_factory(f"{CARDS_LEFT['paowang']}/{SAMPLES['paowang']}")
    off = lookahead_factory("off")
    looked = differed = 0
    for seed in range(6):
        game = paowang.Game.deal(seed)
        players = [AiPlayer(seat) for seat in range(5)]
        while not game.over:
            seat = next_actor(game)
            assert seat is not None
            view = game.view(seat)
            if worth_looking(view):
                looked += 1
                choice = players[seat].choose(view)
                assert same_play(bots_budget(seat, 0).choose(view), choice)
                plain = AiPlayer(seat, lookahead=False).choose(view)
                assert same_play(off(seat, 0).choose(view), plain)
                differed += not same_play(plain, choice)
            decide(players[seat], game, seat)
    assert looked >= 20 and differed >= 1
