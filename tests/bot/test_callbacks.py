"""The callback-data codec is exact: what encode() writes reads back as the same press, and any
other spelling of it (Unicode digits, a trailing newline, white space, leading zeros) is no
press at all, for decode() and for the pattern PTB routes presses by alike."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.presentation.callbacks import CALLBACK_PATTERN, MAX_BYTES, Act, Callback, decode

callbacks = st.builds(
    Callback,
    game_id=st.integers(0, 10**12 - 1),
    version=st.integers(0, 10**6 - 1),
    act=st.sampled_from(list(Act)),
    arg=st.none() | st.integers(0, 999),
)

#: digits that int() and the regex ``\d`` take for ASCII ones
UNICODE_DIGITS = "٠١٢٣٤٥٦٧٨٩۳۴৩३๓０３𝟑"
WHITE_SPACE = [" ", "\n", "\r\n", "\t", "\u00a0", "\u3000", "\v", "\f"]


def routed(data: str) -> Callback | None:
    """What the bot makes of ``data``: PTB hands it to the game's handler only if the
    pattern matches, and that handler decodes it."""
    return decode(data) if CALLBACK_PATTERN.match(data) else None


@given(callbacks)
def test_what_encode_writes_reads_back_as_the_same_press(callback: Callback) -> None:
    data = callback.encode()
    assert len(data.encode()) <= MAX_BYTES
    assert data.isascii()
    assert decode(data) == callback
    assert routed(data) == callback


@given(callbacks, st.data())
def test_a_unicode_digit_in_place_of_an_ascii_one_is_refused(
    callback: Callback, data: st.DataObject
) -> None:
    text = callback.encode()
    digits = [i for i, char in enumerate(text) if char in "0123456789"]
    where = data.draw(st.sampled_from(digits))
    forged = text[:where] + data.draw(st.sampled_from(UNICODE_DIGITS)) + text[where + 1 :]
    assert decode(forged) is None
    assert routed(forged) is None


@given(callbacks, st.sampled_from(WHITE_SPACE), st.data())
def test_white_space_anywhere_is_refused(
    callback: Callback, space: str, data: st.DataObject
) -> None:
    text = callback.encode()
    where = data.draw(st.integers(0, len(text)))
    forged = text[:where] + space + text[where:]
    assert decode(forged) is None
    assert routed(forged) is None


@given(callbacks, st.data())
def test_a_leading_zero_is_refused(callback: Callback, data: st.DataObject) -> None:
    fields = callback.encode().split(":")
    numeric = [i for i, field in enumerate(fields) if field and field.isdigit()]
    which = data.draw(st.sampled_from(numeric))
    fields[which] = "0" + fields[which]
    forged = ":".join(fields)
    assert decode(forged) is None
    assert routed(forged) is None


@given(st.text(max_size=70))
def test_decode_reads_nothing_but_what_encode_writes(text: str) -> None:
    callback = decode(text)
    if callback is not None:
        assert callback.encode() == text
    assert routed(text) == callback


@pytest.mark.parametrize(
    "data",
    [
        "7:3:h:\n",  # the finding: a trailing newline was the same press
        "7:3:t:5\n",
        "٧:3:h:",  # and so were Arabic-Indic digits (٧ is 7)
        "7:٣:h:",
        "7:3:t:٥",
        "7:3:t:۵",  # Extended Arabic-Indic
        "7:3:t:５",  # full-width
        "07:3:h:",
        "7:3:t:05",
        " 7:3:h:",
        "7:3:h: ",
        "+7:3:h:",
        "7:3:t:-1",
        "7_0:3:h:",
        "7:3:H:",
        "7:3:z:",  # no such act
        "7:3:t:1000",
        "1000000000000:3:h:",
        "7:1000000:h:",
        "",
    ],
)
def test_known_forgeries_are_refused(data: str) -> None:
    assert decode(data) is None
    assert routed(data) is None


@pytest.mark.parametrize(
    "callback",
    [
        Callback(-1, 0, Act.HINT),
        Callback(1, -1, Act.HINT),
        Callback(1, 0, Act.TOGGLE, -1),
        Callback(1, 10**6, Act.HINT),
        Callback(10**12, 0, Act.HINT),
        Callback(1, 0, Act.TOGGLE, 1000),
    ],
)
def test_a_button_no_press_could_match_is_never_made(callback: Callback) -> None:
    with pytest.raises(ValueError, match="cannot encode"):
        callback.encode()
