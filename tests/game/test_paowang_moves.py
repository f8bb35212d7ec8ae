"""The 刨王 AI's learned look at every decision: what it reads, and the partner it stays."""

from __future__ import annotations

import dataclasses

from bot.cli.simulate import next_actor
from bot.game import paowang
from bot.game.cards import parse_cards
from bot.game.common import Combo, SeatView
from bot.game.players import AiPlayer, decide
from bot.game.players.base import Overtake, revealed_self
from bot.game.players.decompose import counts_of
from bot.game.players.paowang_ai import PaowangAI, Tuning, cards_unseen
from bot.game.players.paowang_move_model import MOVE_TREES
from bot.game.players.paowang_moves import (
    MOVE_FEATURES,
    MOVES,
    Position,
    allowed,
    best_move,
    inputs_of,
    lead_goes_elsewhere,
    overtake_reason,
    position_of,
)
from bot.game.players.sampling import candidates
from bot.game.players.trees import TreeModel


def game_of(*hands: str, leader: int = 0) -> paowang.Game:
    return paowang.Game([parse_cards(hand) for hand in hands], leader=leader)


def position(view: SeatView) -> Position:
    return position_of(view, counts_of(view.hand), cards_unseen(view), revealed_self(view))


def combo_of(view: SeatView, cards: str) -> Combo:
    wanted = sorted(parse_cards(cards))
    for move in candidates(view, None, 99):
        if move is not None and sorted(move.cards) == wanted:
            return move
    raise AssertionError(f"{cards} is not a candidate")


def partner_leads(lead: str, seat_2: str) -> SeatView:
    """Seats 0 and 2 revealed a 大王 each (partners, both known); seat 0 leads, seat 1
    passes: seat 2's view, over its partner's play."""
    hands = ("大王 K Q 2 7 8 9 J J 4", "5 5 7 8 9 10 J Q K 4", seat_2,
             "5 9 9 10 5 Q 4 6 7 8", "7 8 10 A A 6 6 9 J Q")
    game = game_of(*hands)
    game.reveal(0, True)
    game.reveal(2, True)
    game.play(0, parse_cards(lead))
    game.pass_turn(1)
    view = game.view(2)
    assert view.partners == (0,)
    return view


def test_every_move_is_read_as_the_named_features() -> None:
    view = partner_leads("K", seat_2="大王 2 4 6 7 8 9 J Q 10")
    moves = candidates(view, None, MOVES)
    assert len(moves) > 2
    rows = inputs_of(position(view), moves)
    assert len(rows) == len(moves) - 1
    for row in rows:
        assert len(row) == len(MOVE_FEATURES)
    named = dict(zip(MOVE_FEATURES, rows[0], strict=True))
    assert named["taker partner"] == 1.0 and named["taker foe"] == 0.0
    assert named["trick points/10"] == 1.0  # the K
    assert named["choice pass"] == 1.0  # the first move is the choice: here, passing
    assert named["foes to act"] == 2.0  # seats 3 and 4, both known foes, before seat 0


def test_it_guards_a_partners_trick_that_a_foe_can_still_beat() -> None:
    """The partner's K can fall to an A of seat 3 or 4; a 2 over it cannot fall without a
    bomb: that is a reason to play over the partner (whether it pays, the model says)."""
    view = partner_leads("K", seat_2="大王 2 4 6 7 8 9 J Q 10")
    here = position(view)
    assert overtake_reason(here, combo_of(view, "2")) is Overtake.GUARDS


def test_a_partners_trick_nobody_can_beat_is_left_alone() -> None:
    """Over a partner's 2 (no higher single exists) a bomb buys the side nothing: no reason,
    and the AI, learned look and all, passes."""
    view = partner_leads("2", seat_2="大王 4 6 6 6 7 8 9 J Q")
    here = position(view)
    bomb = combo_of(view, "6 6 6")
    assert overtake_reason(here, bomb) is None and not allowed(here, bomb)
    assert AiPlayer().choose(view) is None


def test_a_seat_that_can_go_out_over_its_partner_does() -> None:
    view = partner_leads("K", seat_2="大王")
    move = combo_of(view, "大王")
    assert overtake_reason(position(view), move) is Overtake.GOES_OUT
    assert AiPlayer().choose(view) == move


def test_the_heuristics_choice_stands_unless_a_move_clears_the_margin() -> None:
    """No trees: the heuristic's choice (here, passing). A model that expects every move to
    gain 1 point takes the first allowed one, never one over the partner without a reason;
    one that expects 0.2 points leaves the choice alone at the margin of 0.25."""
    view = partner_leads("K", seat_2="大王 2 4 6 7 8 9 J Q 10")
    here = position(view)
    moves = candidates(view, None, MOVES)
    assert moves[0] is None and len(moves) > 2
    assert best_move(here, moves, TreeModel(0.0, ())) is None
    taken = best_move(here, moves, _constant(1.0))
    assert taken is next(move for move in moves[1:] if allowed(here, move))
    assert best_move(here, moves, _constant(0.2), margin=0.25) is None


