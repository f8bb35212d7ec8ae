"""/rank and /top: the ratings fetched; the presentation (``rank_text.py``) says them."""

from __future__ import annotations

from bot.game.variants import VARIANTS
from bot.presentation.rank_text import Standing, TopBoard, rank_lines, skill_block, top_block
from bot.presentation.strings import Lang
from bot.service.skill import MIN_RATED, shown
from bot.storage import Database

TOP_SIZE = 10


async def rank_text(db: Database, user_id: int, name: str, lang: Lang) -> str:
    """A player's title in each game: level, score, games, wins, distance to the next."""
    standings: list[tuple[str, Standing]] = [
        (game, await db.ratings.get(user_id=user_id, game=game)) for game in VARIANTS
    ]
    return rank_lines(lang, name, standings, await skills_of(db, user_id))


async def skills_of(db: Database, user_id: int) -> dict[str, tuple[int, int]]:
    """A player's skill in each game as shown (a newcomer's too), and their rated games."""
    known = await db.skills.of_player(user_id)
    found = {}
    for game in VARIANTS:
        record = known.get(game)
        found[game] = (shown(record), record.rated if record is not None else 0)
    return found


async def top_text(
    db: Database, chat_id: int, lang: Lang, board: TopBoard = TopBoard.SKILL
) -> str:
    """The group's best players in each game (only players who finished a game there): by
    skill (players with MIN_RATED rated games; the others named as unranked), or by 等级; or
    by skill across the groups that opted in (/settings)."""
    blocks = []
    shared = await db.group_settings.chosen("shared_top", True) if board is TopBoard.SHARED else []
    for game in VARIANTS:
        if board is TopBoard.SHARED:
            ranked = await db.skills.top(
                game=game, chat_id=shared, min_rated=MIN_RATED, limit=TOP_SIZE
            )
            rows = [(player.name, shown(record), record.rated) for player, record in ranked]
            blocks.append(skill_block(lang, game, rows, [], MIN_RATED, groups=len(shared)))
        elif board is TopBoard.SKILL:
            ranked = await db.skills.top(
                game=game, chat_id=chat_id, min_rated=MIN_RATED, limit=TOP_SIZE
            )
            rows = [(player.name, shown(record), record.rated) for player, record in ranked]
            unranked = await db.skills.unranked(game=game, chat_id=chat_id, min_rated=MIN_RATED)
            blocks.append(skill_block(lang, game, rows, unranked, MIN_RATED))
        else:
            top = await db.ratings.top(game=game, chat_id=chat_id, limit=TOP_SIZE)
            scores = [(player.name, rating.score) for player, rating in top]
            blocks.append(top_block(lang, game, scores))
    return "\n\n".join(blocks)
