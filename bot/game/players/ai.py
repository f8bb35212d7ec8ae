"""The real computer player: one object for both variants, dispatching on ``view.variant``."""

from __future__ import annotations

from bot.game.common import Combo, SeatView
from bot.game.players.paowang_ai import PaowangAI
from bot.game.players.shuangkou_ai import ShuangkouAI


class AiPlayer:
    """Plans its hand and plays for its side; deterministic for a given seed."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self._players: dict[str, ShuangkouAI | PaowangAI] = {
            "shuangkou": ShuangkouAI(seed), "paowang": PaowangAI(seed)
        }

    def _for(self, variant: str) -> ShuangkouAI | PaowangAI:
        try:
            return self._players[variant]
        except KeyError:
            raise ValueError(f"no computer player for {variant!r}") from None

    def choose(self, view: SeatView) -> Combo | None:
        return self._for(view.variant).choose(view)

    def choose_reveal(self, view: SeatView) -> bool:
        return self._for(view.variant).choose_reveal(view)
