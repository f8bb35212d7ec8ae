"""The simulator: rotated seats, per-kind figures, the command's output and exit codes."""

from __future__ import annotations

import io

import pytest

from bot.cli.simulate import format_report, mean_ci95, run_simulation, simulate


def test_every_kind_sits_everywhere_and_deltas_balance() -> None:
    report = run_simulation("shuangkou", games=8, players=["ai", "random", "greedy", "random"])
    assert report.games == 8 and sum(report.outcomes.values()) == 8
    ai, rnd, greedy = report.kinds["ai"], report.kinds["random"], report.kinds["greedy"]
    assert (ai.seat_games, rnd.seat_games, greedy.seat_games) == (8, 16, 8)
    total = ai.mean_delta * ai.seat_games + rnd.mean_delta * rnd.seat_games
    total += greedy.mean_delta * greedy.seat_games
    assert total == pytest.approx(0)  # every settlement sums to zero
    assert ai.decisions > 0 and ai.decision_median_ms <= ai.decision_p99_ms
    assert report.games_per_second > 0


def test_the_same_seed_gives_the_same_games() -> None:
    first = run_simulation("shuangkou", games=5, players="ai,greedy,ai,random", seed=4)
    second = run_simulation("shuangkou", games=5, players="ai,greedy,ai,random", seed=4)
    assert first.outcomes == second.outcomes
    assert {k: v.mean_delta for k, v in first.kinds.items()} == {
        k: v.mean_delta for k, v in second.kinds.items()
    }


def test_mean_ci95() -> None:
    assert mean_ci95([]) == (0.0, 0.0)
    mean, half = mean_ci95([1.0, 3.0])
    assert mean == 2.0 and half == pytest.approx(1.96 * 2**0.5 / 2**0.5)


def test_the_command_prints_a_table() -> None:
    out = io.StringIO()
    assert simulate("shuangkou", games=4, players="ai,random,ai,random", seed=1, out=out) == 0
    text = out.getvalue()
    assert "games/s" in text and "ai" in text and "95% CI" in text
    report = run_simulation("shuangkou", games=2, players="greedy,greedy,greedy,greedy")
    assert "greedy" in format_report(report)


@pytest.mark.parametrize(
    "players", ["ai,random,ai", "ai,random,ai,wizard", "ai,random,ai,random,random"]
)
def test_bad_players_exit_with_2(players: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert simulate("shuangkou", games=1, players=players) == 2
    assert "error" in capsys.readouterr().err


def test_unknown_game_is_refused() -> None:
    with pytest.raises(ValueError):
        run_simulation("mahjong", games=1)


def test_paowang_tables_of_five() -> None:
    report = run_simulation("paowang", games=10, players="ai,greedy,random,ai,random", seed=2)
    assert report.kinds["ai"].seat_games == 20 and report.kinds["random"].seat_games == 20
    assert set(report.outcomes) <= {"win", "小雪", "大雪"}
    assert all(kind.draws == 0 for kind in report.kinds.values())
