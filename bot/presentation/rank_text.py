"""/rank's and /top's text: a player's title in each game, and a group's leaderboards.

The service fetches the ratings; this module says them (through :class:`Standing`, what a
rating offers, so the presentation knows nothing of where ratings are kept).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import IntEnum
from html import escape
from typing import Protocol

from bot.game.levels import level_for
from bot.presentation.callbacks import Act, Callback
from bot.presentation.keyboards import Keyboard, keyboard, press_button
from bot.presentation.render import variant_name
from bot.presentation.strings import Lang, text


class Standing(Protocol):
    """A player's standing in one game."""

    @property
    def score(self) -> int: ...
    @property
    def games(self) -> int: ...
    @property
    def wins(self) -> int: ...


class TopBoard(IntEnum):
    """Which of /top's boards a message shows (the TOP button's argument)."""

    SKILL = 0
    LEVEL = 1
    SHARED = 2  # across the groups that opted in (/settings)


def rank_lines(
    lang: Lang,
    name: str,
    standings: Sequence[tuple[str, Standing]],
    skills: Mapping[str, tuple[int, int]] | None = None,
) -> str:
    """A player's title in each game (variant, standing): level, score, games, wins, and the
    distance to the next title; with ``skills`` (game: (skill shown, rated games)) the skill
    rating beside it. ``name`` is plain text (escaped here)."""
    lines = [text(lang, "rank.title", name=escape(name))]
    for game, standing in standings:
        level = level_for(game, standing.score)
        lines.append(
            text(
                lang,
                "rank.row",
                variant=variant_name(lang, game),
                title=level.title,
                level=level.level,
                score=standing.score,
                games=standing.games,
                wins=standing.wins,
            )
        )
        if level.next_title is None:
            lines.append(text(lang, "rank.top"))
        else:
            to_next = level.to_next(standing.score)
            lines.append(text(lang, "rank.next", title=level.next_title, points=to_next))
        if skills is not None and game in skills:
            skill, rated = skills[game]
            lines.append(text(lang, "rank.skill", skill=skill, rated=rated))
    return "\n".join(lines)


def top_block(lang: Lang, game: str, rows: Sequence[tuple[str, int]]) -> str:
    """A game's leaderboard in a group: (name, score) best first; names are plain text."""
    lines = [text(lang, "top.title", variant=variant_name(lang, game))]
    if not rows:
        lines.append(text(lang, "top.empty", variant=variant_name(lang, game)))
    for n, (name, score) in enumerate(rows, 1):
        title = level_for(game, score).title
        lines.append(text(lang, "top.row", n=n, name=escape(name), title=title, score=score))
    return "\n".join(lines)


def skill_block(
    lang: Lang,
    game: str,
    rows: Sequence[tuple[str, int, int]],
    unranked: Sequence[str],
    min_rated: int,
    groups: int | None = None,
) -> str:
    """A game's skill board in a group: (name, skill shown, rated games) best first, then the
    players with fewer than ``min_rated`` rated games, unranked; with ``groups``, the board
    across that many groups. Names are plain text."""
    if groups is None:
        lines = [text(lang, "top.skill_title", variant=variant_name(lang, game))]
    else:
        lines = [text(lang, "top.shared_title", variant=variant_name(lang, game), groups=groups)]
    if not rows:
        lines.append(text(lang, "top.skill_empty", variant=variant_name(lang, game), min=min_rated))
    for n, (name, skill, rated) in enumerate(rows, 1):
        lines.append(text(lang, "top.skill_row", n=n, name=escape(name), skill=skill, rated=rated))
    if unranked:
        names = "、".join(escape(name) for name in unranked[:20])
        lines.append(text(lang, "top.unranked", min=min_rated, names=names))
    return "\n".join(lines)


def top_keyboard(lang: Lang, showing: TopBoard, *, shared: bool = False) -> Keyboard:
    """The buttons under /top's answer: the other boards (the table across groups only for a
    group that opted in)."""
    boards = [TopBoard.SKILL, TopBoard.LEVEL] + ([TopBoard.SHARED] if shared else [])
    labels = {
        TopBoard.SKILL: "top.by_skill",
        TopBoard.LEVEL: "top.by_level",
        TopBoard.SHARED: "top.by_shared",
    }
    buttons = [
        press_button(text(lang, labels[board]), Callback(0, 0, Act.TOP, int(board)).encode())
        for board in boards
        if board is not showing
    ]
    return keyboard([buttons])
