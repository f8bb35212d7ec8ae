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

from bot.game.variants import VARIANTS
from bot.presentation.stats_chart import cjk_font
from bot.presentation.stats_text import scores_png, stats_lines, visible_length
from bot.presentation.strings import Lang, text
from bot.service.achievements import KEYS
from bot.service.queries import skills_of
from bot.service.stats_figures import GameFacts, facts_of, records_of
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


def stats_text(
    lang: Lang,
    name: str,
    games: Sequence[PlayedGame],
    facts: Mapping[int, GameFacts],
    chat_id: int | None = None,
    skills: Mapping[str, tuple[int, int]] | None = None,
    achievements: Sequence[str] = (),
) -> str:
    """The whole answer: in a group (``chat_id``) this group's games, then all of them;
    elsewhere all of them; each game's skill (``skills``: shown, rated games) with all of
    them. ``name`` is plain text (escaped there)."""
    here = None
    if chat_id is not None:
        here = records_of([game for game in games if game.chat_id == chat_id], facts)
    earned = [key for key in KEYS if key in set(achievements)]
    return stats_lines(lang, name, records_of(games, facts), here, skills, (earned, len(KEYS)))


def scores_of(games: Sequence[PlayedGame]) -> dict[str, tuple[int, ...]]:
    """Per game (variant) the player has a score in: the score before the first of
    ``games``, then after each."""
    scores = {}
    for name in VARIANTS:
        scored = [g for g in games if g.variant == name and g.score_after is not None]
        if scored:
            first = scored[0]
            start = (first.score_after or 0) - first.adjusted_delta
            scores[name] = (start, *(g.score_after or 0 for g in scored))
    return scores


def chart_png(games: Sequence[PlayedGame], lang: Lang, font: Path | None) -> bytes | None:
    """The picture of the player's score over ``games`` (None: no score to draw)."""
    return scores_png(scores_of(games), lang, font)


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
        skills = await skills_of(self.db, user_id)
        earned = [e.key for e in await self.db.achievements.of_player(user_id)]
        body = stats_text(lang, name, games, facts, chat_id, skills, earned)
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
