"""双扣's combinations and what beats what: one test per row of the rules' tables.

Each test names the rule it checks (rules/shuangkou.md, "Combinations" and "What beats what").
"""

from __future__ import annotations

import itertools

import pytest

from bot.game import shuangkou
from bot.game.cards import parse_cards
from bot.game.common import Combo


def combo(text: str) -> Combo:
    reading = shuangkou.classify(parse_cards(text))
    assert reading is not None, f"{text} should be a combination"
    return reading


def kind(text: str) -> str | None:
    reading = shuangkou.classify(parse_cards(text))
    return None if reading is None else reading.kind


def beats(new: str, old: str) -> bool:
    return shuangkou.beats(combo(new), combo(old))


# ---- combinations (牌型) ----------------------------------------------------------------


@pytest.mark.parametrize("text", ["♠3", "♦10", "♥A", "♣2", "小王", "大王"])
def test_single_is_any_card(text: str) -> None:
    assert kind(text) == "single"


def test_single_order_is_big_joker_small_joker_2_a_down_to_3() -> None:
    order = ["♠3", "♠4", "♠5", "♠6", "♠7", "♠8", "♠9", "♠10", "♠J", "♠Q", "♠K", "♠A", "♠2",
             "小王", "大王"]
    for low, high in itertools.combinations(order, 2):
        assert beats(high, low) and not beats(low, high), (high, low)


@pytest.mark.parametrize("text", ["♠5 ♥5", "♠5 ♠5", "♣2 ♦2", "小王 小王", "大王 大王"])
def test_pair_is_two_of_a_rank_jokers_included(text: str) -> None:
    assert kind(text) == "pair"


def test_joker_pairs_are_the_top_two_pairs() -> None:
    assert beats("大王 大王", "小王 小王")
    assert beats("小王 小王", "♠2 ♥2")


@pytest.mark.parametrize("text", ["小王 大王", "♠5 ♥6", "♠2 小王"])
def test_mixed_pairs_are_not_pairs(text: str) -> None:
    assert kind(text) is None


@pytest.mark.parametrize(
    ("text", "top", "chain"),
    [("♠3 ♥3 ♠4 ♥4 ♠5 ♥5", 5, 3), ("J J Q Q K K A A", 14, 4),
     ("3 3 4 4 5 5 6 6 7 7 8 8 9 9 10 10 J J Q Q K K A A", 14, 12)],
)
def test_pair_straight_is_three_or_more_consecutive_pairs(text: str, top: int, chain: int) -> None:
    reading = combo(text)
    assert (reading.kind, reading.key, reading.chain) == ("pair_straight", top, chain)


@pytest.mark.parametrize(
    "text",
    ["3 3 4 4", "Q Q K K A A 2 2", "K K A A 2 2", "A A 2 2 3 3", "3 3 4 4 6 6",
     "3 3 4 4 5 5 5", "小王 小王 大王 大王 2 2"],
)
def test_pair_straight_needs_three_pairs_in_3_to_a(text: str) -> None:
    assert kind(text) != "pair_straight"


@pytest.mark.parametrize("text", ["♠5 ♥5 ♣5", "K K K", "2 2 2"])
def test_triple_is_three_of_a_rank_3_to_2(text: str) -> None:
    assert kind(text) == "triple"


def test_no_triple_of_jokers() -> None:
    assert kind("小王 小王 小王") is None


@pytest.mark.parametrize(
    ("text", "top"), [("3 3 3 4 4 4 5 5 5", 5), ("Q Q Q K K K A A A", 14),
                      ("6 6 6 7 7 7 8 8 8 9 9 9", 9)],
)
def test_triple_straight_is_three_or_more_consecutive_triples(text: str, top: int) -> None:
    reading = combo(text)
    assert (reading.kind, reading.key) == ("triple_straight", top)


@pytest.mark.parametrize("text", ["3 3 3 4 4 4", "K K K A A A 2 2 2", "3 3 3 4 4 4 6 6 6"])
def test_two_triples_or_runs_through_2_are_not_triple_straights(text: str) -> None:
    assert kind(text) is None


@pytest.mark.parametrize(
    ("text", "top", "chain"),
    [
        ("3 3 3 4 4 4 5 5 5 6 6 7 7 8 8", 5, 3),  # the lowest plane
        ("8 8 8 9 9 9 10 10 10 3 3 4 4 5 5", 10, 3),  # pairs may be anywhere in 3..A
        ("Q Q Q K K K A A A 3 3 4 4 5 5", 14, 3),
        ("3 3 3 4 4 4 5 5 5 5 5 6 6 7 7", 5, 3),  # a rank of five gives a triple and a pair
        ("5 5 5 6 6 6 7 7 7 8 8 8 9 9 10 10 J J Q Q", 8, 4),
    ],
)
def test_plane_is_n_consecutive_triples_with_n_consecutive_pairs(
    text: str, top: int, chain: int
) -> None:
    reading = combo(text)
    assert (reading.kind, reading.key, reading.chain) == ("plane", top, chain)


