"""The lenient reader of typed plays (bot.game.textplay)."""

import pytest

from bot.game.cards import Card, parse_cards
from bot.game.textplay import is_hint, is_pass, parse_play_text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("33 44 55", "3 3 4 4 5 5"),
        ("♠3 ♠4 ♠5 ♠6 ♠7", "♠3 ♠4 ♠5 ♠6 ♠7"),
        ("334455", "3 3 4 4 5 5"),
        ("10JQKA", "10 J Q K A"),
        ("10jqka", "10 J Q K A"),
        ("ttjjqq", "10 10 J J Q Q"),
        ("♠3♠4♠5♠6♠7", "♠3 ♠4 ♠5 ♠6 ♠7"),
        ("S3 H4 C5 D6", "♠3 ♥4 ♣5 ♦6"),
        ("SJ", "♠J"),  # the strict grammar wins: ♠J, not a suit and a J
        ("sj hj", "♠J ♥J"),
        ("小王大王", "小王 大王"),
        ("LJ BJ", "小王 大王"),
        ("小王 小王 大王 大王", "小王 小王 大王 大王"),
        ("３３，４４", "3 3 4 4"),  # full-width digits and comma
        ("2222", "2 2 2 2"),
        ("♡10 ♤10", "♥10 ♠10"),
        ("  5,5、5 ", "5 5 5"),
        # a play as the bot shows it, copied from a hint or the table: the name is ignored
        ("♠6（单张）", "♠6"),
        ("4 4 A（小幺）", "4 4 A"),
        ("5 5 6 6 7 7 (pair straight over a straight (骑牌))", "5 5 6 6 7 7"),
        ("♥3 ♥4 ♥5 ♥6 ♥7 (straight flush)", "♥3 ♥4 ♥5 ♥6 ♥7"),
    ],
)
def test_reads_what_people_type(text: str, expected: str) -> None:
    assert parse_play_text(text) == parse_cards(expected)


def test_suitless_cards_stand_for_any_card_of_the_rank() -> None:
    (card,) = parse_play_text("9")
    assert card == Card(9) and card.is_any_suit


@pytest.mark.parametrize("text", ["x3", "33 44 5x", "1", "", "   ", "♠", "大", "（单张）"])
def test_refuses_what_is_not_cards_and_quotes_it(text: str) -> None:
    with pytest.raises(ValueError):
        parse_play_text(text)


def test_the_error_names_the_bad_part() -> None:
    with pytest.raises(ValueError, match="X"):
        parse_play_text("33 x4")


def test_pass_and_hint_words() -> None:
    assert is_pass("不出") and is_pass("PASS") and is_pass(" pass ") and is_pass("要不起")
    assert is_hint("提示") and is_hint("Hint")
    assert not is_pass("33") and not is_hint("33")
