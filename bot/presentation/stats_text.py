"""/stats's text and picture: a player's record in each game as lines, and their score over
their games drawn against the titles' bands.

The service gathers the figures (:class:`Record`, the scores); this module says them.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from bot.game.levels import level_for, titles
from bot.game.variants import VARIANTS
from bot.presentation.achievement_text import names
from bot.presentation.render import variant_name
from bot.presentation.stats_chart import Band, ChartText, Series, draw
from bot.presentation.strings import Lang, text

_TAG: Final = re.compile(r"<[^>]+>")


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


def _rate(part: int, whole: int) -> str:
    return f"{round(100 * part / whole)}%" if whole else "—"


def record_lines(
    lang: Lang, record: Record, skill: tuple[int, int] | None = None
) -> list[str]:
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
    if skill is not None:
        best += text(lang, "stats.skill", skill=skill[0], rated=skill[1])
    if record.partner is not None:
        best += text(
            lang, "stats.partner", name=html.escape(record.partner.name), wins=record.partner.wins
        )
    lines.append(best)
    return lines


def stats_lines(
    lang: Lang,
    name: str,
    everywhere: Sequence[Record],
    here: Sequence[Record] | None = None,
    skills: Mapping[str, tuple[int, int]] | None = None,
    achievements: tuple[Sequence[str], int] | None = None,
) -> str:
    """The whole answer: in a group (``here``: its records) this group's games, then all of
    them; elsewhere all of them; ``skills`` (game: (skill shown, rated games)) beside each
    game's titles of all games; ``achievements`` (the keys earned, how many there are) at the
    end. ``name`` is plain text (escaped here)."""
    lines = [text(lang, "stats.title", name=html.escape(name))]
    if here is not None:
        lines.append(text(lang, "stats.scope_group"))
        if not here:
            lines.append(text(lang, "stats.scope_empty"))
        for record in here:
            lines += record_lines(lang, record)
        lines.append(text(lang, "stats.scope_all"))
    for record in everywhere:
        lines += record_lines(lang, record, (skills or {}).get(record.variant))
    if achievements is not None and achievements[0]:
        keys, total = achievements
        lines.append(
            text(lang, "stats.achievements", n=len(keys), total=total, names=names(lang, keys))
        )
    return "\n".join(lines)


def plain_text(body: str) -> str:
    """An HTML text as Telegram shows it once parsed: the tags gone, entities one character."""
    return html.unescape(_TAG.sub("", body))


def visible_length(body: str) -> int:
    """The length of an HTML text as Telegram counts it once parsed."""
    return len(plain_text(body))


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


def score_series(
    scores: Mapping[str, Sequence[int]], lang: Lang, *, chinese: bool
) -> list[Series]:
    """A line per game (variant, in the bot's order) of its ``scores``."""
    return [
        Series(
            variant_name(lang if chinese else "en", name),
            tuple(scores[name]),
            bands_of(name, chinese=chinese),
        )
        for name in VARIANTS
        if scores.get(name)
    ]


def scores_png(scores: Mapping[str, Sequence[int]], lang: Lang, font: Path | None) -> bytes | None:
    """The picture of the player's score in each game (None: no score to draw)."""
    chinese = font is not None
    series = score_series(scores, lang, chinese=chinese)
    if not series:
        return None
    words: Lang = lang if chinese else "en"
    labels = ChartText(
        text(words, "stats.chart_title"), text(words, "stats.chart_x"), text(words, "stats.chart_y")
    )
    return draw(series, labels, font)