@pytest.mark.parametrize(
    "text",
    [
        "3 3 3 4 4 4 6 6 7 7",  # N = 2 is too short
        "3 3 3 4 4 4 5 5 5 6 6 7 7 9 9",  # pairs not consecutive
        "3 3 3 4 4 4 5 5 5 6 6 7 7",  # fewer pairs than triples
        "3 3 3 4 4 4 5 5 5 6 6 7 7 8 8 9 9",  # more pairs than triples
        "K K K A A A 2 2 2 3 3 4 4 5 5",  # no 2 in the triples
        "3 3 3 4 4 4 5 5 5 K K A A 2 2",  # no 2 in the pairs
        "3 3 3 4 4 4 5 5 5 6 6 7 7 8",  # a pair short
    ],
)
def test_not_a_plane(text: str) -> None:
    assert kind(text) is None


@pytest.mark.parametrize(
    ("text", "top", "chain"),
    [("♠3 ♥4 ♠5 ♠6 ♠7", 7, 5), ("♠10 ♥J ♠Q ♠K ♠A", 14, 5),
     ("3 4 5 6 7 8 9 10 J Q K A", 14, 12)],
)
def test_straight_is_five_or_more_consecutive_singles_mixed_suits(
    text: str, top: int, chain: int
) -> None:
    reading = combo(text)
    assert (reading.kind, reading.key, reading.chain) == ("straight", top, chain)


@pytest.mark.parametrize(
    "text",
    ["A 2 3 4 5", "J Q K A 2", "2 3 4 5 6", "Q K A 2 3", "3 4 5 6", "10 J Q K A 小王",
     "3 4 5 6 8", "3 4 5 6 7 7"],
)
def test_a_is_only_high_and_no_2_or_joker_in_a_straight(text: str) -> None:
    assert kind(text) is None


@pytest.mark.parametrize(("text", "top"), [("♠3 ♠4 ♠5 ♠6 ♠7", 7), ("♦10 ♦J ♦Q ♦K ♦A", 14)])
def test_straight_flush_is_a_straight_of_one_suit(text: str, top: int) -> None:
    reading = combo(text)
    assert (reading.kind, reading.key) == ("straight_flush", top)


@pytest.mark.parametrize("text", ["3 4 5 6 7", "♠3 ♠4 ♠5 ♠6 7"])
def test_suitless_cards_never_make_a_straight_flush(text: str) -> None:
    assert kind(text) == "straight"


@pytest.mark.parametrize("text", ["♠A ♠2 ♠3 ♠4 ♠5", "♠J ♠Q ♠K ♠A ♠2"])
def test_no_straight_flush_through_2(text: str) -> None:
    assert kind(text) is None


@pytest.mark.parametrize("size", [4, 5, 6, 7, 8])
def test_bomb_is_4_to_8_of_a_rank(size: int) -> None:
    for rank in ["3", "10", "A", "2"]:
        reading = combo(" ".join([rank] * size))
        assert reading.kind == "bomb"


@pytest.mark.parametrize("text", ["3 3 3 3 4 4 4 4 5 5 5 5", "Q Q Q Q K K K K A A A A"])
def test_triple_bomb_is_exactly_4_4_4_of_three_consecutive_ranks(text: str) -> None:
    assert kind(text) == "triple_bomb"


@pytest.mark.parametrize(
    "text",
    [
        "3 3 3 3 4 4 4 4",  # two ranks
        "3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 6",  # four ranks
        "3 3 3 3 3 4 4 4 4 5 5 5 5",  # five of one rank
        "K K K K A A A A 2 2 2 2",  # through the 2
        "3 3 3 3 4 4 4 4 6 6 6 6",  # not consecutive
    ],
)
def test_not_a_triple_bomb(text: str) -> None:
    assert kind(text) != "triple_bomb"


def test_joker_bomb_is_all_four_jokers() -> None:
    assert kind("小王 小王 大王 大王") == "joker_bomb"
    assert kind("小王 大王 大王") is None


