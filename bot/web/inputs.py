"""What a request to the web table may carry, checked before anything is done with it.

Every check here is cheap and bounded, so a flood of bad requests costs little: a body is read
only up to a few KB (its Content-Length first, then a capped read), JSON is parsed only after
that, nesting too deep for the parser is a refusal rather than a ``RecursionError``, and shapes
are checked strictly so that nothing malformed reaches the service or SQLite (whose integers
stop at 2^63-1). A bad input raises :class:`BadInput`; the server answers it as a refusal.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass

from aiohttp import web

from bot.game.cards import BIG_JOKER, NO_SUIT, SMALL_JOKER, SUITS, Card
from bot.web.guard import BODY_TIMEOUT, BodyTooSlow

#: what a page may ask for; everything else is a 400
KINDS = frozenset({"play", "pass", "reveal", "decline", "ready", "takeback", "again", "start"})
#: SQLite's INTEGER is 64-bit signed: a larger id would overflow the query, not miss a game
MAX_GAME_ID = 2**63 - 1
#: a hand holds at most 27 cards (双扣), so no play is longer
MAX_CARDS = 27
#: an action is {"game", "kind", "cards"}: 27 card codes take ~100 bytes; 4 KB is plenty and
#: still parses in microseconds
MAX_ACTION_BYTES = 4096
#: the fields an action may have (the page sends exactly these)
ACTION_FIELDS = frozenset({"game", "kind", "cards"})
#: a game id as text: ASCII digits only (``int`` would also take " 7", "7_0" and "٧")
_DIGITS = re.compile(r"[0-9]{1,19}")
#: a replay step: no game has a million of them
_STEP = re.compile(r"[0-9]{1,6}")


class BadInput(Exception):
    """The request is malformed: refused with ``status`` and a short ``reason``."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def loads(raw: bytes | str) -> object:
    """JSON, or :class:`BadInput`. Nesting deeper than the interpreter's recursion limit makes
    the parser raise ``RecursionError``: that is bad input too, not a crash."""
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        raise BadInput(400, "not JSON") from None


async def read_capped(request: web.Request, limit: int) -> bytes:
    """The body, refused with 413 once it is longer than ``limit``: a declared length is
    refused before a byte is read, and a chunked body is read no further than ``limit``."""
    declared = request.content_length
    if declared is not None and declared > limit:
        raise BadInput(413, "too large")
    body = bytearray()
    try:  # the connection guard's time limit for a body (none when served without it)
        async with asyncio.timeout(request.get(BODY_TIMEOUT)):
            while chunk := await request.content.read(limit + 1 - len(body)):
                body += chunk
                if len(body) > limit:
                    raise BadInput(413, "too large")
    except TimeoutError:
        raise BodyTooSlow from None
    return bytes(body)


def game_id_of(value: object) -> int:
    """A game id: a positive int below 2^63, given as a JSON number or as ASCII digits."""
    if isinstance(value, str) and _DIGITS.fullmatch(value):
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 < value <= MAX_GAME_ID:
        raise BadInput(400, "no game")
    return value


def step_of(value: str) -> int:
    """A replay step: ASCII digits (whether it is in range is the replay's to say)."""
    if not _STEP.fullmatch(value):
        raise BadInput(400, "no such step")
    return int(value)


def card_of(code: object) -> Card:
    """A card from its integer code; raises ValueError for anything that is no card."""
    if not isinstance(code, int) or isinstance(code, bool):
        raise ValueError(code)
    rank, suit = code >> 3, code & 7
    if rank in (SMALL_JOKER, BIG_JOKER) and suit == NO_SUIT:
        return Card(rank)
    if 3 <= rank < SMALL_JOKER and suit < NO_SUIT:
        return Card(rank, SUITS[suit])
    raise ValueError(code)


@dataclass(frozen=True)
class ActionRequest:
    """A page's action, well formed. ``game`` is as sent (None or "" for the direct link's
    game, which only the user's checked initData knows)."""

    game: object
    kind: str
    cards: list[Card]


def action_of(body: object) -> ActionRequest:
    """An action body's shape: ``{"game": id, "kind": one of KINDS, "cards": [codes]}``,
    ``cards`` optional; anything else is :class:`BadInput` (400)."""
    if not isinstance(body, dict):
        raise BadInput(400, "not an object")
    if not body.keys() <= ACTION_FIELDS:
        raise BadInput(400, "unknown field")
    kind = body.get("kind")
    if not isinstance(kind, str) or kind not in KINDS:
        raise BadInput(400, "no such action")
    codes = body.get("cards", [])
    if not isinstance(codes, list) or len(codes) > MAX_CARDS:
        raise BadInput(400, "not a card")
    try:
        cards = [card_of(code) for code in codes]
    except ValueError:
        raise BadInput(400, "not a card") from None
    game = body.get("game")
    if game not in (None, ""):
        game_id_of(game)  # refused here, before the game is looked for
    return ActionRequest(game, kind, cards)
