"""Where the search player departs from the bot's AI in 刨王, and what it expects to gain:
``python -m bench.search_diff [--deals N] [--seed S] [--jobs J]``.

It plays deals as :mod:`bench.search_match` does (two search seats among three AI seats) and,
at every decision where the search takes another move than the AI would, notes the kind of
change and the mean gain the search measured for it. The table sorts the kinds of change by
that gain: it says which of the AI's judgements lose most, to work on first. The gains are the
search's own estimates on its samples (noisy, and picked as the best of several), so only the
ranking means much, not the figures. A second table splits the searched decisions by the
cards left in the five hands, to tell the AI's look-ahead near the end
(:data:`bot.game.players.lookahead.CARDS_LEFT`) from the rest of the game.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor

from bench.search import SearchPlayer
from bench.search_match import PAOWANG_PAIRS, SearchBudget
from bot.cli.simulate import new_game, play_out
from bot.game.common import Combo, SeatView
from bot.game.players import AiPlayer, Player
from bot.game.players.lookahead import CARDS_LEFT

#: (kind of change, searched decision's gain in points per sample, cards left in all hands);
#: the kind is None where the search kept the AI's move
Change = tuple[str | None, float, int]

#: the phases of the second table: (title, the most cards left it covers)
PHASES: tuple[tuple[str, int], ...] = (
    (f"≤ {CARDS_LEFT['paowang']} cards left (the AI looks ahead)", CARDS_LEFT["paowang"]),
    ("26–50", 50),
    ("51–80", 80),
    ("81–108 (the opening)", 108),
)


def kind_of_change(view: SeatView, ai: Combo | None, search: Combo | None) -> str:
    if view.on_table is None:
        return "leads something else"
    if view.on_table_seat in view.partners:
        return "overtakes a known partner" if ai is None else "other, on a known partner's trick"
    ai_bomb = ai is not None and bool(ai.tier)
    search_bomb = search is not None and bool(search.tier)
    if ai is None:
        return "bombs where the AI passes" if search_bomb else "answers where the AI passes"
    if search is None:
        return "passes where the AI bombs" if ai_bomb else "passes where the AI answers"
    if ai_bomb and search_bomb:
        return "another bomb"
    if ai_bomb or search_bomb:
        return "a bomb for an ordinary answer, or back"
    return "another ordinary answer"


class DiffingSearch(SearchPlayer):
    """The search player, noting each decision where it overrules the AI."""

    def __init__(self, seed: int, budget: SearchBudget, changes: list[Change]) -> None:
        super().__init__(
            seed,
            samples=budget.samples,
            max_candidates=budget.max_candidates,
            margin=budget.margin,
            z=budget.z,
        )
        self.changes = changes
        self._last_scores: list[list[float]] | None = None

    def _search(self, view: SeatView, moves: list[Combo | None]) -> Combo | None:
        choice = super()._search(view, moves)
        left = sum(view.hand_sizes)
        if choice is moves[0]:
            self.changes.append((None, 0.0, left))
            return choice
        scores = self._last_scores
        assert scores is not None
        index = next(i for i, move in enumerate(moves) if move is choice)
        gain = sum(row[index] - row[0] for row in scores) / len(scores)
        self.changes.append((kind_of_change(view, moves[0], choice), gain, left))
        return choice

    def scores(self, view: SeatView, moves: list[Combo | None]) -> list[list[float]] | None:
        self._last_scores = super().scores(view, moves)
        return self._last_scores


def deal_changes(deal: int, seed: int, budget: SearchBudget) -> list[Change]:
    """The searched decisions of one deal: two search seats among three AI seats, as
    :mod:`bench.search_match` seats them."""
    changes: list[Change] = []
    game = new_game("paowang", seed * 1_000_003 + 700_000 + deal)
    pair = PAOWANG_PAIRS[deal % len(PAOWANG_PAIRS)]
    players: list[Player] = [
        DiffingSearch(deal * 10 + seat, budget, changes) if seat in pair else AiPlayer(seat)
        for seat in range(game.seats)
    ]
    play_out(game, players)
    return changes


def collect(deals: int, seed: int, budget: SearchBudget, jobs: int = 1) -> list[Change]:
    if jobs <= 1:
        return [change for deal in range(deals) for change in deal_changes(deal, seed, budget)]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        per_deal = pool.map(deal_changes, range(deals), [seed] * deals, [budget] * deals)
        return [change for changes in per_deal for change in changes]


def tally(
    changes: Sequence[Change], group: Callable[[str, int], str]
) -> tuple[dict[str, int], dict[str, float], float]:
    """The decisions the search changed, by ``group(kind, cards left)``: how many, what they
    were expected to gain, and that gain over all groups (1 when there is none)."""
    counts: dict[str, int] = defaultdict(int)
    gains: dict[str, float] = defaultdict(float)
    for kind, gain, left in changes:
        if kind is not None:
            counts[group(kind, left)] += 1
            gains[group(kind, left)] += gain
    return counts, gains, sum(gains.values()) or 1.0


def table(changes: Sequence[Change]) -> str:
    """The changes by kind, the kinds that gain most first."""
    counts, gains, total = tally(changes, lambda kind, left: kind)
    changed = sum(counts.values())
    lines = [
        "| the search, where the AI would not | decisions | share | share of expected gain |",
        "| --- | --- | --- | --- |",
    ]
    for kind in sorted(gains, key=lambda k: -gains[k]):
        lines.append(
            f"| {kind} | {counts[kind]} | {100 * counts[kind] / changed:.0f}% "
            f"| {100 * gains[kind] / total:.0f}% |"
        )
    return "\n".join(lines)


def phase_of(left: int) -> str:
    return next(title for title, most in PHASES if left <= most)


def phase_table(changes: Sequence[Change]) -> str:
    """Every searched decision by the cards left: how often the search left the AI's move,
    and the share of all it expected to gain that falls in each phase."""
    searched = Counter(phase_of(left) for _, _, left in changes)
    counts, gains, total = tally(changes, lambda kind, left: phase_of(left))
    lines = [
        "| cards left in the five hands | searched decisions | changed | share of expected gain |",
        "| --- | --- | --- | --- |",
    ]
    for title, _ in PHASES:
        if searched[title]:
            lines.append(
                f"| {title} | {searched[title]} | {counts[title]} "
                f"({100 * counts[title] / searched[title]:.0f}%) "
                f"| {100 * gains[title] / total:.0f}% |"
            )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.search_diff", description=__doc__)
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    changes = collect(args.deals, args.seed, SearchBudget(), args.jobs)
    changed = sum(1 for kind, _, _ in changes if kind is not None)
    print(
        f"{changed} of {len(changes)} searched decisions changed in {args.deals} deals "
        f"(seed {args.seed})"
    )
    print(table(changes))
    print()
    print(phase_table(changes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
