"""Property tests: the JSON columns give back exactly what was stored."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.storage.codec import (
    encode_counts,
    encode_flags,
    encode_hands,
    encode_message_ids,
    encode_seats,
    encode_seed,
    loads,
    seats_from_json,
)
from bot.storage.models import SeatRecord

telegram_ids = st.integers(min_value=-(2**53), max_value=2**53)
seats = st.builds(
    SeatRecord,
    user_id=st.none() | telegram_ids,
    name=st.text(),
    is_computer=st.booleans(),
    language=st.none() | st.sampled_from(["zh", "en", "zh-hans", "ru"]),
)
card_texts = st.sampled_from(["♠3", "♥10", "♣J", "♦2", "小王", "大王"])


@given(st.lists(seats, max_size=6))
def test_seats_round_trip(value: list[SeatRecord]) -> None:
    assert seats_from_json(encode_seats(value)) == tuple(value)


@given(st.none() | st.integers() | st.text())
def test_seeds_round_trip(seed: int | str | None) -> None:
    assert loads(encode_seed(seed)) == seed


@given(st.lists(st.lists(card_texts, max_size=27), max_size=5))
def test_hands_round_trip(hands: list[list[str]]) -> None:
    assert loads(encode_hands(hands)) == hands


@given(st.dictionaries(st.integers(0, 4), st.integers(1, 2**40)))
def test_message_ids_round_trip(ids: dict[int, int]) -> None:
    decoded = {int(seat): message for seat, message in loads(encode_message_ids(ids)).items()}
    assert decoded == ids


@given(st.lists(st.booleans(), max_size=5), st.lists(st.integers(0, 100), max_size=5))
def test_per_seat_lists_round_trip(flags: list[bool], counts: list[int]) -> None:
    assert loads(encode_flags(flags)) == flags
    assert loads(encode_counts(counts)) == counts


def test_a_bool_is_not_a_seed() -> None:
    try:
        encode_seed(True)
    except TypeError:
        return
    raise AssertionError("True was accepted as a seed")
