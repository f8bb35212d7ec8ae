"""A join link names its lobby in exactly one spelling, and only with the bot's MAC."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.service.join_links import game_of_payload, join_payload, link_key

KEY = link_key("123456:TEST-token")
games = st.integers(1, 10**18 - 1)


@given(games)
def test_a_payload_names_its_game(game_id: int) -> None:
    payload = join_payload(KEY, game_id)
    assert len(payload) <= 64 and payload.isascii()
    assert game_of_payload(KEY, payload) == game_id
    assert game_of_payload(link_key("654321:other"), payload) is None


@given(games, st.sampled_from(["0", "00"]))
def test_a_leading_zero_is_refused_even_with_the_right_mac(game_id: int, zeros: str) -> None:
    mac = join_payload(KEY, game_id).split("_", 1)[1]
    assert game_of_payload(KEY, f"j{zeros}{game_id}_{mac}") is None


@given(games, st.sampled_from("٠١٢٣٤٥٦٧٨٩０３"), st.data())
def test_unicode_digits_are_refused(game_id: int, digit: str, data: st.DataObject) -> None:
    payload = join_payload(KEY, game_id)
    where = data.draw(st.integers(1, len(str(game_id))))
    forged = payload[:where] + digit + payload[where + 1 :]
    assert game_of_payload(KEY, forged) is None


@given(games, st.sampled_from([" ", "\n", "\t", "\u3000"]), st.booleans())
def test_white_space_around_is_refused(game_id: int, space: str, before: bool) -> None:
    payload = join_payload(KEY, game_id)
    forged = space + payload if before else payload + space
    assert game_of_payload(KEY, forged) is None
