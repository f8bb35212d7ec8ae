"""/stats: a player's record in each game, from the games they finished.

The stored results say who won, how the game came out (双扣 / 单扣 / 平扣; 刨王 win / 小雪 /
大雪), who left (逃跑) and each player's score after the game. What only the play itself
knows — who went out first (上游; in 刨王 that is 扛旗), how a 刨王 game was won (满140, 扛旗 +
90, 双飞) and who showed a 大王 (亮王) — comes from replaying the game's stored deal and log
through the engine (:func:`facts_of`): a finished game never changes, so its facts are kept
in memory once found, and a replay costs 1-2 ms.

The figures are pure functions of the games (``stats_figures.py``); :class:`PlayerStats` fetches,
replays in a worker thread, renders and keeps each player's answer (with its picture) until
their next game.
"""

from __future__ import annotations

import asyncio
import html
import logging
import re
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from bot.game.levels import titles
from bot.game.variants import VARIANTS
from bot.presentation.render import variant_name
from bot.presentation.stats_chart import Band, ChartText, Series, cjk_font, draw
from bot.presentation.strings import Lang, text
from bot.service.stats_figures import GameFacts, Record, facts_of, records_of
from bot.storage import Database
from bot.storage.stats import PlayedGame

log = logging.getLogger(__name__)

#: Telegram's limit for a photo's caption (characters of text, after the HTML is parsed)
CAPTION_LIMIT: Final = 1024
#: finished games whose replayed facts are kept in memory (a few hundred bytes each)
FACTS_KEPT: Final = 50_000
#: answers (text and picture) kept, per player, chat and language, until the player's next game
ANSWERS_KEPT: Final = 256
_TAG: Final = re.compile(r"<[^>]+>")


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
