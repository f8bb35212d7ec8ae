"""Computer players for both variants behind one interface: :class:`Player`.

``make_player(kind, seed=...)`` builds one: ``"random"`` (a uniformly random legal action),
``"greedy"`` (always the lowest legal play) or ``"ai"`` (the real player). :func:`decide`
applies a player's choice to a game. Players read only a :class:`~bot.game.common.SeatView`.
"""

from __future__ import annotations

from bot.game.players.ai import AiPlayer
from bot.game.players.base import Player, decide, is_bomb, legal_options, play_order_key
from bot.game.players.simple import GreedyPlayer, RandomPlayer

__all__ = [
    "KINDS", "AiPlayer", "GreedyPlayer", "Player", "RandomPlayer", "decide", "is_bomb",
    "legal_options", "make_player", "play_order_key",
]

KINDS = ("random", "greedy", "ai")


def make_player(kind: str, *, seed: int = 0) -> Player:
    """A computer player of ``kind`` ("random", "greedy" or "ai"), seeded."""
    if kind == "random":
        return RandomPlayer(seed)
    if kind == "greedy":
        return GreedyPlayer(seed)
    if kind == "ai":
        return AiPlayer(seed)
    raise ValueError(f"unknown player kind: {kind!r} (choose from {', '.join(KINDS)})")