def _constant(gain: float) -> TreeModel:
    """Trees that expect ``gain`` of every move: one leaf."""
    return TreeModel(gain, (((-1,), (-2.0,), (-1,), (-1,), (0.0,)),))


def test_the_ai_never_plays_over_a_known_partner_without_a_reason() -> None:
    over_partners = 0
    for seed in range(12):
        game = paowang.Game.deal(seed)
        players = [AiPlayer(seat) for seat in range(5)]
        while not game.over:
            seat = next_actor(game)
            assert seat is not None
            view = game.view(seat)
            if not view.reveal_pending and view.on_table_seat in view.partners:
                over_partners += 1
                choice = players[seat].choose(view)
                if choice is not None:
                    assert overtake_reason(position(view), choice) is not None
            decide(players[seat], game, seat)
    assert over_partners >= 10


def test_the_learned_look_starts_from_the_heuristics_choice() -> None:
    view = partner_leads("K", seat_2="大王 2 4 6 7 8 9 J Q 10")
    plain = PaowangAI(tuning=Tuning(learned_moves=False))
    assert plain.choose(view) == PaowangAI().heuristic_choice(view)


def test_the_committed_move_model_reads_only_the_named_features() -> None:
    assert MOVE_TREES, "the model file holds no trees: run bench.train_moves fit --write"
    for feature, threshold, left, right, value in MOVE_TREES:
        assert len(feature) == len(threshold) == len(left) == len(right) == len(value)
        for node, index in enumerate(feature):
            if index >= 0:
                assert index < len(MOVE_FEATURES)
                assert node < left[node] < len(feature) and node < right[node] < len(feature)


def test_against_a_foe_with_one_card_it_leads_what_a_single_cannot_answer() -> None:
    """The endgame: seat 1, a known foe, holds one card. A single led now may let it out
    (双飞 and 扛旗 are near); the pair cannot be answered by one card."""
    game = game_of("大王 6 6 9", "K", "大王 J Q K A 2 2", "5 9 10 J", "7 8 10 2", leader=0)
    game.reveal(0, True)
    game.reveal(2, True)
    view = game.view(0)
    assert view.opponents == (1, 3, 4)
    choice = AiPlayer().choose(view)
    assert choice is not None and len(choice.cards) >= 2


def partner_out_view() -> SeatView:
    """Seats 0 and 2 revealed a 大王 each (partners; 1, 3 and 4 known foes). Seat 0 takes a
    trick with its 大王 and goes out on a 9; seat 1 passes: seat 2's view, over the 9 of a
    partner who is out. Were the 9 to stand, seat 1, the next seat holding cards, would lead."""
    hands = ("大王 9", "5 5 7 8 9 10 J Q K 4", "大王 10 4 6 6 7 8 J Q K",
             "5 9 9 10 5 Q 4 6 7 8", "7 8 10 A A 6 6 9 J Q")
    game = game_of(*hands)
    game.reveal(0, True)
    game.reveal(2, True)
    game.play(0, parse_cards("大王"))
    for seat in (1, 2, 3, 4):
        game.pass_turn(seat)
    game.play(0, parse_cards("9"))
    game.pass_turn(1)
    view = game.view(2)
    assert view.partners == (0,) and view.hand_sizes[0] == 0 and view.on_table_seat == 0
    return view


def test_it_may_keep_the_lead_an_out_partners_trick_would_hand_to_a_foe() -> None:
    """Over the 9 of a partner who is out, with a foe to lead if it stands, a 10 (which the
    foes to act can beat: no guard) has a reason; the learned look may take it if it pays."""
    view = partner_out_view()
    ten = combo_of(view, "10")
    here = position(view)
    assert overtake_reason(here, ten) is Overtake.KEEPS_LEAD and allowed(here, ten)


def test_an_out_partners_trick_whose_lead_stays_on_this_side_is_no_reason() -> None:
    """The same trick, but seat 1 is out too: the lead would come to this seat anyway, so the
    10 has no reason; nor when the next seat holding cards is a known partner."""
    view = partner_out_view()
    to_me = dataclasses.replace(view, hand_sizes=(0, 0, *view.hand_sizes[2:]))
    ten = combo_of(view, "10")
    assert overtake_reason(position(to_me), ten) is None and not allowed(position(to_me), ten)
    # nor when the next seat holding cards is a known partner (seat 1 made one, as a seat of
    # the side of three knows two partners once both 大王 are shown)
    partner_next = dataclasses.replace(view, partners=(0, 1), opponents=(3, 4))
    assert not lead_goes_elsewhere(partner_next)
    assert overtake_reason(position(partner_next), ten) is None
