"""Migrations: applied once, in order, all or nothing; the schema version counts them. On both
databases (``database_url``), but for the tests of a SQLite file's own bytes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import asyncpg
import pytest

from bot.storage import MIGRATIONS, Database, SchemaVersionError, open_database
from bot.storage.migrations import migrate, set_version, split_statements
from tests.storage.conftest import add_players, new_game


async def schema(db: Database) -> list[tuple[str, str]]:
    """Every table and index with its definition."""
    async with db.reading():
        if db.dialect == "postgresql":
            rows = await db.fetch_all(
                "SELECT indexname AS name, indexdef AS sql FROM pg_indexes"
                " WHERE schemaname = 'public'"
                " UNION ALL SELECT table_name, string_agg(column_name || ' ' || data_type, ', '"
                " ORDER BY ordinal_position) FROM information_schema.columns"
                " WHERE table_schema = 'public' GROUP BY table_name ORDER BY name"
            )
        else:
            rows = await db.fetch_all("SELECT name, sql FROM sqlite_master ORDER BY name")
    return [(row["name"], row["sql"]) for row in rows]


async def test_a_new_database_is_at_the_latest_version(db: Database) -> None:
    assert await db.schema_version() == len(MIGRATIONS)
    names = {name for name, _ in await schema(db)}
    assert {"players", "ratings", "games", "actions", "results"} <= names
    assert {"games_chat_status", "games_status", "games_one_open_per_chat"} <= names


async def test_reopening_keeps_the_data_and_applies_nothing(database_url: str) -> None:
    db = await open_database(database_url)
    await add_players(db, 1, 2, 3, 4)
    game = await new_game(db)
    await db.actions.append(game_id=game.id, seq=0, seat=0, kind="play", cards="♠3 ♥3")
    before = await schema(db)
    await db.close()

    db = await open_database(database_url)
    try:
        assert await db.schema_version() == len(MIGRATIONS)
        assert await schema(db) == before
        assert await migrate(db) == 0  # already current: nothing to apply
        assert await db.players.get(4) is not None
        assert await db.games.get(game.id) == game
        [action] = await db.actions.list(game.id)
        assert action.cards == "♠3 ♥3"
        if db.dialect == "sqlite":
            assert await db.journal_mode() == "wal"
    finally:
        await db.close()


async def test_migrating_twice_is_idempotent(db: Database) -> None:
    before = await schema(db)
    assert await migrate(db) == 0
    assert await migrate(db) == 0
    assert await schema(db) == before
    assert await db.schema_version() == len(MIGRATIONS)


async def test_an_upgrade_applies_only_the_missing_migrations(database_url: str) -> None:
    db = await open_database(database_url)
    await add_players(db, 1)
    await db.close()

    upgraded = (*MIGRATIONS, "ALTER TABLE players ADD COLUMN nickname TEXT;")
    db = await open_database(database_url, migrations=upgraded)
    try:
        assert await db.schema_version() == len(MIGRATIONS) + 1
        assert await db.players.get(1) is not None
        async with db.reading():
            row = await db.fetch_one("SELECT nickname FROM players WHERE user_id = 1")
        assert row is not None and row["nickname"] is None
    finally:
        await db.close()


async def test_a_failing_migration_changes_nothing(database_url: str) -> None:
    db = await open_database(database_url)
    await db.close()

    broken = (*MIGRATIONS, "CREATE TABLE half_done (x INTEGER);\nSELECT * FROM no_such_table;")
    refused = (sqlite3.OperationalError, asyncpg.exceptions.UndefinedTableError)
    with pytest.raises(refused, match="no_such_table"):  # the driver's own error
        await open_database(database_url, migrations=broken)

    db = await open_database(database_url)
    try:
        assert await db.schema_version() == len(MIGRATIONS)
        assert "half_done" not in {name for name, _ in await schema(db)}
    finally:
        await db.close()


async def test_a_database_from_a_newer_bot_is_refused(database_url: str) -> None:
    db = await open_database(database_url)
    async with db.transaction():
        await set_version(db, len(MIGRATIONS) + 1)
    await db.close()
    with pytest.raises(SchemaVersionError, match="newer") as refused:
        await open_database(database_url)
    assert (refused.value.found, refused.value.known) == (len(MIGRATIONS) + 1, len(MIGRATIONS))


def newer_database(path: Path, version: int = 999) -> bytes:
    """A database as a future bot might leave it (a rollback journal, a table this bot has
    never heard of, ``user_version`` past ours); returns its bytes."""
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE from_the_future (x INTEGER)")
    connection.execute("INSERT INTO from_the_future VALUES (42)")
    connection.execute(f"PRAGMA user_version = {version:d}")
    connection.commit()
    connection.close()
    return path.read_bytes()


async def test_a_database_from_a_newer_bot_is_left_exactly_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "future.sqlite3"
    before = newer_database(path)
    with pytest.raises(SchemaVersionError) as refused:
        await open_database(path)
    assert (refused.value.found, refused.value.known) == (999, len(MIGRATIONS))
    assert "schema version 999" in str(refused.value)
    assert f"knows up to {len(MIGRATIONS)}" in str(refused.value)
    # not even switched to WAL (a header change), and no WAL file beside it
    assert path.read_bytes() == before
    assert not (tmp_path / "future.sqlite3-wal").exists()


def test_statements_split_where_they_really_end() -> None:
    script = """
    -- a comment; with a semicolon
    CREATE TABLE a (x TEXT DEFAULT 'p;q');
    INSERT INTO a VALUES ('1;2');  -- trailing comment
    -- a last comment
    """
    statements = split_statements(script)
    assert len(statements) == 2
    assert statements[0].endswith("DEFAULT 'p;q');")
    assert statements[1].startswith("INSERT")


def test_an_unterminated_statement_is_an_error() -> None:
    with pytest.raises(ValueError, match="unterminated"):
        split_statements("CREATE TABLE a (x TEXT);\nCREATE TABLE b (y TEXT)")


def test_every_migration_splits_cleanly() -> None:
    for script in MIGRATIONS:
        assert split_statements(script)


async def test_a_version_1_database_gains_fixed_scores_and_keeps_its_games(
    database_url: str,
) -> None:
    """The 逃跑 migration (v2): a game stored before it reads as nobody deserted, and the
    new column then stores a desertion's fixed scores."""
    db = await open_database(database_url, migrations=MIGRATIONS[:1])
    try:
        assert await db.schema_version() == 1
        async with db.transaction():  # the repositories read the new column: write raw SQL
            await db.execute(
                "INSERT INTO games (id, chat_id, variant, status, seats, seed, created_at,"
                " escaped) VALUES (7, -1, 'shuangkou', 'playing', '[]', '3', 0, '[false]')"
            )
    finally:
        await db.close()
    db = await open_database(database_url)
    try:
        assert await db.schema_version() == len(MIGRATIONS)
        upgraded = await db.games.get(7)
        assert upgraded is not None and upgraded.fixed_scores == ()
        assert upgraded.status == "playing" and upgraded.seed == 3
        await db.games.save(7, fixed_scores=[-20, None, None, None])
        saved = await db.games.get(7)
        assert saved is not None and saved.fixed_scores == (-20, None, None, None)
    finally:
        await db.close()


