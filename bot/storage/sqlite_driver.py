"""SQLite through aiosqlite: the embedded default (one file, or ``:memory:`` for tests)."""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import aiosqlite

from bot.storage.driver import ConstraintViolation, Dialect, Params, Row

log = logging.getLogger(__name__)

#: how long a statement waits for another process's write lock before failing
DEFAULT_BUSY_TIMEOUT_MS: Final = 5_000


class SqliteConnection:
    """One aiosqlite connection. Each statement is one trip to aiosqlite's worker thread
    (``execute_fetchall`` runs it and reads its rows in one go; a cursor would cost three
    trips), and the trips, not SQLite, are most of the time."""

    dialect: Dialect = "sqlite"

    def __init__(self, connection: aiosqlite.Connection) -> None:
        #: the aiosqlite connection (the benchmarks count its statements)
        self.aiosqlite = connection

    async def fetch(self, sql: str, params: Params = ()) -> Sequence[Row]:
        try:
            rows = await self.aiosqlite.execute_fetchall(sql, params)
        except sqlite3.IntegrityError as error:
            reason = str(error).upper()
            if "FOREIGN KEY" in reason:
                raise ConstraintViolation("foreign_key", str(error)) from error
            if "UNIQUE" in reason or "PRIMARY KEY" in reason:
                raise ConstraintViolation("unique", str(error)) from error
            raise ConstraintViolation("other", str(error)) from error
        return list(rows)

    async def begin(self) -> None:
        # IMMEDIATE takes the write lock now: a second process waits on busy_timeout at
        # BEGIN instead of failing half-way through the transaction.
        await self.aiosqlite.execute("BEGIN IMMEDIATE")

    async def commit(self) -> None:
        await self.aiosqlite.execute("COMMIT")

    async def rollback(self) -> None:
        # Some errors (a full disk, an interrupt) already rolled SQLite back; a second
        # ROLLBACK would raise and hide the error that matters.
        if not self.aiosqlite.in_transaction:
            return
        try:
            await self.aiosqlite.execute("ROLLBACK")
        except sqlite3.Error:
            log.exception("ROLLBACK failed; the original error follows")

    async def close(self) -> None:
        await self.aiosqlite.close()

    async def journal_mode(self) -> str:
        rows = list(await self.aiosqlite.execute_fetchall("PRAGMA journal_mode"))
        return str(rows[0][0]) if rows else ""


async def connect_sqlite(location: str) -> SqliteConnection:
    """Open (creating if need be) the SQLite database at ``location`` (``:memory:``: private).

    The schema version is checked by the caller before anything writes to the file.
    """
    in_memory = location in ("", ":memory:")
    if not in_memory:
        # DATABASE_PATH may name a folder that does not exist yet (a fresh volume).
        Path(location).parent.mkdir(parents=True, exist_ok=True)
    # isolation_level=None: the sqlite3 module must not BEGIN on its own; transactions are
    # exactly the ones Database.transaction() opens.
    connection = await aiosqlite.connect(os.fspath(location), isolation_level=None)
    connection.row_factory = sqlite3.Row
    return SqliteConnection(connection)


async def configure_sqlite(
    connection: SqliteConnection, *, in_memory: bool, busy_timeout_ms: int
) -> None:
    """The PRAGMAs, once the schema version said the file is ours to write."""
    raw = connection.aiosqlite
    if not in_memory:
        # WAL: readers never block the writer, and commits are one append to the log.
        await raw.execute("PRAGMA journal_mode = WAL")
    # NORMAL is durable across application crashes in WAL mode; only a power cut can lose
    # the last transactions, and never corrupts the file.
    await raw.execute("PRAGMA synchronous = NORMAL")
    await raw.execute("PRAGMA foreign_keys = ON")  # off by default in SQLite
    await raw.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms):d}")
