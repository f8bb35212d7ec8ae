"""Storage: the bot's SQLite database (aiosqlite), its schema, migrations and repositories.

A game is stored as its deal (a seed, or explicit hands) plus its action log; replaying the log
through the engine restores it, so there is no game-state snapshot to keep in sync. Every
accepted action is appended in a transaction before any message about it goes out.

    db = await open_database("bot.sqlite3")
    async with db.transaction():
        await db.actions.append(game_id=game.id, seq=3, seat=1, kind="play", cards="♠3 ♥3")
        await db.games.update(game.id, deadline=now + 30)

See ``docs/architecture-storage.md`` for the schema and the road to PostgreSQL.
"""

from bot.storage.database import Database, open_database
from bot.storage.errors import (
    DuplicateActionError,
    NotFoundError,
    OpenGameExistsError,
    ResultsAlreadyRecordedError,
    SchemaVersionError,
    StorageError,
)
from bot.storage.migrations import MIGRATIONS
from bot.storage.models import (
    GAME_STATUSES,
    OPEN_STATUSES,
    ActionRecord,
    GameRecord,
    GameStatus,
    PlayerRecord,
    Rating,
    RatingChange,
    ResultRow,
    SeatRecord,
)

__all__ = [
    "GAME_STATUSES",
    "MIGRATIONS",
    "OPEN_STATUSES",
    "ActionRecord",
    "Database",
    "DuplicateActionError",
    "GameRecord",
    "GameStatus",
    "NotFoundError",
    "OpenGameExistsError",
    "PlayerRecord",
    "Rating",
    "RatingChange",
    "ResultRow",
    "ResultsAlreadyRecordedError",
    "SchemaVersionError",
    "SeatRecord",
    "StorageError",
    "open_database",
]
