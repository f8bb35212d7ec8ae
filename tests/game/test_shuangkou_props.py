"""Property tests of the 双扣 engine: legal_plays against brute force, and random games.

The brute force here is written from the rules, apart from the engine's generators: it tries
every sub-multiset of a small hand (by rank counts; for one-card-per-rank runs also every
choice of suits, since suits matter only for 同花顺) and keeps what ``classify_all`` reads and
``beats`` lets onto the table. Plays are compared as sets of ``Combo.signature()``.
"""

from __future__ import annotations

import copy
import itertools
import random
from collections.abc import Callable, Sequence

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.game import IllegalPlay, Reason, shuangkou
from bot.game.cards import SMALL_JOKER, SUITS, Card, double_deck, parse_cards
from bot.game.common import Combo

FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
GAMES = settings(max_examples=100, deadline=None)

Signature = tuple[str, int, int, int, tuple[int, ...]]


# ---- brute force --------------------------------------------------------------------------


def brute_force_plays(hand: Sequence[Card], on: Combo | None) -> set[Signature]:
    """Every play a sub-multiset of ``hand`` makes on ``on``, by signature."""
    by_rank: dict[int, list[Card]] = {}
    for card in hand:
        by_rank.setdefault(card.rank, []).append(card)
    ranks = sorted(by_rank)
    found: set[Signature] = set()
    for counts in itertools.product(*(range(len(by_rank[r]) + 1) for r in ranks)):
        chosen = [(r, c) for r, c in zip(ranks, counts, strict=True) if c]
        if not chosen:
            continue
        if all(c == 1 for _, c in chosen) and len(chosen) >= 5:
            # a run of singles: the suits decide 顺子 against 同花顺, so try every choice
            options = [sorted(set(by_rank[r])) for r, _ in chosen]
            selections = [list(pick) for pick in itertools.product(*options)]
        else:
            selections = [[card for r, c in chosen for card in by_rank[r][:c]]]
        for cards in selections:
            for reading in shuangkou.classify_all(cards):
                if on is None or shuangkou.beats(reading, on):
                    found.add(reading.signature())
    return found


def engine_plays(hand: Sequence[Card], on: Combo | None) -> list[Signature]:
    return [combo.signature() for combo in shuangkou.legal_plays(hand, on)]


# ---- strategies -----------------------------------------------------------------------------

# Tables of every kind, to answer.
TABLE_TEXTS = [
    "3", "9", "A", "2", "小王", "大王",
    "♠4 ♥4", "♠Q ♦Q", "♠2 ♥2", "小王 小王", "大王 大王",
    "♠5 ♥5 ♣5", "♠K ♥K ♦K", "♠2 ♥2 ♣2",
    "♠3 ♥3 ♠4 ♥4 ♠5 ♥5", "♠5 ♥5 ♠6 ♥6 ♠7 ♥7 ♠8 ♥8", "♠Q ♥Q ♠K ♥K ♠A ♥A",
    "♠3 ♥3 ♣3 ♠4 ♥4 ♣4 ♠5 ♥5 ♣5", "♠6 ♥6 ♣6 ♠7 ♥7 ♣7 ♠8 ♥8 ♣8 ♠9 ♥9 ♣9",
    "♠3 ♥3 ♣3 ♠4 ♥4 ♣4 ♠5 ♥5 ♣5 ♠6 ♥6 ♠7 ♥7 ♠8 ♥8",
    "♠5 ♥5 ♣5 ♠6 ♥6 ♣6 ♠7 ♥7 ♣7 ♠3 ♥3 ♠4 ♥4 ♦5 ♦5",
    "♠3 ♥4 ♠5 ♠6 ♠7", "♠6 ♥7 ♠8 ♠9 ♠10", "♠10 ♥J ♠Q ♠K ♠A", "♠3 ♥4 ♠5 ♠6 ♠7 ♠8",
    "♠3 ♠4 ♠5 ♠6 ♠7", "♥6 ♥7 ♥8 ♥9 ♥10", "♦3 ♦4 ♦5 ♦6 ♦7 ♦8",
    "♠3 ♥3 ♣3 ♦3", "♠9 ♥9 ♣9 ♦9", "♠2 ♥2 ♣2 ♦2", "♠4 ♥4 ♣4 ♦4 ♠4",
    "♠8 ♥8 ♣8 ♦8 ♠8 ♥8", "♠3 ♥3 ♣3 ♦3 ♠3 ♥3 ♣3 ♦3",
    "♠3 ♥3 ♣3 ♦3 ♠4 ♥4 ♣4 ♦4 ♠5 ♥5 ♣5 ♦5",
    "♠8 ♥8 ♣8 ♦8 ♠9 ♥9 ♣9 ♦9 ♠10 ♥10 ♣10 ♦10",
    "小王 小王 大王 大王",
]
TABLES = [shuangkou.classify(parse_cards(text)) for text in TABLE_TEXTS]
assert all(TABLES), [t for t, c in zip(TABLE_TEXTS, TABLES, strict=True) if c is None]


