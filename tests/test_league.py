"""bench.league's pieces: a short league is rated game by game as the bot rates, and the
"pairs right" measure counts what it says."""

from __future__ import annotations

from bench.league import Member, by_score, by_skill, ordered_pairs, run_league


def test_a_short_league_rates_every_player_who_played() -> None:
    league = run_league("shuangkou", games=40, seed=3)
    assert sum(league.outcomes.values()) == 40
    played = [m for m in league.members if m.games]
    assert sum(m.games for m in played) == 40 * 4
    assert all(m.skill is not None and m.skill.rated == m.games for m in played)
    assert sum(m.score for m in league.members) == 0  # 双扣's points go from one side to the other
    assert len(by_skill(league)) == len(by_score(league)) == 12


def test_pairs_right_counts_pairs_of_different_kinds_only() -> None:
    ai, greedy, rand = Member(1, "ai", 1), Member(2, "greedy", 1), Member(3, "random", 1)
    other_ai = Member(4, "ai", 1)
    assert ordered_pairs([ai, other_ai, greedy, rand]) == 1.0
    assert ordered_pairs([rand, greedy, ai]) == 0.0
    # (greedy, ai) wrong, (greedy, rand) right, (ai, rand) right: 2 of 3
    assert ordered_pairs([greedy, ai, rand]) == 2 / 3
