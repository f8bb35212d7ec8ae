"""The card grammar of design.md ("The engine's public face"): parse_cards and format_cards."""

from __future__ import annotations

import pytest

from bot.game import shuangkou
from bot.game.cards import (
    BIG_JOKER,
    SMALL_JOKER,
    SUITS,
    Card,
    double_deck,
    double_deck_without_threes,
    format_cards,
    parse_cards,
    take_from,
)

RANKS = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"]


@pytest.mark.parametrize(("symbol", "letter"), list(zip(SUITS, "SHCD", strict=True)))
def test_suits_are_symbols_or_letters_in_any_case(symbol: str, letter: str) -> None:
    expected = Card(7, symbol)
    assert parse_cards(f"{symbol}7") == [expected]
    assert parse_cards(f"{letter}7") == [expected]
    assert parse_cards(f"{letter.lower()}7") == [expected]


@pytest.mark.parametrize(("name", "rank"), [(name, i + 3) for i, name in enumerate(RANKS)])
def test_ranks_3_to_10_j_q_k_a_2_in_any_case(name: str, rank: int) -> None:
    for token in (name, name.lower(), "♥" + name, "h" + name.lower()):
        (card,) = parse_cards(token)
        assert card.rank == rank


def test_ten_is_written_10() -> None:
    assert parse_cards("♦10") == [Card(10, "♦")]
    with pytest.raises(ValueError, match="'T'"):
        parse_cards("T")


@pytest.mark.parametrize(
    ("token", "rank"),
    [("小王", SMALL_JOKER), ("LJ", SMALL_JOKER), ("lj", SMALL_JOKER),
     ("大王", BIG_JOKER), ("BJ", BIG_JOKER), ("bj", BIG_JOKER)],
)
def test_jokers(token: str, rank: int) -> None:
    (card,) = parse_cards(token)
    assert card.rank == rank and card.is_joker and card.suit is None


@pytest.mark.parametrize("token", ["SJ", "sj", "♠J"])
def test_sj_is_the_jack_of_spades_not_a_joker(token: str) -> None:
    assert parse_cards(token) == [Card(11, "♠")]


@pytest.mark.parametrize(
    "text", ["♠3,♥3,小王", "♠3, ♥3, 小王", "  ♠3\t♥3\n小王 ", "♠3，♥3、小王", "S3 h3 LJ"]
)
def test_tokens_split_on_white_space_or_commas(text: str) -> None:
    assert parse_cards(text) == [Card(3, "♠"), Card(3, "♥"), Card(SMALL_JOKER)]


def test_the_example_of_the_contract() -> None:
    cards = parse_cards("♠3 ♥3 ♣4 ♦4 S5 H5 SJ 10 J Q K A 2 小王 大王 LJ BJ")
    assert len(cards) == 17
    assert cards[6] == Card(11, "♠")
    assert [c.rank for c in cards[-4:]] == [SMALL_JOKER, BIG_JOKER, SMALL_JOKER, BIG_JOKER]


@pytest.mark.parametrize("token", ["X9", "1", "11", "♠", "♠小王", "3♠", "ZZ", "♠1O", "王"])
def test_a_bad_token_raises_value_error_naming_it(token: str) -> None:
    with pytest.raises(ValueError, match=repr(token).replace("\\", "\\\\")) as error:
        parse_cards(f"♠3 {token} ♥4")
    assert token in str(error.value)


def test_empty_text_is_no_cards() -> None:
    assert parse_cards("") == [] and parse_cards(" , ") == []


def test_a_suitless_token_is_any_card_of_its_rank() -> None:
    (card,) = parse_cards("7")
    assert card.is_any_suit and card.suit is None and card.rank == 7
    assert take_from(parse_cards("♣7 ♥9"), [card]) == [Card(7, "♣")]
    assert take_from(parse_cards("♥9"), [card]) is None


def test_suitless_tokens_never_make_a_straight_flush() -> None:
    for text in ("3 4 5 6 7", "♠3 ♠4 ♠5 ♠6 7", "10 J Q K A"):
        reading = shuangkou.classify(parse_cards(text))
        assert reading is not None and reading.kind == "straight"


def test_cards_of_the_same_rank_and_suit_are_equal() -> None:
    deck = double_deck()
    assert deck[:54] == deck[54:]
    assert len(set(deck)) == 54
    assert Card(5, "♥") == parse_cards("♥5")[0] == parse_cards("H5")[0]


def test_the_decks() -> None:
    assert len(double_deck()) == 108
    assert len(double_deck_without_threes()) == 100
    assert all(card.rank != 3 for card in double_deck_without_threes())


def test_format_then_parse_gives_every_card_back() -> None:
    cards = sorted(set(double_deck())) + parse_cards("3 10 A 2")
    text = format_cards(cards)
    assert parse_cards(text) == cards
    assert format_cards(parse_cards(text)) == text


def test_format_writes_suit_then_rank_and_jokers_by_name() -> None:
    assert format_cards(parse_cards("s3 h10 lj bj")) == "♠3 ♥10 小王 大王"


def test_repr_reads_back() -> None:
    for card in set(double_deck()):
        assert eval(repr(card)) == card  # the repr is meant to be pasted back into Python


def test_cards_sort_by_rank_first() -> None:
    assert sorted(parse_cards("大王 ♦3 小王 ♠2 ♥3 ♠10")) == parse_cards("♥3 ♦3 ♠10 ♠2 小王 大王")
