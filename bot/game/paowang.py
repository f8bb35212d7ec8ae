"""通化刨王 (Tonghua Paowang): 5 players, 100 cards, secret teams decided by the two 大王.

The rules are ``shared/rules/paowang.md``; ``docs/rules/paowang.md`` tells them to players.
Pure: no I/O, no clock. The moves live here; the combinations (``classify``, ``beats``,
``legal_plays``) in :mod:`paowang_combos`, the deal in :mod:`paowang_deal`, when a game is
decided and its scores in :mod:`paowang_scoring`, what each seat may know in
:mod:`paowang_view`; the names callers use are re-exported here.

A game runs in three stretches: 亮王 (every seat dealt a 大王 answers :meth:`Game.reveal`, in
any order; only a reveal is announced), play (the taker of a trick collects its point cards),
and 雪 (a side has won but some of its players hold cards and the losers have under 25: play
goes on until the winners are all out, unless the losers reach 25). ``Game.result`` holds
``deltas == row * multiplier`` (snow ×2/×4, ×2 if any 大王 was revealed).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from bot.game.cards import (
    BIG_JOKER,
    Card,
    split_hand,
)
from bot.game.common import (
    Action,
    Combo,
    Event,
    GameOver,
    IllegalPlay,
    Outcome,
    Passed,
    Played,
    PlayerOut,
    PointsTaken,
    Reason,
    Result,
    RevealDeclined,
    Revealed,
    SeatView,
    TrickTaken,
    WinHow,
)
from bot.game.paowang_combos import POINTS, beats, classify, legal_plays
from bot.game.paowang_deal import checked_hands, deal_hands
from bot.game.paowang_scoring import decide, desertion_scores, instant_result
from bot.game.paowang_view import seat_view

# the design's public face (shared/design.md): the game, and the combinations' three
__all__ = ["Game", "beats", "classify", "legal_plays"]

VARIANT = "paowang"
SEATS = 5

# sides, as indexes into Game._sides
WANG = 0
OTHER = 1

# The seats after each seat in playing order, itself last.
_AFTER = tuple(
    tuple((seat + step) % SEATS for step in range(1, SEATS + 1)) for seat in range(SEATS)
)


class Game:
    """One game of 刨王: the hands, the 亮王 answers, the trick, the points, the finish.

    ``Game.deal(seed)`` deals from a seed; ``Game(hands=..., leader=...)`` starts from given
    hands (the leader must be given: the ♥5 rule needs the deal order, which only ``deal``
    knows). ``reveal``/``play``/``pass_turn`` validate fully and raise :class:`IllegalPlay`
    without changing anything; on success they return the events of the action.

    Hand-made positions may use fewer cards. A hand that starts empty is out from the start (in
    seat order, so it may hold 扛旗). With a single 大王 in play its holder is a 王 side of one
    (scored 1 against 4). With no 大王 at all there are no sides: the game only runs until one
    player holds cards, and scores nothing.
    """

    variant = VARIANT
    seats = SEATS

    def __init__(self, hands: Sequence[Iterable[Card]], leader: int) -> None:
        self.hands, bigs, smalls = checked_hands(hands, leader)
        self.leader = leader
        #: how many 大王 each seat was dealt: the teams (engine-only knowledge)
        self.big_jokers: tuple[int, ...] = tuple(bigs)
        #: the seats of the 王 side (dealt a 大王), and of the other side
        self.wang_side: tuple[int, ...] = tuple(s for s in range(SEATS) if bigs[s])
        self.other_side: tuple[int, ...] = tuple(s for s in range(SEATS) if not bigs[s])
        self._sides = (self.wang_side, self.other_side)
        self._side_of = tuple(WANG if bigs[s] else OTHER for s in range(SEATS))
        self.on_table: Combo | None = None
        self.on_table_seat: int | None = None
        self.finish_order: list[int] = []
        self.result: Result | None = None
        self.history: list[tuple[int, Combo | None]] = []
        self.points: list[int] = [0] * SEATS
        self.revealed: list[bool] = [False] * SEATS
        #: how many 大王 each seat showed when revealing (0: not revealed)
        self.revealed_jokers: list[int] = [0] * SEATS
        #: how many 大王 each seat has played so far (public: the plays are)
        self.big_jokers_played: list[int] = [0] * SEATS
        self._pending: list[int] = list(self.wang_side)
        self._trick_start = 0
        self._last_trick_start = 0
        self._trick_points = 0
        self._passes = 0
        self._won_side: int | None = None  # set when a side has won (play may go on: 雪)
        self._won_how = WinHow.NONE
        for seat, hand in enumerate(self.hands):
            if not hand:
                self.finish_order.append(seat)
        self.turn: int | None = None if self._pending else leader
        holder = next((s for s in range(SEATS) if bigs[s] == 2 and smalls[s] == 2), None)
        if holder is not None:
            self._finish(instant_result(holder), [])
        else:
            self._check_end([])

    @classmethod
    def deal(cls, seed: int | str, leader: int | None = None) -> Game:
        """Shuffle the 100 cards with ``random.Random(seed)`` and deal 20 to each seat.

        Dealing starts with the seat after the dealer (seat 0): card ``i`` of the shuffled deck
        goes to seat ``(1 + i) % 5``. Unless ``leader`` is given (a later game: the bot names
        the previous winner), the seat dealt the first ♥5 leads.
        """
        hands, heart_five = deal_hands(seed)
        return cls(hands, heart_five if leader is None else leader)

    # -- questions ---------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.result is not None

    @property
    def reveal_pending(self) -> tuple[int, ...]:
        """The 大王 holders who still have to answer 亮王 (empty once play may start)."""
        return tuple(self._pending)

    @property
    def reveal_phase(self) -> bool:
        return bool(self._pending) and self.result is None

    @property
    def to_act(self) -> tuple[int, ...]:
        """The seats that must act now: every 大王 holder still to answer 亮王, or else the seat
        whose turn it is."""
        if self.result is not None:
            return ()
        if self._pending:
            return tuple(self._pending)
        return () if self.turn is None else (self.turn,)

    def desertion_scores(
        self, seat: int, fixed: Sequence[int | None], *, seconds: float
    ) -> tuple[int | None, ...]:
        return desertion_scores(self, seat, fixed, seconds=seconds)

    def apply(self, action: Action) -> list[Event]:
        """Apply a logged action: ``play`` (its exact cards), ``pass``, ``reveal``/``decline``."""
        if action.kind == "play":
            return self.play(action.seat, action.cards)
        if action.kind == "pass":
            return self.pass_turn(action.seat)
        return self.reveal(action.seat, action.kind == "reveal")

    @property
    def any_revealed(self) -> bool:
        """A 大王 was revealed: the score is doubled."""
        return any(self.revealed)

    @property
    def first_out(self) -> int | None:
        """The seat with 扛旗 (first out), or None."""
        return self.finish_order[0] if self.finish_order else None

    @property
    def trick_points(self) -> int:
        """The points played in the open trick (nobody's yet)."""
        return self._trick_points

    def side_of(self, seat: int) -> tuple[int, ...]:
        """The seats of ``seat``'s side (itself included). Engine knowledge: secret."""
        return self._sides[self._side_of[seat]]

    def side_points(self) -> tuple[int, int]:
        """(王 side, other side) points collected. Engine knowledge: secret while play goes on."""
        return (
            sum(self.points[s] for s in self.wang_side),
            sum(self.points[s] for s in self.other_side),
        )

    def next_game_leader(self) -> int | None:
        """Who deals and leads the next game at this table (None: the ♥5 rule again).

        The winner: the first player of the winning side to go out; if none went out (an
        instant four-joker win included), the ♥5 rule decides, so pass None to ``deal``.
        """
        if self.result is None:
            return None
        winners = set(self.result.winners)
        return next((s for s in self.finish_order if s in winners), None)

    def can_pass(self, seat: int) -> bool:
        # (asked at every turn: the attributes are read directly rather than through ``over``)
        return seat == self.turn and self.on_table is not None and self.result is None

    def legal_plays(self, seat: int | None = None) -> list[Combo]:
        """The plays the seat to act (or ``seat``, if it is to act) may make now."""
        seat = self.turn if seat is None else seat
        if seat is None or seat != self.turn:
            return []
        return legal_plays(self.hands[seat], self.on_table, self.revealed[seat])

    @property
    def trick(self) -> tuple[tuple[int, Combo | None], ...]:
        """The open trick so far: (seat, play or None for 不出)."""
        return tuple(self.history[self._trick_start :])

    @property
    def last_trick(self) -> tuple[tuple[int, Combo | None], ...]:
        """The trick taken last (empty before the first is taken)."""
        return tuple(self.history[self._last_trick_start : self._trick_start])

    def view(self, seat: int | None) -> SeatView:
        """What ``seat`` may know; ``None`` gives the public view (the group's)."""
        return seat_view(self, seat)

    # -- actions -----------------------------------------------------------------------

    def reveal(self, seat: int, yes: bool) -> list[Event]:
        """``seat``'s 亮王 answer: reveal its 大王 (all of them) or not.

        Returns ``[Revealed(seat, jokers)]`` (announce it to the group) or
        ``[RevealDeclined(seat)]`` (private to the seat: the group must not learn of it).
        """
        if self.result is not None:
            raise IllegalPlay(Reason.GAME_OVER)
        if not 0 <= seat < SEATS:
            raise IllegalPlay(Reason.NO_SUCH_SEAT, str(seat))
        if not self.big_jokers[seat]:
            raise IllegalPlay(Reason.NO_BIG_JOKER)
        if seat not in self._pending:
            raise IllegalPlay(Reason.NOT_REVEALING, "already answered")
        self._pending.remove(seat)
        event: Event
        if yes:
            self.revealed[seat] = True
            self.revealed_jokers[seat] = self.big_jokers[seat]
            event = Revealed(seat, self.big_jokers[seat])
        else:
            event = RevealDeclined(seat)
        if not self._pending:
            self.turn = self.leader
        return [event]

    def _check_turn(self, seat: int) -> None:
        if self.result is not None:
            raise IllegalPlay(Reason.GAME_OVER)
        if not 0 <= seat < SEATS:
            raise IllegalPlay(Reason.NO_SUCH_SEAT, str(seat))
        if self._pending:
            raise IllegalPlay(Reason.REVEAL_PENDING)
        if seat != self.turn:
            raise IllegalPlay(Reason.NOT_YOUR_TURN, f"seat {self.turn} is to act")

    def play(self, seat: int, cards: Iterable[Card]) -> list[Event]:
        # Only a refusal pays for the full check, which raises with its reason: the seat to
        # act, no 亮王 pending and the game not over is exactly what the check accepts.
        if seat != self.turn or self.result is not None or self._pending:
            self._check_turn(seat)
        wanted = list(cards)
        if not wanted:
            raise IllegalPlay(Reason.NOT_A_COMBINATION, "no cards")
        hand = self.hands[seat]
        split = split_hand(hand, wanted)
        if split is None:
            raise IllegalPlay(Reason.NOT_IN_HAND)
        actual, remaining = split
        # classified afresh even when the cards come from legal_plays: a caller's Combo is
        # never trusted, so play() refuses everything the rules do
        combo = classify(actual, self.revealed[seat])
        if combo is None:
            raise IllegalPlay(Reason.NOT_A_COMBINATION)
        on = self.on_table
        if on is not None and not beats(combo, on):
            raise IllegalPlay(Reason.DOES_NOT_BEAT, f"{combo!r} on {on!r}")
        # -- from here on the action is legal: change the state
        hand[:] = remaining  # in place: callers may hold the hand's list
        self.history.append((seat, combo))
        self.on_table = combo
        self.on_table_seat = seat
        self._passes = 0
        points = 0
        for card in actual:
            points += POINTS[card >> 3]
        self._trick_points += points
        if combo.key == BIG_JOKER:  # the key of every entry holding a 大王, and of no other
            self.big_jokers_played[seat] += sum(1 for card in actual if card >> 3 == BIG_JOKER)
        events: list[Event] = [Played(seat, combo, len(hand))]
        if not hand:
            self.finish_order.append(seat)
            events.append(PlayerOut(seat, len(self.finish_order)))
            if self._check_end(events):
                return events
        following = self._next_holding(seat)
        if following == seat:
            # Nobody else holds cards (a winner playing out alone, 雪): nobody can answer,
            # so the trick is taken at once rather than asking the player to pass to itself.
            self._take_trick(events)
        else:
            self.turn = following
        return events

    def pass_turn(self, seat: int) -> list[Event]:
        if seat != self.turn or self.result is not None or self._pending:  # as in play()
            self._check_turn(seat)
        taker = self.on_table_seat
        if self.on_table is None or taker is None:
            raise IllegalPlay(Reason.CANNOT_PASS, "the leader must play")
        self.history.append((seat, None))
        self._passes += 1
        events: list[Event] = [Passed(seat)]
        hands = self.hands
        # the players other than the taker still holding cards: the trick ends when all passed
        others = sum(map(bool, hands)) - (1 if hands[taker] else 0)
        if self._passes >= others:
            self._take_trick(events)
        else:
            self.turn = self._next_holding(seat)
        return events

    # -- internals ---------------------------------------------------------------------

    def _next_holding(self, seat: int) -> int:
        hands = self.hands
        for candidate in _AFTER[seat]:
            if hands[candidate]:
                return candidate
        raise AssertionError("nobody holds cards in a game that is not over")

    def _take_trick(self, events: list[Event]) -> None:
        """The last player of the trick takes it and its points; the game may end here."""
        taker = self.on_table_seat
        assert taker is not None
        points = self._trick_points
        self.points[taker] += points
        self.on_table = None
        self.on_table_seat = None
        self._passes = 0
        self._trick_points = 0
        self._last_trick_start, self._trick_start = self._trick_start, len(self.history)
        end: list[Event] = []
        if self._check_end(end):
            leader = None
        else:
            # a taker who is out hands the lead to the next seat still holding cards
            leader = taker if self.hands[taker] else self._next_holding(taker)
            self.turn = leader
        events.append(TrickTaken(taker, leader, points))
        events.append(PointsTaken(taker, points, self.points[taker]))
        events.extend(end)

    def _check_end(self, events: list[Event]) -> bool:
        """Decide the game at a moment the rules look at (a player out, a trick taken)."""
        if self.result is not None:
            return True
        hands = self.hands
        if not self.wang_side:
            # no 大王 in play (hand-made positions only): no sides, nothing to score
            if sum(1 for hand in hands if hand) > 1:
                return False
            self._finish(Result(Outcome.WIN, tuple(self.finish_order), (0,) * SEATS, ()), events)
            return True
        won = None if self._won_side is None else (self._won_side, self._won_how)
        won, result = decide(self, won)
        if won is not None:
            self._won_side, self._won_how = won
        if result is None:
            return False  # undecided, or 雪 in the making: the winners play on
        self._finish(result, events)
        return True

    def _finish(self, result: Result, events: list[Event]) -> None:
        self.result = result
        self.turn = None
        self._pending.clear()
        events.append(GameOver(result))
