"""绍兴双扣 (Shaoxing Shuangkou): 4 players, seats 0+2 against 1+3, two decks with jokers.

The rules are ``shared/rules/shuangkou.md``. Everything here is pure: no I/O, no clock.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from bot.game.cards import BIG_JOKER, SMALL_JOKER, Card, double_deck, take_from
from bot.game.common import (
    Combo,
    Event,
    GameOver,
    IllegalPlay,
    Passed,
    Played,
    PlayerOut,
    Reason,
    Result,
    SeatView,
    TrickTaken,
)

__all__ = ["BOMB_KINDS", "KINDS", "Game", "beats", "classify", "classify_all", "legal_plays"]

VARIANT = "shuangkou"
SEATS = 4
HAND_SIZE = 27
ACE = 14
TWO = 15

KINDS = (
    "single", "pair", "pair_straight", "triple", "triple_straight", "plane", "straight",
    "straight_flush", "bomb", "triple_bomb", "joker_bomb",
)
BOMB_KINDS = frozenset({"bomb", "triple_bomb", "joker_bomb"})
#: Chinese names of the kinds, for front ends
KIND_NAMES = {
    "single": "单张", "pair": "对子", "pair_straight": "连对", "triple": "三张",
    "triple_straight": "连三张", "plane": "连三张带连对", "straight": "顺子",
    "straight_flush": "同花顺", "bomb": "炸弹", "triple_bomb": "三连炸", "joker_bomb": "天王炸",
}
OUTCOME_DELTAS = {"双扣": 4, "单扣": 2, "平扣": 0}


# Bombs share one ordering key ("power"): 天王炸 > 三连炸 > 8 > 7 > 6 > 5 > 4 cards, then rank.
def _bomb_power(size: int, rank: int) -> int:
    return size * 20 + rank


_TRIPLE_BOMB_BASE = 200
_JOKER_BOMB_POWER = 300


# ---- classification -------------------------------------------------------------------


def classify_all(cards: Sequence[Card]) -> list[Combo]:
    """Every reading of ``cards`` as a combination, strongest first (empty: none).

    Only 连三张带连对 can have more than one reading (different triples), and a flush run
    reads as 同花顺 only, which beats everything its plain reading could.
    """
    n = len(cards)
    if n == 0:
        return []
    combo_cards = tuple(cards)
    counts: dict[int, int] = {}
    for card in cards:
        rank = card >> 3
        counts[rank] = counts.get(rank, 0) + 1
    ranks = sorted(counts)
    low, high = ranks[0], ranks[-1]
    if n == 1:
        return [Combo("single", combo_cards, low)]
    if len(ranks) == 1:
        if n == 2:
            return [Combo("pair", combo_cards, low)]
        if low >= SMALL_JOKER:
            return []
        if n == 3:
            return [Combo("triple", combo_cards, low)]
        if 4 <= n <= 8:
            return [Combo("bomb", combo_cards, _bomb_power(n, low))]
        return []
    if n == 4 and counts.get(SMALL_JOKER) == 2 and counts.get(BIG_JOKER) == 2:
        return [Combo("joker_bomb", combo_cards, _JOKER_BOMB_POWER)]
    if high > ACE:
        return []
    run = len(ranks)
    consecutive = high - low + 1 == run
    if consecutive:
        same = counts[low]
        if all(counts[rank] == same for rank in ranks):
            if same == 1 and run >= 5:
                suits = {card & 7 for card in cards}
                if len(suits) == 1 and next(iter(suits)) < 4:
                    return [Combo("straight_flush", combo_cards, high, run)]
                return [Combo("straight", combo_cards, high, run)]
            if same == 2 and run >= 3:
                return [Combo("pair_straight", combo_cards, high, run)]
            if same == 3 and run >= 3:
                return [Combo("triple_straight", combo_cards, high, run)]
            if same == 4 and run == 3:
                return [Combo("triple_bomb", combo_cards, _TRIPLE_BOMB_BASE + high, 3)]
    return _plane_readings(combo_cards, counts, n)


def _plane_readings(cards: tuple[Card, ...], counts: dict[int, int], n: int) -> list[Combo]:
    if n % 5 or n < 15:
        return []
    chain = n // 5
    readings = []
    for top in range(ACE, 1 + chain, -1):  # the lowest triples start at 3
        triples = range(top - chain + 1, top + 1)
        if any(counts.get(rank, 0) < 3 for rank in triples):
            continue
        rest = dict(counts)
        for rank in triples:
            rest[rank] -= 3
        pair_ranks = sorted(rank for rank, count in rest.items() if count)
        if (
            len(pair_ranks) == chain
            and all(rest[rank] == 2 for rank in pair_ranks)
            and pair_ranks[-1] - pair_ranks[0] == chain - 1
        ):
            readings.append(Combo("plane", cards, top, chain))
    return readings


def classify(cards: Sequence[Card]) -> Combo | None:
    """The strongest reading of ``cards`` as a combination, or None if it is none."""
    readings = classify_all(cards)
    return readings[0] if readings else None


def beats(new: Combo, old: Combo) -> bool:
    """Whether ``new`` may be played on ``old``. Equal never beats equal."""
    if new.kind in BOMB_KINDS:
        return old.kind not in BOMB_KINDS or new.key > old.key
    if old.kind in BOMB_KINDS:
        return False
    if len(new.cards) != len(old.cards):
        return False
    if new.kind == old.kind:
        return new.key > old.key
    return new.kind == "straight_flush" and old.kind == "straight"


# ---- legal plays ------------------------------------------------------------------------


def legal_plays(hand: Sequence[Card], on: Combo | None) -> list[Combo]:
    """Every distinct play from ``hand`` that may be made on ``on`` (None: leading).

    Plays that differ only in suits count once; a 同花顺 is a play of its own (one per run of
    ranks), and a 顺子 the hand can make only of one suit is listed as the 同花顺 alone.
    """
    by_rank: list[list[Card]] = [[], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [],
                                 [], []]
    for card in hand:
        by_rank[card >> 3].append(card)
    counts = [len(cards) for cards in by_rank]
    out: list[Combo] = []
    if on is None:
        _sets(out, by_rank, counts, 1, "single", 0)
        _sets(out, by_rank, counts, 2, "pair", 0)
        _sets(out, by_rank, counts, 3, "triple", 0)
        _runs(out, by_rank, counts, 2, "pair_straight", 3, 0, 0)
        _runs(out, by_rank, counts, 3, "triple_straight", 3, 0, 0)
        _planes(out, by_rank, counts, 0, 0)
        _straights(out, by_rank, counts, 0, 0, True, True)
        _bombs(out, by_rank, counts, 0)
        return out
    kind = on.kind
    if kind in BOMB_KINDS:
        _bombs(out, by_rank, counts, on.key)
        return out
    if kind == "single":
        _sets(out, by_rank, counts, 1, kind, on.key)
    elif kind == "pair":
        _sets(out, by_rank, counts, 2, kind, on.key)
    elif kind == "triple":
        _sets(out, by_rank, counts, 3, kind, on.key)
    elif kind == "pair_straight":
        _runs(out, by_rank, counts, 2, kind, on.chain, on.chain, on.key)
    elif kind == "triple_straight":
        _runs(out, by_rank, counts, 3, kind, on.chain, on.chain, on.key)
    elif kind == "plane":
        _planes(out, by_rank, counts, on.chain, on.key)
    elif kind == "straight":
        _straights(out, by_rank, counts, on.chain, on.key, True, False)
    elif kind == "straight_flush":
        _straights(out, by_rank, counts, on.chain, on.key, False, True)
    _bombs(out, by_rank, counts, 0)
    return out


def _sets(
    out: list[Combo], by_rank: list[list[Card]], counts: list[int], size: int, kind: str, above: int
) -> None:
    last = BIG_JOKER if size <= 2 else TWO
    for rank in range(max(3, above + 1), last + 1):
        if counts[rank] >= size:
            out.append(Combo(kind, tuple(by_rank[rank][:size]), rank))


def _runs(
    out: list[Combo],
    by_rank: list[list[Card]],
    counts: list[int],
    width: int,
    kind: str,
    min_chain: int,
    exact_chain: int,
    above: int,
) -> None:
    """Runs of ``width`` cards per rank (连对, 连三张); ``exact_chain`` 0 means any length."""
    for start in range(3, ACE + 2 - min_chain):
        if counts[start] < width:
            continue
        end = start
        while end < ACE and counts[end + 1] >= width:
            end += 1
        # the run start..end is maximal from start; emit its prefixes of enough length
        first_top = start + min_chain - 1
        last_top = end if not exact_chain else min(end, start + exact_chain - 1)
        for top in range(max(first_top, above + 1), last_top + 1):
            chain = top - start + 1
            if exact_chain and chain != exact_chain:
                continue
            cards: list[Card] = []
            for rank in range(start, top + 1):
                cards += by_rank[rank][:width]
            out.append(Combo(kind, tuple(cards), top, chain))


def _planes(
    out: list[Combo], by_rank: list[list[Card]], counts: list[int], exact_chain: int, above: int
) -> None:
    chains = (exact_chain,) if exact_chain else range(3, 7)
    for chain in chains:
        for top in range(max(2 + chain, above + 1), ACE + 1):
            triple_ranks = range(top - chain + 1, top + 1)
            if any(counts[rank] < 3 for rank in triple_ranks):
                continue
            for pair_top in range(2 + chain, ACE + 1):
                pair_ranks = range(pair_top - chain + 1, pair_top + 1)
                if any(
                    counts[rank] < (5 if rank in triple_ranks else 2) for rank in pair_ranks
                ):
                    continue
                cards: list[Card] = []
                for rank in triple_ranks:
                    cards += by_rank[rank][:3]
                for rank in pair_ranks:
                    cards += by_rank[rank][3:5] if rank in triple_ranks else by_rank[rank][:2]
                out.append(Combo("plane", tuple(cards), top, chain))


def _straights(
    out: list[Combo],
    by_rank: list[list[Card]],
    counts: list[int],
    exact_chain: int,
    above: int,
    plain: bool,
    flush: bool,
) -> None:
    """顺子 and 同花顺; on a plain 顺子 any 同花顺 of its length beats."""
    flush_above = 0 if plain else above
    for start in range(3, ACE - 3):
        if not counts[start]:
            continue
        and_mask = 15
        or_mask = 0
        for top in range(start, ACE + 1):
            if not counts[top]:
                break
            mask = 0
            for card in by_rank[top]:
                mask |= 1 << (card & 7)
            and_mask &= mask
            or_mask |= mask
            chain = top - start + 1
            if chain < 5 or (exact_chain and chain != exact_chain):
                continue
            if plain and top > above and or_mask & (or_mask - 1):
                out.append(Combo("straight", _plain_run(by_rank, start, top), top, chain))
            if and_mask and (flush or (plain and above)) and top > flush_above:
                suit = (and_mask & -and_mask).bit_length() - 1
                cards = tuple(
                    next(card for card in by_rank[rank] if card & 7 == suit)
                    for rank in range(start, top + 1)
                )
                out.append(Combo("straight_flush", cards, top, chain))
            if exact_chain:
                break


def _plain_run(by_rank: list[list[Card]], start: int, top: int) -> tuple[Card, ...]:
    """One card per rank, not all of one suit (the caller knows that is possible)."""
    cards = [by_rank[rank][0] for rank in range(start, top + 1)]
    suit = cards[0] & 7
    if all(card & 7 == suit for card in cards):
        for i, rank in enumerate(range(start, top + 1)):
            other = next((card for card in by_rank[rank] if card & 7 != suit), None)
            if other is not None:
                cards[i] = other
                break
    return tuple(cards)


def _bombs(out: list[Combo], by_rank: list[list[Card]], counts: list[int], above: int) -> None:
    for rank in range(3, TWO + 1):
        for size in range(4, counts[rank] + 1):
            power = _bomb_power(size, rank)
            if power > above:
                out.append(Combo("bomb", tuple(by_rank[rank][:size]), power))
    for top in range(5, ACE + 1):
        if (
            counts[top] >= 4
            and counts[top - 1] >= 4
            and counts[top - 2] >= 4
            and _TRIPLE_BOMB_BASE + top > above
        ):
                cards = by_rank[top - 2][:4] + by_rank[top - 1][:4] + by_rank[top][:4]
                out.append(Combo("triple_bomb", tuple(cards), _TRIPLE_BOMB_BASE + top, 3))
    if counts[SMALL_JOKER] == 2 and counts[BIG_JOKER] == 2 and above < _JOKER_BOMB_POWER:
        out.append(
            Combo("joker_bomb", tuple(by_rank[SMALL_JOKER] + by_rank[BIG_JOKER]), _JOKER_BOMB_POWER)
        )


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
    def version(self) -> int:
        """How many actions have been taken: a stale button carries an older number."""
        return len(self.history)

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
        actual = take_from(hand, wanted)
        if actual is None:
            raise IllegalPlay(Reason.NOT_IN_HAND)
        readings = classify_all(wanted)
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
            self._trick_start = len(self.history)
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
        outcome = ("双扣", "单扣", "平扣")[mate_place - 1]
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
