"""/stats: a player's record in each game, from the games they finished.

The stored results say who won, how the game came out (双扣 / 单扣 / 平扣; 刨王 win / 小雪 /
大雪), who left (逃跑) and each player's score after the game. What only the play itself
knows — who went out first (上游; in 刨王 that is 扛旗), how a 刨王 game was won (满140, 扛旗 +
90, 双飞) and who showed a 大王 (亮王) — comes from replaying the game's stored deal and log
through the engine (:func:`facts_of`): a finished game never changes, so its facts are kept
in memory once found, and a replay costs 1-2 ms.

The figures are pure functions of the games (:func:`record_of`); :class:`PlayerStats` fetches,
replays in a worker thread, renders and keeps each player's answer (with its picture) until
their next game.
"""

from __future__ import annotations

import asyncio
import html
import logging
import re
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from bot.game.common import Action, action_kind
from bot.game.levels import level_for, titles
from bot.game.variants import VARIANTS
from bot.presentation.render import variant_name
from bot.presentation.strings import Lang, text
from bot.service.replay import replay
from bot.service.stats_chart import Band, ChartText, Series, cjk_font, draw
from bot.storage import Database
from bot.storage.stats import GameLog, PlayedGame

log = logging.getLogger(__name__)

#: Telegram's limit for a photo's caption (characters of text, after the HTML is parsed)
CAPTION_LIMIT: Final = 1024
#: finished games whose replayed facts are kept in memory (a few hundred bytes each)
FACTS_KEPT: Final = 50_000
#: answers (text and picture) kept, per player, chat and language, until the player's next game
ANSWERS_KEPT: Final = 256
_TAG: Final = re.compile(r"<[^>]+>")


# ---- what a replay tells ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameFacts:
    """What only the play of a game tells: the seat that went out first (上游 / 扛旗; None
    if nobody went out), how 刨王 was won (``Result.how``: "points", "flag", "sweep",
    "four_jokers"; "" for 双扣), the engine's winning seats and the seats that showed a
    大王 (亮王)."""

    first_out: int | None = None
    how: str = ""
    winners: tuple[int, ...] = ()
    revealed: frozenset[int] = frozenset()


def facts_of(game_log: GameLog) -> GameFacts:
    """Replay a game's log through the engine. A game that cannot be replayed (no deal, a
    log the engine refuses) still gives its 亮王s, which the log alone tells."""
    revealed = frozenset(a.seat for a in game_log.actions if a.kind == "reveal")
    variant = VARIANTS.get(game_log.variant)
    if variant is None or (game_log.seed is None and game_log.hands is None):
        return GameFacts(revealed=revealed)
    try:
        seed = int(game_log.seed) if game_log.seed is not None else None
        actions = [Action(action_kind(a.kind), a.seat, a.cards) for a in game_log.actions]
        game = replay(variant, seed, game_log.leader, game_log.hands, actions)
    except Exception:  # a record this engine cannot replay: its figures go without
        log.warning("game %d could not be replayed for /stats", game_log.game_id, exc_info=True)
        return GameFacts(revealed=revealed)
    result = game.result
    if result is None:  # a cancelled game, stopped midway
        return GameFacts(revealed=revealed)
    first = result.finish_order[0] if result.finish_order else None
    return GameFacts(first, result.how, tuple(result.winners), revealed)


# ---- the figures ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Partner:
    """The player someone won with most: their user id, name, and the wins together."""

    user_id: int
    name: str
    wins: int


