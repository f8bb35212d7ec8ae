"""bench.search_diff's tables: the changes by kind, and every searched decision by phase."""

from bench.search_diff import PHASES, collect, phase_of, phase_table, table
from bench.search_match import SearchBudget


def test_phases_split_the_game_at_the_look_ahead() -> None:
    near_end, middle, late, opening = (title for title, _ in PHASES)
    assert phase_of(1) == phase_of(25) == near_end
    assert phase_of(26) == phase_of(50) == middle
    assert phase_of(51) == late
    assert phase_of(108) == opening


def test_tables_count_kept_decisions_only_in_the_phase_table() -> None:
    changes = [
        ("bombs where the AI passes", 3.0, 20),
        ("leads something else", 1.0, 90),
        (None, 0.0, 90),
        (None, 0.0, 90),
    ]
    by_kind = table(changes)
    # shares of the two changes, not of the four searched decisions
    assert "| bombs where the AI passes | 1 | 50% | 75% |" in by_kind
    assert by_kind.index("bombs where") < by_kind.index("leads something")
    by_phase = phase_table(changes)
    assert "| 1 (100%) | 75% |" in by_phase
    assert "| 81–108 (the opening) | 3 | 1 (33%) | 25% |" in by_phase
    assert "26–50" not in by_phase  # no decision there


def test_collect_notes_every_searched_decision_the_same_in_workers() -> None:
    tiny = SearchBudget(samples=2, max_candidates=2)
    alone = collect(2, 5, tiny)
    assert alone == collect(2, 5, tiny, jobs=2)
    assert alone and all(1 <= left <= 108 for _, _, left in alone)
    assert all(gain == 0.0 for kind, gain, _ in alone if kind is None)
