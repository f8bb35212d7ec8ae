"""Fixtures shared by every test folder: the fake Bot API server (``fake_telegram``,
``fake_telegram_options``) and the databases a test can run on (``database_url``).

``database_url`` is parametrized: a test that takes it runs once on SQLite (a fresh file) and
once on PostgreSQL (a fresh database in the run's throwaway cluster, ``bench/pgcluster.py``).
Where PostgreSQL cannot run, the PostgreSQL half is skipped with what to install, and
``REQUIRE_POSTGRESQL=1`` (set by ``make test`` once it installed the server) makes that a
failure instead of a skip.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bench.pgcluster import Cluster, create_database, missing_reason, throwaway_cluster
from bot.storage import Database, open_database
from fakebot.fixtures import fake_telegram, fake_telegram_options

__all__ = ["fake_telegram", "fake_telegram_options"]

BACKENDS = ("sqlite", "postgresql")
_names = itertools.count(1)


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[Cluster]:
    """The run's PostgreSQL cluster (one per xdist worker), started on first use."""
    reason = missing_reason()
    if reason is not None:
        if os.environ.get("REQUIRE_POSTGRESQL"):
            pytest.fail(reason)
        pytest.skip(reason)
    with throwaway_cluster() as cluster:
        yield cluster


async def fresh_postgres_database(cluster: Cluster) -> str:
    """A new empty database in ``cluster``; its URL."""
    return await create_database(cluster, f"test_{os.getpid()}_{next(_names)}")


@pytest.fixture
async def database(database_url: str) -> AsyncIterator[Database]:
    """A fresh database opened on ``database_url`` (so: on SQLite, then on PostgreSQL)."""
    opened = await open_database(database_url)
    try:
        yield opened
    finally:
        await opened.close()


@pytest.fixture(params=BACKENDS)
async def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """A fresh, empty database: a SQLite file's URL, then a PostgreSQL database's."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'bot.sqlite3'}"
        return
    cluster: Cluster = request.getfixturevalue("postgres_cluster")
    yield await fresh_postgres_database(cluster)