@dataclass(frozen=True, slots=True)
class Record:
    """A player's record in one game (``variant``) over some of their games.

    ``won_lost``: per outcome, (games won, games lost) with it: 双扣's "双扣", "单扣" (a 平扣
    is neither: ``draws``); 刨王's "小雪", "大雪". ``wins_by``: 刨王 wins by how ("points",
    "flag", "sweep", "four_jokers"). ``firsts`` of ``first_known`` games they went out
    first (上游); ``reveals``: games where they showed a 大王 (亮王). A game the player left
    (逃跑) counts as a game and a loss, and in nothing else but ``escaped``."""

    variant: str
    games: int = 0
    wins: int = 0
    escaped: int = 0
    draws: int = 0
    won_lost: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    wins_by: Mapping[str, int] = field(default_factory=dict)
    reveals: int = 0
    firsts: int = 0
    first_known: int = 0
    current_streak: int = 0
    best_streak: int = 0
    best_score: int | None = None
    partner: Partner | None = None

    @property
    def best_title(self) -> str | None:
        """The highest title the player's score reached in these games."""
        return None if self.best_score is None else level_for(self.variant, self.best_score).title


def won(game: PlayedGame) -> bool:
    """Whether the game counts as a win for the player (as the ratings count it)."""
    return game.won and not game.escaped


def streaks(results: Iterable[bool]) -> tuple[int, int]:
    """(the current run of wins at the end, the longest run) of a sequence of results."""
    current = best = 0
    for result in results:
        current = current + 1 if result else 0
        best = max(best, current)
    return current, best


def partners_of(game: PlayedGame) -> list[tuple[int, str]]:
    """The people (user id, name) on the player's side in a game they won: 双扣's seat
    across; in 刨王 every other winner (the sides are secret until the result names them)."""
    if not won(game):
        return []
    if game.variant == "shuangkou":
        across = (game.seat + 2) % 4
        mates = [other for other in game.others if other.seat == across]
    else:
        mates = [other for other in game.others if other.won]
    return [(m.user_id, m.name or str(m.user_id)) for m in mates if m.user_id is not None]


def best_partner(games: Iterable[PlayedGame]) -> Partner | None:
    """The person the player won with most (ties: the one won with first)."""
    wins: Counter[int] = Counter()
    names: dict[int, str] = {}
    for game in games:
        for user_id, name in partners_of(game):
            wins[user_id] += 1
            names[user_id] = name
    if not wins:
        return None
    user_id, count = wins.most_common(1)[0]  # most_common keeps first-seen order on ties
    return Partner(user_id, names[user_id], count)


def record_of(variant: str, games: Sequence[PlayedGame], facts: Mapping[int, GameFacts]) -> Record:
    """The player's record in ``variant`` from their ``games`` (in the order they ended;
    other variants' games are left out) and the games' replayed ``facts`` (by game id; a
    game without facts counts in everything but 上游, 扛旗/双飞 and 亮王)."""
    mine = [game for game in games if game.variant == variant]
    won_lost: dict[str, list[int]] = {}
    wins_by: Counter[str] = Counter()
    draws = reveals = firsts = first_known = 0
    for game in mine:
        fact = facts.get(game.game_id)
        if fact is not None and game.seat in fact.revealed:
            reveals += 1
        if game.status != "finished" or game.escaped:
            continue
        outcome = game.outcome or ""
        if outcome == "平扣":
            draws += 1
        elif outcome in ("双扣", "单扣", "小雪", "大雪"):
            won_lost.setdefault(outcome, [0, 0])[0 if won(game) else 1] += 1
        if fact is None:
            continue
        if fact.how and won(game) and game.seat in fact.winners:
            wins_by[fact.how] += 1
        if fact.first_out is not None:
            first_known += 1
            firsts += fact.first_out == game.seat
    current, best = streaks(won(game) for game in mine)
    scores = [game.score_after for game in mine if game.score_after is not None]
    return Record(
        variant=variant,
        games=len(mine),
        wins=sum(won(game) for game in mine),
        escaped=sum(game.escaped for game in mine),
        draws=draws,
        won_lost={key: (pair[0], pair[1]) for key, pair in won_lost.items()},
        wins_by=dict(wins_by),
        reveals=reveals,
        firsts=firsts,
        first_known=first_known,
        current_streak=current,
        best_streak=best,
        best_score=max(scores) if scores else None,
        partner=best_partner(mine),
    )


def records_of(games: Sequence[PlayedGame], facts: Mapping[int, GameFacts]) -> list[Record]:
    """A record per game the player has played at least once, in the bot's order of games."""
    played = {game.variant for game in games}
    return [record_of(name, games, facts) for name in VARIANTS if name in played]


