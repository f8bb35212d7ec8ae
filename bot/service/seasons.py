"""Seasons per group: monthly by default (weekly, or off, in /settings), each with a table of
its own that starts over, computed from the log.

A season is a calendar month or an ISO week, in UTC+8 (the time /history shows). Its table
rates only the group's games that ended in it, from scratch, as the skill ratings rate games
(``skill.match_for``): the season's best, whatever came before. A season never touches 等级 or
the skill ratings. Seasons are numbered from the group's first finished game (season 1), so
changing a group's season length numbers its seasons anew.

When a season ends, the group gets one message naming each game's champion (the best of the
season's table with at least ``SEASON_MIN`` games), once: the announcement is noted in the
database before it is sent, so a restart across the end never announces twice, and a start
after a season ended announces what was missed.
"""

from __future__ import annotations

import calendar
import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Final

from bot.game.variants import VARIANTS
from bot.presentation.season_text import Champion, Placing, champions_text, season_table_text
from bot.presentation.strings import Lang
from bot.service.skill import match_of, rate, shown
from bot.storage.skills import COMPUTER, SkillRecord

if TYPE_CHECKING:
    from bot.service.deps import Deps
    from bot.service.group_settings import GroupSettings

log = logging.getLogger(__name__)

ZONE: Final = timezone(timedelta(hours=8))
KINDS: Final = ("month", "week")
#: games in a season before a player is placed in its table
SEASON_MIN: Final = 3
TIMER: Final = "seasons"


@dataclass(frozen=True)
class Season:
    kind: str  # month or week
    key: str  # 2026-12, or 2026-W49
    start: float
    end: float


def season_at(at: float, kind: str) -> Season:
    """The season (of ``kind``) that the moment ``at`` (epoch seconds) falls in."""
    moment = datetime.fromtimestamp(at, ZONE)
    if kind == "month":
        begin = moment.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
        days = calendar.monthrange(begin.year, begin.month)[1]
        finish = begin + timedelta(days=days)
        key = f"{begin.year:04d}-{begin.month:02d}"
    elif kind == "week":
        begin = (moment - timedelta(days=moment.weekday())).replace(
            hour=0, minute=0, second=0, microsecond=0
        )
        finish = begin + timedelta(days=7)
        year, week, _ = begin.isocalendar()
        key = f"{year:04d}-W{week:02d}"
    else:
        raise ValueError(f"no seasons of kind {kind!r}")
    return Season(kind, key, begin.timestamp(), finish.timestamp())


def previous(season: Season) -> Season:
    return season_at(season.start - 1, season.kind)


def numbered(first: float, kind: str, number: int) -> Season | None:
    """Season ``number`` of a group whose first game ended at ``first`` (1: that one's)."""
    season = season_at(first, kind)
    for _ in range(number - 1):
        season = season_at(season.end, kind)
    return season if number >= 1 else None


def number_of(first: float, season: Season) -> int:
    count, current = 1, season_at(first, season.kind)
    while current.start < season.start:
        current, count = season_at(current.end, season.kind), count + 1
    return count


@dataclass
class Entry:
    """A player's season in one game: the season's own rating and record."""

    player: int
    name: str
    skill: SkillRecord | None = None
    wins: int = 0
    losses: int = 0
    draws: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws


@dataclass
class Table:
    game: str
    placed: list[Entry] = field(default_factory=list)  # best first
    unplaced: list[Entry] = field(default_factory=list)


