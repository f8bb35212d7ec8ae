"""双扣's game flow, settlement and refusals: one test per rule (rules/shuangkou.md, "A turn",
"End of the game and settlement"), played through the public ``Game`` API."""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest

from bot.game import IllegalPlay, Reason, shuangkou
from bot.game.cards import parse_cards
from bot.game.common import GameOver, Passed, Played, PlayerOut, TrickTaken


def game(*hands: str, leader: int = 0) -> shuangkou.Game:
    return shuangkou.Game([parse_cards(hand) for hand in hands], leader=leader)


def play(g: shuangkou.Game, seat: int, text: str) -> list[object]:
    return list(g.play(seat, parse_cards(text)))


def snapshot(g: shuangkou.Game) -> dict[str, object]:
    return copy.deepcopy(dict(vars(g)))


# ---- turns --------------------------------------------------------------------------------


def test_play_passes_in_seat_order_from_the_leader() -> None:
    g = game("3 9", "4 9", "5 9", "6 9", leader=1)
    assert g.turn == 1 and g.on_table is None
    for seat, card in [(1, "4"), (2, "5"), (3, "6"), (0, "9")]:
        play(g, seat, card)
        assert g.turn == (seat + 1) % 4


def test_the_leader_may_play_any_combination() -> None:
    g = game("3 3 3 4 4 4 5 5 5 6 6 7 7 8 8 9", "4", "5", "6")
    events = play(g, 0, "3 3 3 4 4 4 5 5 5 6 6 7 7 8 8")
    assert isinstance(events[0], Played) and events[0].combo.kind == "plane"
    assert g.on_table is not None and g.on_table.kind == "plane"


def test_a_later_player_beats_the_last_play_or_passes() -> None:
    g = game("3 9", "4 9", "5 9", "6 9")
    play(g, 0, "3")
    assert g.can_pass(1)
    assert g.pass_turn(1) == [Passed(1)]
    play(g, 2, "5")
    assert g.on_table is not None and g.on_table.key == 5 and g.on_table_seat == 2


def test_the_trick_ends_when_every_other_holder_has_passed_and_its_taker_leads() -> None:
    g = game("3 9", "4 9", "5 9", "6 9")
    play(g, 0, "3")
    play(g, 1, "4")
    g.pass_turn(2)
    g.pass_turn(3)
    events = g.pass_turn(0)
    assert events == [Passed(0), TrickTaken(1, 1)]
    assert g.turn == 1 and g.on_table is None


def test_a_pass_does_not_end_the_trick_while_a_holder_has_not_passed() -> None:
    g = game("3 9", "4 9", "5 9", "6 9")
    play(g, 0, "3")
    g.pass_turn(1)
    g.pass_turn(2)
    assert g.turn == 3 and g.on_table is not None


def test_jiefeng_the_partner_leads_after_a_trick_won_with_final_cards() -> None:
    g = game("大王", "3 4", "5 6", "7 8")
    events = play(g, 0, "大王")
    assert PlayerOut(0, 1) in events
    g.pass_turn(1)
    g.pass_turn(2)
    events = g.pass_turn(3)
    assert events[-1] == TrickTaken(0, 2)  # 接风: seat 0 is out, its partner leads
    assert g.turn == 2 and g.on_table is None


def test_a_player_who_is_out_takes_no_more_turns() -> None:
    g = game("3", "4 9", "5 9", "6 9")
    play(g, 0, "3")  # seat 0 is out
    play(g, 1, "4")
    play(g, 2, "5")
    play(g, 3, "6")
    assert g.turn == 1  # seat 0 is skipped
    g.pass_turn(1)
    events = g.pass_turn(2)  # two passes end the trick: seat 0 no longer counts
    assert events[-1] == TrickTaken(3, 3)
    assert g.turn == 3


def test_the_trick_ends_after_the_remaining_holders_pass_when_a_player_goes_out_mid_trick() -> None:
    g = game("3 9", "4", "5 9", "6 9")
    play(g, 0, "3")
    play(g, 1, "4")  # seat 1 goes out with the last play
    g.pass_turn(2)
    g.pass_turn(3)
    events = g.pass_turn(0)
    assert events[-1] == TrickTaken(1, 3)  # 接风 to seat 1's partner
    assert g.turn == 3


def test_legal_plays_of_the_game_are_those_of_the_seat_to_act() -> None:
    g = game("3 9", "4 9", "5 9", "6 9")
    assert {c.key for c in g.legal_plays()} == {3, 9}
    assert g.legal_plays(1) == []