@pytest.mark.parametrize(
    "text",
    [
        "3 3 3 4 4",  # 三张带对子
        "3 3 3 4",  # a triple with a single kicker
        "3 3 3 4 5",  # a triple with two kickers
        "3 3 3 4 4 4 5 6",  # 飞机带翅膀 is not a 双扣 combination
        "3 4",
        "3 3 4",
    ],
)
def test_anything_else_is_not_a_combination(text: str) -> None:
    assert kind(text) is None


# ---- what beats what ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("higher", "lower"),
    [
        ("4", "3"),
        ("♠K ♥K", "♠Q ♥Q"),
        ("2 2 2", "A A A"),
        ("4 4 5 5 6 6", "3 3 4 4 5 5"),
        ("4 4 4 5 5 5 6 6 6", "3 3 3 4 4 4 5 5 5"),
        ("♠4 ♥5 ♠6 ♠7 ♠8", "♠3 ♥4 ♠5 ♠6 ♠7"),
        ("♠4 ♠5 ♠6 ♠7 ♠8", "♥3 ♥4 ♥5 ♥6 ♥7"),
        ("4 4 4 5 5 5 6 6 6 7 7 8 8 9 9", "3 3 3 4 4 4 5 5 5 9 9 10 10 J J"),
    ],
)
def test_same_kind_and_size_higher_key_beats(higher: str, lower: str) -> None:
    assert beats(higher, lower)
    assert not beats(lower, higher)


def test_plane_is_compared_by_its_triples_only() -> None:
    assert beats("4 4 4 5 5 5 6 6 6 7 7 8 8 9 9", "3 3 3 4 4 4 5 5 5 Q Q K K A A")
    assert not beats("3 3 3 4 4 4 5 5 5 Q Q K K A A", "3 3 3 4 4 4 5 5 5 6 6 7 7 8 8")


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("4 4 5 5 6 6 7 7", "3 3 4 4 5 5"),  # longer 连对
        ("Q Q K K A A", "3 3 4 4 5 5 6 6"),  # shorter 连对
        ("♠4 ♥5 ♠6 ♠7 ♠8 ♠9", "♠3 ♥4 ♠5 ♠6 ♠7"),  # longer 顺子
        ("3 3 3 4 4 4 5 5 5 6 6 6", "3 3 3 4 4 4 5 5 5"),  # longer 连三张
        ("5 5 5", "4 4"),  # another kind
        # same size (18 cards), another kind
        ("3 3 4 4 5 5 6 6 7 7 8 8 9 9 10 10 J J", "3 3 3 4 4 4 5 5 5 6 6 6 7 7 7 8 8 8"),
        ("♠8 ♥9 ♠10 ♠J ♠Q ♠K", "3 3 4 4 5 5"),
        ("4 4 4 5 5 5 6 6 6 7 7 7 8 8 8", "3 3 3 4 4 4 5 5 5 6 6 7 7 8 8"),
    ],
)
def test_other_kind_or_size_never_beats(new: str, old: str) -> None:
    assert not beats(new, old)


def test_straight_flush_beats_any_plain_straight_of_its_length() -> None:
    assert beats("♠3 ♠4 ♠5 ♠6 ♠7", "♠10 ♥J ♠Q ♠K ♠A")
    assert beats("♠3 ♠4 ♠5 ♠6 ♠7", "♠3 ♥4 ♠5 ♠6 ♠7")


def test_straight_flush_against_straights_of_other_lengths_does_not_beat() -> None:
    assert not beats("♠3 ♠4 ♠5 ♠6 ♠7", "♠3 ♥4 ♠5 ♠6 ♠7 ♠8")
    assert not beats("♠3 ♠4 ♠5 ♠6 ♠7 ♠8", "♠3 ♥4 ♠5 ♠6 ♠7")


def test_a_plain_straight_never_beats_a_straight_flush() -> None:
    assert not beats("♠10 ♥J ♠Q ♠K ♠A", "♠3 ♠4 ♠5 ♠6 ♠7")


def test_straight_flush_is_beaten_by_a_higher_one_of_its_length_or_a_bomb() -> None:
    assert beats("♥4 ♥5 ♥6 ♥7 ♥8", "♠3 ♠4 ♠5 ♠6 ♠7")
    assert not beats("♥3 ♥4 ♥5 ♥6 ♥7", "♠3 ♠4 ♠5 ♠6 ♠7")  # equal ranks, other suit
    assert not beats("♥4 ♥5 ♥6 ♥7 ♥8 ♥9", "♠3 ♠4 ♠5 ♠6 ♠7")
    assert beats("3 3 3 3", "♠10 ♠J ♠Q ♠K ♠A")
    assert not beats("♠10 ♠J ♠Q ♠K ♠A", "3 3 3 3")


