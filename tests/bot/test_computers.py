"""托管 and computer seats play as the AI plays: the same player, the same defaults."""

from __future__ import annotations

from types import SimpleNamespace

from bot.cli.simulate import next_actor
from bot.game import paowang, shuangkou
from bot.game.players import AiPlayer, decide
from bot.game.players.paowang_ai import Tuning
from bot.service.computers import ComputerSeats


def test_a_seat_under_托管_decides_exactly_as_the_ai() -> None:
    seats = ComputerSeats()
    for game in (paowang.Game.deal(7), shuangkou.Game.deal(7)):
        table: object = SimpleNamespace(game_id=1, seed=7, seats=[None] * game.seats)
        players = [seats.player(table, index) for index in range(game.seats)]  # type: ignore[arg-type]
        assert all(isinstance(player, AiPlayer) and player.lookahead for player in players)
        reference = AiPlayer(0)
        decisions = 0
        while not game.over:
            seat = next_actor(game)
            assert seat is not None
            view = game.view(seat)
            if not view.reveal_pending:
                assert players[seat].choose(view) == reference.choose(view)
                decisions += 1
            decide(players[seat], game, seat)
        assert decisions > 20
        seats.forget(table)  # type: ignore[arg-type]


def test_the_computer_seats_use_the_learned_moves() -> None:
    player = ComputerSeats().player(SimpleNamespace(game_id=2, seed=0), 0)  # type: ignore[arg-type]
    assert isinstance(player, AiPlayer)
    assert player._paowang_tuning == Tuning() and Tuning().learned_moves
