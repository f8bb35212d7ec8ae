"""Property test of the computer player in both games: over random deals and tables of mixed
players, every play the AI makes is one of the legal plays its view allows, and it passes
only when passing is allowed."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.cli.simulate import new_game, next_actor
from bot.game.players import AiPlayer, decide, legal_options, make_player
from bot.game.players.sampling import same_play

KINDS = st.sampled_from(["ai", "random", "greedy"])


@settings(max_examples=30, deadline=None)
@given(
    variant=st.sampled_from(["shuangkou", "paowang"]),
    seed=st.integers(0, 2**31),
    others=st.lists(KINDS, min_size=4, max_size=4),
)
def test_the_ai_only_ever_makes_legal_moves(variant: str, seed: int, others: list[str]) -> None:
    game = new_game(variant, seed)
    ai_seat = seed % game.seats
    kinds = iter(others)
    players = [
        AiPlayer(seat) if seat == ai_seat else make_player(next(kinds), seed=seed + seat)
        for seat in range(game.seats)
    ]
    while not game.over:
        seat = next_actor(game)
        assert seat is not None
        view = game.view(seat)
        if seat == ai_seat and not view.reveal_pending:
            choice = players[seat].choose(view)
            if choice is None:
                assert view.on_table is not None, "the AI passed on its own lead"
            else:
                assert any(same_play(choice, legal) for legal in legal_options(view))
        decide(players[seat], game, seat)  # the engine refuses anything illegal, too
    assert game.result is not None and sum(game.result.deltas) == 0
