"""What one seat of a 刨王 game may know: :meth:`bot.game.paowang.Game.view`.

The teams are the engine's secret. A seat knows its own hand, so whether it holds a 大王;
everyone knows the reveals and the 大王 played. Nothing in the public view depends on who holds
the 大王 until one is revealed or played.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.game.common import IllegalPlay, Reason, SeatView

if TYPE_CHECKING:
    from bot.game.paowang import Game

__all__ = ["knowledge", "seat_view"]


def seat_view(game: Game, seat: int | None) -> SeatView:
    """What ``seat`` may know; ``None`` gives the public view (the group's)."""
    if seat is not None and not 0 <= seat < game.seats:
        raise IllegalPlay(Reason.NO_SUCH_SEAT, str(seat))
    partners, opponents = knowledge(game, seat)
    return SeatView(
        variant=game.variant,
        seat=seat,
        hand=tuple(game.hands[seat]) if seat is not None else (),
        hand_sizes=tuple(len(hand) for hand in game.hands),
        turn=game.turn,
        on_table=game.on_table,
        on_table_seat=game.on_table_seat,
        trick=game.trick,
        history=tuple(game.history),
        finish_order=tuple(game.finish_order),
        partners=partners,
        over=game.over,
        opponents=opponents,
        points=tuple(game.points),
        revealed=tuple(game.revealed),
        revealed_jokers=tuple(game.revealed_jokers),
        reveal_pending=seat is not None and seat in game.reveal_pending and not game.over,
        reveal_phase=game.reveal_phase,
        trick_points=game.trick_points,
        last_trick=game.last_trick,
    )


def knowledge(game: Game, seat: int | None) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(partners, opponents) as far as ``seat`` can tell."""
    seats = range(game.seats)
    if seat is None or not game.wang_side:
        return (), ()
    if game.result is not None:
        # the result names the winners: the teams are public now
        mine = game.side_of(seat)
    else:
        # the 大王 this seat can place: its own, and those revealed or played by others
        known = [max(game.revealed_jokers[s], game.big_jokers_played[s]) for s in seats]
        known[seat] = game.big_jokers[seat]
        if sum(known) < sum(game.big_jokers):
            # Some 大王 is unplaced. A holder of one cannot tell who has the other;
            # anyone else knows only the 王 seats shown so far to be opponents.
            if game.big_jokers[seat]:
                return (), ()
            return (), tuple(s for s in seats if known[s])
        wang = tuple(s for s in seats if known[s])
        mine = wang if seat in wang else tuple(s for s in seats if s not in wang)
    partners = tuple(s for s in mine if s != seat)
    opponents = tuple(s for s in seats if s not in mine)
    return partners, opponents
