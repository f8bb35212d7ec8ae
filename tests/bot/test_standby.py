"""The lease on PostgreSQL: one holder at a time, a standby that waits and takes over when the
holder's connection ends, a standby that stops when asked, and the heartbeat that notices a
lost connection. (End to end, with processes and a game: tests/e2e/test_standby.py.)"""

from __future__ import annotations

import asyncio

import asyncpg

from bench.pgcluster import Cluster
from bot.edge.standby import Heartbeat, wait_until_active
from bot.storage import open_database
from tests.conftest import fresh_postgres_database


async def test_one_holder_and_a_standby_that_takes_over(postgres_cluster: Cluster) -> None:
    url = await fresh_postgres_database(postgres_cluster)
    active, standby = await open_database(url), await open_database(url)
    try:
        assert await active.take_lease() and await active.take_lease()  # held, and again
        assert not await standby.take_lease()
        waiting = asyncio.ensure_future(wait_until_active(standby, poll=0.05))
        await asyncio.sleep(0.2)
        assert not waiting.done()
        await active.close()  # the process died: its session, and the lock, end with it
        assert await asyncio.wait_for(waiting, 10) is True
        third = await open_database(url)
        try:
            assert not await third.take_lease()
        finally:
            await third.close()
    finally:
        await active.close()
        await standby.close()


async def test_a_waiting_standby_stops_when_asked(postgres_cluster: Cluster) -> None:
    url = await fresh_postgres_database(postgres_cluster)
    async with await open_database(url) as active, await open_database(url) as standby:
        assert await active.take_lease()
        stopping = asyncio.Event()
        waiting = asyncio.ensure_future(wait_until_active(standby, stopping=stopping, poll=30))
        await asyncio.sleep(0.1)
        stopping.set()
        assert await asyncio.wait_for(waiting, 5) is False


async def test_sqlite_needs_no_lease(tmp_path) -> None:
    async with await open_database(tmp_path / "bot.sqlite3") as db:
        assert await wait_until_active(db) is True


async def test_the_heartbeat_notices_a_lost_connection(postgres_cluster: Cluster) -> None:
    url = await fresh_postgres_database(postgres_cluster)
    db = await open_database(url)
    lost = asyncio.Event()
    heartbeat = Heartbeat(db, lost.set, interval=0.05, timeout=2)
    heartbeat.start()
    try:
        assert await db.take_lease()
        await asyncio.sleep(0.2)
        assert not lost.is_set()  # beats while the connection is fine
        admin = await asyncpg.connect(postgres_cluster.url())
        try:
            await admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1",
                url.rsplit("/", 1)[1],
            )
        finally:
            await admin.close()
        await asyncio.wait_for(lost.wait(), 10)
    finally:
        await heartbeat.stop()
        await db.close()