# ---- the text ------------------------------------------------------------------------------


def _rate(part: int, whole: int) -> str:
    return f"{round(100 * part / whole)}%" if whole else "—"


def record_lines(lang: Lang, record: Record) -> list[str]:
    """A record as lines of text (HTML)."""
    lines = [
        text(
            lang,
            "stats.row",
            variant=variant_name(lang, record.variant),
            games=record.games,
            wins=record.wins,
            rate=_rate(record.wins, record.games),
            escaped=record.escaped,
        )
    ]
    wl = record.won_lost
    if record.variant == "shuangkou":
        lines.append(
            text(
                lang,
                "stats.shuangkou",
                double_won=wl.get("双扣", (0, 0))[0],
                double_lost=wl.get("双扣", (0, 0))[1],
                single_won=wl.get("单扣", (0, 0))[0],
                single_lost=wl.get("单扣", (0, 0))[1],
                draws=record.draws,
            )
        )
    else:
        lines.append(
            text(
                lang,
                "stats.paowang",
                points=record.wins_by.get("points", 0),
                flag=record.wins_by.get("flag", 0),
                sweep=record.wins_by.get("sweep", 0),
                reveals=record.reveals,
            )
        )
        lines.append(
            text(
                lang,
                "stats.snow",
                small_won=wl.get("小雪", (0, 0))[0],
                small_lost=wl.get("小雪", (0, 0))[1],
                big_won=wl.get("大雪", (0, 0))[0],
                big_lost=wl.get("大雪", (0, 0))[1],
            )
        )
    lines.append(
        text(
            lang,
            "stats.first",
            firsts=record.firsts,
            rate=_rate(record.firsts, record.first_known),
            current=record.current_streak,
            best=record.best_streak,
        )
    )
    best = text(lang, "stats.best", title=record.best_title or "—")
    if record.partner is not None:
        best += text(
            lang, "stats.partner", name=html.escape(record.partner.name), wins=record.partner.wins
        )
    lines.append(best)
    return lines


def stats_text(
    lang: Lang,
    name: str,
    games: Sequence[PlayedGame],
    facts: Mapping[int, GameFacts],
    chat_id: int | None = None,
) -> str:
    """The whole answer: in a group (``chat_id``) this group's games, then all of them;
    elsewhere all of them. ``name`` is plain text (escaped here)."""
    lines = [text(lang, "stats.title", name=html.escape(name))]
    if chat_id is not None:
        here = [game for game in games if game.chat_id == chat_id]
        lines.append(text(lang, "stats.scope_group"))
        if not here:
            lines.append(text(lang, "stats.scope_empty"))
        for record in records_of(here, facts):
            lines += record_lines(lang, record)
        lines.append(text(lang, "stats.scope_all"))
    for record in records_of(games, facts):
        lines += record_lines(lang, record)
    return "\n".join(lines)


def visible_length(body: str) -> int:
    """The length of an HTML text as Telegram counts it once parsed (tags gone, entities
    one character)."""
    return len(html.unescape(_TAG.sub("", body)))


# ---- the picture ---------------------------------------------------------------------------


def bands_of(variant: str, *, chinese: bool) -> tuple[Band, ...]:
    """The game's titles as bands of scores (labels: the titles, or levels without
    Chinese)."""
    ladder = titles(variant)
    bands = []
    for index, (level, title, low) in enumerate(ladder):
        high = ladder[index + 1][2] if index + 1 < len(ladder) else None
        bands.append(Band(low, high, title if chinese else f"Lv {level}"))
    return tuple(bands)


def chart_series(games: Sequence[PlayedGame], lang: Lang, *, chinese: bool) -> list[Series]:
    """A line per game (variant) the player has a score in: the score before the first of
    ``games``, then after each."""
    series = []
    for name in VARIANTS:
        scored = [g for g in games if g.variant == name and g.score_after is not None]
        if scored:
            first = scored[0]
            start = (first.score_after or 0) - first.adjusted_delta
            scores = (start, *(g.score_after or 0 for g in scored))
            label = variant_name(lang if chinese else "en", name)
            series.append(Series(label, scores, bands_of(name, chinese=chinese)))
    return series


