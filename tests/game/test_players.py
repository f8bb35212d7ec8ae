"""Computer players: the interface, the baselines, and the 双扣 AI's judgement and strength."""

from __future__ import annotations

import random

import pytest

from bot.cli.simulate import next_actor, play_out, run_simulation
from bot.game import shuangkou
from bot.game.cards import BIG_JOKER, Card, parse_cards
from bot.game.common import Combo, Played
from bot.game.players import (
    AiPlayer,
    GreedyPlayer,
    Player,
    RandomPlayer,
    decide,
    legal_options,
    make_player,
    play_order_key,
)
from bot.game.players.decompose import counts_of
from bot.game.players.shuangkou_ai import ShuangkouAI
from bot.game.players.shuangkou_moves import NO_LOOK
from bot.game.players.shuangkou_plan import plan_for


def game_of(*hands: str, leader: int = 0) -> shuangkou.Game:
    return shuangkou.Game([parse_cards(hand) for hand in hands], leader=leader)


def ranks(combo: Combo | None) -> list[int]:
    assert combo is not None
    return sorted(card.rank for card in combo.cards)


# -- the interface ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["random", "greedy", "ai"])
def test_make_player_builds_each_kind(kind: str) -> None:
    player = make_player(kind, seed=3)
    assert isinstance(player, Player)
    assert player.choose_reveal(shuangkou.Game.deal(1).view(0)) in (True, False)


def test_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="wizard"):
        make_player("wizard")


@pytest.mark.parametrize("kind", ["random", "greedy", "ai"])
def test_every_kind_plays_whole_games_legally(kind: str) -> None:
    # the engine refuses any illegal play, so finishing the games is the check
    for seed in range(3):
        players = [make_player(kind, seed=seed * 4 + seat) for seat in range(4)]
        result = play_out(shuangkou.Game.deal(seed), players)
        assert sum(result.deltas) == 0


def test_decide_applies_the_choice() -> None:
    game = shuangkou.Game.deal(5)
    seat = game.turn
    events = decide(GreedyPlayer(), game, seat)
    assert isinstance(events[0], Played) and events[0].seat == seat
    assert game.turn != seat
    with pytest.raises(ValueError):
        decide(GreedyPlayer(), game, seat)  # not its turn any more


def test_play_order_puts_bombs_last() -> None:
    plays = shuangkou.legal_plays(parse_cards("3 3 3 3 4 大王"), None)
    ordered = sorted(plays, key=play_order_key)
    assert ordered[0].kind == "single" and ordered[0].key == 3
    assert ordered[-1].kind == "bomb"


# -- the baselines ---------------------------------------------------------------------------


def test_greedy_plays_the_lowest_and_never_passes_with_a_play() -> None:
    game = game_of("3 5 5 9 K", "4 6 6 2", "7 8", "10 J")
    assert ranks(GreedyPlayer().choose(game.view(0))) == [3]
    game.play(0, parse_cards("3"))
    assert ranks(GreedyPlayer().choose(game.view(1))) == [4]
    game.play(1, parse_cards("4"))
    assert ranks(GreedyPlayer().choose(game.view(2))) == [7]  # even on its partner: greedy


def test_random_is_seeded_and_sometimes_passes() -> None:
    game = game_of("3 5 5 9 K", "4 6 6 2 大王", "7 8", "10 J")
    game.play(0, parse_cards("3"))
    view = game.view(1)
    picks = [RandomPlayer(seed).choose(view) for seed in range(60)]
    assert None in picks
    assert {tuple(ranks(p)) for p in picks if p is not None} == {(4,), (6,), (15,), (17,)}
    assert [RandomPlayer(9).choose(view) for _ in range(5)] == [
        RandomPlayer(9).choose(view) for _ in range(5)
    ]


# -- what the AI sees --------------------------------------------------------------------------


