"""刨王's game, rule by rule: the deal and the ♥5 leader, 亮王, tricks and points, each way to
win, the snow cases, every settlement row with and without a reveal, 逃跑, and what each seat
may know. Positions are hand-made so that each test shows one rule at work.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable

import pytest

from bot.game import IllegalPlay, Reason, paowang, paowang_scoring
from bot.game.cards import Card, double_deck_without_threes
from bot.game.cards import parse_cards as cards
from bot.game.common import (
    Combo,
    Event,
    GameOver,
    Passed,
    Played,
    PlayerOut,
    PointsTaken,
    RevealDeclined,
    Revealed,
    TrickTaken,
)

Game = paowang.Game


def new_game(texts: list[str], leader: int, reveal: dict[int, bool] | None = None) -> Game:
    """A game from hand texts; every 大王 holder answers 亮王 (no, unless ``reveal`` says)."""
    game = Game([cards(text) if text else [] for text in texts], leader)
    for seat in game.reveal_pending:
        game.reveal(seat, (reveal or {}).get(seat, False))
    return game


def play(game: Game, seat: int, text: str) -> list[Event]:
    return game.play(seat, cards(text))


def pass_round(game: Game) -> list[Event]:
    """Everybody passes until the trick is taken."""
    events: list[Event] = []
    while game.on_table is not None and not game.over:
        assert game.turn is not None
        events += game.pass_turn(game.turn)
    return events


def snapshot(game: Game) -> dict[str, object]:
    return copy.deepcopy(dict(vars(game)))


def last_play(game: Game) -> Combo:
    combo = game.history[-1][1]
    assert combo is not None
    return combo


# ---- the deal ---------------------------------------------------------------------------


def _shuffled(seed: int) -> list[Card]:
    deck = double_deck_without_threes()
    random.Random(seed).shuffle(deck)
    return deck


@pytest.mark.parametrize("seed", range(8))
def test_deal_gives_20_each_in_order_from_the_seat_after_the_dealer(seed: int) -> None:
    game = Game.deal(seed)
    deck = _shuffled(seed)
    assert [len(hand) for hand in game.hands] == [20] * 5
    assert sorted(card for hand in game.hands for card in hand) == sorted(deck)
    for seat in range(5):
        assert game.hands[seat] == sorted(deck[i] for i in range(100) if (1 + i) % 5 == seat)


@pytest.mark.parametrize("seed", range(20))
def test_the_first_heart_five_dealt_leads(seed: int) -> None:
    game = Game.deal(seed)
    first = _shuffled(seed).index(Card(5, "♥"))
    assert game.leader == (1 + first) % 5
    assert Card(5, "♥") in game.hands[game.leader]
    assert Game.deal(seed, leader=3).leader == 3  # a later game: the bot names the leader


def test_the_deal_is_reproducible_from_its_seed() -> None:
    assert Game.deal(42).hands == Game.deal(42).hands
    assert Game.deal("table-7").hands == Game.deal("table-7").hands
    assert Game.deal(42).hands != Game.deal(43).hands


def test_given_hands_need_five_seats_and_a_leader_with_cards() -> None:
    with pytest.raises(ValueError):
        Game([cards("4")] * 4, 0)
    with pytest.raises(ValueError):
        Game([[], cards("4"), cards("5"), cards("6"), cards("7")], 0)
    with pytest.raises(ValueError):
        Game([cards("大王 大王 大王"), [], [], [], []], 0)


# ---- all four jokers ----------------------------------------------------------------------


def test_four_jokers_in_one_hand_win_at_once() -> None:
    game = Game(
        [cards("4 5"), cards("6 7"), cards("大王 大王 小王 小王 8"), cards("9"), cards("10")], 0
    )
    assert game.over and game.turn is None
    assert game.reveal_pending == () and not game.view(2).reveal_phase
    result = game.result
    assert result is not None
    assert (result.outcome, result.instant, result.multiplier) == ("win", True, 1)
    assert result.how == "four_jokers"
    assert result.winners == (2,)
    assert result.deltas == (-2, -2, 8, -2, -2)
    with pytest.raises(IllegalPlay) as refused:
        game.reveal(2, True)
    assert refused.value.reason is Reason.GAME_OVER


def test_a_dealt_four_joker_hand_wins_at_once() -> None:
    seed = next(
        s for s in range(5000)
        if any(
            sum(1 for card in hand if card.is_joker) == 4
            for hand in (_shuffled(s)[i::5] for i in range(5))
        )
    )
    game = Game.deal(seed)
    holder = next(s for s in range(5) if sum(c.is_joker for c in game.hands[s]) == 4)
    assert game.result is not None and game.result.instant
    assert game.result.deltas == tuple(8 if s == holder else -2 for s in range(5))


# ---- 亮王 ----------------------------------------------------------------------------------

HANDS = ["4 5 6 大王", "7 8 9", "10 J Q 大王", "K A 2", "5 6 7"]


def test_the_reveal_phase_holds_play_until_every_holder_answers() -> None:
    game = Game([cards(text) for text in HANDS], 1)
    assert game.turn is None and game.reveal_pending == (0, 2)
    assert game.view(None).reveal_phase and game.view(0).reveal_pending
    assert not game.view(1).reveal_pending
    with pytest.raises(IllegalPlay) as refused:
        play(game, 1, "7")
    assert refused.value.reason is Reason.REVEAL_PENDING
    with pytest.raises(IllegalPlay) as refused:
        game.pass_turn(1)
    assert refused.value.reason is Reason.REVEAL_PENDING
    assert game.reveal(2, True) == [Revealed(2, 1)]
    assert game.turn is None and game.reveal_pending == (0,)
    assert game.reveal(0, False) == [RevealDeclined(0)]
    assert game.turn == 1 and game.reveal_pending == ()
    assert game.revealed == [False, False, True, False, False]
    assert not game.view(None).reveal_phase
    assert game.view(None).revealed_jokers == (0, 0, 1, 0, 0)


def test_reveal_errors() -> None:
    game = Game([cards(text) for text in HANDS], 1)
    with pytest.raises(IllegalPlay) as refused:
        game.reveal(1, True)
    assert refused.value.reason is Reason.NO_BIG_JOKER
    with pytest.raises(IllegalPlay) as refused:
        game.reveal(7, True)
    assert refused.value.reason is Reason.NO_SUCH_SEAT
    game.reveal(0, False)
    with pytest.raises(IllegalPlay) as refused:
        game.reveal(0, True)  # answering twice
    assert refused.value.reason is Reason.NOT_REVEALING
    game.reveal(2, False)
    with pytest.raises(IllegalPlay) as refused:
        game.reveal(2, True)  # after the phase
    assert refused.value.reason is Reason.NOT_REVEALING


def test_a_holder_of_both_reveals_both() -> None:
    game = Game([cards("大王 大王 4"), cards("5"), cards("6"), cards("7"), cards("8")], 0)
    assert game.reveal_pending == (0,)
    assert game.reveal(0, True) == [Revealed(0, 2)]
    assert game.turn == 0
    assert game.legal_plays()[-1].tier == 23  # 双大王 (已亮)


def test_revealing_strengthens_the_revealers_big_joker() -> None:
    game = new_game(["大王 4", "小王 小王 5", "大王 6", "7", "8"], 0, reveal={0: True})
    play(game, 0, "大王")
    assert game.on_table is not None and game.on_table.tier == 12  # 单大王 (已亮)
    with pytest.raises(IllegalPlay) as refused:
        play(game, 1, "小王 小王")  # 双小王 (row 8) beats only an unrevealed 大王
    assert refused.value.reason is Reason.DOES_NOT_BEAT
    game.pass_turn(1)
    with pytest.raises(IllegalPlay):
        play(game, 2, "大王")  # seat 2 did not reveal: row 6


def test_there_is_no_reveal_phase_without_a_big_joker() -> None:
    game = Game([cards("4"), cards("5"), cards("6"), cards("7"), cards("8")], 3)
    assert game.turn == 3 and not game.view(None).reveal_phase


# ---- tricks and points ---------------------------------------------------------------------


def test_the_taker_collects_the_tricks_points() -> None:
    game = new_game(["5 9", "10 J", "K Q", "大王 4", "大王 6"], 0)
    play(game, 0, "5")
    play(game, 1, "10")
    play(game, 2, "K")
    assert game.view(None).trick_points == 25
    game.pass_turn(3)
    game.pass_turn(4)
    game.pass_turn(0)
    events = game.pass_turn(1)
    assert events == [Passed(1), TrickTaken(2, 2, 25), PointsTaken(2, 25, 25)]
    assert game.points == [0, 0, 25, 0, 0]
    assert game.turn == 2 and game.on_table is None
    assert game.view(None).points == (0, 0, 25, 0, 0)
    assert game.view(None).trick_points == 0


def test_a_trick_without_points_is_taken_for_zero() -> None:
    game = new_game(["4 9", "6 J", "7 Q", "大王 8", "大王 9"], 0)
    play(game, 0, "4")
    events = pass_round(game)
    assert events[-2:] == [TrickTaken(0, 0, 0), PointsTaken(0, 0, 0)]


def test_the_lead_passes_on_when_the_taker_is_out() -> None:
    # 王 side 2 and 3; seat 0 and 1 go out without ending the game
    game = new_game(["8", "9", "大王 4 5", "大王 6 7", "J Q"], 0)
    events = play(game, 0, "8")
    assert events == [Played(0, last_play(game), 0), PlayerOut(0, 1)]
    play(game, 1, "9")
    events = pass_round(game)
    assert events[-2] == TrickTaken(1, 2, 0)  # seat 1 is out: seat 2 leads
    assert game.turn == 2 and game.first_out == 0


def test_the_lead_skips_every_seat_that_is_out() -> None:
    game = new_game(["8 10", "9", "大王 4 5", "大王 6 7", "J Q"], 0)
    play(game, 0, "8")
    play(game, 1, "9")  # out
    game.pass_turn(2)
    game.pass_turn(3)
    game.pass_turn(4)
    play(game, 0, "10")  # out, and takes the trick when everyone holding cards has passed
    events = pass_round(game)
    assert events[-2:] == [TrickTaken(0, 2, 10), PointsTaken(0, 10, 10)]
    assert game.turn == 2 and game.points[0] == 10


def test_passing_is_refused_to_the_leader() -> None:
    game = new_game(["4", "5", "大王 6", "大王 7", "8"], 0)
    assert not game.can_pass(0)
    with pytest.raises(IllegalPlay) as refused:
        game.pass_turn(0)
    assert refused.value.reason is Reason.CANNOT_PASS


# ---- winning: the big-points scenario, used for every settlement row ------------------------

FILLER = ["♠7 ♠8", "♥7 ♥8", "♣7 ♣8", "♦7 ♦8", "♠7 ♥8"]


def points_race(
    wang: dict[int, int], loser: int, winner: int, reveal: bool = False
) -> tuple[Game, list[Event]]:
    """``loser`` takes 30 points, then ``winner`` takes 140 (80 + 50 + 10).

    ``wang`` maps seats to the 大王 they hold. The first 王 seat reveals if ``reveal``.
    Returns the game and the events of the last action.
    """
    texts = list(FILLER)
    texts[loser] += " ♦K ♦K ♣K ♠4"
    texts[winner] += " ♠10 ♠10 ♥10 ♥10 ♣10 ♣10 ♦10 ♦10 ♠K ♠K ♥K ♥K ♣K ♠5 ♥5"
    for seat, count in wang.items():
        texts[seat] += " 大王" * count
    first_wang = min(wang)
    game = new_game(texts, loser, reveal={first_wang: reveal})
    play(game, loser, "♦K ♦K ♣K")
    pass_round(game)
    assert game.points[loser] == 30
    play(game, loser, "♠4")
    while game.turn != winner:
        assert game.turn is not None
        game.pass_turn(game.turn)
    play(game, winner, "♠10 ♠10 ♥10 ♥10 ♣10 ♣10 ♦10 ♦10")
    pass_round(game)
    play(game, winner, "♠K ♠K ♥K ♥K ♣K")
    pass_round(game)
    assert not game.over and game.points[winner] == 130
    play(game, winner, "♠5 ♥5")
    return game, pass_round(game)


def test_140_points_win() -> None:
    game, events = points_race({3: 1, 4: 1}, loser=3, winner=0)
    assert game.over and game.turn is None
    result = game.result
    assert result is not None
    assert events[-3:] == [TrickTaken(0, None, 10), PointsTaken(0, 10, 140), GameOver(result)]
    assert (result.outcome, result.multiplier, result.revealed) == ("win", 1, False)
    assert result.winners == (0, 1, 2)
    assert result.side_points == (140, 30)
    assert result.how == "points"  # 满140
    assert result.deltas == (2, 2, 2, -3, -3)


# (王 seats, loser, winner) -> each seat's base delta, straight from the rules' table
SETTLEMENT_CASES = {
    "王 side of two wins": ({0: 1, 3: 1}, 1, 0, (3, -2, -2, 3, -2)),
    "other side wins against two": ({3: 1, 4: 1}, 3, 0, (2, 2, 2, -3, -3)),
    "王 in one hand wins": ({0: 2}, 2, 0, (8, -2, -2, -2, -2)),
    "王 in one hand loses": ({3: 2}, 3, 0, (2, 2, 2, -8, 2)),
}


@pytest.mark.parametrize("case", sorted(SETTLEMENT_CASES))
@pytest.mark.parametrize("reveal", [False, True])
def test_settlement_rows(case: str, reveal: bool) -> None:
    wang, loser, winner, base = SETTLEMENT_CASES[case]
    game, _ = points_race(wang, loser, winner, reveal)
    result = game.result
    assert result is not None
    factor = 2 if reveal else 1
    assert result.revealed is reveal and result.multiplier == factor
    assert result.deltas == tuple(delta * factor for delta in base)
    assert sum(result.deltas) == 0
    assert set(result.winners) == {s for s in range(5) if base[s] > 0}


def test_90_points_win_for_the_side_of_the_first_out() -> None:
    # seat 0 (other side) reaches 90 while nobody is out: no win; it goes out: 扛旗, won
    texts = list(FILLER)
    texts[3] += " ♦K ♦K ♣K ♠4 大王"
    texts[4] += " 大王"
    texts[0] = "♠10 ♠10 ♥10 ♥10 ♣10 ♣10 ♦10 ♦10 ♠5 ♥5 ♠6"
    game = new_game(texts, 3)
    play(game, 3, "♦K ♦K ♣K")
    pass_round(game)
    play(game, 3, "♠4")
    game.pass_turn(4)
    play(game, 0, "♠10 ♠10 ♥10 ♥10 ♣10 ♣10 ♦10 ♦10")
    pass_round(game)
    play(game, 0, "♠5 ♥5")
    pass_round(game)
    assert game.points[0] == 90 and not game.over
    events = play(game, 0, "♠6")
    result = game.result
    assert result is not None
    assert events == [Played(0, last_play(game), 0), PlayerOut(0, 1), GameOver(result)]
    assert result.outcome == "win" and result.winners == (0, 1, 2)
    assert result.side_points == (90, 30)
    assert result.finish_order == (0,)
    assert result.how == "flag"  # 扛旗 + 90


def test_90_points_count_only_for_the_first_outs_side() -> None:
    texts = [
        "♠7 ♠8 ♠K ♠K ♥K ♥K ♣K ♣K ♦K ♦K ♣5 ♦5",  # 0: other side
        "♠9",  # 1: other side, goes out first (扛旗)
        "♥4 ♥7 ♥8",  # 2: other side
        "♠10 ♠10 ♥10 ♥10 ♣10 ♣10 ♦10 ♦10 ♠5 ♥5 ♠6 大王",  # 3: 王 side
        "♦7 ♦8 大王",  # 4: 王 side
    ]
    game = new_game(texts, 1)
    play(game, 1, "♠9")
    events = pass_round(game)
    assert events[-2] == TrickTaken(1, 2, 0)
    play(game, 2, "♥4")
    play(game, 3, "♠10 ♠10 ♥10 ♥10 ♣10 ♣10 ♦10 ♦10")
    pass_round(game)
    play(game, 3, "♠5 ♥5")
    pass_round(game)
    assert game.side_points() == (90, 0) and not game.over  # 王 side has 90 but not 扛旗
    play(game, 3, "♠6")
    game.pass_turn(4)
    play(game, 0, "♠K ♠K ♥K ♥K ♣K")
    pass_round(game)
    play(game, 0, "♣K ♦K ♦K")
    pass_round(game)
    assert game.side_points() == (90, 80) and not game.over
    play(game, 0, "♣5 ♦5")
    pass_round(game)
    result = game.result
    assert result is not None
    assert result.winners == (0, 1, 2) and result.side_points == (90, 90)
    assert result.outcome == "win" and result.deltas == (2, 2, 2, -3, -3)
    assert result.how == "flag"  # seat 1 (扛旗) is on the side that reached 90


def _double_flight(losers_take: str) -> Game:
    """王 seats 3 and 4 go out one after the other; seat 0 first takes ``losers_take``.

    The last trick (seat 3's ♠10, seat 4's 大王) is left open when the game ends.
    """
    texts = list(FILLER)
    texts[0] += " ♠4 " + losers_take
    texts[3] = "大王 ♠10"
    texts[4] = "大王"
    game = new_game(texts, 0)
    play(game, 0, losers_take)
    pass_round(game)
    play(game, 0, "♠4")
    game.pass_turn(1)
    game.pass_turn(2)
    play(game, 3, "大王")
    pass_round(game)
    play(game, 3, "♠10")
    assert not game.over  # 扛旗, but the 王 side has no points
    play(game, 4, "大王")
    return game


@pytest.mark.parametrize(
    ("losers_take", "outcome", "factor"),
    [("♠K ♥K ♣K", "win", 1), ("♠9 ♥9 ♣9", "大雪", 4), ("♠5 ♥5 ♣5", "小雪", 2)],
)
def test_double_flight(losers_take: str, outcome: str, factor: int) -> None:
    game = _double_flight(losers_take)
    result = game.result
    assert result is not None
    assert result.outcome == outcome and result.multiplier == factor
    assert result.how == "sweep"  # 双飞
    assert result.winners == (3, 4) and result.finish_order == (3, 4)
    assert result.deltas == tuple((3 if s in (3, 4) else -2) * factor for s in range(5))


def test_the_open_trick_goes_to_nobody_when_the_game_ends() -> None:
    game = _double_flight("♠5 ♥5 ♣5")
    assert game.points == [15, 0, 0, 0, 0]
    assert game.trick_points == 10  # seat 3's ♠10, under seat 4's 大王
    assert game.result is not None and game.result.side_points == (0, 15)


# ---- 雪: play goes on after a side has won while the losers have under 25 ---------------------


BIG_POINTS = "♠10 ♠10 ♥10 ♥10 ♣10 ♣10 ♦10 ♦10 ♠K ♠K ♥K ♥K ♣K ♠5 ♥5"


def snow_race(losers_first: str | None, winner_extra: str = "") -> Game:
    """Seat 0 (other side) reaches 140 with ♠6 still in hand; the 王 side (3, 4) first took
    ``losers_first``. Seats 1 and 2 hold one card each, ♠9 and ♥J."""
    texts = [BIG_POINTS + " ♠6" + winner_extra, "♠9", "♥J", "♠4 ♣K ♦A 大王", "大王 ♦7 ♦8"]
    if losers_first:
        texts[3] += " " + losers_first
    game = new_game(texts, 3)
    if losers_first:
        play(game, 3, losers_first)
        pass_round(game)
    play(game, 3, "♠4")
    game.pass_turn(4)
    play(game, 0, "♠10 ♠10 ♥10 ♥10 ♣10 ♣10 ♦10 ♦10")
    pass_round(game)
    play(game, 0, "♠K ♠K ♥K ♥K ♣K")
    pass_round(game)
    play(game, 0, "♠5 ♥5")
    pass_round(game)
    assert game.side_points()[1] == 140
    assert not game.over, "the winners still hold cards and the losers have under 25"
    return game


def _winners_go_out(game: Game) -> None:
    play(game, 0, "♠6")  # out
    assert not game.over
    play(game, 1, "♠9")  # out
    assert not game.over
    play(game, 2, "♥J")  # out: the whole winning side is


def test_big_snow_when_the_losers_have_nothing() -> None:
    game = snow_race(None)
    _winners_go_out(game)
    result = game.result
    assert result is not None
    assert (result.outcome, result.multiplier) == ("大雪", 4)
    assert result.side_points == (140, 0)
    # won by 140 before the winners went out: how it was won stays 满140, not 双飞
    assert result.how == "points"
    assert result.deltas == (8, 8, 8, -12, -12)
    assert result.finish_order == (0, 1, 2)


def test_small_snow_when_the_losers_have_under_25() -> None:
    game = snow_race("♦K")
    _winners_go_out(game)
    result = game.result
    assert result is not None
    assert (result.outcome, result.multiplier) == ("小雪", 2)
    assert result.side_points == (140, 10)
    assert result.deltas == (4, 4, 4, -6, -6)


def test_small_snow_doubles_again_with_a_reveal() -> None:
    # 王 in one hand (seat 3, revealed) loses 1 against 4 with 10 points: -8 ×2 ×2
    texts = [BIG_POINTS + " ♠6", "♠9", "♥J", "♦K ♠4 大王 大王", "♦Q ♦A"]
    game = new_game(texts, 3, reveal={3: True})
    play(game, 3, "♦K")
    pass_round(game)
    play(game, 3, "♠4")
    game.pass_turn(4)
    play(game, 0, "♠10 ♠10 ♥10 ♥10 ♣10 ♣10 ♦10 ♦10")
    pass_round(game)
    play(game, 0, "♠K ♠K ♥K ♥K ♣K")
    pass_round(game)
    play(game, 0, "♠5 ♥5")
    pass_round(game)
    play(game, 0, "♠6")  # out
    play(game, 1, "♠9")  # out
    play(game, 2, "♥J")  # out, but seat 4 of the winning side still holds cards
    game.pass_turn(3)
    play(game, 4, "♦Q")
    assert not game.over
    game.pass_turn(3)
    play(game, 4, "♦A")
    result = game.result
    assert result is not None
    assert (result.outcome, result.multiplier, result.revealed) == ("小雪", 4, True)
    assert result.winners == (0, 1, 2, 4)
    assert result.deltas == (8, 8, 8, -32, 8)


def test_losers_reaching_25_meanwhile_end_the_game_at_once() -> None:
    game = snow_race("♦K", winner_extra=" ♣5")
    play(game, 0, "♣5")
    game.pass_turn(1)
    game.pass_turn(2)
    play(game, 3, "♣K")
    events = pass_round(game)
    result = game.result
    assert result is not None
    assert events[-3:] == [TrickTaken(3, None, 15), PointsTaken(3, 15, 25), GameOver(result)]
    assert (result.outcome, result.multiplier) == ("win", 1)
    assert result.side_points == (140, 25)
    assert result.deltas == (2, 2, 2, -3, -3)


def test_a_lone_winner_plays_out_without_passing_to_itself() -> None:
    texts = [BIG_POINTS + " ♠6 ♠9 ♠Q", "♥9", "♥J", "♠4 大王", "大王"]
    game = new_game(texts, 3)
    play(game, 3, "♠4")
    game.pass_turn(4)
    play(game, 0, "♠10 ♠10 ♥10 ♥10 ♣10 ♣10 ♦10 ♦10")
    pass_round(game)
    play(game, 0, "♠K ♠K ♥K ♥K ♣K")
    pass_round(game)
    play(game, 0, "♠5 ♥5")
    pass_round(game)
    play(game, 0, "♠6")
    play(game, 1, "♥9")  # out
    play(game, 2, "♥J")  # out
    play(game, 3, "大王")  # out
    game.pass_turn(4)
    game.pass_turn(0)  # seat 3 is out: seat 4 leads
    play(game, 4, "大王")  # out: the losers are all out, seat 0 plays on alone
    pass_round(game)
    assert not game.over and game.turn == 0
    events = play(game, 0, "♠9")  # nobody can answer: the trick is taken at once
    assert events[1:] == [TrickTaken(0, 0, 0), PointsTaken(0, 0, 140)]
    assert game.turn == 0 and game.on_table is None
    play(game, 0, "♠Q")
    result = game.result
    assert result is not None and result.outcome == "大雪"
    assert result.finish_order == (1, 2, 3, 4, 0)


# ---- 逃跑 ------------------------------------------------------------------------------------


TWO_AGAINST_THREE = [
    "大王 4 5 6 7 8 9 10",
    "4 5 6 7 8 9 10 J",
    "大王 4 5 6 7 8 9 J",
    "4 5 6 7 8 9 10 Q",
    "4 5 6 7 8 9 10 K",
]
ONE_AGAINST_FOUR = [
    "大王 大王 4 5 6 7 8 9",
    "4 5 6 7 8 9 10 J",
    "4 5 6 7 8 9 J Q",
    "4 5 6 7 8 9 10 Q",
    "4 5 6 7 8 9 10 K",
]


def take_turns(game: Game, turns: int) -> None:
    """Play on until every seat has had ``turns`` turns: the leader leads its lowest card and
    everybody else passes (nobody goes out, no side wins)."""
    while min(paowang_scoring.turns_taken(game)) < turns:
        seat = game.turn
        assert seat is not None and not game.over
        if game.on_table is None:
            game.play(seat, game.hands[seat][:1])
        else:
            game.pass_turn(seat)


@pytest.mark.parametrize(
    ("hands", "seat", "penalty"),
    [
        (TWO_AGAINST_THREE, 0, -12),  # 王 side of two: -3 ×4
        (TWO_AGAINST_THREE, 1, -8),  # other side of three: -2 ×4
        (ONE_AGAINST_FOUR, 0, -32),  # 王 in one hand: -8 ×4
        (ONE_AGAINST_FOUR, 3, -8),  # against the 王 in one hand: -2 ×4
    ],
)
@pytest.mark.parametrize("reveal", [False, True])
def test_escape_penalty_is_the_losing_row_times_4_whatever_was_revealed(
    hands: list[str], seat: int, penalty: int, reveal: bool
) -> None:
    game = new_game(hands, 1, reveal={0: reveal})
    assert paowang_scoring.escape_penalty(game, seat) == penalty
    assert paowang_scoring.ESCAPE_GAMES == 4


# (hands, deserter) -> every seat's fixed score once the game had lasted long enough
DESERTIONS = [
    # 王 side of two (seats 0 and 2): the partner 0, the other three a 2-against-3 win ×1
    (TWO_AGAINST_THREE, 0, (-12, 2, 0, 2, 2)),
    (TWO_AGAINST_THREE, 2, (0, 2, -12, 2, 2)),
    # the other side of three: its partners 0, the 王 side of two a win ×1 each
    (TWO_AGAINST_THREE, 1, (3, -8, 3, 0, 0)),
    # the 王 in one hand: nobody is its partner, the four others +2 each
    (ONE_AGAINST_FOUR, 0, (-32, 2, 2, 2, 2)),
    # against the 王 in one hand: the other three of the four 0, the 王 +8
    (ONE_AGAINST_FOUR, 3, (8, 0, 0, -8, 0)),
]


@pytest.mark.parametrize(("hands", "seat", "expected"), DESERTIONS)
@pytest.mark.parametrize("reveal", [False, True])
def test_a_desertion_after_30_seconds_and_4_turns_each_fixes_every_score(
    hands: list[str], seat: int, expected: tuple[int, ...], reveal: bool
) -> None:
    game = new_game(hands, 1, reveal={0: reveal})
    take_turns(game, paowang_scoring.ESCAPE_MIN_TURNS)
    fixed = paowang_scoring.desertion_scores(game, seat, [None] * 5, seconds=30.0)
    assert fixed == expected  # no ×2 for 亮王: the reveal changes nothing


@pytest.mark.parametrize(("hands", "seat", "expected"), DESERTIONS)
@pytest.mark.parametrize(("seconds", "turns"), [(29.9, 4), (30.0, 3), (0.0, 0), (600.0, 3)])
def test_a_desertion_before_the_threshold_scores_the_other_side_0(
    hands: list[str], seat: int, expected: tuple[int, ...], seconds: float, turns: int
) -> None:
    game = new_game(hands, 1, reveal={0: True})
    take_turns(game, turns)
    assert min(paowang_scoring.turns_taken(game)) == turns
    fixed = paowang_scoring.desertion_scores(game, seat, [None] * 5, seconds=seconds)
    assert fixed == tuple(score if s == seat else 0 for s, score in enumerate(expected))


def test_a_desertion_in_the_亮王_phase_scores_only_the_deserter() -> None:
    game = Game([cards(text) for text in TWO_AGAINST_THREE], 1)
    assert game.reveal_phase
    assert paowang_scoring.desertion_scores(game, 0, [None] * 5, seconds=45.0) == (-12, 0, 0, 0, 0)


def test_a_second_deserter_is_charged_and_nobody_else_changes() -> None:
    game = new_game(TWO_AGAINST_THREE, 1)
    take_turns(game, 4)
    first = paowang_scoring.desertion_scores(game, 1, [None] * 5, seconds=40.0)
    assert first == (3, -8, 3, 0, 0)
    # a partner of the first deserter, then a player of the other side
    second = paowang_scoring.desertion_scores(game, 3, first, seconds=50.0)
    assert second == (3, -8, 3, -8, 0)
    third = paowang_scoring.desertion_scores(game, 0, second, seconds=60.0)
    assert third == (-12, -8, 3, -8, 0)


def test_turns_taken_counts_plays_and_passes_not_亮王_answers() -> None:
    game = new_game(TWO_AGAINST_THREE, 1, reveal={0: True})
    assert paowang_scoring.turns_taken(game) == (0, 0, 0, 0, 0)
    play(game, 1, "4")
    game.pass_turn(2)
    assert paowang_scoring.turns_taken(game) == (0, 1, 1, 0, 0)


def test_escape_penalty_needs_sides() -> None:
    game = Game([cards("4 5"), cards("4"), cards("5"), cards("6"), cards("7")], 1)
    with pytest.raises(ValueError, match="no 大王"):
        paowang_scoring.escape_penalty(game, 1)


# ---- the next game's leader ------------------------------------------------------------------


def test_the_next_game_is_led_by_the_first_winner_out() -> None:
    game, _ = points_race({3: 1, 4: 1}, loser=3, winner=0)
    assert game.next_game_leader() is None  # nobody out: the ♥5 rule again
    game = _double_flight("♠K ♥K ♣K")
    assert game.next_game_leader() == 3


# ---- what each seat may know -------------------------------------------------------------------


def test_a_holder_of_one_big_joker_learns_its_partner_from_a_reveal() -> None:
    game = new_game(["4 5", "大王 6 7", "8 9", "大王 10 J", "Q K"], 0, reveal={3: True})
    assert game.wang_side == (1, 3)
    assert game.view(1).partners == (3,)
    assert game.view(1).opponents == (0, 2, 4)
    assert game.view(3).partners == ()  # seat 1 did not reveal: seat 3 cannot tell
    assert game.view(0).opponents == (3,) and game.view(0).partners == ()
    assert game.view(None).partners == () and game.view(None).opponents == ()


def test_playing_a_big_joker_shows_the_team() -> None:
    game = new_game(["4 5", "大王 6 7", "8 9", "大王 10 J", "Q K"], 0)
    for seat in range(5):
        assert game.view(seat).partners == ()
        assert game.view(seat).opponents == ()
    play(game, 0, "4")
    play(game, 1, "大王")
    assert game.view(3).partners == (1,)
    assert game.view(0).opponents == (1,) and game.view(0).partners == ()
    pass_round(game)
    play(game, 1, "6")
    game.pass_turn(2)
    play(game, 3, "大王")  # both 大王 placed: everybody knows everything
    assert game.view(0).partners == (2, 4) and game.view(0).opponents == (1, 3)
    assert game.view(3).partners == (1,)


def test_a_holder_of_both_big_jokers_knows_everyone_is_an_opponent() -> None:
    game = new_game(["4 5", "大王 大王 7", "8 9", "10 J", "Q K"], 0)
    assert game.view(1).partners == () and game.view(1).opponents == (0, 2, 3, 4)
    assert game.view(0).partners == () and game.view(0).opponents == ()
    game = new_game(["4 5", "大王 大王 7", "8 9", "10 J", "Q K"], 0, reveal={1: True})
    assert game.view(0).partners == (2, 3, 4) and game.view(0).opponents == (1,)


def test_the_view_carries_the_table_state() -> None:
    game = new_game(["5 9", "10 J", "K Q", "大王 4", "大王 6"], 0, reveal={4: True})
    play(game, 0, "5")
    view = game.view(2)
    assert view.variant == "paowang" and view.seat == 2
    assert view.hand == tuple(cards("Q K"))
    assert view.hand_sizes == (1, 2, 2, 2, 2)
    assert view.turn == 1 and view.on_table_seat == 0
    assert view.trick_points == 5 and view.points == (0, 0, 0, 0, 0)
    assert view.revealed == (False, False, False, False, True)
    assert view.revealed_jokers == (0, 0, 0, 0, 1)
    assert not view.reveal_phase and not view.reveal_pending
    assert view.trick == tuple(game.history)


def test_the_teams_are_public_once_the_game_is_over() -> None:
    game, _ = points_race({3: 1, 4: 1}, loser=3, winner=0)
    assert game.view(0).partners == (1, 2) and game.view(0).opponents == (3, 4)
    assert game.view(4).partners == (3,)


# ---- refused actions change nothing ------------------------------------------------------------


def _refusals(game: Game) -> list[tuple[Callable[[], object], Reason]]:
    return [
        (lambda: play(game, 1, "5"), Reason.NOT_YOUR_TURN),
        (lambda: play(game, 0, "2"), Reason.NOT_IN_HAND),
        (lambda: play(game, 0, "4 6"), Reason.NOT_A_COMBINATION),
        (lambda: play(game, 0, "3"), Reason.NOT_IN_HAND),
        (lambda: game.play(0, []), Reason.NOT_A_COMBINATION),
        (lambda: play(game, 9, "4"), Reason.NO_SUCH_SEAT),
        (lambda: game.pass_turn(0), Reason.CANNOT_PASS),
        (lambda: game.reveal(0, True), Reason.NO_BIG_JOKER),
        (lambda: game.reveal(3, True), Reason.NOT_REVEALING),
    ]


def test_refused_actions_change_nothing() -> None:
    game = new_game(["4 5 6 9", "5 7", "6 8", "大王 4 5", "大王 7"], 0)
    for action, reason in _refusals(game):
        before = snapshot(game)
        with pytest.raises(IllegalPlay) as refused:
            action()
        assert refused.value.reason is reason
        assert snapshot(game) == before
    play(game, 0, "9")
    before = snapshot(game)
    with pytest.raises(IllegalPlay) as refused:
        play(game, 1, "7")
    assert refused.value.reason is Reason.DOES_NOT_BEAT
    assert snapshot(game) == before


def test_a_play_takes_exact_cards_first_then_the_lowest_of_each_rank() -> None:
    game = new_game(["♠7 ♥7 ♣7 ♦9", "大王 5", "大王 6", "8", "10"], 0)
    hand = game.hands[0]
    [played, *_] = play(game, 0, "♣7 7")
    assert isinstance(played, Played)
    assert sorted(played.combo.cards) == cards("♠7 ♣7")  # ♣7 as asked, then the lowest 7
    assert game.hands[0] == cards("♥7 ♦9")
    assert game.hands[0] is hand  # changed in place: callers may hold the list


@pytest.mark.parametrize("text", ["♥7 ♥7", "7 7 7 7", "♠7 ♠7 7", "♦7", "9 9"])
def test_cards_not_held_are_refused_and_change_nothing(text: str) -> None:
    game = new_game(["♠7 ♥7 ♣7 ♦9", "大王 5", "大王 6", "8", "10"], 0)
    before = snapshot(game)
    with pytest.raises(IllegalPlay) as refused:
        play(game, 0, text)
    assert refused.value.reason is Reason.NOT_IN_HAND
    assert snapshot(game) == before


def test_playing_both_big_jokers_counts_both() -> None:
    game = new_game(["大王 大王 4", "5", "6", "8", "10"], 0)
    play(game, 0, "大王 大王")
    assert game.big_jokers_played == [2, 0, 0, 0, 0]


def test_actions_during_the_reveal_phase_change_nothing() -> None:
    game = Game([cards(text) for text in HANDS], 1)
    for action in (lambda: play(game, 1, "7"), lambda: game.pass_turn(1),
                   lambda: game.reveal(1, True), lambda: game.reveal(5, False)):
        before = snapshot(game)
        with pytest.raises(IllegalPlay):
            action()
        assert snapshot(game) == before