def _pool(low: int, high: int, suits: str, jokers: bool) -> list[Card]:
    pool = [Card(rank, suit) for rank in range(low, high + 1) for suit in suits] * 2
    if jokers:
        pool += [Card(16), Card(16), Card(17), Card(17)]
    return pool


@st.composite
def small_hands(draw: st.DrawFn) -> list[Card]:
    """Up to 10 cards from a narrow window of ranks: sets, runs and bombs occur often."""
    low = draw(st.integers(3, 13))
    high = draw(st.integers(min(low + 2, 15), min(low + 6, 15)))
    suits = draw(st.sampled_from(["♠", "♠♥", "♠♥♣", SUITS]))
    pool = _pool(low, high, suits, draw(st.booleans()))
    indices = draw(st.lists(st.integers(0, len(pool) - 1), min_size=1,
                            max_size=min(10, len(pool)), unique=True))
    return [pool[i] for i in indices]


@st.composite
def plane_hands(draw: st.DrawFn) -> list[Card]:
    """A 连三张带连对 (three triples, three pairs) over at most six ranks, plus a few more
    cards: planes, 三连炸 and long bombs occur, and sometimes a plane gets spoilt."""
    low = draw(st.integers(3, 9))
    triples = draw(st.integers(low, low + 3))
    pairs = draw(st.integers(low, low + 3))
    counts = dict.fromkeys(range(low, low + 6), 0)
    for rank in range(triples, triples + 3):
        counts[rank] += 3
    for rank in range(pairs, pairs + 3):
        counts[rank] += 2
    for _ in range(draw(st.integers(0, 3))):
        counts[draw(st.integers(low, low + 5))] += 1
    suits = draw(st.permutations([*SUITS, *SUITS]))
    return [Card(rank, suits[i]) for rank, count in counts.items() for i in range(min(count, 8))]


def draw_table(data: st.DataObject, hand: list[Card]) -> Combo | None:
    """Leading, a table of any kind, or one of the hand's own plays (so that answers of the
    same kind and size exist, planes included)."""
    source = data.draw(st.sampled_from(["lead", "any", "own"]))
    if source == "lead":
        return None
    if source == "any":
        return data.draw(st.sampled_from(TABLES))
    own = shuangkou.legal_plays(hand, None)
    return own[data.draw(st.integers(0, len(own) - 1))]


def check_against_brute_force(hand: list[Card], on: Combo | None) -> None:
    engine = engine_plays(hand, on)
    assert len(engine) == len(set(engine)), "a play is listed twice"
    assert set(engine) == brute_force_plays(hand, on)


# ---- legal_plays ----------------------------------------------------------------------------


@settings(max_examples=600, deadline=None)
@given(small_hands(), st.data())
def test_no_legal_play_is_missing_or_extra(hand: list[Card], data: st.DataObject) -> None:
    check_against_brute_force(hand, draw_table(data, hand))


@settings(max_examples=250, deadline=None)
@given(plane_hands(), st.data())
def test_no_legal_play_is_missing_with_planes_and_bombs(
    hand: list[Card], data: st.DataObject
) -> None:
    check_against_brute_force(hand, draw_table(data, hand))


def _random_hand(seed: int, size: int = 27) -> list[Card]:
    deck = double_deck()
    random.Random(seed).shuffle(deck)
    return sorted(deck[:size])


@FAST
@given(st.integers(0, 2**32), st.data())
def test_every_listed_play_is_a_play_that_beats(seed: int, data: st.DataObject) -> None:
    hand = _random_hand(seed)
    on = draw_table(data, _random_hand(seed + 1))
    for combo in shuangkou.legal_plays(hand, on):
        remaining = list(hand)
        for card in combo.cards:
            remaining.remove(card)  # the cards come from the hand
        reading = shuangkou.classify(combo.cards)
        assert reading is not None
        assert (reading.kind, reading.key, reading.chain) == (combo.kind, combo.key, combo.chain)
        if on is not None:
            assert shuangkou.beats(combo, on)


