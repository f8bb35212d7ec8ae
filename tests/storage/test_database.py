"""The connection's settings and the transaction machinery."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.storage import MIGRATIONS, Database, open_database
from tests.storage.conftest import FakeClock, add_players, new_game


async def pragma(db: Database, name: str) -> object:
    async with db.reading():
        row = await db.fetch_one(f"PRAGMA {name}")
    assert row is not None
    return row[0]


async def test_a_file_database_is_in_wal_mode(db_path: Path) -> None:
    async with await open_database(db_path) as db:
        assert await db.journal_mode() == "wal"


async def test_the_connection_settings(db_path: Path) -> None:
    async with await open_database(db_path) as db:
        assert await pragma(db, "foreign_keys") == 1
        assert await pragma(db, "synchronous") == 1  # NORMAL
        assert await pragma(db, "busy_timeout") == 5000


async def test_an_in_memory_database_works(clock: FakeClock) -> None:
    db = await open_database(":memory:", clock=clock)
    try:
        assert await db.journal_mode() == "memory"
        assert await db.schema_version() == len(MIGRATIONS)
        await add_players(db, 1)
        assert await db.players.get(1) is not None
    finally:
        await db.close()


async def test_open_creates_a_missing_folder(tmp_path: Path) -> None:
    db = await open_database(tmp_path / "data" / "deeper" / "bot.sqlite3")
    await db.close()
    assert (tmp_path / "data" / "deeper" / "bot.sqlite3").exists()


async def test_closing_twice_is_harmless_and_a_closed_database_refuses_work(
    db: Database,
) -> None:
    await db.close()
    await db.close()
    with pytest.raises(RuntimeError, match="closed"):
        await db.players.get(1)


async def test_the_database_is_an_async_context_manager(db_path: Path) -> None:
    async with await open_database(db_path) as db:
        await add_players(db, 1)
    with pytest.raises(RuntimeError):
        await db.players.get(1)


async def test_a_statement_outside_a_unit_of_work_is_refused(db: Database) -> None:
    with pytest.raises(RuntimeError, match="transaction"):
        await db.execute("SELECT 1")


async def test_rollback_on_exception_leaves_nothing(db: Database) -> None:
    await add_players(db, 1)
    with pytest.raises(ZeroDivisionError):
        async with db.transaction():
            await add_players(db, 2)
            game = await new_game(db, users=(1, 2))
            await db.actions.append(game_id=game.id, seq=0, seat=0, kind="play", cards="♠3")
            await db.players.set_language(user_id=1, language="en")
            1 / 0  # noqa: B018 - the failure under test
    assert await db.players.get(2) is None
    assert await db.games.unfinished() == []
    player = await db.players.get(1)
    assert player is not None and player.language is None


async def test_a_cancelled_transaction_rolls_back_and_the_database_stays_usable(
    db: Database,
) -> None:
    inside = asyncio.Event()

    async def writer() -> None:
        async with db.transaction():
            await add_players(db, 1)
            inside.set()
            await asyncio.sleep(3600)

    task = asyncio.create_task(writer())
    await inside.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await db.players.get(1) is None
    await add_players(db, 2)
    assert await db.players.get(2) is not None


async def test_a_nested_transaction_joins_the_outer_one(db: Database) -> None:
    with pytest.raises(LookupError):
        async with db.transaction():
            async with db.transaction():
                await add_players(db, 1)
            # the inner block is done, but nothing is committed until the outer one is
            raise LookupError
    assert await db.players.get(1) is None

    async with db.transaction():
        async with db.transaction():
            await add_players(db, 2)
        assert await db.players.get(2) is not None  # the outer transaction sees it
    assert await db.players.get(2) is not None


async def test_a_caught_failure_inside_undoes_only_the_inner_block(db: Database) -> None:
    async with db.transaction():
        await add_players(db, 1)
        with pytest.raises(ValueError):
            async with db.transaction():
                await add_players(db, 2)
                raise ValueError("inner")
        await add_players(db, 3)
    assert await db.players.get(1) is not None
    assert await db.players.get(2) is None
    assert await db.players.get(3) is not None


async def test_an_uncaught_inner_failure_undoes_everything(db: Database) -> None:
    with pytest.raises(ValueError):
        async with db.transaction():
            await add_players(db, 1)
            async with db.transaction():
                await add_players(db, 2)
                raise ValueError("inner")
    assert await db.players.get(1) is None
    assert await db.players.get(2) is None


async def test_a_write_outside_a_transaction_commits_on_its_own(
    db: Database, database_url: str
) -> None:
    await add_players(db, 1)
    other = await open_database(database_url)  # a second connection sees only committed rows
    try:
        assert await other.players.get(1) is not None
    finally:
        await other.close()


async def test_concurrent_transactions_do_not_interleave(db: Database) -> None:
    """Many tasks each read a value, yield to the loop, then write it back plus one: any
    interleaving would lose updates, and the trace would show overlapping bodies."""
    await db.players.upsert(user_id=1, name="0")
    trace: list[tuple[str, int]] = []

    async def bump(index: int) -> None:
        async with db.transaction():
            trace.append(("begin", index))
            player = await db.players.get(1)
            assert player is not None
            await asyncio.sleep(0)  # give every other task a chance to barge in
            await db.players.upsert(user_id=1, name=str(int(player.name) + 1))
            trace.append(("end", index))

    await asyncio.gather(*(bump(index) for index in range(50)))
    player = await db.players.get(1)
    assert player is not None and player.name == "50"
    for position in range(0, len(trace), 2):
        (first, a), (second, b) = trace[position], trace[position + 1]
        assert (first, second) == ("begin", "end") and a == b


async def test_a_read_waits_for_another_tasks_transaction(db: Database) -> None:
    written = asyncio.Event()
    release = asyncio.Event()

    async def writer() -> None:
        async with db.transaction():
            await add_players(db, 1)
            written.set()
            await release.wait()

    writing = asyncio.create_task(writer())
    await written.wait()
    reading = asyncio.create_task(db.players.get(1))
    await asyncio.sleep(0.01)
    assert not reading.done()  # it must not read the uncommitted row mid-transaction
    release.set()
    await writing
    assert await reading is not None


async def test_stats_is_the_rating(db: Database) -> None:
    rating = await db.ratings.get(user_id=1, game="shuangkou")
    assert rating == await db.ratings.get(user_id=1, game="shuangkou")
    assert (rating.score, rating.games, rating.wins) == (0, 0, 0)


async def test_a_long_wait_for_the_lock_is_logged(
    db: Database, caplog: pytest.LogCaptureFixture
) -> None:
    db.lock_wait_warning = 0.01
    release = asyncio.Event()

    async def holder() -> None:
        async with db.transaction():
            await release.wait()

    holding = asyncio.create_task(holder(), name="holder")
    await asyncio.sleep(0)
    waiting = asyncio.create_task(db.players.get(1), name="waiter")
    await asyncio.sleep(0.05)
    release.set()
    await holding
    assert await waiting is None
    [warning] = [r for r in caplog.records if "database lock" in r.getMessage()]
    assert "waiter" in warning.getMessage() and "holder" in warning.getMessage()
