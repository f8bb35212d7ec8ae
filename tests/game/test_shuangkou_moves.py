"""双扣's learned second look: where it is asked, what it reads, and that it takes a move only
for an expected gain."""

from __future__ import annotations

from bot.game.cards import parse_cards
from bot.game.players.decompose import counts_of
from bot.game.players.sampling import candidates
from bot.game.players.shuangkou_ai import ShuangkouAI
from bot.game.players.shuangkou_moves import (
    MOVES,
    NO_LOOK,
    SK_MOVE_FEATURES,
    SK_POSITION_FEATURES,
    inputs_of,
    position_features,
    position_of,
    worth_a_look,
)
from bot.game.players.trees import TreeModel
from tests.game.test_players import game_of


def _constant(gain: float) -> TreeModel:
    return TreeModel(gain, (((-1,), (-2.0,), (-1,), (-1,), (0.0,)),))


def _lead() -> ShuangkouAI:
    return ShuangkouAI(moves=NO_LOOK)


def test_every_move_is_read_as_the_features_name_it() -> None:
    game = game_of("3 3 4 4 5 5 9 J 2 2 大王 K K K K", "3 6 6 9 9 Q", "7 7 8", "8 10 10 A")
    view = game.view(0)
    moves = candidates(view, _lead().heuristic_choice(view), MOVES)
    assert len(moves) > 2
    rows = inputs_of(position_of(view, counts_of(view.hand)), moves)
    assert len(rows) == len(moves) - 1
    assert all(len(row) == len(SK_MOVE_FEATURES) for row in rows)
    leading = SK_MOVE_FEATURES.index("leading")
    bomb = SK_MOVE_FEATURES.index("move bomb")
    assert all(row[leading] == 1.0 for row in rows)
    assert any(row[bomb] == 1.0 for row in rows)  # K K K K is among the moves compared


def test_the_look_takes_another_move_only_for_an_expected_gain() -> None:
    game = game_of("3 3 4 4 5 5 9 J 2 2 大王 K K K K", "3 6 6 9 9 Q", "7 7 8", "8 10 10 A")
    view = game.view(0)
    heuristic = _lead().heuristic_choice(view)
    assert ShuangkouAI(moves=_constant(-1.0)).choose(view) == heuristic
    assert ShuangkouAI(moves=_constant(0.1)).choose(view) == heuristic  # under the margin
    changed = ShuangkouAI(moves=_constant(1.0)).choose(view)
    assert changed is not None and changed != heuristic


def test_the_look_never_plays_over_the_partner_nor_keeps_a_seat_from_going_out() -> None:
    game = game_of("5 9 9 Q Q", "3 4 4 6", "8 K A 2", "6 7 J J")
    game.play(0, parse_cards("5"))
    game.pass_turn(1)
    view = game.view(2)  # the partner's 5 on the table: let it stand, whatever the trees say
    assert not worth_a_look(view, None)
    assert ShuangkouAI(moves=_constant(9.0)).choose(view) is None
    out = game_of("9", "3 4 4 6", "8 K A 2", "6 7 J J").view(0)
    assert ShuangkouAI(moves=_constant(9.0)).choose(out) == _lead().heuristic_choice(out)


def test_a_straight_flush_is_read_as_beyond_a_plain_straight() -> None:
    """Only a higher straight flush beats one without a bomb; a 10-to-A straight does not."""
    game = game_of("3 5 8 8 Q", "♠3 ♠4 ♠5 ♠6 ♠7 9", "10 J Q K A 4", "6 6 9 9", leader=1)
    game.play(1, parse_cards("♠3 ♠4 ♠5 ♠6 ♠7"))
    view = game.view(2)
    assert view.on_table is not None and view.on_table.kind == "straight_flush"
    read = position_features(position_of(view, counts_of(view.hand)))
    assert read[SK_POSITION_FEATURES.index("taker beatable")] == 0.0
