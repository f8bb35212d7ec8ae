"""One SQLite database behind one aiosqlite connection, with transactions and repositories.

Concurrency model: the bot is one asyncio process with one connection. aiosqlite runs the
statements on a worker thread, one at a time, but it would happily interleave the statements of
two coroutines, and a transaction belongs to the connection, not to a coroutine. So every unit
of work (a transaction, or a read) holds ``Database``'s asyncio lock: statements of one task's
transaction are never mixed with another task's, and no task reads another's uncommitted rows.

A transaction is ``BEGIN IMMEDIATE`` (the write lock is taken up front, so a second process
waits on ``busy_timeout`` at BEGIN instead of failing half-way), and a nested ``transaction()``
in the same task joins the outer one through a SAVEPOINT.

Portability: the SQL in the repositories is plain (``INSERT ... ON CONFLICT``, ``RETURNING``,
``COALESCE``, ``EXISTS``, ``SAVEPOINT``), which PostgreSQL reads as is apart from the parameter
markers. What is SQLite's alone is kept here and in the migrations: the PRAGMAs,
``BEGIN IMMEDIATE`` and ``user_version``. ``docs/architecture-storage.md`` has the details.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, Final

import aiosqlite

from bot.storage.actions import ActionsRepository
from bot.storage.games import GamesRepository
from bot.storage.group_sends import GroupSendsRepository
from bot.storage.group_settings import GroupSettingsRepository
from bot.storage.history import HistoryRepository
from bot.storage.migrations import MIGRATIONS, check_not_newer, migrate, user_version
from bot.storage.players import PlayersRepository
from bot.storage.ratings import RatingsRepository
from bot.storage.results import ResultsRepository
from bot.storage.session import Params
from bot.storage.stats import StatsRepository

log = logging.getLogger(__name__)

#: how long a statement waits for another process's write lock before failing
DEFAULT_BUSY_TIMEOUT_MS: Final = 5_000
#: a unit of work waiting this long for the lock is probably deadlocked; say so in the log
LOCK_WAIT_WARNING_SECONDS: Final = 10.0
_MEMORY: Final = ":memory:"

class Database:
    """The bot's database: repositories as attributes, plus :meth:`transaction`. It is the
    :class:`~bot.storage.session.Session` its repositories work through.

    Build it with :func:`open_database`, which also runs the migrations.
    """

    def __init__(
        self, connection: aiosqlite.Connection, *, path: str, clock: Callable[[], float]
    ) -> None:
        self._connection = connection
        self.path = path
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
        """``BEGIN IMMEDIATE`` ... ``COMMIT``; ``ROLLBACK`` when the block raises.

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
                # SQLite: IMMEDIATE takes the write lock now (PostgreSQL: plain BEGIN).
                await self._connection.execute("BEGIN IMMEDIATE")
                self._in_transaction = True
                try:
                    yield
                except BaseException:
                    await self._rollback()
                    raise
                try:
                    await self._connection.execute("COMMIT")
                except sqlite3.Error:
                    await self._rollback()
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
        await self._connection.execute(f"SAVEPOINT {name}")
        try:
            yield
        except BaseException:
            await self._connection.execute(f"ROLLBACK TO SAVEPOINT {name}")
            await self._connection.execute(f"RELEASE SAVEPOINT {name}")
            raise
        else:
            await self._connection.execute(f"RELEASE SAVEPOINT {name}")
        finally:
            self._savepoints -= 1

    async def _rollback(self) -> None:
        # Some errors (a full disk, an interrupt) already rolled SQLite back; a second
        # ROLLBACK would raise and hide the error that matters.
        if not self._connection.in_transaction:
            return
        try:
            await self._connection.execute("ROLLBACK")
        except sqlite3.Error:
            log.exception("ROLLBACK failed; the original error follows")

    def _holds_lock(self) -> bool:
        return self._owner is not None and self._owner is asyncio.current_task()

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("the database is closed")

    # -- statements (for the repositories) ---------------------------------------------------

    # Each statement is one trip to aiosqlite's worker thread (execute_fetchall runs the
    # statement and reads its rows in one go; a cursor would cost a trip for the execute,
    # one for the fetch and one for the close). The trips, not SQLite, are most of the time.

    async def execute(self, sql: str, params: Params = ()) -> None:
        """Run one statement inside the current unit of work (``RETURNING`` and
        :meth:`fetch_all` tell what it changed)."""
        self._check_unit_of_work()
        await self._connection.execute_fetchall(sql, params)

    async def fetch_one(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        """The first row of a query meant to give one row at most."""
        self._check_unit_of_work()
        rows = await self._connection.execute_fetchall(sql, params)
        for row in rows:
            return row
        return None

    async def fetch_all(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        self._check_unit_of_work()
        rows: Iterable[sqlite3.Row] = await self._connection.execute_fetchall(sql, params)
        return list(rows)

    async def write(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        """One statement as a unit of work of its own, and its ``RETURNING`` rows.

        SQLite makes a lone statement atomic and durable by itself, so this costs one trip to
        the worker thread where ``transaction()`` costs three (BEGIN, the statement, COMMIT).
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
        """``PRAGMA user_version``: how many migrations this database has had."""
        async with self.reading():
            return await user_version(self)

    async def journal_mode(self) -> str:
        """``wal`` for a file database, ``memory`` for ``:memory:``."""
        async with self.reading():
            row = await self.fetch_one("PRAGMA journal_mode")
        return str(row[0]) if row is not None else ""


async def open_database(
    path: str | os.PathLike[str],
    *,
    clock: Callable[[], float] = time.time,
    migrations: Sequence[str] = MIGRATIONS,
    busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
) -> Database:
    """Open (creating if need be) the database at ``path`` and bring its schema up to date.

    ``":memory:"`` gives a private in-memory database (for tests and the terminal game).
    """
    location = os.fspath(path)
    in_memory = location in (_MEMORY, "")
    if not in_memory:
        # DATABASE_PATH may name a folder that does not exist yet (a fresh volume).
        Path(location).parent.mkdir(parents=True, exist_ok=True)
    # isolation_level=None: the sqlite3 module must not BEGIN on its own; transactions are
    # exactly the ones Database.transaction() opens.
    connection = await aiosqlite.connect(location, isolation_level=None)
    try:
        connection.row_factory = sqlite3.Row
        # A newer bot's database is refused before anything is written to it: switching the
        # journal to WAL rewrites the file's header, and that newer bot may not expect it.
        # migrate() checks again under the write lock, for another process migrating meanwhile.
        check_not_newer(await _schema_version_of(connection), migrations)
        if not in_memory:
            # WAL: readers never block the writer, and commits are one append to the log.
            await connection.execute("PRAGMA journal_mode = WAL")
        # NORMAL is durable across application crashes in WAL mode; only a power cut can lose
        # the last transactions, and never corrupts the file.
        await connection.execute("PRAGMA synchronous = NORMAL")
        await connection.execute("PRAGMA foreign_keys = ON")  # off by default in SQLite
        await connection.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms):d}")
        db = Database(connection, path=location, clock=clock)
        await migrate(db, migrations)
    except BaseException:
        await connection.close()
        raise
    return db


async def _schema_version_of(connection: aiosqlite.Connection) -> int:
    """``PRAGMA user_version`` read on the bare connection, before a :class:`Database` exists."""
    rows = list(await connection.execute_fetchall("PRAGMA user_version"))
    return int(rows[0][0]) if rows else 0
