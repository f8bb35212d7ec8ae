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


_PATTERN = re.compile(r"^(\d{1,12}):(\d{1,6}):([a-z]):(\d{0,3})$")
#: compiled pattern for PTB's CallbackQueryHandler: only data of this shape reaches the handler
CALLBACK_PATTERN = re.compile(r"^\d{1,12}:\d{1,6}:[a-z]:\d{0,3}$")


@dataclass(frozen=True, slots=True)
class Callback:
    game_id: int
    version: int
    act: Act
    arg: int | None = None

    def encode(self) -> str:
        arg = "" if self.arg is None else str(self.arg)
        data = f"{self.game_id}:{self.version}:{self.act.value}:{arg}"
        if len(data.encode()) > MAX_BYTES:  # cannot happen with the field widths above
            raise ValueError("callback data too long")
        return data


def decode(data: str | None) -> Callback | None:
    """The callback in ``data``, or None when it is malformed or forged."""
    if not data:
        return None
    match = _PATTERN.match(data)
    if not match:
        return None
    game_id, version, act, arg = match.groups()
    try:
        action = Act(act)
    except ValueError:
        return None
    return Callback(int(game_id), int(version), action, int(arg) if arg else None)