def chart_png(games: Sequence[PlayedGame], lang: Lang, font: Path | None) -> bytes | None:
    """The picture of the player's score over ``games`` (None: no score to draw)."""
    chinese = font is not None
    series = chart_series(games, lang, chinese=chinese)
    if not series:
        return None
    words: Lang = lang if chinese else "en"
    labels = ChartText(
        text(words, "stats.chart_title"), text(words, "stats.chart_x"), text(words, "stats.chart_y")
    )
    return draw(series, labels, font)


# ---- the service's part --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StatsAnswer:
    """What /stats answers: the text (HTML) and the picture (PNG; None without games)."""

    text: str
    photo: bytes | None = None

    @property
    def fits_caption(self) -> bool:
        return visible_length(self.text) <= CAPTION_LIMIT


class PlayerStats:
    """Answers /stats from the database: the records, the picture, and a cache of both per
    player, chat and language, kept until the player's next game (its key is the player's
    count of games and their last game's id)."""

    def __init__(self, db: Database, *, font: Callable[[], Path | None] = cjk_font) -> None:
        self.db = db
        self.font = font
        self._facts: OrderedDict[int, GameFacts] = OrderedDict()
        self._answers: OrderedDict[
            tuple[int, int | None, str], tuple[tuple[int, int | None], StatsAnswer]
        ] = OrderedDict()
        #: pictures drawn so far (what the cache saves shows here)
        self.drawn = 0
        # one picture at a time: matplotlib is not made for drawing in several threads at
        # once, and a burst of /stats should not take every core
        self._drawing = asyncio.Lock()

    async def answer(
        self, *, user_id: int, name: str, lang: Lang, chat_id: int | None = None
    ) -> StatsAnswer:
        """``user_id``'s record (``name``: how to call them) for a reader of ``lang``: in
        a group (``chat_id``) that group's games and all of them, elsewhere all of them."""
        version = await self.db.stats.record_version(user_id=user_id)
        if version[0] == 0:
            return StatsAnswer(text(lang, "stats.none", name=html.escape(name)))
        key = (user_id, chat_id, lang)
        kept = self._answers.get(key)
        if kept is not None and kept[0] == version:
            self._answers.move_to_end(key)
            return kept[1]
        games = await self.db.stats.played(user_id=user_id)
        facts = await self.facts([game.game_id for game in games])
        body = stats_text(lang, name, games, facts, chat_id)
        # the group's games in a group (all of them if none was played there)
        scope = [game for game in games if game.chat_id == chat_id] or games
        font = self.font()
        try:
            async with self._drawing:
                photo = await asyncio.to_thread(chart_png, scope, lang, font)
        except Exception:  # the text is worth sending without its picture
            log.exception("the /stats picture of %d could not be drawn", user_id)
            return StatsAnswer(body)  # not kept: the next /stats tries again
        if photo is not None:
            self.drawn += 1
        answer = StatsAnswer(body, photo)
        self._answers[key] = (version, answer)
        while len(self._answers) > ANSWERS_KEPT:
            self._answers.popitem(last=False)
        return answer

    async def facts(self, game_ids: Sequence[int]) -> dict[int, GameFacts]:
        """Each game's replayed facts: kept ones, the others replayed (in a worker thread)."""
        missing = [game_id for game_id in game_ids if game_id not in self._facts]
        if missing:
            logs = await self.db.stats.logs(missing)
            found = await asyncio.to_thread(
                lambda: {game_id: facts_of(one) for game_id, one in logs.items()}
            )
            self._facts.update(found)
        facts = {}
        for game_id in game_ids:
            fact = self._facts.get(game_id)
            if fact is not None:
                self._facts.move_to_end(game_id)
                facts[game_id] = fact
        while len(self._facts) > FACTS_KEPT:
            self._facts.popitem(last=False)
        return facts
