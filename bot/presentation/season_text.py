"""/season's tables and the message that names a season's champions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from bot.presentation.render import variant_name
from bot.presentation.strings import Lang, text


@dataclass(frozen=True)
class Placing:
    name: str  # plain text (escaped here)
    skill: int
    wins: int
    losses: int
    draws: int


@dataclass(frozen=True)
class Champion:
    game: str
    placing: Placing


def _record(lang: Lang, placing: Placing) -> str:
    return text(lang, "season.record", wins=placing.wins, losses=placing.losses,
                draws=placing.draws, skill=placing.skill)


def season_table_text(
    lang: Lang,
    kind: str | None,
    season: tuple[int, str, bool] | None,
    tables: Sequence[tuple[str, Sequence[Placing], Sequence[str]]],
    *,
    min_games: int,
) -> str:
    """``kind`` None: the group keeps no seasons; ``season`` None: no such season; else
    (number, key, whether it is the current one) and each game's (placed best first,
    unplaced names)."""
    if kind is None:
        return text(lang, "season.off")
    if season is None:
        return text(lang, "season.none")
    number, key, current = season
    title = "season.title_current" if current else "season.title"
    lines = [text(lang, title, n=number, period=key)]
    for game, placed, unplaced in tables:
        lines.append(text(lang, "season.game", variant=variant_name(lang, game)))
        if not placed:
            lines.append(text(lang, "season.empty", min=min_games))
        for n, placing in enumerate(placed, 1):
            lines.append(f"{n}. {escape(placing.name)} · {_record(lang, placing)}")
        if unplaced:
            names = "、".join(escape(name) for name in unplaced[:20])
            lines.append(text(lang, "season.unplaced", min=min_games, names=names))
    return "\n".join(lines)


def champions_text(lang: Lang, number: int, key: str, champions: Sequence[Champion]) -> str:
    lines = [text(lang, "season.ended", n=number, period=key)]
    for champion in champions:
        lines.append(
            text(
                lang,
                "season.champion",
                variant=variant_name(lang, champion.game),
                name=escape(champion.placing.name),
                record=_record(lang, champion.placing),
            )
        )
    lines.append(text(lang, "season.next"))
    return "\n".join(lines)
