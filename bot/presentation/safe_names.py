"""People's names made safe to show: what Telegram lets a user call themselves is not what a
table may print.

A name is shown in the lobby, the table, the hand messages and the results. Left as is, a
name can pose as a computer seat (「🤖 电脑1」) or as the bot's own prompt (「▶ 轮到你了」),
reverse the text around it with bidi controls, or push the table out of its message with
thousands of characters. :func:`safe_name` is applied where a user enters the service.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["MAX_NAME_LENGTH", "safe_name"]

#: visible characters kept of a name; longer names end in an ellipsis
MAX_NAME_LENGTH = 24
ELLIPSIS = "…"
#: what marks the bot's own lines: computer seats (🤖) and the turn (▶); no name may carry them
RESERVED_MARKS = ("🤖", "▶", "►", "⏩")
#: names the bot gives its computer seats; a human so named is marked as a person
_COMPUTER_NAME = re.compile(r"^(电脑|電腦|computer|bot)\s*\d*$", re.IGNORECASE)
HUMAN_MARK = "👤"

# control (Cc), format (Cf: bidi controls, zero-width characters), private use (Co),
# surrogates (Cs), unassigned (Cn), line and paragraph separators (Zl, Zp)
_DROPPED = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})
#: combining marks kept on one character: more is "zalgo" text that overflows the line
_MAX_MARKS = 2


def safe_name(raw: str | None, fallback: str) -> str:
    """``raw`` cleaned for display, or ``fallback`` if nothing printable is left.

    Control, format and bidi characters are removed, runs of spaces become one, the reserved
    marks go, a name that reads as a computer seat's gets :data:`HUMAN_MARK`, and the length is
    capped at :data:`MAX_NAME_LENGTH` visible characters.
    """
    cleaned = _visible(unicodedata.normalize("NFC", raw or ""))
    for mark in RESERVED_MARKS:
        cleaned = cleaned.replace(mark, "")
    cleaned = " ".join(cleaned.split())
    if not cleaned:
        return fallback
    if _COMPUTER_NAME.match(cleaned):
        cleaned = f"{HUMAN_MARK}{cleaned}"
    return _capped(cleaned)


def _visible(name: str) -> str:
    kept: list[str] = []
    marks = 0
    for char in name:
        if char.isspace():  # tabs and newlines too (they are controls): one line, spaced
            char = " "
        category = unicodedata.category(char)
        if category in _DROPPED:
            continue
        if category.startswith("Z"):
            char = " "
        if category in ("Mn", "Me"):
            marks += 1
            if marks > _MAX_MARKS or not kept:
                continue
        else:
            marks = 0
        kept.append(char)
    return "".join(kept)


def _capped(name: str) -> str:
    """At most :data:`MAX_NAME_LENGTH` characters that take a place, the ellipsis included
    (combining marks and variation selectors ride on the character before them)."""
    starts = [
        index
        for index, char in enumerate(name)
        if unicodedata.category(char) not in ("Mn", "Me") and not "\ufe00" <= char <= "\ufe0f"
    ]
    if len(starts) <= MAX_NAME_LENGTH:
        return name
    return name[: starts[MAX_NAME_LENGTH - 1]].rstrip() + ELLIPSIS
