"""``python -m bot copy-db``: a SQLite database with real games (humans and computers, both
kinds, a lobby, a group's settings) copied to PostgreSQL, counted and replayed; a target that is
not empty refused; a stored result the log does not give found."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from bench.pgcluster import Cluster
from bot.cli.copydb import copy_db
from bot.game.variants import PAOWANG, SHUANGKOU
from bot.storage import Database, open_database
from bot.storage.copy import TABLES, copy_database, counts, tables_of
from bot.storage.driver import ConstraintViolation
from tests.bot.harness import running_service, user, wait_until
from tests.bot.test_service import GROUP, _computers_only, _humans_and_computers, _play_humans
from tests.conftest import fresh_postgres_database
from tests.storage.conftest import add_players


async def filled(path: Path) -> Path:
    """A SQLite database as a bot that played a while leaves it."""
    db = await open_database(path)
    try:
        async with running_service(db) as (service, messenger):
            table, people = await _humans_and_computers(service, messenger, SHUANGKOU, 2)
            await _play_humans(service, messenger, table, people)
            await table.channel.drain()
            table = await _computers_only(service, PAOWANG)
            await wait_until(lambda: table.status == "finished", messenger.changed)
            await table.channel.drain()
            await service.new_game(chat_id=-200, chat_title="h", opener=user(5),
                                   variant=SHUANGKOU)
        await db.group_settings.change(GROUP, "computers", False, revision=0, by=10, at=1.0)
    finally:
        await db.close()
    return path


async def test_every_table_of_the_schema_is_copied(database_url: str) -> None:
    async with await open_database(database_url) as db:
        assert await tables_of(db) == {table for table, _ in TABLES}


async def test_a_sqlite_database_moves_to_postgresql_whole(
    tmp_path: Path, postgres_cluster: Cluster
) -> None:
    source = f"sqlite:///{await filled(tmp_path / 'bot.sqlite3')}"
    target = await fresh_postgres_database(postgres_cluster)
    out = io.StringIO()
    assert await copy_db(source, target, out) == 0, out.getvalue()
    report = out.getvalue()
    assert "3 games with the same log, every finished one replayed" in report
    async with await open_database(source) as old, await open_database(target) as new:
        assert await counts(old) == await counts(new)
        assert (await counts(new))["actions"] > 40
        rating = await new.ratings.get(user_id=10, game="shuangkou")
        assert rating == await old.ratings.get(user_id=10, game="shuangkou")
        assert rating.games == 1
        assert (await new.group_settings.get(GROUP)).changes == {"computers": False}
        # the new database goes on numbering games after the copied ones
        await add_players(new, 77)
        async with new.transaction():
            await new.execute("UPDATE games SET status = 'cancelled' WHERE chat_id = -200")
        game = await new.games.create(chat_id=-200, variant="shuangkou", opener_id=77,
                                      seats=[], seed=1)
        assert game.id == 4


async def test_a_target_that_holds_data_is_refused_and_left_alone(
    tmp_path: Path, database_url: str
) -> None:
    source = f"sqlite:///{await filled(tmp_path / 'source.sqlite3')}"
    async with await open_database(database_url) as target:
        await add_players(target, 1)
    out = io.StringIO()
    assert await copy_db(source, database_url, out) == 1
    assert "refused: the target is not empty: {'players': 1}" in out.getvalue()
    async with await open_database(database_url) as target:
        assert (await counts(target))["players"] == 1


async def test_a_stored_result_its_log_does_not_give_is_found(tmp_path: Path) -> None:
    path = await filled(tmp_path / "source.sqlite3")
    async with await open_database(path) as db:
        await _tamper(db)
    out = io.StringIO()
    assert await copy_db(str(path), f"sqlite:///{tmp_path / 'copy.sqlite3'}", out) == 1
    assert "game 1: seat 0 replays to" in out.getvalue()


async def _tamper(db: Database) -> None:
    async with db.transaction():
        await db.execute("UPDATE results SET delta = delta + 100 WHERE game_id = 1 AND seat = 0")


async def test_the_copy_is_whole_or_absent(tmp_path: Path, database_url: str) -> None:
    """A row the target refuses (here: a result naming a player the source does not have,
    written with SQLite's foreign keys off) leaves the target as empty as it was."""
    path = await filled(tmp_path / "source.sqlite3")
    async with await open_database(path) as source, await open_database(database_url) as target:
        async with source.reading():  # outside a transaction, where the PRAGMA takes effect
            await source.execute("PRAGMA foreign_keys = OFF")
        async with source.transaction():
            await source.execute(
                "UPDATE results SET user_id = 4242 WHERE game_id = 1 AND seat = 0"
            )
        with pytest.raises(ConstraintViolation):
            await copy_database(source, target)
        assert set((await counts(target)).values()) == {0}


def test_the_command_line_copies_and_says_so(tmp_path: Path) -> None:
    source, target = tmp_path / "a.sqlite3", tmp_path / "b.sqlite3"
    done = subprocess.run(
        [sys.executable, "-m", "bot", "copy-db", "--from", str(source),
         "--to", f"sqlite:///{target}"],
        capture_output=True, text=True, timeout=120, cwd=Path(__file__).resolve().parents[1],
    )
    assert done.returncode == 0, done.stderr
    assert "players: 0 rows" in done.stdout and "checked: the same rows" in done.stdout
    assert target.exists()
