"""The bot's database behind one connection, with transactions and repositories.

The connection is SQLite's (aiosqlite, the embedded default) or PostgreSQL's (asyncpg), chosen
by ``DATABASE_URL``; ``bot.storage.driver`` is all this module asks of either.

Concurrency model: the bot is one asyncio process with one connection. The driver runs one
statement at a time, but it would happily interleave the statements of two coroutines, and a
transaction belongs to the connection, not to a coroutine. So every unit of work (a
transaction, or a read) holds ``Database``'s asyncio lock: statements of one task's transaction
are never mixed with another task's, and no task reads another's uncommitted rows. On
PostgreSQL the same holds across processes because only the instance holding the lease writes.

A transaction begins with the driver's ``begin()`` (SQLite: ``BEGIN IMMEDIATE``, so a second
process waits on ``busy_timeout`` at BEGIN instead of failing half-way; PostgreSQL: ``BEGIN``),
and a nested ``transaction()`` in the same task joins the outer one through a SAVEPOINT.

Portability: the SQL in the repositories is plain (``INSERT ... ON CONFLICT``, ``RETURNING``,
``COALESCE``, ``EXISTS``, ``SAVEPOINT``), which PostgreSQL reads as is apart from the parameter
markers (the driver numbers them). What differs is kept in the drivers and the migrations:
the PRAGMAs, ``BEGIN IMMEDIATE``, the schema version and the ``games.id`` column.
``docs/architecture-storage.md`` has the details.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from types import TracebackType
from typing import Any, Final

from bot.storage.achievements import AchievementsRepository
from bot.storage.actions import ActionsRepository
from bot.storage.driver import Connection, DatabaseLocation, Dialect, Row, locate
from bot.storage.games import GamesRepository
from bot.storage.group_sends import GroupSendsRepository
from bot.storage.group_settings import GroupSettingsRepository
from bot.storage.history import HistoryRepository
from bot.storage.migrations import MIGRATIONS, check_not_newer, migrate, user_version
from bot.storage.players import PlayersRepository
from bot.storage.ratings import RatingsRepository
from bot.storage.results import ResultsRepository
from bot.storage.seasons import SeasonsRepository
from bot.storage.session import Params
from bot.storage.skills import SkillsRepository
from bot.storage.sqlite_driver import (
    DEFAULT_BUSY_TIMEOUT_MS,
    SqliteConnection,
    configure_sqlite,
    connect_sqlite,
)
from bot.storage.stats import StatsRepository

log = logging.getLogger(__name__)

#: a unit of work waiting this long for the lock is probably deadlocked; say so in the log
LOCK_WAIT_WARNING_SECONDS: Final = 10.0
#: pg_try_advisory_lock's key for the active instance's lease ("cardbot" + 2)
LEASE_KEY: Final = 0x63617264626F7402


class Database:
    """The bot's database: repositories as attributes, plus :meth:`transaction`. It is the
    :class:`~bot.storage.session.Session` its repositories work through.

    Build it with :func:`open_database`, which also runs the migrations.
    """

    def __init__(
        self, connection: Connection, *, location: DatabaseLocation, clock: Callable[[], float]
    ) -> None:
        self._connection = connection
        self.location = location
        #: ``sqlite`` or ``postgresql``: what the migrations and a few statements ask
        self.dialect: Dialect = connection.dialect
        #: the time source for created_at and default action times (tests pass a fake)
        self.clock = clock
        self._lock = asyncio.Lock()
        #: seconds a unit of work may wait for the lock before a warning is logged
        self.lock_wait_warning = LOCK_WAIT_WARNING_SECONDS
        # The task that holds the lock, and whether it opened a transaction or only reads.
        # A task, not a context variable: tasks spawned inside a transaction must not join it,
        # or their statements could land after the COMMIT.
        self._owner: asyncio.Task[Any] | None = None
        self._in_transaction = False
        self._savepoints = 0
        self._closed = False
        self.players = PlayersRepository(self)
        self.ratings = RatingsRepository(self)
        self.games = GamesRepository(self)
        self.actions = ActionsRepository(self)
        self.results = ResultsRepository(self)
        self.group_sends = GroupSendsRepository(self)
        self.group_settings = GroupSettingsRepository(self)
        self.stats = StatsRepository(self)
        self.history = HistoryRepository(self)
        self.skills = SkillsRepository(self)
        self.seasons = SeasonsRepository(self)
        self.achievements = AchievementsRepository(self)

    # -- life cycle --------------------------------------------------------------------------

    async def close(self) -> None:
        """Wait for the running unit of work to finish, then close. Closing twice is harmless."""
        if self._closed:
            return
        async with self._lock:
            if self._closed:
                return
            self._closed = True
            await self._connection.close()

    async def __aenter__(self) -> Database:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # -- units of work -----------------------------------------------------------------------

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        """``BEGIN`` ... ``COMMIT``; ``ROLLBACK`` when the block raises.

        Used again inside itself (by the same task) it joins the outer transaction through a
        savepoint: an exception that leaves the inner block undoes the inner block's writes,
        and, unless caught, the whole transaction.

        Do not await another task's database work inside a transaction: that task waits for
        this transaction's lock, and this one waits for it.
        """
        if self._holds_lock():
            if not self._in_transaction:
                raise RuntimeError("transaction() cannot start inside a read-only unit of work")
            async with self._savepoint():
                yield
            return
        async with self._locked():
            try:
                await self._connection.begin()
                self._in_transaction = True
                try:
                    yield
                except BaseException:
                    await self._connection.rollback()
                    raise
                try:
                    await self._connection.commit()
                except BaseException:
                    await self._connection.rollback()
                    raise
            finally:
                self._in_transaction = False
                self._savepoints = 0

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[None]:
        """Hold the lock for a few reads: they never see another task's uncommitted writes.

        Inside the task's own transaction it just joins it (and sees its writes).
        """
        if self._holds_lock():
            yield
            return
        async with self._locked():
            yield

    @asynccontextmanager
    async def _locked(self) -> AsyncIterator[None]:
        """Take the lock for the current task, warning when the wait is suspiciously long.

        The classic way to hang here is awaiting, inside a transaction, database work that runs
        in another task (``asyncio.gather``, or ``asyncio.wait_for`` before Python 3.12): that
        task waits for this lock forever. The warning names the holder to make it findable.
        """
        me = asyncio.current_task()
        warning = asyncio.get_running_loop().call_later(
            self.lock_wait_warning, self._warn_lock_wait, me
        )
        try:
            await self._lock.acquire()
        finally:
            warning.cancel()
        try:
            self._check_open()
            self._owner = me
            yield
        finally:
            self._owner = None
            self._lock.release()

    def _warn_lock_wait(self, waiter: asyncio.Task[Any] | None) -> None:
        holder = self._owner.get_name() if self._owner is not None else "nobody"
        log.warning(
            "task %s has waited %.0f s for the database lock held by task %s; is a "
            "transaction awaiting work of another task?",
            waiter.get_name() if waiter is not None else "?",
            self.lock_wait_warning,
            holder,
        )

    @asynccontextmanager
    async def _savepoint(self) -> AsyncIterator[None]:
        self._savepoints += 1
        name = f"sp_{self._savepoints}"  # depth-numbered: nested savepoints never share a name
        await self._connection.fetch(f"SAVEPOINT {name}")
        try:
            yield
        except BaseException:
            await self._connection.fetch(f"ROLLBACK TO SAVEPOINT {name}")
            await self._connection.fetch(f"RELEASE SAVEPOINT {name}")
            raise
        else:
            await self._connection.fetch(f"RELEASE SAVEPOINT {name}")
        finally:
            self._savepoints -= 1

    def _holds_lock(self) -> bool:
        return self._owner is not None and self._owner is asyncio.current_task()

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("the database is closed")

    # -- statements (for the repositories) ---------------------------------------------------

    async def execute(self, sql: str, params: Params = ()) -> None:
        """Run one statement inside the current unit of work (``RETURNING`` and
        :meth:`fetch_all` tell what it changed)."""
        self._check_unit_of_work()
        await self._connection.fetch(sql, params)

    async def fetch_one(self, sql: str, params: Params = ()) -> Row | None:
        """The first row of a query meant to give one row at most."""
        self._check_unit_of_work()
        rows = await self._connection.fetch(sql, params)
        return rows[0] if rows else None

    async def fetch_all(self, sql: str, params: Params = ()) -> list[Row]:
        self._check_unit_of_work()
        return list(await self._connection.fetch(sql, params))

    async def write(self, sql: str, params: Params = ()) -> list[Row]:
        """One statement as a unit of work of its own, and its ``RETURNING`` rows.

        A lone statement is atomic and durable by itself on both databases, so this costs one
        trip where ``transaction()`` costs three (BEGIN, the statement, COMMIT).
        Inside the task's own transaction it simply joins it.
        """
        if self._holds_lock():
            return await self.fetch_all(sql, params)
        async with self._locked():
            return await self.fetch_all(sql, params)

    def _check_unit_of_work(self) -> None:
        # A statement outside the lock could slip into another task's transaction: refuse it
        # loudly rather than corrupt someone else's unit of work.
        if not self._holds_lock():
            raise RuntimeError("run statements inside db.transaction() or db.reading()")

    # -- conveniences ------------------------------------------------------------------------

    async def schema_version(self) -> int:
        """How many migrations this database has had."""
        async with self.reading():
            return await user_version(self)

    async def take_lease(self) -> bool:
        """Try to become the active instance on this database: True when this connection
        holds the lease (now, or already).

        PostgreSQL: a session advisory lock on this very connection, so the lease ends exactly
        when the connection does (the process died, or the server ended a silent peer's
        session after its keepalives went unanswered), and a process whose connection is gone
        can no longer write either. SQLite: always True; one process per file is the flock's
        job (``bot.edge.startup.only_process``).
        """
        if self.dialect != "postgresql":
            return True
        async with self.reading():
            row = await self.fetch_one("SELECT pg_try_advisory_lock(?)", (LEASE_KEY,))
        return bool(row is not None and row[0])

    async def ping(self) -> None:
        """One round trip; raises when the database does not answer."""
        async with self.reading():
            await self.fetch_one("SELECT 1")

    async def journal_mode(self) -> str:
        """SQLite's: ``wal`` for a file database, ``memory`` for ``:memory:``; PostgreSQL has
        none (``""``)."""
        if not isinstance(self._connection, SqliteConnection):
            return ""
        async with self.reading():
            return await self._connection.journal_mode()


async def open_database(
    location: str | os.PathLike[str],
    *,
    clock: Callable[[], float] = time.time,
    migrations: Sequence[str] = MIGRATIONS,
    busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
) -> Database:
    """Open the database at ``location`` and bring its schema up to date.

    ``location`` is a SQLite path (created if need be; ``":memory:"`` gives a private
    in-memory database, for tests and the terminal game) or a ``DATABASE_URL``
    (``sqlite:///path``, ``postgresql://user:password@host/name``; see
    :func:`~bot.storage.driver.locate`).
    """
    where = locate(os.fspath(location))
    connection: Connection
    if where.dialect == "postgresql":
        # imported here: a bot on SQLite never loads asyncpg
        from bot.storage.postgres_driver import connect_postgres

        connection = await connect_postgres(where.target)
    else:
        connection = await connect_sqlite(where.target)
    try:
        db = Database(connection, location=where, clock=clock)
        # A newer bot's database is refused before anything is written to it: switching the
        # journal to WAL rewrites the file's header, and that newer bot may not expect it.
        # migrate() checks again under the write lock, for another process migrating meanwhile.
        check_not_newer(await db.schema_version(), migrations)
        if isinstance(connection, SqliteConnection):
            await configure_sqlite(
                connection, in_memory=where.in_memory, busy_timeout_ms=busy_timeout_ms
            )
        await migrate(db, migrations)
    except BaseException:
        await connection.close()
        raise
    return db
