"""The one face both engines show: who must act, what they may do, doing it, what a seat may
see, and how the game ended (in the spirit of OpenSpiel's ``State``).

The bot, the simulator, the terminal game and the computer players are written against this
protocol, never against one engine; rules that differ by game (who leads the next game, what
逃跑 costs) are methods here, answered by each engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from bot.game.cards import Card
from bot.game.common import Action, Combo, Event, Result, SeatView


class GameState(Protocol):
    """One game in progress (or over) of either variant."""

    @property
    def variant(self) -> str: ...
    @property
    def seats(self) -> int: ...

    hands: list[list[Card]]
    turn: int | None
    on_table: Combo | None
    result: Result | None

    @property
    def over(self) -> bool: ...

    @property
    def to_act(self) -> tuple[int, ...]:
        """The seats that must act now: the seat whose turn it is, or, in 刨王's 亮王 phase,
        every 大王 holder still to answer. Empty when the game is over."""
        ...

    @property
    def reveal_pending(self) -> tuple[int, ...]:
        """The seats still to answer 亮王 (always empty in 双扣)."""
        ...

    @property
    def reveal_phase(self) -> bool: ...

    def can_pass(self, seat: int) -> bool: ...
    def legal_plays(self, seat: int | None = None) -> list[Combo]: ...
    def apply(self, action: Action) -> list[Event]:
        """Apply one action; raises :class:`IllegalPlay` and changes nothing if it does not
        fit."""
        ...

    def view(self, seat: int | None) -> SeatView: ...
    def next_game_leader(self) -> int | None:
        """Who leads the next game at this table (None: the deal decides)."""
        ...

    def desertion_scores(
        self, seat: int, fixed: Sequence[int | None], *, seconds: float
    ) -> tuple[int | None, ...]:
        """The scores fixed when ``seat`` abandons the game after ``seconds`` (逃跑)."""
        ...
