"""The interface every computer player implements, and the few helpers they share.

A player reads one :class:`~bot.game.common.SeatView` and nothing else: the engine builds the
view for the seat, so a player cannot see another hand or 刨王's secret teams even by mistake.
Both variants answer the same two questions, so the simulator, the terminal and the bot drive
every player the same way through :func:`decide`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from bot.game.common import Combo, Event, SeatView

__all__ = [
    "Overtake", "Player", "decide", "is_bomb", "legal_options", "lowest", "overtake_allowed",
    "play_order_key", "revealed_self", "seats_to_act",
]


@runtime_checkable
class Player(Protocol):
    """A computer player: pure decisions from what one seat may know."""

    def choose(self, view: SeatView) -> Combo | None:
        """A legal play for ``view.seat``, or None to pass (only when ``view.on_table`` is set)."""
        ...

    def choose_reveal(self, view: SeatView) -> bool:
        """刨王's 亮王: whether to show this seat's 大王 to the table."""
        ...


class Overtake(StrEnum):
    """Why a seat may play over its partner's trick: the only reasons the AI does (a
    partner's winning play is otherwise left to stand)."""

    GOES_OUT = "goes out"  # the play empties the hand
    GUARDS = "guards"  # a seat not known to be a partner can still beat the partner's play
    # before the trick comes back, and this play cannot be beaten without a bomb
    RUNS_OUT = "runs out"  # with the lead, the rest of the hand plays out
    KEEPS_LEAD = "keeps the lead"  # 刨王: the partner holding the trick is out, and were it to
    # stand, the lead would go to a seat not known to be on this side (双扣's 接风 hands it
    # to the partner's partner, this seat, so there it is never a reason)


def overtake_allowed(
    view: SeatView, move: Combo | None, reason: Callable[[Combo], Overtake | None]
) -> bool:
    """A move the AI may make: anything but playing over a known partner's trick without a
    ``reason`` it can state (each game's own reasons, read only over a partner)."""
    if move is None or view.on_table_seat not in view.partners:
        return True
    return reason(move) is not None


def seats_to_act(view: SeatView) -> tuple[int, ...]:
    """The seats still holding cards that act after this one before the trick comes back to
    whoever holds it (every other seat when leading)."""
    assert view.seat is not None
    seats = len(view.hand_sizes)
    stop = view.on_table_seat if view.on_table_seat is not None else view.seat
    found = []
    seat = (view.seat + 1) % seats
    while seat != stop and seat != view.seat:
        if view.hand_sizes[seat]:
            found.append(seat)
        seat = (seat + 1) % seats
    return tuple(found)


def revealed_self(view: SeatView) -> bool:
    """Whether the seat of ``view`` has revealed its 大王 (刨王; always False in 双扣)."""
    return bool(view.revealed) and view.seat is not None and view.revealed[view.seat]


def legal_options(view: SeatView) -> list[Combo]:
    """Every distinct legal play for the seat of ``view``, from its hand and the table alone."""
    if view.variant == "shuangkou":
        from bot.game import shuangkou

        return shuangkou.legal_plays(view.hand, view.on_table)
    from bot.game import paowang

    return paowang.legal_plays(view.hand, view.on_table, revealed=revealed_self(view))


def is_bomb(combo: Combo) -> bool:
    """A bomb: 双扣's 炸弹/三连炸/天王炸, or any rung of 刨王's ladder."""
    return combo.tier > 0 or combo.kind in ("bomb", "triple_bomb", "joker_bomb", "ladder")


def play_order_key(combo: Combo) -> tuple[int, int, int, int]:
    """Orders plays from the lowest to the highest: ordinary plays by rank, then bombs.

    "Lowest" is what the greedy player and the terminal's hints mean by it: spend as little
    strength as possible, and the fewest cards at equal strength.
    """
    bomb = is_bomb(combo)
    return (int(bomb), combo.tier if bomb else 0, combo.key, len(combo.cards))


def decide(player: Player, game: Any, seat: int) -> list[Event]:
    """Let ``player`` act for ``seat`` in ``game`` (either variant): 亮王, a play or a pass.

    Returns the engine's events. Raises the engine's ``IllegalPlay`` if the player misbehaves
    (a bug in the player), and ValueError if ``seat`` has nothing to do now.
    """
    view: SeatView = game.view(seat)
    if view.reveal_pending:
        return list(game.reveal(seat, player.choose_reveal(view)))
    if game.turn != seat:
        raise ValueError(f"seat {seat} has nothing to do now")
    combo = player.choose(view)
    if combo is None:
        return list(game.pass_turn(seat))
    return list(game.play(seat, combo.cards))


def lowest(plays: Sequence[Combo]) -> Combo:
    """The lowest of ``plays`` by :func:`play_order_key`."""
    return min(plays, key=play_order_key)
