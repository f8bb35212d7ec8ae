"""Join links that cannot be guessed: the deep link of a lobby carries its game id and a MAC.

A link ``t.me/<bot>?start=j<game>_<mac>`` seats whoever opens it, so it must come from the
group: the MAC is an HMAC of the game id under a key derived from the bot's token, which
only the bot knows. It survives restarts (nothing to store) and a counter's neighbours are
worth nothing. Deep-link payloads allow ``A-Z a-z 0-9 _ -`` and 64 characters.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re

__all__ = ["game_of_payload", "join_payload", "link_key"]

#: 16 base64url characters: 96 bits
MAC_LENGTH = 16
#: one spelling per game: ASCII digits without a leading zero (int() would read j07 and ٧ as 7)
_PAYLOAD = re.compile(rf"j([1-9][0-9]{{0,17}})_([A-Za-z0-9_-]{{{MAC_LENGTH}}})")


def link_key(token: str) -> bytes:
    """The key of the join links, derived from the bot's token (never the token itself)."""
    return hashlib.sha256(b"join links\0" + token.encode()).digest()


def _mac(key: bytes, game_id: int) -> str:
    digest = hmac.new(key, f"join:{game_id}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode()[:MAC_LENGTH]


def join_payload(key: bytes, game_id: int) -> str:
    """The ``/start`` payload that seats its opener at lobby ``game_id``."""
    return f"j{game_id}_{_mac(key, game_id)}"


def game_of_payload(key: bytes, payload: str) -> int | None:
    """The game a payload made by :func:`join_payload` names, or None for anything else."""
    match = _PAYLOAD.fullmatch(payload)
    if match is None:
        return None
    game_id = int(match.group(1))
    return game_id if hmac.compare_digest(match.group(2), _mac(key, game_id)) else None
