"""The real computer player: one object for both variants, dispatching on ``view.variant``."""

from __future__ import annotations

from dataclasses import replace

from bot.game.common import Combo, SeatView
from bot.game.players.lookahead import LEARNED_MOVES_IN_PLAYOUTS, look_ahead, worth_looking
from bot.game.players.paowang_ai import PaowangAI, Tuning
from bot.game.players.shuangkou_ai import ShuangkouAI
from bot.game.players.trees import TreeModel


class AiPlayer:
    """Plans its hand and plays for its side; deterministic for a given seed.

    Near the end of a game it checks its heuristic's choice against the other sensible moves
    by playing a few agreeing deals out (:mod:`.lookahead`); ``lookahead=False`` is the
    AI without it: the heuristic with its learned looks, bombs and 亮王 (what those play-outs
    use, in 刨王 without the learned moves, and the benchmark's search player)."""

    def __init__(
        self, seed: int = 0, *, lookahead: bool = True, paowang_tuning: Tuning | None = None,
        shuangkou_moves: TreeModel | None = None,
    ) -> None:
        self.seed = seed
        self.lookahead = lookahead
        self._shuangkou_moves = shuangkou_moves
        self._players: dict[str, ShuangkouAI | PaowangAI] = {
            "shuangkou": ShuangkouAI(seed, shuangkou_moves),
            "paowang": PaowangAI(seed, paowang_tuning),
        }
        self._heuristic: AiPlayer | None = None

    @property
    def _paowang_tuning(self) -> Tuning:
        player = self._players["paowang"]
        assert isinstance(player, PaowangAI)
        return player.tuning

    def _for(self, variant: str) -> ShuangkouAI | PaowangAI:
        try:
            return self._players[variant]
        except KeyError:
            raise ValueError(f"no computer player for {variant!r}") from None

    def choose(self, view: SeatView) -> Combo | None:
        player = self._for(view.variant)
        choice = player.choose(view)
        if self.lookahead and worth_looking(view):
            if self._heuristic is None:
                tuning = self._paowang_tuning
                playouts = replace(
                    tuning, learned_moves=tuning.learned_moves and LEARNED_MOVES_IN_PLAYOUTS
                )
                self._heuristic = AiPlayer(
                    self.seed, lookahead=False, paowang_tuning=playouts,
                    shuangkou_moves=self._shuangkou_moves,
                )
            return look_ahead(
                view, choice, self._heuristic, lambda move: player.may_play(view, move)
            )
        return choice

    def choose_reveal(self, view: SeatView) -> bool:
        return self._for(view.variant).choose_reveal(view)