def test_a_dealt_game_gives_27_cards_to_each_and_a_seeded_leader() -> None:
    g = shuangkou.Game.deal(seed=7)
    assert [len(hand) for hand in g.hands] == [27] * 4
    assert g.turn == shuangkou.Game.deal(seed=7).turn
    assert shuangkou.Game.deal(seed=7, leader=2).turn == 2


# ---- settlement ---------------------------------------------------------------------------


def test_shuangkou_double_win_when_partners_go_out_first_and_second() -> None:
    g = game("大王", "3 4", "5", "6 7")
    play(g, 0, "大王")
    g.pass_turn(1)
    g.pass_turn(2)
    g.pass_turn(3)
    events = play(g, 2, "5")  # 接风, then out
    result = g.result
    assert result is not None and g.over and g.turn is None
    assert isinstance(events[-1], GameOver)
    assert result.outcome == "双扣"
    assert result.finish_order == (0, 2)
    assert result.deltas == (4, -4, 4, -4)
    assert result.winners == (0, 2)


def test_danko_single_win_when_the_partner_is_third() -> None:
    g = game("大王", "小王", "3 9", "5 6")
    play(g, 0, "大王")
    g.pass_turn(1)
    g.pass_turn(2)
    g.pass_turn(3)
    play(g, 2, "3")  # 接风 lead
    g.pass_turn(3)
    play(g, 1, "小王")  # seat 1 out, second
    g.pass_turn(2)
    g.pass_turn(3)  # 接风 to seat 3
    play(g, 3, "5")
    play(g, 2, "9")  # seat 2 out, third: seats 0 and 2 are both out
    assert g.result is not None
    assert g.result.outcome == "单扣"
    assert g.result.finish_order == (0, 1, 2)
    assert g.result.deltas == (2, -2, 2, -2)
    assert g.result.winners == (0, 2)


def test_pingko_draw_when_the_other_team_goes_out_second_and_third() -> None:
    g = game("大王", "小王", "3 9", "5")
    play(g, 0, "大王")
    g.pass_turn(1)
    g.pass_turn(2)
    g.pass_turn(3)
    play(g, 2, "3")
    play(g, 3, "5")  # seat 3 out, second
    play(g, 1, "小王")  # seat 1 out, third: seats 1 and 3 are both out
    assert g.result is not None
    assert g.result.outcome == "平扣"
    assert g.result.finish_order == (0, 3, 1)
    assert g.result.deltas == (0, 0, 0, 0)
    assert g.result.winners == ()


def test_the_odd_team_wins_the_same_way() -> None:
    g = game("3 4", "大王", "5 6", "7", leader=1)
    play(g, 1, "大王")
    g.pass_turn(2)
    g.pass_turn(3)
    g.pass_turn(0)
    play(g, 3, "7")
    assert g.result is not None
    assert g.result.outcome == "双扣"
    assert g.result.deltas == (-4, 4, -4, 4)
    assert g.result.winners == (1, 3)


# ---- refusals (IllegalPlay) leave the game as it was ---------------------------------------


def midgame() -> shuangkou.Game:
    """Seat 1 to answer a pair of 5s."""
    g = game("♠5 ♥5 9 J", "♠3 ♥3 ♠4 ♠6 ♠7 ♥8 K", "10 Q", "A 2")
    play(g, 0, "♠5 ♥5")
    return g


REFUSALS: list[tuple[str, Callable[[shuangkou.Game], object], Reason]] = [
    ("not your turn", lambda g: g.play(2, parse_cards("10")), Reason.NOT_YOUR_TURN),
    ("not your turn to pass", lambda g: g.pass_turn(3), Reason.NOT_YOUR_TURN),
    ("no such seat", lambda g: g.play(4, parse_cards("3")), Reason.NO_SUCH_SEAT),
    ("not in hand", lambda g: g.play(1, parse_cards("♣3 ♦3")), Reason.NOT_IN_HAND),
    ("more than held", lambda g: g.play(1, parse_cards("3 3 3")), Reason.NOT_IN_HAND),
    ("not a combination", lambda g: g.play(1, parse_cards("♠3 ♠4")), Reason.NOT_A_COMBINATION),
    ("no cards", lambda g: g.play(1, []), Reason.NOT_A_COMBINATION),
    ("does not beat", lambda g: g.play(1, parse_cards("♠3 ♥3")), Reason.DOES_NOT_BEAT),
    ("another kind", lambda g: g.play(1, parse_cards("K")), Reason.DOES_NOT_BEAT),
]


