"""The callback-data codec: ``<game>:<version>:<action>:<arg>``, at most 64 bytes.

The version makes an old button harmless: a press carrying a version that no longer matches
is answered "outdated" and changes nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

MAX_BYTES = 64


class Act(StrEnum):
    JOIN = "j"
    LEAVE = "l"
    COMPUTER = "c"
    START = "s"
    CANCEL = "x"
    AGAIN = "a"
    TOGGLE = "t"
    PLAY = "p"
    PASS = "n"
    HINT = "h"
    CLEAR = "r"
    REVEAL = "v"
    READY = "k"
    TAKEBACK = "b"
    SETTINGS = "g"  # a group's /settings menu: game 0, the settings' revision, option*10+choice
    REPLAY = "y"  # a finished game's replay: the game, the step shown next
    TOP = "o"  # /top's switch: game 0, version 0, the board to show (rank_text.TopBoard)


# Exactly what encode() writes and nothing else, so that one press has one spelling: [0-9], not
# \d (which takes ٣ and other Unicode digits that int() reads as 3); no leading zeros (007 and 7
# would be the same press); and the whole string with nothing after it (``$`` alone lets a
# trailing newline through).
_PATTERN = re.compile(
    r"(0|[1-9][0-9]{0,11})"  # the game
    r":(0|[1-9][0-9]{0,5})"  # its version
    r":([a-z])"
    r":(0|[1-9][0-9]{0,2})?"  # the argument, or none
)
#: for PTB's CallbackQueryHandler, which calls ``re.match``: anchored with ``\Z`` (not ``$``),
#: so only data that decode() reads reaches the handler
CALLBACK_PATTERN = re.compile(_PATTERN.pattern + r"\Z")


@dataclass(frozen=True, slots=True)
class Callback:
    game_id: int
    version: int
    act: Act
    arg: int | None = None

    def encode(self) -> str:
        # a field out of the pattern's range (negative, too long) would make a button that
        # every press finds outdated: fail here, where the bug is (comparisons, not decode():
        # a keyboard encodes some 30 buttons, and this is ten times cheaper)
        if not (
            0 <= self.game_id < 10**12
            and 0 <= self.version < 10**6
            and (self.arg is None or 0 <= self.arg < 1000)
        ):
            raise ValueError(f"cannot encode {self!r} as callback data")
        arg = "" if self.arg is None else str(self.arg)
        return f"{self.game_id}:{self.version}:{self.act.value}:{arg}"  # at most 25 bytes


def decode(data: str | None) -> Callback | None:
    """The callback in ``data``, or None when it is malformed or forged: anything but the exact
    text :meth:`Callback.encode` writes."""
    if not data:
        return None
    match = _PATTERN.fullmatch(data)
    if not match:
        return None
    game_id, version, act, arg = match.groups()
    try:
        action = Act(act)
    except ValueError:
        return None
    return Callback(int(game_id), int(version), action, int(arg) if arg else None)