# ---- random games ---------------------------------------------------------------------------


def _snapshot(game: shuangkou.Game) -> dict[str, object]:
    return copy.deepcopy(dict(vars(game)))


def _random_move(game: shuangkou.Game, rng: random.Random) -> None:
    """A uniformly random choice among the legal plays, and passing when allowed."""
    seat = game.turn
    assert seat is not None and game.hands[seat], "the seat to act holds cards"
    plays: list[Combo | None] = list(game.legal_plays())
    assert plays or game.on_table is not None, "a leader always has a play"
    if game.can_pass(seat):
        plays.append(None)
    choice = rng.choice(plays)
    if choice is None:
        game.pass_turn(seat)
    else:
        game.play(seat, choice.cards)


def _random_game(seed: int) -> tuple[shuangkou.Game, int]:
    """Play a dealt game with random legal moves, checking that cards are conserved."""
    rng = random.Random(seed)
    game = shuangkou.Game.deal(seed)
    deck = sorted(double_deck())
    turns = 0
    while not game.over:
        _random_move(game, rng)
        turns += 1
        assert turns < 2000, "a game must end"
        table = [card for _, combo in game.history if combo for card in combo.cards]
        assert sorted(table + [c for hand in game.hands for c in hand]) == deck
    return game, turns


@GAMES
@given(st.integers(0, 2**32))
def test_random_games_end_conserve_cards_and_settle_to_zero(seed: int) -> None:
    game, _ = _random_game(seed)
    result = game.result
    assert result is not None and game.turn is None
    assert sum(result.deltas) == 0
    assert result.outcome in {"双扣", "单扣", "平扣"}
    assert len(set(result.finish_order)) == len(result.finish_order)
    first = result.finish_order[0]
    team = {first % 2, first % 2 + 2}
    assert team <= set(result.finish_order) or {1 - first % 2, 3 - first % 2} <= set(
        result.finish_order
    )


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32))
def test_a_deal_is_reproducible_from_its_seed(seed: int) -> None:
    one, two = shuangkou.Game.deal(seed), shuangkou.Game.deal(seed)
    assert one.hands == two.hands and one.turn == two.turn
    assert sorted(c for hand in one.hands for c in hand) == sorted(double_deck())


def _illegal_actions(game: shuangkou.Game) -> list[tuple[Reason, Callable[[], object]]]:
    """Actions the rules refuse in this position, each with the reason expected."""
    if game.over:
        return [
            (Reason.GAME_OVER, lambda: game.play(0, [Card(3)])),
            (Reason.GAME_OVER, lambda: game.pass_turn(0)),
        ]
    seat = game.turn
    assert seat is not None
    hand = game.hands[seat]
    other = (seat + 1) % 4
    actions: list[tuple[Reason, Callable[[], object]]] = [
        (Reason.NOT_YOUR_TURN, lambda: game.play(other, hand[:1])),
        (Reason.NOT_YOUR_TURN, lambda: game.pass_turn(other)),
        (Reason.NOT_IN_HAND, lambda: game.play(seat, [Card(SMALL_JOKER)] * 3)),  # 2 in a deal
        (Reason.NOT_A_COMBINATION, lambda: game.play(seat, [])),
    ]
    if hand[0].rank != hand[-1].rank:  # two cards of different ranks are never a combination
        actions.append((Reason.NOT_A_COMBINATION, lambda: game.play(seat, [hand[0], hand[-1]])))
    on = game.on_table
    if on is None:
        actions.append((Reason.CANNOT_PASS, lambda: game.pass_turn(seat)))
    else:
        losing = [c for c in shuangkou.legal_plays(hand, None) if not shuangkou.beats(c, on)]
        if losing:
            actions.append((Reason.DOES_NOT_BEAT, lambda: game.play(seat, losing[0].cards)))
    return actions


@GAMES
@given(st.integers(0, 2**32), st.integers(0, 300))
def test_an_illegal_action_leaves_the_game_exactly_as_it_was(seed: int, moves: int) -> None:
    rng = random.Random(seed)
    game = shuangkou.Game.deal(seed)
    for _ in range(moves):  # games last about 150 moves: some positions are after the end
        if game.over:
            break
        _random_move(game, rng)
    before = _snapshot(game)
    for reason, action in _illegal_actions(game):
        try:
            action()
        except IllegalPlay as refused:
            assert refused.reason == reason
        else:
            raise AssertionError(f"an illegal action was accepted ({reason})")
        assert _snapshot(game) == before