async def test_a_version_3_database_gains_each_players_score_after_every_game(
    database_url: str,
) -> None:
    """v4: the score after each game, filled in for the games already played as the sum of
    the player's applied deltas in the variant, in the order the games finished."""
    db = await open_database(database_url, migrations=MIGRATIONS[:3])
    try:
        await add_players(db, 1, 2)
        async with db.transaction():  # the repositories read the new column: write raw SQL
            # game 5 finished before game 4; game 6 is the other variant
            for game_id, variant, finished in ((4, "shuangkou", 100), (5, "shuangkou", 90),
                                               (6, "paowang", 95)):
                await db.execute(
                    "INSERT INTO games (id, chat_id, variant, status, seats, seed, created_at,"
                    " finished_at) VALUES (?, -1, ?, 'finished', '[]', '3', 0, ?)",
                    (game_id, variant, finished),
                )
            rows = [
                (4, 0, 1, -1), (4, 1, 2, 1), (4, 2, None, 1),
                (5, 0, 1, 2), (5, 1, 2, -2),
                (6, 0, 1, 30), (6, 1, 2, -30),
            ]
            for game_id, seat, user, delta in rows:
                await db.execute(
                    "INSERT INTO results (game_id, seat, user_id, delta, adjusted_delta, won)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    (game_id, seat, user, delta, delta, delta > 0),
                )
    finally:
        await db.close()
    db = await open_database(database_url)
    try:
        after = {
            game_id: [row.score_after for row in await db.results.for_game(game_id)]
            for game_id in (4, 5, 6)
        }
        assert after == {5: [2, -2], 4: [1, -1, None], 6: [30, -30]}
    finally:
        await db.close()


async def test_a_version_4_database_gains_group_settings_and_keeps_its_games(
    database_url: str,
) -> None:
    """v5: a table for the groups' settings, and each game's own options (NULL for the games
    from before: they play by the environment's)."""
    db = await open_database(database_url, migrations=MIGRATIONS[:4])
    try:
        async with db.transaction():  # the repositories write the new column: raw SQL
            await db.execute(
                "INSERT INTO games (id, chat_id, variant, status, seats, seed, created_at)"
                " VALUES (7, -100, 'shuangkou', 'playing', '[]', '3', 0)"
            )
        game_id = 7
    finally:
        await db.close()
    db = await open_database(database_url)
    try:
        record = await db.games.get(game_id)
        assert record is not None and record.options is None
        assert (await db.group_settings.get(-100)).revision == 0
        changed = await db.group_settings.change(-100, "computers", False, revision=0, by=1, at=1)
        assert changed is not None and changed.changes == {"computers": False}
    finally:
        await db.close()