@pytest.mark.parametrize(
    "other",
    ["大王", "大王 大王", "2 2 2", "10 J Q K A", "♠10 ♠J ♠Q ♠K ♠A", "J J Q Q K K A A",
     "Q Q Q K K K A A A", "10 10 10 J J J Q Q Q 3 3 4 4 5 5"],
)
def test_bombs_beat_every_non_bomb(other: str) -> None:
    for bomb in ["3 3 3 3", "3 3 3 3 4 4 4 4 5 5 5 5", "小王 小王 大王 大王"]:
        assert beats(bomb, other)
        assert not beats(other, bomb)


#: bombs from weakest to strongest: 4-card < 5 < 6 < 7 < 8 < 三连炸 < 天王炸, by rank within a size
BOMB_ORDER = [
    "3 3 3 3", "K K K K", "2 2 2 2",
    "3 3 3 3 3", "2 2 2 2 2",
    "3 3 3 3 3 3", "2 2 2 2 2 2",
    "3 3 3 3 3 3 3", "2 2 2 2 2 2 2",
    "3 3 3 3 3 3 3 3", "2 2 2 2 2 2 2 2",
    "3 3 3 3 4 4 4 4 5 5 5 5", "Q Q Q Q K K K K A A A A",
    "小王 小王 大王 大王",
]


def test_bomb_order_joker_triple_8_7_6_5_4_then_rank() -> None:
    for (i, new), (j, old) in itertools.product(enumerate(BOMB_ORDER), repeat=2):
        assert beats(new, old) == (i > j), (new, old)


@pytest.mark.parametrize(
    "text",
    ["3", "大王", "♠5 ♥5", "大王 大王", "7 7 7", "3 3 4 4 5 5", "3 3 3 4 4 4 5 5 5",
     "3 3 3 4 4 4 5 5 5 6 6 7 7 8 8", "♠3 ♥4 ♠5 ♠6 ♠7", "♠3 ♠4 ♠5 ♠6 ♠7", *BOMB_ORDER],
)
def test_equal_never_beats_equal(text: str) -> None:
    assert not beats(text, text)


# ---- readings ---------------------------------------------------------------------------


def test_a_flush_run_reads_as_its_strongest_reading_the_straight_flush() -> None:
    readings = shuangkou.classify_all(parse_cards("♠3 ♠4 ♠5 ♠6 ♠7"))
    assert [r.kind for r in readings] == ["straight_flush"]


def test_combo_repr_says_what_it_is() -> None:
    assert repr(combo("♠3 ♥3")) == "<Combo pair '♠3 ♥3'>"


# ---- legal plays (the contract of design.md) ---------------------------------------------


def plays(hand: str, on: str | None = None) -> list[tuple[str, str]]:
    table = None if on is None else combo(on)
    return sorted(
        (c.kind, " ".join(str(card.rank) for card in sorted(c.cards)))
        for c in shuangkou.legal_plays(parse_cards(hand), table)
    )


def test_plays_that_differ_only_in_suits_count_once() -> None:
    assert plays("♠7 ♥7 ♣7") == [("pair", "7 7"), ("single", "7"), ("triple", "7 7 7")]


def test_a_straight_flush_is_a_play_of_its_own() -> None:
    listed = plays("♠3 ♠4 ♠5 ♠6 ♠7 ♥7")
    assert ("straight", "3 4 5 6 7") in listed
    assert ("straight_flush", "3 4 5 6 7") in listed


def test_a_straight_the_hand_makes_only_of_one_suit_is_the_straight_flush_alone() -> None:
    listed = plays("♠3 ♠4 ♠5 ♠6 ♠7")
    assert ("straight_flush", "3 4 5 6 7") in listed
    assert ("straight", "3 4 5 6 7") not in listed


def test_answering_a_straight_any_straight_flush_of_its_length_and_any_bomb() -> None:
    assert plays("♥3 ♥4 ♥5 ♥6 ♥7 ♠8 9 9 9 9", on="♠10 ♥J ♠Q ♠K ♠A") == [
        ("bomb", "9 9 9 9"), ("straight_flush", "3 4 5 6 7"),
    ]


def test_answering_nothing_beats_a_joker_bomb() -> None:
    assert plays("3 3 3 3 3 3 3 3 4 4 4 4 5 5 5 5", on="小王 小王 大王 大王") == []


def test_answering_a_plane_by_its_triples() -> None:
    listed = plays("4 4 4 5 5 5 6 6 6 10 10 J J Q Q", on="3 3 3 4 4 4 5 5 5 6 6 7 7 8 8")
    assert listed == [("plane", "4 4 4 5 5 5 6 6 6 10 10 11 11 12 12")]
