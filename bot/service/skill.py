"""Skill ratings that see through luck and secret teams: openskill's Weng-Lin model
(Plackett-Luce), one rating per player and game, computed from the stored results.

Who is rated against whom, from a game's stored record and results:

- 双扣: the two partnerships (seats 0+2 and 1+3); the team that won ranks first, a 平扣 is a
  draw. The model ranks; it has no use for the margin, so a 双扣 and a 单扣 are both a win.
- 刨王: the two sides as they stood at the end (the winners, 1 to 4 of them, against the
  others), known only once the game is over, so no rating ever says a side early.
- 逃跑: the deserters lose against everyone else, and only the deserters' ratings move.
- A game under the one-minute rule, or cancelled without a desertion, is not rated.
- Computer seats are one player of their own (``COMPUTER``), so a win with computers counts for
  what it is; when computers sat on both sides their rating stays as it was.

Every ended game is taken in once, in the order the games ended: at the end of the game, in
the transaction that records its results, and at start for the games that ended before
(``catch_up``: the migration's games, or all of them after ``forget_all``), so computing
everything again gives exactly the same numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from openskill.models import PlackettLuce, PlackettLuceRating

from bot.service.achievements import judge
from bot.storage import Database, GameRecord, ResultRow
from bot.storage.skills import COMPUTER, SkillRecord

MODEL: Final = PlackettLuce()
#: rated games before a player is ranked in /top by skill
MIN_RATED: Final = 10


def shown(record: SkillRecord | None) -> int:
    """The one number a player sees: the conservative estimate mu - 3 sigma (a newcomer's is
    0), scaled to a friendly range: 1000 for a newcomer, about 2000 for the best."""
    if record is None:
        return 1000
    return round(1000 + 40 * (record.mu - 3 * record.sigma))


@dataclass(frozen=True)
class Match:
    """Who played against whom: players (user ids, ``COMPUTER``) per team, the teams' ranks
    (1 first; equal ranks a draw), and whose ratings move."""

    teams: tuple[tuple[int, ...], ...]
    ranks: tuple[int, ...]
    moving: frozenset[int]


def match_of(record: GameRecord, rows: Sequence[ResultRow]) -> Match | None:
    """The match a stored game rates, or None when it does not count."""
    if not rows or record.status not in ("finished", "cancelled"):
        return None
    players = [
        COMPUTER if seat.is_computer or seat.user_id is None else seat.user_id
        for seat in record.seats
    ]
    if len(players) != len(rows):
        return None
    escaped = [row.escaped for row in rows]
    if not any(escaped) and (record.status != "finished" or record.note == "short game"):
        return None
    return match_for(record.variant, players, [row.won for row in rows], escaped)


def match_for(
    variant: str, players: Sequence[int], won: Sequence[bool], escaped: Sequence[bool]
) -> Match | None:
    """The match of an ended game that counts: who sat where (``players``), who won, who
    deserted."""
    deserters = [seat for seat, left in enumerate(escaped) if left]
    if deserters:
        others = tuple(players[seat] for seat in range(len(players)) if not escaped[seat])
        left = tuple(players[seat] for seat in deserters)
        return Match((left, others), (2, 1), frozenset(left) - {COMPUTER})
    if variant == "shuangkou":
        teams = (
            tuple(players[seat] for seat in (0, 2)),
            tuple(players[seat] for seat in (1, 3)),
        )
        first, second = (any(won[seat] for seat in team) for team in ((0, 2), (1, 3)))
        ranks = (1, 1) if first == second else ((1, 2) if first else (2, 1))  # 平扣: a draw
    else:
        winners = tuple(players[seat] for seat in range(len(players)) if won[seat])
        losers = tuple(players[seat] for seat in range(len(players)) if not won[seat])
        if not winners or not losers:
            return None
        teams, ranks = (winners, losers), (1, 2)
    moving = set(players)
    if COMPUTER in teams[0] and COMPUTER in teams[1]:
        moving.discard(COMPUTER)  # the computers played themselves
    return Match(teams, ranks, frozenset(moving))


def rate(match: Match, game: str, known: dict[int, SkillRecord]) -> list[SkillRecord]:
    """The new ratings of the match's moving players (a player new to the game starts at the
    model's prior)."""
    def rating_of(player: int) -> PlackettLuceRating:
        record = known.get(player)
        if record is None:
            return MODEL.rating()
        return MODEL.rating(mu=record.mu, sigma=record.sigma)

    teams = [[rating_of(player) for player in team] for team in match.teams]
    rated = MODEL.rate(teams, ranks=list(match.ranks))
    changed: dict[int, SkillRecord] = {}
    for team, new_team in zip(match.teams, rated, strict=True):
        for player, new in zip(team, new_team, strict=True):
            if player not in match.moving or player in changed:
                continue  # a player twice in a team (the computers) moves once
            before = known.get(player)
            games = before.rated if before is not None else 0
            changed[player] = SkillRecord(player, game, float(new.mu), float(new.sigma), games + 1)
    return [changed[player] for player in sorted(changed)]


async def take_in(db: Database, game_id: int) -> dict[int, list[str]]:
    """Rate one ended game and judge its achievements (inside the caller's transaction, if
    any), and mark it taken in; the achievements it earned, by user id."""
    record = await db.games.get(game_id)
    if record is None:
        return {}
    rows = await db.results.for_game(game_id)
    match = match_of(record, rows)
    changed: list[SkillRecord] = []
    known: dict[int, SkillRecord] = {}
    if match is not None:
        players = [player for team in match.teams for player in team]
        known = await db.skills.get_many(record.variant, players)
        changed = rate(match, record.variant, known)
    else:
        players = [s.user_id if s.user_id is not None else COMPUTER for s in record.seats]
        known = await db.skills.get_many(record.variant, players)
    earned = await judge(db, record, rows, known)
    await db.skills.take_in(game_id, changed)
    return earned


async def catch_up(db: Database) -> int:
    """Take in every ended game not taken in yet, in the order they ended; how many."""
    waiting = await db.skills.waiting()
    for game_id in waiting:
        async with db.transaction():
            await take_in(db, game_id)
    return len(waiting)