def _scrambled_replay(game: shuangkou.Game, seat: int, rng: random.Random) -> shuangkou.Game:
    """The same game for ``seat``, with the cards it cannot see dealt differently to the others.

    The others' unplayed cards are pooled, shuffled and dealt back in the same numbers; each
    other seat's played cards stay theirs, so the public history replays exactly.
    """
    played: list[list[Card]] = [[] for _ in range(4)]
    for who, combo in game.history:
        if combo is not None:
            played[who] += combo.cards
    pool = [card for s in range(4) if s != seat for card in game.hands[s]]
    rng.shuffle(pool)
    hands: list[list[Card]] = []
    for s in range(4):
        if s == seat:
            hands.append(list(game.hands[s]) + played[s])
        else:
            size = len(game.hands[s])
            hands.append(pool[:size] + played[s])
            pool = pool[size:]
    first = game.history[0][0] if game.history else game.turn
    twin = shuangkou.Game(hands, leader=first)
    for who, combo in game.history:
        if combo is None:
            twin.pass_turn(who)
        else:
            twin.play(who, combo.cards)
    return twin


@pytest.mark.parametrize("seed", range(6))
def test_the_ai_decides_the_same_whatever_the_hidden_hands(seed: int) -> None:
    rng = random.Random(seed)
    game = shuangkou.Game.deal(seed)
    players = [AiPlayer(seat) for seat in range(4)]
    checked = differed = 0
    for step in range(200):
        if game.over:
            break
        seat = next_actor(game)
        assert seat is not None
        if step % 7 == 3:
            twin = _scrambled_replay(game, seat, rng)
            differed += twin.hands != game.hands
            assert twin.view(seat) == game.view(seat)
            # a fresh player on the scrambled game makes the same choice as on the real one
            assert AiPlayer(seat).choose(twin.view(seat)) == AiPlayer(seat).choose(
                game.view(seat)
            )
            twin_events = decide(AiPlayer(seat), twin, seat)
            real_events = decide(players[seat], game, seat)
            assert [type(e) for e in twin_events][:1] == [type(e) for e in real_events][:1]
            checked += 1
        else:
            decide(players[seat], game, seat)
    assert checked >= 5 and differed >= 3


# -- the AI's judgement ------------------------------------------------------------------------


def test_the_plan_uses_runs_to_empty_the_hand_in_few_plays() -> None:
    plan = plan_for(counts_of(parse_cards("3 3 4 4 5 5 6 7 8 9 10 K K K K")))
    kinds = sorted(part.kind for part in plan.parts)
    assert kinds == ["bomb", "pair_straight", "straight"]


def test_the_ai_goes_out_when_one_play_empties_its_hand() -> None:
    game = game_of("4 5 6 7 8", "3 3 9", "J J J", "Q Q")
    assert ranks(AiPlayer().choose(game.view(0))) == [4, 5, 6, 7, 8]


def test_the_ai_leads_a_weak_play_and_keeps_its_control_cards() -> None:
    game = game_of("3 3 4 4 5 5 9 J 2 2 大王 K K K K", "3 6 6 9 9 Q", "7 7 8", "8 10 10 A")
    choice = AiPlayer().choose(game.view(0))
    assert choice is not None and choice.kind in ("pair_straight", "single")
    assert max(ranks(choice)) < 12


def test_in_the_endgame_the_ai_cashes_the_sure_play_and_goes_out_on_the_weak_one() -> None:
    """Two 大王 no hand can answer and a 4 anyone can: the 4 first would hand the lead away
    (a 4-card foe could then run); the pair first keeps the lead for the 4, out in two."""
    game = game_of("大王 大王 4", "3 6 6 9 9 Q", "7 7 8", "8 10 10 A")
    player = AiPlayer()
    assert ranks(player.choose(game.view(0))) == [BIG_JOKER, BIG_JOKER]
    game.play(0, parse_cards("大王 大王"))
    for seat in (1, 2, 3):
        game.pass_turn(seat)
    assert ranks(player.choose(game.view(0))) == [4]


