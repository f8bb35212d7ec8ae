"""/rank and /top: titles and leaderboards from the ratings."""

from __future__ import annotations

from html import escape

from bot.game.levels import level_for
from bot.game.variants import VARIANTS
from bot.presentation.render import variant_name
from bot.presentation.strings import Lang, text
from bot.storage import Database

TOP_SIZE = 10


async def rank_text(db: Database, user_id: int, name: str, lang: Lang) -> str:
    """A player's title in each game: level, score, games, wins, distance to the next."""
    lines = [text(lang, "rank.title", name=escape(name))]
    for game in VARIANTS:
        rating = await db.ratings.get(user_id=user_id, game=game)
        level = level_for(game, rating.score)
        lines.append(
            text(
                lang,
                "rank.row",
                variant=variant_name(lang, game),
                title=level.title,
                level=level.level,
                score=rating.score,
                games=rating.games,
                wins=rating.wins,
            )
        )
        if level.next_title is None:
            lines.append(text(lang, "rank.top"))
        else:
            lines.append(
                text(lang, "rank.next", title=level.next_title, points=level.to_next(rating.score))
            )
    return "\n".join(lines)


async def top_text(db: Database, chat_id: int, lang: Lang) -> str:
    """The group's best players in each game (only players who finished a game there)."""
    blocks = []
    for game in VARIANTS:
        rows = await db.ratings.top(game=game, chat_id=chat_id, limit=TOP_SIZE)
        lines = [text(lang, "top.title", variant=variant_name(lang, game))]
        if not rows:
            lines.append(text(lang, "top.empty", variant=variant_name(lang, game)))
        for n, (player, rating) in enumerate(rows, 1):
            title = level_for(game, rating.score).title
            lines.append(
                text(
                    lang, "top.row", n=n, name=escape(player.name), title=title, score=rating.score
                )
            )
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
