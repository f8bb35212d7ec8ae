"""The schema, as an ordered list of migrations, and the code that applies them.

The schema version counts the migrations a database has had (SQLite: ``PRAGMA user_version``;
PostgreSQL: the one row of ``cardbot_schema``). Opening a database applies the missing ones, in
order, in one transaction together with the new version number, so a crash half-way leaves the
database as it was; on PostgreSQL the transaction first takes an advisory lock, so of two
instances starting together one migrates and the other then finds nothing to do. Migrations are
append-only: never edit one that has shipped; add the next one instead.

The DDL is written in portable SQL (``BIGINT``, ``DOUBLE PRECISION``, ``BOOLEAN``, ``TEXT``
holding JSON, partial indexes, row-value comparisons). The one point that is SQLite's alone,
``games.id`` as SQLite's rowid, is marked ``-- SQLite:`` and rewritten for PostgreSQL by
:data:`POSTGRESQL_REWRITES` (an identity column, and ``BIGINT`` columns pointing at it).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Final

from bot.storage.errors import SchemaVersionError
from bot.storage.session import Session

_V1_INITIAL = """
-- Telegram users the bot knows. Telegram ids exceed 32 bits: BIGINT.
CREATE TABLE players (
    user_id           BIGINT PRIMARY KEY,
    name              TEXT NOT NULL,
    username          TEXT,
    language          TEXT,                      -- chosen with /lang; NULL: not chosen
    telegram_language TEXT,                      -- Telegram's language_code, last seen
    can_message       BOOLEAN NOT NULL DEFAULT FALSE,
    created_at        DOUBLE PRECISION NOT NULL, -- epoch seconds
    updated_at        DOUBLE PRECISION NOT NULL
);

-- One row per player and game variant; a missing row reads as zeros.
CREATE TABLE ratings (
    user_id BIGINT NOT NULL REFERENCES players (user_id),
    game    TEXT NOT NULL,
    score   INTEGER NOT NULL DEFAULT 0,
    games   INTEGER NOT NULL DEFAULT 0,
    wins    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, game)
);

-- A lobby or a game: its deal (seed, or explicit hands with a leader) and the bot's
-- bookkeeping. The play is the action log below, not a snapshot here.
CREATE TABLE games (
    id               INTEGER PRIMARY KEY,        -- SQLite: the rowid, assigned on insert
    chat_id          BIGINT NOT NULL,
    variant          TEXT NOT NULL,
    status           TEXT NOT NULL
                     CHECK (status IN ('lobby', 'playing', 'finished', 'cancelled')),
    opener_id        BIGINT,
    seats            TEXT NOT NULL,              -- JSON: [{user_id, name, is_computer, language}]
    seed             TEXT,                       -- JSON int or str: Python seeds are unbounded
    leader           INTEGER,
    hands            TEXT,                       -- JSON: [["♠3", ...], ...] or NULL
    created_at       DOUBLE PRECISION NOT NULL,
    started_at       DOUBLE PRECISION,
    finished_at      DOUBLE PRECISION,
    table_message_id BIGINT,
    lobby_message_id BIGINT,
    hand_message_ids TEXT NOT NULL DEFAULT '{}', -- JSON: {"seat": message_id}
    takeover         TEXT NOT NULL DEFAULT '[]', -- JSON: [bool per seat]
    timeouts         TEXT NOT NULL DEFAULT '[]', -- JSON: [int per seat]
    escaped          TEXT NOT NULL DEFAULT '[]', -- JSON: [bool per seat]
    deadline         DOUBLE PRECISION,
    previous_game_id INTEGER REFERENCES games (id),
    outcome          TEXT,
    note             TEXT
);
CREATE INDEX games_chat_status ON games (chat_id, status);
CREATE INDEX games_status ON games (status);
-- At most one lobby or game in progress per chat, enforced by the database itself.
CREATE UNIQUE INDEX games_one_open_per_chat ON games (chat_id)
    WHERE status IN ('lobby', 'playing');

-- The log: every accepted action, in order. The primary key makes a second append of the
-- same seq fail, which is what keeps one action from being applied twice.
CREATE TABLE actions (
    game_id INTEGER NOT NULL REFERENCES games (id),
    seq     INTEGER NOT NULL,
    seat    INTEGER NOT NULL,
    kind    TEXT NOT NULL,                       -- play / pass / reveal / decline / ...
    cards   TEXT,                                -- card text such as '♠3 ♥3'
    at      DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game_id, seq)
);