def test_the_ai_lets_its_partners_winning_play_stand() -> None:
    game = game_of("5 9 9 Q Q", "3 4 4 6", "8 K A 2", "6 7 J J")
    game.play(0, parse_cards("5"))
    game.pass_turn(1)
    assert legal_options(game.view(2))  # it could overtake, and does not
    assert AiPlayer().choose(game.view(2)) is None


def test_the_ai_keeps_a_bomb_when_nothing_is_at_stake() -> None:
    hands = (
        "3 4 5 6 6 8 9 9 10 J Q 7 7 7 7",
        "A 3 3 4 4 5 5 8 8 9 10 10 J Q K K",
        "3 4 5 6 8 9 10 J Q K A 2 2",
        "3 4 5 6 8 9 10 J Q K A 2 2",
    )
    game = game_of(*hands, leader=1)
    game.play(1, parse_cards("A"))
    game.pass_turn(2)
    game.pass_turn(3)
    # only the bomb beats the A, the opponents hold 15 and 13 cards: not worth a bomb yet
    assert [combo.kind for combo in legal_options(game.view(0))] == ["bomb"]
    assert AiPlayer().choose(game.view(0)) is None


def test_the_ai_bombs_an_opponent_about_to_go_out() -> None:
    hands = ("3 4 6 8 9 10 J Q 7 7 7 7", "A K", "3 4 5 6 8 9 10 J", "3 4 5 6 8 9 10 Q")
    game = game_of(*hands, leader=1)
    game.play(1, parse_cards("A"))
    game.pass_turn(2)
    game.pass_turn(3)
    choice = AiPlayer().choose(game.view(0))
    assert choice is not None and choice.kind == "bomb"


def test_the_ai_leads_a_single_its_partner_can_go_out_on() -> None:
    """Its weakest part is the 连对, but the partner holds one card: the heuristic leads a
    single to let it out. The learned look (trained on play-outs) may cash first what no hand
    at the table can answer, keeping the lead for the single; it never gives the lead away."""
    game = game_of("3 3 4 4 5 5 9", "6 7 8 9 10 J Q K", "10", "6 7 8 9 10 J Q A")
    view = game.view(0)
    heuristic = ShuangkouAI(moves=NO_LOOK).choose(view)
    assert heuristic is not None and heuristic.kind == "single" and ranks(heuristic) == [9]
    choice = AiPlayer().choose(view)
    assert choice is not None
    if choice.kind != "single":
        assert all(
            not shuangkou.legal_plays(game.hands[seat], choice) for seat in (1, 2, 3)
        )


def test_the_ai_stops_an_opponents_last_card_so_its_partner_gets_no_接风() -> None:
    """Seat 0 goes out with an A: if the A takes the trick, seat 0's partner leads (接风).
    Only a bomb beats it, twelve cards in hand: it is spent."""
    hands = ("A", "3 4 6 8 9 10 J Q 7 7 7 7", "3 4 5 6 8 9 10 J Q K", "3 4 5 6 8 9 10 Q K K")
    game = game_of(*hands, leader=0)
    game.play(0, parse_cards("A"))
    choice = AiPlayer().choose(game.view(1))
    assert choice is not None and choice.kind == "bomb"


def test_the_ai_is_deterministic() -> None:
    def run(seed: int) -> list[tuple[int, Combo | None]]:
        game = shuangkou.Game.deal(seed)
        play_out(game, [AiPlayer(seed) for _ in range(4)])
        return game.history

    assert run(11) == run(11)


# -- strength, on samples small enough for the suite (the full figures are in bench/) ----------


def test_the_ai_team_beats_a_random_team() -> None:
    report = run_simulation("shuangkou", games=120, players="ai,random,ai,random", seed=1)
    assert report.kinds["ai"].win_rate >= 0.9


def test_the_ai_team_beats_a_greedy_team() -> None:
    report = run_simulation("shuangkou", games=120, players="ai,greedy,ai,greedy", seed=2)
    assert report.kinds["ai"].win_rate >= 0.75
