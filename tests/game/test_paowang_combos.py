"""刨王's combinations, one test per rule: what is a combination, the ladder row by row, the
ordinary comparisons, 骑牌 and the 双顺 exception; then legal_plays against brute force.

The brute force is written from the rules, apart from the engine's generators: it tries every
sub-multiset of a small hand (suits never matter in 刨王) and keeps what ``classify`` reads and
``beats`` lets onto the table. Plays are compared as sets of ``Combo.signature()``.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.game import paowang, paowang_combos
from bot.game.cards import BIG_JOKER, SMALL_JOKER, SUITS, Card, double_deck_without_threes
from bot.game.cards import parse_cards as cards
from bot.game.common import Combo

Signature = tuple[str, int, int, int, tuple[int, ...]]


def combo(text: str, revealed: bool = False) -> Combo:
    found = paowang.classify(cards(text), revealed)
    assert found is not None, text
    return found


# ---- what is a combination --------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "key", "chain"),
    [
        ("4", "single", 4, 1),
        ("♥2", "single", 15, 1),
        ("♠9 ♦9", "pair", 9, 1),
        ("2 2", "pair", 15, 1),
        ("4 5 6", "straight", 6, 3),
        ("9 10 J Q K A", "straight", 14, 6),
        ("4 5 6 7 8 9 10 J Q K A", "straight", 14, 11),
        ("4 4 5 5 6 6", "pair_straight", 6, 3),
        ("10 10 J J Q Q K K A A", "pair_straight", 14, 5),
    ],
)
def test_ordinary_combinations(text: str, kind: str, key: int, chain: int) -> None:
    found = combo(text)
    assert (found.kind, found.key, found.chain, found.tier) == (kind, key, chain, 0)


@pytest.mark.parametrize(
    "text",
    [
        "4 5",  # two singles
        "4 5 7",  # a gap
        "K A 2",  # 2 is not in runs
        "Q K A 2",
        "4 4 5 5",  # two pairs are not a 双顺
        "4 4 5 5 6",  # mixed widths
        "4 4 5 5 6 6 6",
        "4 4 A A",  # 幺 needs exactly one A
        "4 A",
        "4 4 4 A A",
        "4 4 小王",  # no joker mixes with ordinary cards
        "大王 4",
        "小王 2",
        "4 4 4 4 4 4 4 4 4",  # nine of a rank is no 路
        "3",  # no 3s in 刨王's deck
        "3 4 5",
    ],
)
def test_not_combinations(text: str) -> None:
    assert paowang.classify(cards(text)) is None
    assert paowang.classify(cards(text), revealed=True) is None


def test_suits_never_matter() -> None:
    assert combo("♠4 ♠5 ♠6").kind == "straight"  # no 同花顺 in 刨王
    assert combo("4 5 6").signature() == combo("♥4 ♣5 ♦6").signature()


# ---- the ladder, row by row ---------------------------------------------------------------

# One entry of each row of the rules' table (N路 of 7s), with whether it is played revealed.
LADDER_ROWS: dict[int, tuple[str, bool]] = {
    1: ("7 7 7", False),
    2: ("小王", False),
    3: ("7 7 7 7", False),
    4: ("4 4 A", False),
    5: ("7 7 7 7 7", False),
    6: ("大王", False),
    7: ("7 7 7 7 7 7", False),
    8: ("小王 小王", False),
    9: ("4 4 4 A", False),
    10: ("大王 小王", False),
    11: ("7 7 7 7 7 7 7", False),
    12: ("大王", True),
    13: ("7 7 7 7 7 7 7 7", False),
    14: ("大王 小王 小王", False),
    15: ("4 4 4 4 A", False),
    16: ("大王 小王", True),
    17: ("大王 大王", False),
    18: ("大王 小王 小王", True),
    19: ("4 4 4 4 4 A", False),
    20: ("大王 大王 小王", False),
    21: ("4 4 4 4 4 4 A", False),
    22: ("大王 大王 小王 小王", False),
    23: ("大王 大王", True),
    24: ("4 4 4 4 4 4 4 A", False),
    25: ("大王 大王 小王", True),
    26: ("4 4 4 4 4 4 4 4 A", False),
    27: ("大王 大王 小王 小王", True),
}


def row(tier: int) -> Combo:
    text, revealed = LADDER_ROWS[tier]
    return combo(text, revealed)


def test_the_ladder_has_27_rows() -> None:
    rows = paowang_combos.LADDER_ROWS
    assert sorted(LADDER_ROWS) == list(range(1, rows + 1)) == list(range(1, 28))


@pytest.mark.parametrize("tier", range(1, 28))
def test_ladder_row_against_its_neighbours(tier: int) -> None:
    entry = row(tier)
    assert entry.kind == "ladder"
    assert entry.tier == tier
    assert not paowang.beats(entry, entry), "equal entries do not beat each other"
    if tier > 1:
        assert paowang.beats(entry, row(tier - 1))
        assert not paowang.beats(row(tier - 1), entry)
    if tier < 27:
        assert not paowang.beats(entry, row(tier + 1))
        assert paowang.beats(row(tier + 1), entry)


def test_the_ladder_is_a_total_order() -> None:
    for low, high in itertools.combinations(range(1, 28), 2):
        assert paowang.beats(row(high), row(low)), (high, low)
        assert not paowang.beats(row(low), row(high)), (low, high)


@pytest.mark.parametrize("size", range(3, 9))
def test_within_n_lu_the_higher_rank_wins(size: int) -> None:
    fours = combo(" ".join(["4"] * size))
    sevens = combo(" ".join(["7"] * size))
    twos = combo(" ".join(["2"] * size))
    aces = combo(" ".join(["A"] * size))
    assert fours.tier == sevens.tier == twos.tier
    assert paowang.beats(sevens, fours) and not paowang.beats(fours, sevens)
    assert paowang.beats(twos, aces) and not paowang.beats(aces, twos)
    other_sevens = paowang.classify([Card(7, suit) for suit in SUITS * 2][:size])
    assert other_sevens is not None
    assert not paowang.beats(other_sevens, sevens), "the same rank does not beat"


def test_more_of_a_rank_beats_a_higher_rank() -> None:
    assert paowang.beats(combo("4 4 4 4"), combo("2 2 2"))
    assert paowang.beats(combo("4 4 4 4 4"), combo("2 2 2 2"))
    assert not paowang.beats(combo("2 2 2"), combo("4 4 4 4"))


def test_yao_heads_its_row() -> None:
    # 小幺 tops 四路 (2222) and yields to 五路 (44444); 中幺 sits between 六路 and 七路
    assert paowang.beats(combo("4 4 A"), combo("2 2 2 2"))
    assert paowang.beats(combo("4 4 4 4 4"), combo("4 4 A"))
    assert paowang.beats(combo("4 4 4 A"), combo("2 2 2 2 2 2"))
    assert paowang.beats(combo("4 4 4 4 4 4 4"), combo("4 4 4 A"))
    assert paowang.beats(combo("4 4 4 4 A"), combo("2 2 2 2 2 2 2 2"))


def test_revealing_moves_big_joker_entries_only() -> None:
    assert combo("小王").tier == combo("小王", revealed=True).tier == 2
    assert combo("小王 小王").tier == combo("小王 小王", revealed=True).tier == 8
    assert combo("大王").tier == 6
    assert combo("大王", revealed=True).tier == 12
    assert combo("4 4 A", revealed=True).tier == 4
    assert combo("7 7 7", revealed=True).tier == 1
    # an unrevealed 大王 does not beat a revealed one, nor the other way round at equal rows
    assert paowang.beats(combo("大王", revealed=True), combo("大王"))
    assert not paowang.beats(combo("大王"), combo("大王"))


def test_single_small_joker_beats_three_of_a_kind() -> None:
    # 003 stands over 000: a single 小王 sits above 三路
    assert paowang.beats(combo("小王"), combo("2 2 2"))
    assert not paowang.beats(combo("2 2 2"), combo("小王"))


# ---- ordinary comparisons ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("new", "old", "expected"),
    [
        ("5", "4", True),
        ("4", "5", False),
        ("♠9", "♥9", False),
        ("2", "A", True),
        ("A", "2", False),
        ("5 5", "4 4", True),
        ("2 2", "A A", True),
        ("4 4", "5 5", False),
        ("9 9", "9 9", False),
        ("5 6 7", "4 5 6", True),
        ("4 5 6", "5 6 7", False),
        ("Q K A", "5 6 7", True),
        ("5 6 7 8", "4 5 6", False),  # the same number of ranks only
        ("5 6 7", "4 5 6 7", False),
        ("5 5 6 6 7 7", "4 4 5 5 6 6", True),
        ("4 4 5 5 6 6", "5 5 6 6 7 7", False),
        ("5 5 6 6 7 7 8 8", "4 4 5 5 6 6", False),
        # different kinds do not beat each other
        ("5 5", "4", False),
        ("5", "4 4", False),
        ("5 6 7", "4 4", False),
        ("2 2", "4 5 6", False),
    ],
)
def test_ordinary_comparisons(new: str, old: str, expected: bool) -> None:
    assert paowang.beats(combo(new), combo(old)) is expected


@pytest.mark.parametrize(
    ("new", "old", "expected"),
    [
        ("5 5 6 6 7 7", "4 5 6", True),  # 骑牌: on 456, 556677 or higher
        ("Q Q K K A A", "4 5 6", True),
        ("4 4 5 5 6 6", "4 5 6", False),  # not 445566: its top is not higher
        ("4 4 5 5 6 6", "5 6 7", False),
        ("5 5 6 6 7 7 8 8", "4 5 6", False),  # as many ranks
        ("5 5 6 6 7 7", "4 5 6 7", False),
        ("6 6 7 7 8 8 9 9", "5 6 7 8", True),
        ("5 6 7", "4 4 5 5 6 6", False),  # never the other way round
        ("Q K A", "4 4 5 5 6 6", False),
    ],
)
def test_qi_pai(new: str, old: str, expected: bool) -> None:
    assert paowang.beats(combo(new), combo(old)) is expected


def test_the_ladder_beats_every_ordinary_combination() -> None:
    for old in ("2", "2 2", "Q K A", "4 5 6 7 8 9 10 J Q K A"):
        for tier in range(1, 28):
            assert paowang.beats(row(tier), combo(old)), (tier, old)
            assert not paowang.beats(combo(old), row(tier)), (tier, old)


@pytest.mark.parametrize("tier", range(1, 28))
def test_a_pair_straight_falls_only_from_four_of_a_kind_up(tier: int) -> None:
    pair_straight = combo("4 4 5 5 6 6")
    assert paowang.beats(row(tier), pair_straight) is (tier >= 3)
    assert not paowang.beats(pair_straight, row(tier))


def test_a_qi_pai_on_the_table_is_a_pair_straight() -> None:
    # after 556677 went on 456, the next play must be a higher 双顺 of three pairs or 四路 up
    on = combo("5 5 6 6 7 7")
    assert not paowang.beats(combo("6 7 8"), on)
    assert not paowang.beats(combo("2 2 2"), on)
    assert not paowang.beats(combo("小王"), on)
    assert paowang.beats(combo("6 6 7 7 8 8"), on)
    assert paowang.beats(combo("4 4 4 4"), on)
    assert paowang.beats(combo("4 4 A"), on)


def test_points_of_cards() -> None:
    assert paowang_combos.card_points(cards("5 10 K 4 A 2 小王 大王")) == 25
    assert paowang_combos.card_points(double_deck_without_threes()) == 200


# ---- legal_plays --------------------------------------------------------------------------


def brute_force_plays(hand: Sequence[Card], on: Combo | None, revealed: bool) -> set[Signature]:
    """Every play a sub-multiset of ``hand`` makes on ``on``, by signature."""
    by_rank: dict[int, list[Card]] = {}
    for card in hand:
        by_rank.setdefault(card.rank, []).append(card)
    ranks = sorted(by_rank)
    found: set[Signature] = set()
    for counts in itertools.product(*(range(len(by_rank[r]) + 1) for r in ranks)):
        chosen = [card for r, c in zip(ranks, counts, strict=True) for card in by_rank[r][:c]]
        if not chosen:
            continue
        reading = paowang.classify(chosen, revealed)
        if reading is not None and (on is None or paowang.beats(reading, on)):
            found.add(reading.signature())
    return found


TABLE_TEXTS = [
    "4", "9", "A", "2",
    "4 4", "Q Q", "2 2",
    "4 5 6", "8 9 10", "Q K A", "5 6 7 8", "4 5 6 7 8",
    "4 4 5 5 6 6", "6 6 7 7 8 8", "Q Q K K A A", "5 5 6 6 7 7 8 8",
]
TABLES = [combo(text) for text in TABLE_TEXTS] + [row(tier) for tier in range(1, 28)]
TABLES += [combo("2 2 2"), combo("4 4 4 4"), combo("9 9 9 9 9"), combo("A A A A A A A A")]


def _pool(ranks: Sequence[int], copies: int) -> list[Card]:
    pool: list[Card] = []
    for rank in ranks:
        if rank >= SMALL_JOKER:
            pool += [Card(rank), Card(rank)]
        else:
            pool += [Card(rank, suit) for suit in SUITS * 2][:copies]
    return pool


@st.composite
def small_hands(draw: st.DrawFn) -> list[Card]:
    """Up to 9 cards from a few ranks (4s, As and jokers often): every kind shows up."""
    window_low = draw(st.integers(4, 12))
    window = list(range(window_low, min(window_low + 4, 14) + 1))
    extra = draw(st.sets(st.sampled_from([4, 14, 15, SMALL_JOKER, BIG_JOKER]), max_size=5))
    pool = _pool(sorted(set(window) | extra), draw(st.integers(2, 8)))
    indices = draw(
        st.lists(st.integers(0, len(pool) - 1), min_size=1, max_size=min(9, len(pool)),
                 unique=True)
    )
    return sorted(pool[i] for i in indices)


@st.composite
def deck_hands(draw: st.DrawFn) -> list[Card]:
    """Up to 9 cards anywhere from the deck."""
    deck = double_deck_without_threes()
    indices = draw(st.lists(st.integers(0, 99), min_size=1, max_size=9, unique=True))
    return sorted(deck[i] for i in indices)


def draw_table(data: st.DataObject, hand: list[Card], revealed: bool) -> Combo | None:
    source = data.draw(st.sampled_from(["lead", "any", "own"]))
    if source == "lead":
        return None
    if source == "any":
        return data.draw(st.sampled_from(TABLES))
    own = paowang.legal_plays(hand, None, revealed)
    return own[data.draw(st.integers(0, len(own) - 1))]


def check_against_brute_force(hand: list[Card], on: Combo | None, revealed: bool) -> None:
    engine = [play.signature() for play in paowang.legal_plays(hand, on, revealed)]
    assert len(engine) == len(set(engine)), "a play is listed twice"
    assert set(engine) == brute_force_plays(hand, on, revealed)


@settings(max_examples=400, deadline=None)
@given(small_hands(), st.booleans(), st.data())
def test_no_legal_play_is_missing_or_extra(
    hand: list[Card], revealed: bool, data: st.DataObject
) -> None:
    check_against_brute_force(hand, draw_table(data, hand, revealed), revealed)


@settings(max_examples=200, deadline=None)
@given(deck_hands(), st.booleans(), st.data())
def test_no_legal_play_is_missing_from_deck_hands(
    hand: list[Card], revealed: bool, data: st.DataObject
) -> None:
    check_against_brute_force(hand, draw_table(data, hand, revealed), revealed)


@pytest.mark.parametrize("table", [None, *TABLE_TEXTS])
def test_long_runs_against_brute_force(table: str | None) -> None:
    # runs longer than the random hands reach: every rank 4..A once, and 4..8 twice
    hand = cards("4 5 6 7 8 9 10 J Q K A")
    check_against_brute_force(hand, None if table is None else combo(table), False)
    hand = cards("4 4 5 5 6 6 7 7 8 8")
    check_against_brute_force(hand, None if table is None else combo(table), False)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32), st.booleans(), st.data())
def test_every_listed_play_classifies_and_beats(
    seed: int, revealed: bool, data: st.DataObject
) -> None:
    deck = double_deck_without_threes()
    random.Random(seed).shuffle(deck)
    hand = sorted(deck[:20])
    on = draw_table(data, sorted(deck[20:40]), data.draw(st.booleans()))
    for play in paowang.legal_plays(hand, on, revealed):
        remaining = list(hand)
        for card in play.cards:
            remaining.remove(card)  # the cards come from the hand
        reading = paowang.classify(play.cards, revealed)
        assert reading is not None
        assert reading.signature() == play.signature()
        if on is not None:
            assert paowang.beats(play, on)


def test_leading_a_full_hand_lists_every_kind() -> None:
    hand = cards("4 4 4 5 5 6 6 7 A 2 小王 大王 大王")
    plays = paowang.legal_plays(hand, None, revealed=True)
    kinds = {play.kind for play in plays}
    assert kinds == {"single", "pair", "straight", "pair_straight", "ladder"}
    tiers = {play.tier for play in plays if play.tier}
    # 三路 of 4s, 小王, 小幺, 中幺, revealed 大王 entries: 12, 16, 23, 25
    assert tiers == {1, 2, 4, 9, 12, 16, 23, 25}