@pytest.mark.parametrize(("name", "action", "reason"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_a_refused_action_says_why_and_changes_nothing(
    name: str, action: Callable[[shuangkou.Game], object], reason: Reason
) -> None:
    g = midgame()
    before = snapshot(g)
    with pytest.raises(IllegalPlay) as refused:
        action(g)
    assert refused.value.reason == reason
    assert snapshot(g) == before


def test_the_leader_cannot_pass() -> None:
    g = game("3", "4", "5", "6")
    before = snapshot(g)
    assert not g.can_pass(0)
    with pytest.raises(IllegalPlay) as refused:
        g.pass_turn(0)
    assert refused.value.reason == Reason.CANNOT_PASS
    assert snapshot(g) == before


def test_nothing_is_accepted_once_the_game_is_over() -> None:
    g = game("大王", "3 4", "5", "6 7")
    play(g, 0, "大王")
    for seat in (1, 2, 3):
        g.pass_turn(seat)
    play(g, 2, "5")
    assert g.over
    before = snapshot(g)
    for action in (lambda: g.play(1, parse_cards("3")), lambda: g.pass_turn(1)):
        with pytest.raises(IllegalPlay) as refused:
            action()
        assert refused.value.reason == Reason.GAME_OVER
        assert snapshot(g) == before


def test_illegal_play_is_a_value_error_with_its_reason_in_the_message() -> None:
    g = midgame()
    with pytest.raises(ValueError, match="does_not_beat"):
        g.play(1, parse_cards("♠3 ♥3"))


# ---- readings in play ---------------------------------------------------------------------


def test_a_flush_run_answers_a_plain_straight_as_a_straight_flush() -> None:
    g = game("♠10 ♥J ♠Q ♠K ♠A 9", "♥3 ♥4 ♥5 ♥6 ♥7 9", "8", "8")
    play(g, 0, "♠10 ♥J ♠Q ♠K ♠A")
    play(g, 1, "♥3 ♥4 ♥5 ♥6 ♥7")  # lower ranks, but read as 同花顺 it beats
    assert g.on_table is not None and g.on_table.kind == "straight_flush"


def test_leading_takes_the_strongest_reading() -> None:
    g = game("♠3 ♠4 ♠5 ♠6 ♠7 9", "8", "8", "8")
    play(g, 0, "♠3 ♠4 ♠5 ♠6 ♠7")
    assert g.on_table is not None and g.on_table.kind == "straight_flush"


def test_suitless_tokens_take_cards_that_keep_a_straight_plain() -> None:
    g = game("♠3 ♠4 ♠5 ♠6 ♠7 ♥7", "8", "8", "8")
    events = play(g, 0, "3 4 5 6 7")
    played = events[0]
    assert isinstance(played, Played) and played.combo.kind == "straight"
    assert shuangkou.classify(played.combo.cards) == played.combo  # the cards say the same
    assert [str(card) for card in g.hands[0]] == ["♠7"]


def test_suitless_tokens_make_the_straight_flush_the_hand_can_only_make() -> None:
    # the hand has only spades for these ranks: legal_plays lists the 同花顺 alone, and the
    # cards taken for "3 4 5 6 7" are that 同花顺
    g = game("♠3 ♠4 ♠5 ♠6 ♠7 9", "8", "8", "8")
    assert "straight" not in {c.kind for c in g.legal_plays()}
    events = play(g, 0, "3 4 5 6 7")
    played = events[0]
    assert isinstance(played, Played) and played.combo.kind == "straight_flush"


def test_a_suitless_token_takes_a_card_of_its_rank() -> None:
    g = game("♠3 ♥3 ♠9", "8", "8", "8")
    play(g, 0, "3 3")
    assert g.hands[0] == parse_cards("♠9")


# ---- views --------------------------------------------------------------------------------


def test_a_seat_view_shows_its_own_hand_and_only_sizes_of_others() -> None:
    g = midgame()
    view = g.view(1)
    assert view.hand == tuple(g.hands[1])
    assert view.hand_sizes == (2, 7, 2, 2)
    assert view.partners == (3,) and view.opponents == (2, 0)
    assert view.on_table == g.on_table and view.turn == 1
    assert g.view(None).hand == ()


def test_a_desertion_fixes_only_the_deserters_score() -> None:
    """双扣's 逃跑: -20 for each deserter, whenever it happens; the others are scored by the
    game's result (None)."""
    game = shuangkou.Game.deal(seed=7)
    first = shuangkou.desertion_scores(game, 2, [None] * 4, seconds=0.0)
    assert first == (None, None, shuangkou.ESCAPE_PENALTY, None) == (None, None, -20, None)
    second = shuangkou.desertion_scores(game, 1, first, seconds=600.0)
    assert second == (None, -20, -20, None)