-- A finished game's score per seat: the rules' delta and the delta the bot applied.
CREATE TABLE results (
    game_id        INTEGER NOT NULL REFERENCES games (id),
    seat           INTEGER NOT NULL,
    user_id        BIGINT REFERENCES players (user_id), -- NULL for a computer seat
    delta          INTEGER NOT NULL,
    adjusted_delta INTEGER NOT NULL,
    won            BOOLEAN NOT NULL,
    escaped        BOOLEAN NOT NULL DEFAULT FALSE,
    PRIMARY KEY (game_id, seat)
);
-- The per-chat leaderboard goes from a player to the games they played.
CREATE INDEX results_user ON results (user_id, game_id);
"""

_V2_FIXED_SCORES = """
-- The scores a desertion (逃跑) fixed, per seat: an integer replaces the game's result for that
-- seat, NULL leaves it to the result. An empty list: nobody deserted.
ALTER TABLE games ADD COLUMN fixed_scores TEXT NOT NULL DEFAULT '[]'; -- JSON: [int or null]
"""

_V3_GROUP_SENDS = """
-- When the bot sent or edited a message in a group (epoch seconds): Telegram allows 20 a minute
-- per group, and after a restart the bot must know how many of them the last minute used.
-- Rows older than a few minutes are deleted as new ones come.
CREATE TABLE group_sends (
    chat_id BIGINT NOT NULL,
    at      DOUBLE PRECISION NOT NULL
);
CREATE INDEX group_sends_at ON group_sends (at);
"""

_V4_SCORE_AFTER = """
-- A player's score in the variant right after this game counted (NULL for a computer seat):
-- a finished game's result screen and a player's score over time are read back from here.
ALTER TABLE results ADD COLUMN score_after INTEGER;
-- Games finished before this column: ratings are the sums of the applied deltas, so the score
-- after a game is the sum of the player's deltas up to it, in the order the games finished.
UPDATE results SET score_after = (
    SELECT SUM(earlier.adjusted_delta)
    FROM results earlier
    JOIN games earlier_game ON earlier_game.id = earlier.game_id
    JOIN games this_game ON this_game.id = results.game_id
    WHERE earlier.user_id = results.user_id
      AND earlier_game.variant = this_game.variant
      AND (COALESCE(earlier_game.finished_at, earlier_game.created_at), earlier_game.id)
          <= (COALESCE(this_game.finished_at, this_game.created_at), this_game.id)
) WHERE user_id IS NOT NULL;
"""

_V5_GROUP_SETTINGS = """
-- What a group's admins changed in /settings (JSON: only the changes; the environment's
-- settings stand for the rest). The revision counts changes: a menu pressed after another
-- admin's change is outdated.
CREATE TABLE group_settings (
    chat_id    BIGINT PRIMARY KEY,
    changes    TEXT NOT NULL DEFAULT '{}',
    revision   INTEGER NOT NULL DEFAULT 0,
    updated_at DOUBLE PRECISION,
    updated_by BIGINT
);
-- The settings a game was dealt with (JSON), so a restart plays it on by the same ones;
-- NULL: the environment's (a lobby, or a game from before this column).
ALTER TABLE games ADD COLUMN options TEXT;
"""

_V6_SKILLS = """
-- A skill rating per player and game (openskill's Weng-Lin model: mu and sigma), beside the
-- seeds' 等级 score in ratings. player is a Telegram user id, or -1 for the computer players
-- (rated as a player of their own). Computed from the stored results, game by game in the
-- order they ended: bot/service/skill.py.
CREATE TABLE skills (
    player BIGINT NOT NULL,
    game   TEXT NOT NULL,
    mu     DOUBLE PRECISION NOT NULL,
    sigma  DOUBLE PRECISION NOT NULL,
    rated  INTEGER NOT NULL DEFAULT 0,           -- games that changed it
    PRIMARY KEY (player, game)
);
-- The ended games the skill ratings have taken in (rated or found not to count), so each is
-- taken in once; the games before this migration are taken in at the next start.
CREATE TABLE skill_games (
    game_id BIGINT PRIMARY KEY REFERENCES games (id),
    rated   BOOLEAN NOT NULL
);
"""

_V7_SEASONS = """
-- The seasons whose end a group has been told (their champions): one message per season, once,
-- across restarts. season is the period's key (2026-12 for a month, 2026-W49 for a week).
CREATE TABLE season_announcements (
    chat_id BIGINT NOT NULL,
    season  TEXT NOT NULL,
    at      DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (chat_id, season)
);
"""

_V8_ACHIEVEMENTS = """
-- What players earned (bot/service/achievements.py), each once: the game that earned it.
CREATE TABLE achievements (
    user_id BIGINT NOT NULL REFERENCES players (user_id),
    key     TEXT NOT NULL,
    game_id BIGINT NOT NULL REFERENCES games (id),
    at      DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (user_id, key)
);
-- The ended games are taken in again, in order, at the next start: the skill ratings (the
-- same numbers) and now the achievements they earned.
DELETE FROM skills;
DELETE FROM skill_games;
"""

#: Every migration ever shipped, in order; ``user_version`` counts how many were applied.
MIGRATIONS: Final[tuple[str, ...]] = (
    _V1_INITIAL,
    _V2_FIXED_SCORES,
    _V3_GROUP_SENDS,
    _V4_SCORE_AFTER,
    _V5_GROUP_SETTINGS,
    _V6_SKILLS,
    _V7_SEASONS,
    _V8_ACHIEVEMENTS,
)


#: For PostgreSQL: (migration index, SQLite text, PostgreSQL text, times it occurs). Each must
#: occur exactly that often (checked), so an edit to the SQLite text cannot silently skip one.
POSTGRESQL_REWRITES: Final[tuple[tuple[int, str, str, int], ...]] = (
    (
        0,
        "id               INTEGER PRIMARY KEY,        -- SQLite: the rowid, assigned on insert",
        "id               BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,",
        1,
    ),
    (
        0,
        "previous_game_id INTEGER REFERENCES games (id)",
        "previous_game_id BIGINT REFERENCES games (id)",
        1,
    ),
    (0, "game_id INTEGER NOT NULL REFERENCES", "game_id BIGINT NOT NULL REFERENCES", 1),
    (0, "game_id        INTEGER NOT NULL", "game_id        BIGINT NOT NULL", 1),
)
#: pg_advisory_xact_lock's key for migrating (an arbitrary constant: "cardbot" + 1)
MIGRATION_LOCK_KEY: Final = 0x63617264626F7401


def for_dialect(index: int, script: str, dialect: str) -> str:
    """Migration ``index`` as ``dialect`` runs it."""
    if dialect != "postgresql":
        return script
    for number, sqlite_text, postgresql_text, times in POSTGRESQL_REWRITES:
        if number != index:
            continue
        found = script.count(sqlite_text)
        if found != times:
            raise ValueError(
                f"migration {index + 1}: {sqlite_text!r} occurs {found} times, not {times}"
            )
        script = script.replace(sqlite_text, postgresql_text)
    return script


def split_statements(script: str) -> list[str]:
    """Cut a script into single statements.

    ``sqlite3.executescript`` would do this, but it COMMITs first, which would take the
    migration out of its transaction. ``sqlite3.complete_statement`` knows where a statement
    really ends (not at a ``;`` inside a string or a comment).
    """
    statements: list[str] = []
    buffer: list[str] = []
    for line in script.splitlines(keepends=True):
        buffer.append(line)
        text = "".join(buffer)
        if sqlite3.complete_statement(text):
            statements.append(text.strip())
            buffer.clear()
    rest = "".join(buffer).strip()
    if rest and not all(
        part.strip().startswith("--") or not part.strip() for part in rest.splitlines()
    ):
        raise ValueError(f"unterminated statement at the end of a migration: {rest[:80]!r}")
    return statements


async def user_version(db: Session) -> int:
    """How many migrations the database has had."""
    if db.dialect == "postgresql":
        # pg_tables, not to_regclass(): a plain query sees what another instance committed
        # while this one waited for the migration lock; to_regclass() reads a catalog cache
        # that a transaction begun before that commit may not have refreshed yet
        row = await db.fetch_one(
            "SELECT EXISTS (SELECT 1 FROM pg_tables"
            " WHERE schemaname = current_schema() AND tablename = 'cardbot_schema')"
        )
        if row is None or not row[0]:
            return 0
        row = await db.fetch_one("SELECT version FROM cardbot_schema")
    else:
        row = await db.fetch_one("PRAGMA user_version")  # SQLite: the schema version lives here
    return int(row[0]) if row is not None else 0


async def set_version(db: Session, version: int) -> None:
    """Record the schema version (inside the caller's transaction)."""
    if db.dialect == "postgresql":
        await db.execute("CREATE TABLE IF NOT EXISTS cardbot_schema (version INTEGER NOT NULL)")
        await db.execute("DELETE FROM cardbot_schema")
        await db.execute("INSERT INTO cardbot_schema (version) VALUES (?)", (version,))
    else:
        # PRAGMA takes no bound parameters; the value is an int we computed.
        await db.execute(f"PRAGMA user_version = {version:d}")


async def migrate(db: Session, migrations: Sequence[str] = MIGRATIONS) -> int:
    """Apply the migrations the database lacks; returns how many were applied.

    The version is read once without a write lock so that opening an up-to-date database
    (the usual case) takes none, then read again inside the transaction (and its lock) in case
    another process migrated in between.
    """
    async with db.reading():
        current = await user_version(db)
    check_not_newer(current, migrations)
    if current == len(migrations):
        return 0
    async with db.transaction():
        if db.dialect == "postgresql":
            # SQLite's BEGIN IMMEDIATE already keeps a second migrator out; this does here
            await db.execute("SELECT pg_advisory_xact_lock(?)", (MIGRATION_LOCK_KEY,))
        current = await user_version(db)
        check_not_newer(current, migrations)
        for index in range(current, len(migrations)):
            for statement in split_statements(for_dialect(index, migrations[index], db.dialect)):
                await db.execute(statement)
        await set_version(db, len(migrations))
    return len(migrations) - current


def check_not_newer(current: int, migrations: Sequence[str] = MIGRATIONS) -> None:
    """:class:`SchemaVersionError` if a database at schema version ``current`` was written
    by a newer bot than one that knows ``migrations``."""
    if current > len(migrations):
        raise SchemaVersionError(current, len(migrations))
