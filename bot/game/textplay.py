"""A lenient reader for plays typed by people: ``33 44 55``, ``♠3 ♠4 ♠5``, ``334455``, ``10JQKA``.

:func:`bot.game.cards.parse_cards` reads the strict grammar (one card per token). People in a
chat type faster than that: runs of ranks without spaces, suits glued to ranks, full-width
characters, ``T`` or ``0`` for a ten. This module accepts all of that and still refuses what it
cannot read, with a :class:`ValueError` that quotes the part it could not read, so a front end
can answer "I don't know ``X``" instead of guessing.
"""

from __future__ import annotations

import re
import unicodedata

from bot.game.cards import BIG_JOKER, SMALL_JOKER, Card, parse_cards

__all__ = ["HINT_WORDS", "PASS_WORDS", "is_hint", "is_pass", "parse_play_text"]

#: what people type to pass (不出) or to ask for a hint (提示), compared case-insensitively
PASS_WORDS = frozenset({"不出", "不要", "要不起", "过", "pass", "p", "-"})
HINT_WORDS = frozenset({"提示", "hint", "h"})

# Suits in both the filled and the outlined glyphs, and the letters of the strict grammar.
_SUITS = {"♠": "♠", "♤": "♠", "♥": "♥", "♡": "♥", "♣": "♣", "♧": "♣", "♦": "♦", "♢": "♦",
          "S": "♠", "H": "♥", "C": "♣", "D": "♦"}
_RANKS = {"2": 15, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
          "J": 11, "Q": 12, "K": 13, "A": 14, "T": 10, "0": 10}
_JOKERS = (("小王", SMALL_JOKER), ("大王", BIG_JOKER), ("LJ", SMALL_JOKER), ("BJ", BIG_JOKER),
           ("小鬼", SMALL_JOKER), ("大鬼", BIG_JOKER))
_SEPARATORS = re.compile(r"[\s,，、;；/|]+")
# A play's name in brackets after its cards, as the bot shows plays ("♠6（单张）", "4 4 A（小幺）"):
# people copy a hint or a table line as it is. NFKC has folded （） to ().
_TRAILING_NAME = re.compile(r"\s*\(.*\)\s*$")


def _normalise(text: str) -> str:
    # NFKC folds full-width digits and letters (３３, ＡＫ) into ASCII; the suit glyphs survive it.
    return unicodedata.normalize("NFKC", text).strip().upper()


def is_pass(text: str) -> bool:
    return _normalise(text).lower() in PASS_WORDS


def is_hint(text: str) -> bool:
    return _normalise(text).lower() in HINT_WORDS


def _scan(token: str) -> list[Card]:
    """Read one token with no separators as a run of cards, left to right."""
    cards: list[Card] = []
    i = 0
    while i < len(token):
        for name, rank in _JOKERS:
            if token.startswith(name, i):
                cards.append(Card(rank))
                i += len(name)
                break
        else:
            suit = _SUITS.get(token[i])
            j = i + 1 if suit is not None else i
            if token.startswith("10", j):
                rank, j = 10, j + 2
            elif j < len(token) and token[j] in _RANKS:
                rank, j = _RANKS[token[j]], j + 1
            else:
                raise ValueError(f"not a card: {token[i:]!r}")
            cards.append(Card(rank, suit))
            i = j
    return cards


def parse_play_text(text: str) -> list[Card]:
    """The cards named by ``text``; a :class:`ValueError` quoting the part that is not a card.

    Accepts the strict tokens of :func:`parse_cards` (``♠3 H4 小王 BJ``) and, per token, runs of
    ranks with or without suits (``334455``, ``10JQKA``, ``♠3♠4♠5``, ``ttjjqq``). A rank without
    a suit stands for any card of that rank, as in :func:`parse_cards`. A play's name in
    brackets after the cards, as the bot writes plays (``♠6（单张）``), is ignored.
    """
    normal = _TRAILING_NAME.sub("", _normalise(text))
    if not normal:
        raise ValueError("no cards")
    cards: list[Card] = []
    for token in _SEPARATORS.split(normal):
        if not token:
            continue
        try:
            cards += parse_cards(token)  # the strict grammar first: "SJ" is ♠J, not ♠ and J
        except ValueError:
            cards += _scan(token)
    return cards
