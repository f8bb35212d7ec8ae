"""绍兴双扣 (Shaoxing Shuangkou): 4 players, seats 0+2 against 1+3, two decks with jokers.

The rules are ``shared/rules/shuangkou.md``. Everything here is pure: no I/O, no clock.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from bot.game.cards import Card, double_deck
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
    Reason,
    Result,
    SeatView,
    TrickTaken,
)
from bot.game.shuangkou_combos import BOMB_KINDS, KINDS, beats, classify, classify_all
from bot.game.shuangkou_plays import legal_plays, take_play

__all__ = [
    "BOMB_KINDS",
    "ESCAPE_PENALTY",
    "KINDS",
    "Game",
    "beats",
    "classify",
    "classify_all",
    "desertion_scores",
    "legal_plays",
]

VARIANT = "shuangkou"
SEATS = 4
HAND_SIZE = 27

OUTCOME_DELTAS = {Outcome.SHUANGKOU: 4, Outcome.DANKOU: 2, Outcome.PINGKOU: 0}
#: what abandoning a game in progress (逃跑) costs
ESCAPE_PENALTY = -20


# ---- the game ---------------------------------------------------------------------------


def partner(seat: int) -> int:
    return (seat + 2) % SEATS


class Game:
    """One game of 双扣: the hands, whose turn it is, the trick, and the finishing order.

    ``Game.deal(seed)`` deals from a seed; ``Game(hands=..., leader=...)`` starts from given
    hands. ``play``/``pass_turn`` validate fully and raise :class:`IllegalPlay` without
    changing anything; on success they return the events of the action.
    """

    variant = VARIANT
    seats = SEATS

    def __init__(self, hands: Sequence[Iterable[Card]], leader: int = 0) -> None:
        if len(hands) != SEATS:
            raise ValueError(f"双扣 needs {SEATS} hands, got {len(hands)}")
        if not 0 <= leader < SEATS:
            raise ValueError(f"no such seat: {leader}")
        self.hands: list[list[Card]] = [sorted(hand) for hand in hands]
        self.leader = leader
        self.turn: int | None = leader
        self.on_table: Combo | None = None
        self.on_table_seat: int | None = None
        self.finish_order: list[int] = []
        self.result: Result | None = None
        self.history: list[tuple[int, Combo | None]] = []
        self._trick_start = 0
        self._last_trick_start = 0
        self._passes = 0
        for seat, hand in enumerate(self.hands):
            if not hand:  # an empty hand is out from the start (only in hand-made positions)
                self.finish_order.append(seat)
        if self.turn is not None and not self.hands[self.turn]:
            raise ValueError("the leader must hold cards")
        self._check_end([])

    @classmethod
    def deal(cls, seed: int | str, leader: int | None = None) -> Game:
        """Shuffle two decks with ``random.Random(seed)`` and deal 27 cards each.

        The leader is drawn from the same generator unless given (the previous 上游).
        """
        rng = random.Random(seed)
        deck = double_deck()
        rng.shuffle(deck)
        hands = [deck[i * HAND_SIZE : (i + 1) * HAND_SIZE] for i in range(SEATS)]
        drawn = rng.randrange(SEATS)
        return cls(hands, drawn if leader is None else leader)

    # -- questions ---------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.result is not None

    @property
    def to_act(self) -> tuple[int, ...]:
        """The seat to act, alone (双扣 has no phase where several seats answer at once)."""
        return () if self.turn is None or self.result is not None else (self.turn,)

    @property
    def reveal_pending(self) -> tuple[int, ...]:
        return ()  # no 亮王 in 双扣

    @property
    def reveal_phase(self) -> bool:
        return False

    def next_game_leader(self) -> int | None:
        """The previous 上游 leads the next game; after a 双扣 (or an unfinished game) the
        deal draws a random leader (None)."""
        if self.result is None or self.result.outcome == Outcome.SHUANGKOU or not self.finish_order:
            return None
        return self.finish_order[0]

    def desertion_scores(
        self, seat: int, fixed: Sequence[int | None], *, seconds: float
    ) -> tuple[int | None, ...]:
        return desertion_scores(self, seat, fixed, seconds=seconds)

    def can_pass(self, seat: int) -> bool:
        return not self.over and seat == self.turn and self.on_table is not None

    def legal_plays(self, seat: int | None = None) -> list[Combo]:
        """The plays the seat to act (or ``seat``, if it is to act) may make now."""
        seat = self.turn if seat is None else seat
        if seat is None or seat != self.turn:
            return []
        return legal_plays(self.hands[seat], self.on_table)

    def team(self, seat: int) -> tuple[int, int]:
        return (seat % 2, seat % 2 + 2)

    def view(self, seat: int | None) -> SeatView:
        """What ``seat`` may know; ``None`` gives the public view (the group's)."""
        trick = tuple(self.history[self._trick_start :])
        return SeatView(
            variant=VARIANT,
            seat=seat,
            hand=tuple(self.hands[seat]) if seat is not None else (),
            hand_sizes=tuple(len(hand) for hand in self.hands),
            turn=self.turn,
            on_table=self.on_table,
            on_table_seat=self.on_table_seat,
            trick=trick,
            history=tuple(self.history),
            finish_order=tuple(self.finish_order),
            partners=(partner(seat),) if seat is not None else (),
            over=self.over,
            opponents=((seat + 1) % SEATS, (seat + 3) % SEATS) if seat is not None else (),
            last_trick=tuple(self.history[self._last_trick_start : self._trick_start]),
        )

    # -- actions -----------------------------------------------------------------------

    def _check_turn(self, seat: int) -> None:
        if self.result is not None:
            raise IllegalPlay(Reason.GAME_OVER)
        if not 0 <= seat < SEATS:
            raise IllegalPlay(Reason.NO_SUCH_SEAT, str(seat))
        if seat != self.turn:
            raise IllegalPlay(Reason.NOT_YOUR_TURN, f"seat {self.turn} is to act")

    def play(self, seat: int, cards: Iterable[Card]) -> list[Event]:
        self._check_turn(seat)
        wanted = list(cards)
        if not wanted:
            raise IllegalPlay(Reason.NOT_A_COMBINATION, "no cards")
        hand = self.hands[seat]
        actual = take_play(hand, wanted)
        if actual is None:
            raise IllegalPlay(Reason.NOT_IN_HAND)
        # the cards actually played decide the reading, so that a logged play replays the same
        readings = classify_all(actual)
        if not readings:
            raise IllegalPlay(Reason.NOT_A_COMBINATION)
        on = self.on_table
        chosen = readings[0] if on is None else next((r for r in readings if beats(r, on)), None)
        if chosen is None:
            raise IllegalPlay(Reason.DOES_NOT_BEAT, f"{readings[0]!r} on {on!r}")
        combo = Combo(chosen.kind, tuple(actual), chosen.key, chosen.chain)
        # -- from here on the action is legal: change the state
        for card in actual:
            hand.remove(card)
        self.history.append((seat, combo))
        self.on_table = combo
        self.on_table_seat = seat
        self._passes = 0
        events: list[Event] = [Played(seat, combo, len(hand))]
        if not hand:
            self.finish_order.append(seat)
            events.append(PlayerOut(seat, len(self.finish_order)))
            if self._check_end(events):
                return events
        self.turn = self._next_holding(seat)
        return events

    def apply(self, action: Action) -> list[Event]:
        """Apply a logged action: ``play`` (its exact cards) or ``pass``."""
        if action.kind == "play":
            return self.play(action.seat, action.cards)
        if action.kind == "pass":
            return self.pass_turn(action.seat)
        raise IllegalPlay(Reason.NOT_REVEALING, "双扣 has no 亮王")

    def pass_turn(self, seat: int) -> list[Event]:
        self._check_turn(seat)
        if self.on_table is None or self.on_table_seat is None:
            raise IllegalPlay(Reason.CANNOT_PASS, "the leader must play")
        self.history.append((seat, None))
        self._passes += 1
        events: list[Event] = [Passed(seat)]
        taker = self.on_table_seat
        others = sum(1 for s in range(SEATS) if s != taker and self.hands[s])
        if self._passes >= others:
            leader = taker if self.hands[taker] else partner(taker)  # 接风
            events.append(TrickTaken(taker, leader))
            self.on_table = None
            self.on_table_seat = None
            self._passes = 0
            self._last_trick_start, self._trick_start = self._trick_start, len(self.history)
            self.turn = leader
        else:
            self.turn = self._next_holding(seat)
        return events

    # -- internals ---------------------------------------------------------------------

    def _next_holding(self, seat: int) -> int:
        for step in range(1, SEATS + 1):
            candidate = (seat + step) % SEATS
            if self.hands[candidate]:
                return candidate
        raise AssertionError("nobody holds cards in a game that is not over")

    def _check_end(self, events: list[Event]) -> bool:
        out = set(self.finish_order)
        if not ({0, 2} <= out or {1, 3} <= out):
            return False
        first = self.finish_order[0]
        mate_place = self.finish_order.index(partner(first)) if partner(first) in out else 3
        outcome = (Outcome.SHUANGKOU, Outcome.DANKOU, Outcome.PINGKOU)[mate_place - 1]
        delta = OUTCOME_DELTAS[outcome]
        winners = (first % 2, first % 2 + 2) if delta else ()
        deltas = tuple(
            0 if not delta else (delta if seat % 2 == first % 2 else -delta)
            for seat in range(SEATS)
        )
        self.result = Result(outcome, tuple(self.finish_order), deltas, winners)
        self.turn = None
        events.append(GameOver(self.result))
        return True


def desertion_scores(
    game: Game, seat: int, fixed: Sequence[int | None], *, seconds: float
) -> tuple[int | None, ...]:
    """The scores fixed by ``seat`` abandoning ``game`` (逃跑): :data:`ESCAPE_PENALTY` for the
    deserter; nobody else's score changes because of it (None: scored by the game's result).
    ``fixed`` holds the scores fixed by earlier desertions; ``seconds`` does not matter here.
    """
    if not 0 <= seat < SEATS:
        raise IllegalPlay(Reason.NO_SUCH_SEAT, str(seat))
    scores = list(fixed)
    scores[seat] = ESCAPE_PENALTY
    return tuple(scores)
