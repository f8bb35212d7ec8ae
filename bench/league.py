"""A simulated league: does the skill rating see who plays well, where 等级 sees who plays most?

``.venv/bin/python -m bench.league [--games 2000] [--seed 0]`` plays, for each game, a league
of twelve players of three kinds: four of the bot's AI (who play rarely), four greedy players
(who play most) and four random players, seated at random (weighted by how often each kind
plays) in ``--games`` games. Every game is rated as the bot rates it (``bot.service.skill``:
the same match and the same openskill update), and 等级 is the running total of the rules'
points, as the bot keeps it. Then each table is read as a ranking: the share of pairs of
players of different kinds that it puts in the right order (AI over greedy over random; 100%:
all of them). The AI beats greedy and random, so a fair table puts the four AI on top; 等级
puts whoever played most there.

Writes ``bench/results/league.md`` with the machine it ran on.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench.botrun import machine_lines, markdown_table, started
from bot.cli.simulate import SEATS, new_game, play_out
from bot.game.levels import level_for
from bot.game.players import make_player
from bot.service.skill import match_for, rate, shown
from bot.storage.skills import SkillRecord

RESULTS = Path(__file__).resolve().parent / "results" / "league.md"
#: the kinds in the order a fair table ranks them, how many of each, and how often each plays
KINDS: tuple[tuple[str, int, float], ...] = (("ai", 4, 0.3), ("greedy", 4, 6.0), ("random", 4, 3.0))


@dataclass
class Member:
    player: int
    kind: str
    weight: float
    games: int = 0
    score: int = 0  # 等级: the running total of points
    skill: SkillRecord | None = None


@dataclass
class League:
    game: str
    members: list[Member] = field(default_factory=list)
    outcomes: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0


def run_league(game: str, games: int, seed: int) -> League:
    rng = random.Random(seed)
    league = League(game)
    player = 0
    for kind, count, weight in KINDS:
        for _ in range(count):
            player += 1
            league.members.append(Member(player, kind, weight))
    begun = time.perf_counter()
    for number in range(games):
        seated = _seat(rng, league.members, SEATS[game])
        players = [
            make_player(member.kind, seed=seed * 7919 + number * 31 + seat)
            for seat, member in enumerate(seated)
        ]
        result = play_out(new_game(game, seed * 1_000_003 + number), players)
        league.outcomes[str(result.outcome)] += 1
        won = [seat in result.winners for seat in range(len(seated))]
        for seat, member in enumerate(seated):
            member.games += 1
            member.score += int(result.deltas[seat])
        match = match_for(game, [m.player for m in seated], won, [False] * len(seated))
        if match is None:
            continue
        known = {m.player: m.skill for m in seated if m.skill is not None}
        for record in rate(match, game, known):
            next(m for m in seated if m.player == record.player).skill = record
    league.seconds = time.perf_counter() - begun
    return league


def _seat(rng: random.Random, members: Sequence[Member], seats: int) -> list[Member]:
    """``seats`` different members, each drawn with a chance proportional to its weight."""
    chosen: list[Member] = []
    pool = list(members)
    while len(chosen) < seats:
        pick = rng.choices(pool, weights=[m.weight for m in pool])[0]
        pool.remove(pick)
        chosen.append(pick)
    rng.shuffle(chosen)
    return chosen


def ordered_pairs(members: Sequence[Member]) -> float:
    """The share of pairs of members of different kinds that the order of ``members`` (best
    first) puts right: the better kind first."""
    rank = {kind: index for index, (kind, _, _) in enumerate(KINDS)}
    right = total = 0
    for i, upper in enumerate(members):
        for lower in members[i + 1 :]:
            if rank[upper.kind] == rank[lower.kind]:
                continue
            total += 1
            right += rank[upper.kind] < rank[lower.kind]
    return right / total if total else 1.0


def by_skill(league: League) -> list[Member]:
    return sorted(league.members, key=lambda m: (-shown(m.skill), m.player))


def by_score(league: League) -> list[Member]:
    return sorted(league.members, key=lambda m: (-m.score, m.player))


def report(leagues: Sequence[League], games: int, seed: int, command: str) -> str:
    start = started()
    lines = [
        "# A simulated league: skill against 等级",
        "",
        f"`{command}`",
        "",
        *machine_lines(start),
        f"- {games} games of each game, seed {seed}; twelve players: "
        + ", ".join(f"{count} {kind} (weight {weight:g})" for kind, count, weight in KINDS)
        + ", seated at random with a chance proportional to their weight",
        "- Rated as the bot rates a game (`bot.service.skill.match_for` and `rate`: openskill's "
        "Plackett-Luce model; 双扣 by partnership, 平扣 a draw; 刨王 by the sides at the end); "
        "等级 is the running total of the rules' points, as the bot keeps it",
        "- *Pairs right*: of the pairs of players of different kinds, the share that the table "
        "puts in the order of their strength (AI, then greedy, then random)",
        "",
    ]
    for league in leagues:
        skill_order, score_order = by_skill(league), by_score(league)
        lines += [
            f"## {league.game}",
            "",
            f"{sum(league.outcomes.values())} games in {league.seconds:.0f} s; outcomes: "
            + ", ".join(f"{k} {v}" for k, v in sorted(league.outcomes.items())),
            "",
            f"- Skill table: **{ordered_pairs(skill_order):.0%}** of pairs right",
            f"- 等级 table: **{ordered_pairs(score_order):.0%}** of pairs right",
            "",
        ]
        rows = []
        for place, member in enumerate(skill_order, 1):
            skill = member.skill
            rows.append(
                [
                    place,
                    score_order.index(member) + 1,
                    f"{member.kind} {member.player}",
                    member.games,
                    shown(skill),
                    f"{skill.mu:.1f} ± {skill.sigma:.2f}" if skill is not None else "—",
                    f"{member.score} ({level_for(league.game, member.score).title})",
                ]
            )
        lines.append(
            markdown_table(
                [
                    "by skill",
                    "by 等级",
                    "player",
                    "games",
                    "skill shown",
                    "mu ± sigma",
                    "等级 score (title)",
                ],
                rows,
            )
        )
        lines.append("")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.league", description=__doc__)
    parser.add_argument("--games", type=int, default=2000, help="games of each game")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    leagues = [run_league(game, args.games, args.seed) for game in ("shuangkou", "paowang")]
    given = list(argv if argv is not None else sys.argv[1:])
    command = " ".join([".venv/bin/python -m bench.league", *given])
    body = report(leagues, args.games, args.seed, command)
    print(body)
    if not args.no_write:
        RESULTS.write_text(body + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