class Seasons:
    def __init__(self, deps: Deps, group_settings: GroupSettings) -> None:
        self.deps = deps
        self.group_settings = group_settings

    async def tables(self, chat_id: int, season: Season) -> list[Table]:
        """The season's table of each game: the group's games that ended in it, rated from
        scratch in the order they ended."""
        db = self.deps.db
        known: dict[str, dict[int, SkillRecord]] = {game: {} for game in VARIANTS}
        entries: dict[str, dict[int, Entry]] = {game: {} for game in VARIANTS}
        for game_id in await db.seasons.ended_games(chat_id, season.start, season.end):
            record = await db.games.get(game_id)
            if record is None:
                continue
            rows = await db.results.for_game(game_id)
            match = match_of(record, rows)
            if match is None:
                continue
            game = record.variant
            for changed in rate(match, game, known[game]):
                known[game][changed.player] = changed
            draw = len(set(match.ranks)) == 1
            for team, rank in zip(match.teams, match.ranks, strict=True):
                for player in team:
                    if player == COMPUTER or player not in match.moving:
                        continue
                    seat = next(s for s in record.seats if s.user_id == player)
                    entry = entries[game].setdefault(player, Entry(player, seat.name))
                    entry.name = seat.name
                    if draw:
                        entry.draws += 1
                    elif rank == 1:
                        entry.wins += 1
                    else:
                        entry.losses += 1
        tables = []
        for game in VARIANTS:
            table = Table(game)
            for entry in entries[game].values():
                entry.skill = known[game].get(entry.player)
                (table.placed if entry.games >= SEASON_MIN else table.unplaced).append(entry)
            table.placed.sort(key=lambda e: (-shown(e.skill), -e.games, e.player))
            table.unplaced.sort(key=lambda e: e.player)
            tables.append(table)
        return tables

    async def answer(self, chat_id: int, lang: Lang, number: int | None = None) -> str:
        """/season (the current season's tables) or /season N."""
        kind = (await self.group_settings.options(chat_id)).season
        if kind == "off":
            return season_table_text(lang, None, None, [], min_games=SEASON_MIN)
        first = await self.deps.db.seasons.first_game_at(chat_id)
        now = self.deps.clock()
        current = season_at(now, kind)
        if number is None:
            season: Season | None = current
        else:
            season = numbered(first if first is not None else now, kind, number)
            if season is not None and season.start > current.start:
                season = None  # not begun yet
        if season is None:
            return season_table_text(lang, kind, None, [], min_games=SEASON_MIN)
        shown_number = number_of(first if first is not None else now, season)
        tables = await self.tables(chat_id, season)
        placings = [
            (t.game, [_placing(e) for e in t.placed], [e.name for e in t.unplaced])
            for t in tables
        ]
        return season_table_text(
            lang,
            kind,
            (shown_number, season.key, season is current),
            placings,
            min_games=SEASON_MIN,
        )

    # ---- the end of a season ----------------------------------------------------------------

    async def announce_due(self) -> int:
        """Announce every season that has ended and was not announced (to groups that played
        in it and keep seasons of its kind); how many were announced."""
        now = self.deps.clock()
        announced = 0
        for kind in KINDS:
            ended = previous(season_at(now, kind))
            for chat_id in await self.deps.db.seasons.groups_that_played(ended.start, ended.end):
                options = await self.group_settings.options(chat_id)
                if options.season != kind:
                    continue
                if not await self.deps.db.seasons.mark_announced(chat_id, ended.key, now):
                    continue  # told already (before a restart, say)
                await self._announce(chat_id, ended, options.language)
                announced += 1
        return announced

    async def _announce(self, chat_id: int, season: Season, lang: Lang | None) -> None:
        first = await self.deps.db.seasons.first_game_at(chat_id)
        number = number_of(first if first is not None else season.start, season)
        champions = [
            Champion(table.game, _placing(table.placed[0]))
            for table in await self.tables(chat_id, season)
            if table.placed
        ]
        if not champions:
            return  # nobody played enough to be a champion: nothing to say
        body = champions_text(lang or self.deps.settings.default_language, number, season.key,
                              champions)
        await self.deps.messenger.send(chat_id, body)

    def arm(self) -> None:
        """Announce at the next end of a season (a month's or a week's, whichever comes
        first), then arm again."""
        now = self.deps.clock()
        soonest = min(season_at(now, kind).end for kind in KINDS)

        async def fire() -> None:
            try:
                await self.announce_due()
            except Exception:
                log.exception("the seasons' announcements failed")
            self.arm()

        self.deps.scheduler.schedule(TIMER, max(1.0, soonest - now + 1.0), fire)


def _placing(entry: Entry) -> Placing:
    return Placing(entry.name, shown(entry.skill), entry.wins, entry.losses, entry.draws)
