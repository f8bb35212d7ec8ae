"""Hand decomposition: split a hand into combinations that empty it in few, strong plays.

A hand is searched as rank counts, because suits do not matter for what a hand can do (except
同花顺, which the players treat as a strong 顺子). Every split is a set of runs (顺子, 连对, ...)
plus one set per remaining rank (single, pair, triple or bomb, decided by the count). The
search walks the ranks from the lowest: at the lowest rank still held, either the rest of that
rank becomes a set, or a run starts there. Results are memoised on the counts, and the values
are static (they do not depend on the state of a game), so one cache serves every decision of
every game: following a play only asks for the value of the hand minus that play, which is
mostly a state the search has already seen.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple


def counts_of(cards: Sequence[int]) -> list[int]:
    """How many cards of each rank (indexed 0..17) the cards hold."""
    counts = [0] * 18
    for card in cards:
        counts[card >> 3] += 1
    return counts


def unseen_counts(hand: Sequence[int], history: Sequence[tuple[int, object]],
                  deck: Sequence[int]) -> list[int]:
    """Rank counts of the cards in the other hands: ``deck`` (counts per rank) less ``hand``
    and every card played so far (``history`` as in a SeatView)."""
    counts = list(deck)
    for card in hand:
        counts[card >> 3] -= 1
    for _, combo in history:
        for card in getattr(combo, "cards", ()):
            counts[card >> 3] -= 1
    return counts


def run_beatable(part: Part, width: int, unseen: Sequence[int], top: int) -> bool:
    """Whether the unseen cards hold a run as long as ``part``'s with a higher top (``width``
    cards of each rank, no rank above ``top``: the A in both games) to beat it with."""
    run = 0
    for rank in range(part.key - part.chain + 2, top + 1):
        run = run + 1 if unseen[rank] >= width else 0
        if run >= part.chain and rank > part.key:
            return True
    return False


class Part(NamedTuple):
    """One combination of a plan. ``key`` is the engine's comparison key for that kind."""

    value: float
    kind: str
    key: int
    chain: int
    size: int
    bomb: bool


class Plan(NamedTuple):
    score: float
    parts: tuple[Part, ...]


#: (kind, cards per rank, shortest run, longest run)
ChainSpec = tuple[str, int, int, int]
SetParts = Callable[[int, int], tuple[Part, ...]]
ChainValue = Callable[[str, int, int], float]

_CACHE_LIMIT = 300_000
_EMPTY = Plan(0.0, ())


class Decomposer:
    """Best plans for the run-able ranks ``low..high`` of one variant, memoised."""

    def __init__(
        self, low: int, high: int, chains: tuple[ChainSpec, ...], set_parts: SetParts,
        chain_value: ChainValue,
    ) -> None:
        self.low = low
        self.high = high
        self._chains = chains
        self._set_parts = set_parts
        self._chain_value = chain_value
        self._cache: dict[tuple[int, ...], Plan] = {}

    def clear(self) -> None:
        """Forget every plan found, as after a start."""
        self._cache.clear()

    def __len__(self) -> int:
        """How many plans are remembered."""
        return len(self._cache)

    def best(self, counts: tuple[int, ...]) -> Plan:
        """The best plan for ``counts`` (indexed from rank ``low`` to ``high``)."""
        if len(self._cache) > _CACHE_LIMIT:  # bounded memory over long simulations
            self._cache.clear()
        return self._best(counts)

    def _best(self, counts: tuple[int, ...]) -> Plan:
        cached = self._cache.get(counts)
        if cached is not None:
            return cached
        n = len(counts)
        i = 0
        while i < n and not counts[i]:
            i += 1
        if i == n:
            return _EMPTY
        # the rest of the lowest rank as one set
        closed = list(counts)
        closed[i] = 0
        sub = self._best(tuple(closed))
        parts = self._set_parts(i + self.low, counts[i])
        best = Plan(sub.score + sum(p.value for p in parts), parts + sub.parts)
        # or a run starting at the lowest rank
        for kind, width, shortest, longest in self._chains:
            end = i
            while end < n and counts[end] >= width and end - i < longest:
                end += 1
            if end - i < shortest:
                continue
            rest = list(counts)
            for k in range(i, i + shortest - 1):
                rest[k] -= width
            for length in range(shortest, end - i + 1):
                rest[i + length - 1] -= width
                sub = self._best(tuple(rest))
                top = i + self.low + length - 1
                value = self._chain_value(kind, top, length)
                if value + sub.score > best.score:
                    part = Part(value, kind, top, length, width * length, kind == "triple_bomb")
                    best = Plan(value + sub.score, (part, *sub.parts))
        self._cache[counts] = best
        return best
